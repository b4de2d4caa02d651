"""A league's results: ratings, win shares and head-to-head figures, as JSON, Markdown and a plot.

:func:`summarise_league` turns the games of a league's matches
(:mod:`big2.evaluation.league`) into a :class:`LeagueResult`:

- per agent (ranked by rating): its OpenSkill ``rating`` (mu) and ``sigma``, its
  ``win_share`` and ``mean_score`` per seat over every game it sat in (a game with three
  copies of it counts each seat, so 0.25 is parity as in the arena), their 95% intervals
  (the win share's Wilson's, :mod:`big2.evaluation.stats`) over (match, deal) pairs (a
  pair's value is the agent's mean over its seats of the deal's four games), and
  ``games``, the games it sat in;
- per match (``head_to_head``): the single agent's win share and mean score against three
  of the other, with 95% intervals over deals, as the arena reports them (no win-share
  interval, None, from one deal).

>>> result = summarise_league(("greedy", "random"), "standard", 1, 0, {
...     (0, 1): [[((20, -5, -10, -5), 0)] * 4], (1, 0): [[((-9, 3, 2, 4), 1)] * 4]})
>>> [(a.spec, round(a.win_share, 3), a.games) for a in result.agents]
[('greedy', 0.667, 8), ('random', 0.0, 8)]
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from big2.evaluation.arena import Seating
from big2.evaluation.ratings import Ratings
from big2.evaluation.stats import Interval, interval_text, mean, normal_ci, share_ci

Match = tuple[int, int]  # (the agent in one seat, the agent in the other three), by index
Games = list[list[Seating]]  # a match's games: per deal, per rotation, by seat slot


@dataclass(frozen=True)
class Standing:
    """One agent's place in the league."""

    spec: str
    rating: float
    sigma: float
    win_share: float
    win_share_ci: Interval | None
    mean_score: float
    mean_score_ci: Interval
    games: int


@dataclass(frozen=True)
class HeadToHead:
    """One match: ``one`` in one seat against three of ``three``, ``one``'s figures."""

    one: str
    three: str
    games: int
    win_share: float
    win_share_ci: Interval | None
    mean_score: float
    mean_score_ci: Interval


@dataclass(frozen=True)
class LeagueResult:
    """What a league found (see the module docstring); ``agents`` ranked by rating."""

    agents: tuple[Standing, ...]
    head_to_head: tuple[HeadToHead, ...]
    rules: str
    deals: int
    seed: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def markdown(self) -> str:
        """The leaderboard and the head-to-head table, in Markdown."""
        return "\n".join([*_ranking(self), "", *_matrix(self)]) + "\n"

    def write(self, folder: Path) -> None:
        """``league.json``, ``leaderboard.md`` and ``league.png`` in ``folder``."""
        (folder / "league.json").write_text(self.to_json() + "\n", encoding="utf-8")
        (folder / "leaderboard.md").write_text(self.markdown(), encoding="utf-8")
        plot(self, folder / "league.png")


def summarise_league(
    agents: Sequence[str], rules: str, deals: int, seed: int, games: Mapping[Match, Games]
) -> LeagueResult:
    """The :class:`LeagueResult` of every match's ``games``, rated in the league's order."""
    ratings = Ratings(agents)
    order = sorted(games)  # the order of league.matches
    for deal in range(deals):
        for i, j in order:
            for scores, winner in games[i, j][deal]:
                seats = [agents[i], *[agents[j]] * (len(scores) - 1)]
                ratings.rate(seats, scores, winner)
    standings = [_standing(a, k, ratings, games) for k, a in enumerate(agents)]
    ranked = sorted(standings, key=lambda s: -s.rating)  # stable: ties keep the given order
    duels = [_head_to_head(agents[i], agents[j], games[i, j]) for i, j in order]
    return LeagueResult(tuple(ranked), tuple(duels), rules, deals, seed)


def _standing(spec: str, k: int, ratings: Ratings, games: Mapping[Match, Games]) -> Standing:
    """Agent ``k``'s figures over every (match, deal) it sat in."""
    wins: list[float] = []
    scores: list[float] = []
    for (i, j), deals in sorted(games.items()):  # a fixed order: the same sums
        for deal in deals if k in (i, j) else []:
            players = len(deal[0][0])
            slots = [0] if k == i else list(range(1, players))
            seats = len(slots) * len(deal)
            wins.append(sum(w in slots for _, w in deal) / seats)
            scores.append(sum(s[slot] for s, _ in deal for slot in slots) / seats)
    sat = _games_sat(k, games)
    figures = (mean(wins), share_ci(wins, sat), mean(scores), normal_ci(scores))
    return Standing(spec, ratings.mu(spec), ratings.sigma(spec), *figures, games=sat)


def _games_sat(k: int, games: Mapping[Match, Games]) -> int:
    """The games agent ``k`` sat in (once for every game of a match it played)."""
    return sum(len(deal) for (i, j), deals in games.items() if k in (i, j) for deal in deals)


def _head_to_head(one: str, three: str, deals: Games) -> HeadToHead:
    wins = [sum(w == 0 for _, w in deal) / len(deal) for deal in deals]
    scores = [sum(s[0] for s, _ in deal) / len(deal) for deal in deals]
    games = sum(len(deal) for deal in deals)
    figures = (mean(wins), share_ci(wins, games), mean(scores), normal_ci(scores))
    return HeadToHead(one, three, games, *figures)


def _ranking(result: LeagueResult) -> list[str]:
    seatings = f"{result.deals} duplicate deals x 4 seatings a match"
    lines = [
        f"# League: {len(result.agents)} agents, {result.rules} rules, seed {result.seed}",
        "",
        f"Every agent in one seat against three of every other, both ways round; {seatings}.",
        "Rating: OpenSkill (Plackett-Luce) mu and sigma; win share and mean score per seat",
        "over every game the agent sat in, with 95% intervals.",
        "",
        "| rank | agent | rating (sigma) | win share [95% CI] | mean score [95% CI] | games |",
        "|---|---|---|---|---|---|",
    ]
    for place, a in enumerate(result.agents, 1):
        share = f"{a.win_share:.3f} {interval_text(a.win_share_ci, result.deals)}"
        score = f"{a.mean_score:+.2f} [{a.mean_score_ci[0]:+.2f}, {a.mean_score_ci[1]:+.2f}]"
        rating = f"{a.rating:.2f} ({a.sigma:.2f})"
        lines.append(f"| {place} | `{a.spec}` | {rating} | {share} | {score} | {a.games} |")
    return lines


def _matrix(result: LeagueResult) -> list[str]:
    names = [a.spec for a in result.agents]
    cells = {
        (d.one, d.three): f"{d.win_share:.3f}, {d.mean_score:+.2f}" for d in result.head_to_head
    }
    lines = [
        "## Head to head",
        "",
        "The row's agent in one seat against three of the column's: win share, mean score.",
        "",
        "| one seat \\ three seats | " + " | ".join(f"`{n}`" for n in names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for row in names:
        line = [cells.get((row, col), "") for col in names]
        lines.append(f"| `{row}` | " + " | ".join(line) + " |")
    return lines


def plot(result: LeagueResult, path: Path) -> None:
    """Ratings with 95% bars (mu +- 1.96 sigma), and the head-to-head win shares."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [a.spec for a in result.agents]
    share = {(d.one, d.three): d.win_share for d in result.head_to_head}
    grid = [[share.get((r, c), float("nan")) for c in names] for r in names]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 0.5 * len(names) + 2.5))
    spots = range(len(names))[::-1]
    bars = [1.96 * a.sigma for a in result.agents]
    left.errorbar([a.rating for a in result.agents], spots, xerr=bars, fmt="o", capsize=3)
    left.set(yticks=list(spots), yticklabels=names, xlabel="OpenSkill rating (95%)")
    image = right.imshow(grid, cmap="RdBu", vmin=0.0, vmax=0.5)
    right.set(xticks=range(len(names)), yticks=range(len(names)), xlabel="three seats")
    right.set_xticklabels(names, rotation=45, ha="right")
    right.set_yticklabels(names)
    right.set_ylabel("one seat")
    fig.colorbar(image, ax=right, label="win share of the one seat (0.25: parity)")
    fig.suptitle(f"League: {result.rules} rules, {result.deals} deals, seed {result.seed}")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
