"""Fair evaluation: duplicate deals, seat rotation, confidence intervals.

Each deal is played four times with the agents rotated, so every agent plays every
hand once and most of the luck of the deal cancels. Per agent the arena reports win
share, mean score, and 95% confidence intervals over deals (a deal's value is the
agent's mean over its four games): the win share's is Wilson's, inside [0, 1] and
undefined on one deal (None; :mod:`big2.evaluation.stats`), the mean score's normal.
Results do not depend on the number of workers: each game's deal and each agent's
randomness come from seeds derived from (seed, deal, rotation, seat).

>>> from big2.players import GreedyAgent, RandomAgent
>>> result = evaluate([GreedyAgent(), RandomAgent(), RandomAgent(), RandomAgent()], 20, seed=0)
>>> result.games, round(sum(s.win_share for s in result.agents), 6)
(80, 1.0)
"""

from __future__ import annotations

import csv
import io
import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

from big2.board import Board
from big2.evaluation.backends import Backend
from big2.evaluation.stats import Interval, interval_text, mean, normal_ci, share_ci
from big2.game import Game
from big2.log import now, unwritable
from big2.players import Agent, agent_name, load_agent, play
from big2.rules import STANDARD, Rules


@dataclass(frozen=True)
class AgentResult:
    """One agent's results over all games (CIs over deals; ``win_share_ci`` is None from
    one deal)."""

    name: str
    games: int
    wins: int
    win_share: float
    win_share_ci: Interval | None
    mean_score: float
    mean_score_ci: tuple[float, float]


@dataclass(frozen=True)
class ArenaResult:
    """Results of :func:`evaluate`: one :class:`AgentResult` per agent, in input order."""

    agents: tuple[AgentResult, ...]
    deals: int
    games: int
    seed: int
    rules: str

    def table(self) -> str:
        """A fixed-width table for terminals."""
        head = f"{'agent':<22}{'games':>7}{'win share':>11}{'95% CI':>17}"
        head += f"{'mean score':>12}{'95% CI':>19}"
        rows = [head, "-" * len(head)]
        for a in self.agents:
            ws = interval_text(a.win_share_ci, self.deals)
            ms = f"[{a.mean_score_ci[0]:+.2f}, {a.mean_score_ci[1]:+.2f}]"
            row = f"{a.name:<22}{a.games:>7}{a.win_share:>11.3f}{ws:>17}"
            rows.append(row + f"{a.mean_score:>+12.2f}{ms:>19}")
        seatings = f"{self.deals} duplicate deals x 4 seatings"
        rows.append(f"{seatings}, seed {self.seed}, {self.rules} rules")
        return "\n".join(rows)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def to_csv(self) -> str:
        """One row per agent; a win share's bounds are empty cells where there is no
        interval (one deal)."""
        out = io.StringIO()
        writer = csv.writer(out)
        share = ["win_share", "win_share_lo", "win_share_hi"]
        score = ["mean_score", "mean_score_lo", "mean_score_hi"]
        writer.writerow(["agent", "games", "wins", *share, *score])
        for a in self.agents:
            bounds = a.win_share_ci or ("", "")
            figures = (a.win_share, *bounds, a.mean_score, *a.mean_score_ci)
            writer.writerow([a.name, a.games, a.wins, *figures])
        return out.getvalue()


AgentSpec = Agent | str


def evaluate(
    agents: Sequence[AgentSpec],
    n_deals: int,
    seed: int = 0,
    rules: Rules = STANDARD,
    workers: int = 1,
    progress: bool = False,
    backend: Backend | None = None,
    log_dir: Path | None = None,
) -> ArenaResult:
    """Play ``n_deals`` duplicate deals between ``rules.players`` agents (four, say): each
    deal is played once in each rotation of the agents over the seats (four games).

    ``agents`` are Agent objects or agent specs (``"heuristic"``, ``"random:3"``,
    ``"trained"``: see :mod:`big2.players.specs`). Agents with a ``reset(seed)`` method
    are reseeded before every game. ``workers > 1`` plays deals in that many processes,
    and a ``backend`` (:mod:`big2.evaluation.backends`: Ray) wherever it runs work; the
    agents must then pickle. The results are the same however the deals are spread.
    With ``log_dir`` every game's log is saved there as
    ``deal-DEAL-seating-ROTATION.json`` (for ``big2 replay`` and the replay page); the
    folder is created if missing, and one that cannot be written is refused before any
    game is played.
    """
    per_deal = deal_results(agents, n_deals, seed, rules, workers, progress, backend, log_dir)
    return summarise(display_names(agents), per_deal, seed, rules)


def deal_results(
    agents: Sequence[AgentSpec],
    n_deals: int,
    seed: int = 0,
    rules: Rules = STANDARD,
    workers: int = 1,
    progress: bool = False,
    backend: Backend | None = None,
    log_dir: Path | None = None,
) -> list[DealResult]:
    """What :func:`evaluate` summarises: per deal, per agent, (wins, total score) over
    the deal's four games (for paired comparisons of agents on the same deals).

    >>> deal_results(["greedy", "random", "random", "random"], 2, seed=0)[0][0]
    (3, 82)
    """
    if len(agents) != rules.players:
        raise ValueError(
            f"evaluate needs {rules.players} agents (one per seat of the {rules.name} rules), "
            f"got {len(agents)}"
        )
    if n_deals < 1:
        raise ValueError(f"n_deals must be at least 1, got {n_deals}")
    if log_dir is not None and (problem := unwritable(Path(log_dir))):
        raise ValueError(f"cannot save game logs in {log_dir} ({problem})")
    players = [load_agent(a, rules) if isinstance(a, str) else a for a in agents]
    names = [a if isinstance(a, str) else agent_name(a) for a in agents]
    runner = backend or Backend(workers)
    size = max(1, min(50, n_deals // (8 * runner.workers)))
    chunks = [list(range(i, min(i + size, n_deals))) for i in range(0, n_deals, size)]
    play = partial(_play_deals, players, seed=seed, rules=rules, log_dir=log_dir, names=names)
    parts: Iterable[dict[int, DealResult]] = runner.map(play, chunks)
    if progress:
        from tqdm import tqdm

        parts = tqdm(parts, total=len(chunks), desc="arena", unit="chunk")
    per_deal = {d: r for part in parts for d, r in part.items()}
    return [per_deal[d] for d in range(n_deals)]


DealResult = list[tuple[int, int]]  # per agent: (wins, total score) over the deal's games


Seating = tuple[tuple[int, ...], int]  # one game: each agent's score, the winner's index


def _play_deals(
    players: list[Agent],
    deals: list[int],
    seed: int,
    rules: Rules,
    log_dir: Path | None,
    names: Sequence[str],
) -> dict[int, DealResult]:
    out: dict[int, DealResult] = {}
    for deal in deals:
        out[deal] = deal_result(play_deal(players, deal, seed, rules, log_dir, names))
    return out


def deal_result(games: Sequence[Seating]) -> DealResult:
    """Per agent, (wins, total score) over a deal's games (:func:`play_deal`'s).

    >>> deal_result([((20, -5, -10, -5), 0), ((-3, 9, -2, -4), 1)])
    [(1, 17), (1, 4), (0, -12), (0, -9)]
    """
    agents = range(len(games[0][0]))
    return [(sum(w == i for _, w in games), sum(s[i] for s, _ in games)) for i in agents]


def play_deal(
    players: Sequence[Agent],
    deal: int,
    seed: int,
    rules: Rules,
    log_dir: Path | None = None,
    names: Sequence[str] | None = None,
) -> list[Seating]:
    """The games of duplicate deal ``deal``, one per rotation, agent i in seat
    ``(i + rotation) % rules.players`` in the game of each rotation: per rotation, each
    agent's score (in the order of ``players``) and the index of the agent that won.
    With ``log_dir``, each game's log is saved there, naming each seat's player by
    ``names`` (default: :func:`agent_name`), the deal's seed (``"SEED:DEAL"``) and the
    date.

    >>> from big2.players import GreedyAgent, RandomAgent
    >>> play_deal([GreedyAgent(), *[RandomAgent() for _ in range(3)]], 0, 0, STANDARD)[0]
    ((36, -5, -22, -9), 0)
    """
    board = duplicate_board(rules, seed, deal)
    out: list[Seating] = []
    n = rules.players
    for rotation in range(n):
        seats = [(i + rotation) % n for i in range(n)]  # agent i -> seat
        game = _game(board, players, seats, f"{seed}:{deal}:{rotation}")
        if log_dir is not None:
            who = names or [agent_name(p) for p in players]
            game.log.sign([who[seats.index(s)] for s in range(n)], f"{seed}:{deal}", now())
            name = f"deal-{deal:05d}-seating-{rotation}.json"
            (log_dir / name).write_text(game.log.to_json(indent=1), encoding="utf-8")
        scores, winner = game.scores(), game.winner
        assert winner is not None  # play() ends a game only when someone has won
        out.append((tuple(scores[seat] for seat in seats), seats.index(winner)))
    return out


def duplicate_board(rules: Rules, seed: int, deal: int) -> Board:
    """Deal number ``deal`` of the duplicate deals of ``seed``: the same cards wherever
    and however many deals are played.

    >>> duplicate_board(STANDARD, 0, 3).hands == duplicate_board(STANDARD, 0, 3).hands
    True
    """
    return Board(rules, seed=random.Random(f"{seed}:{deal}"))


def play_game(
    board: Board, players: Sequence[Agent], seats: Sequence[int], seed: str = "0"
) -> tuple[tuple[int, ...], int]:
    """Play one game on ``board`` with agent i in seat ``seats[i]``: (scores, winner)."""
    game = _game(board, players, seats, seed)
    assert game.winner is not None
    return game.scores(), game.winner


def _game(board: Board, players: Sequence[Agent], seats: Sequence[int], seed: str) -> Game:
    """The finished game of :func:`play_game`."""
    by_seat: list[Agent] = [players[0]] * board.rules.players
    for i, seat in enumerate(seats):
        by_seat[seat] = players[i]
        reset = getattr(players[i], "reset", None)
        if callable(reset):
            reset(random.Random(f"{seed}:{seat}").getrandbits(64))
    return play(Game.from_board(board), by_seat)


def summarise(
    names: Sequence[str], per_deal: Sequence[DealResult], seed: int, rules: Rules
) -> ArenaResult:
    """The arena's summary of per-deal results (one entry per agent of ``names`` in each)."""
    n, seats = len(per_deal), rules.players  # a deal is played once per seat
    results = []
    for i, name in enumerate(names):
        wins = [d[i][0] / seats for d in per_deal]
        scores = [d[i][1] / seats for d in per_deal]
        results.append(
            AgentResult(
                name=name,
                games=n * seats,
                wins=sum(d[i][0] for d in per_deal),
                win_share=mean(wins),
                win_share_ci=share_ci(wins, n * seats),
                mean_score=mean(scores),
                mean_score_ci=normal_ci(scores),
            )
        )
    return ArenaResult(tuple(results), n, n * seats, seed, rules.name)


def display_names(agents: Sequence[AgentSpec]) -> list[str]:
    """Display names; repeated names get #2, #3 suffixes."""
    raw = [a if isinstance(a, str) else agent_name(a) for a in agents]
    seen: dict[str, int] = {}
    out: list[str] = []
    for name in raw:
        label = name
        while raw.count(name) > 1 and (label == name or label in out or label in raw):
            seen[name] = seen.get(name, 0) + 1
            label = f"{name}#{seen[name]}"
        out.append(label)
    return out
