"""Fair evaluation: duplicate deals, seat rotation, confidence intervals.

Each deal is played four times with the agents rotated, so every agent plays every
hand once and most of the luck of the deal cancels. Per agent the arena reports win
share, mean score, and 95% confidence intervals over deals (a deal's value is the
agent's mean over its four games). Results do not depend on the number of workers:
each game's deal and each agent's randomness come from seeds derived from
(seed, deal, rotation, seat).

>>> from big2.players import GreedyAgent, RandomAgent
>>> result = evaluate([GreedyAgent(), RandomAgent(), RandomAgent(), RandomAgent()], 20, seed=0)
>>> result.games, round(sum(s.win_share for s in result.agents), 6)
(80, 1.0)
"""

from __future__ import annotations

import builtins
import csv
import io
import json
import math
import multiprocessing
import random
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any

from big2.board import N_SEATS, Board
from big2.game import Game
from big2.players import Agent, load_agent, play
from big2.rules import STANDARD, Rules

Z95 = 1.959964  # two-sided 95% normal quantile


@dataclass(frozen=True)
class AgentResult:
    """One agent's results over all games (CIs over deals)."""

    name: str
    games: int
    wins: int
    win_share: float
    win_share_ci: tuple[float, float]
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
            ws = f"[{a.win_share_ci[0]:.3f}, {a.win_share_ci[1]:.3f}]"
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
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["agent", "games", "wins", "win_share", "win_share_lo", "win_share_hi",
                         "mean_score", "mean_score_lo", "mean_score_hi"])  # fmt: skip
        for a in self.agents:
            writer.writerow([a.name, a.games, a.wins, a.win_share, *a.win_share_ci,
                             a.mean_score, *a.mean_score_ci])  # fmt: skip
        return out.getvalue()


AgentSpec = Agent | str


def evaluate(
    agents: Sequence[AgentSpec],
    n_deals: int,
    seed: int = 0,
    rules: Rules = STANDARD,
    workers: int = 1,
    progress: bool = False,
) -> ArenaResult:
    """Play ``n_deals`` duplicate deals (4 games each) between four agents.

    ``agents`` are Agent objects or agent specs (``"heuristic"``, ``"random:3"``,
    ``"trained"``: see :mod:`big2.players.specs`). Agents with a ``reset(seed)`` method
    are reseeded before every game. ``workers > 1`` plays deals in that many processes
    (agents must pickle).
    """
    if len(agents) != N_SEATS:
        raise ValueError(f"evaluate needs {N_SEATS} agents, got {len(agents)}")
    if n_deals < 1:
        raise ValueError(f"n_deals must be at least 1, got {n_deals}")
    players = [load_agent(a, rules) if isinstance(a, str) else a for a in agents]
    size = max(1, min(50, n_deals // (8 * max(1, workers))))
    chunks = [list(range(i, min(i + size, n_deals))) for i in range(0, n_deals, size)]
    play = partial(_play_deals, players, seed=seed, rules=rules)
    # spawn, not fork: forking a process that already runs torch's threads can deadlock
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, spawn) if workers > 1 else nullcontext() as pool:
        parts: Iterable[dict[int, DealResult]] = (pool or builtins).map(play, chunks)
        if progress:
            from tqdm import tqdm

            parts = tqdm(parts, total=len(chunks), desc="arena", unit="chunk")
        per_deal = {d: r for part in parts for d, r in part.items()}
    ordered = [per_deal[d] for d in range(n_deals)]
    return _summarise(_names(agents), ordered, seed, rules)


DealResult = list[tuple[int, int]]  # per agent: (wins, total score) over the 4 games


def _play_deals(
    players: list[Agent], deals: list[int], seed: int, rules: Rules
) -> dict[int, DealResult]:
    out: dict[int, DealResult] = {}
    for deal in deals:
        board = Board(rules, seed=random.Random(f"{seed}:{deal}"))
        totals = [[0, 0] for _ in players]
        for rotation in range(N_SEATS):
            seats = [(i + rotation) % N_SEATS for i in range(N_SEATS)]  # agent i -> seat
            scores, winner = play_game(board, players, seats, f"{seed}:{deal}:{rotation}")
            for i, seat in enumerate(seats):
                totals[i][0] += seat == winner
                totals[i][1] += scores[seat]
        out[deal] = [(w, s) for w, s in totals]
    return out


def play_game(
    board: Board, players: Sequence[Agent], seats: Sequence[int], seed: str = "0"
) -> tuple[tuple[int, ...], int]:
    """Play one game on ``board`` with agent i in seat ``seats[i]``: (scores, winner)."""
    by_seat: list[Agent] = [players[0]] * N_SEATS
    for i, seat in enumerate(seats):
        by_seat[seat] = players[i]
        reset = getattr(players[i], "reset", None)
        if callable(reset):
            reset(random.Random(f"{seed}:{seat}").getrandbits(64))
    game = play(Game.from_board(board), by_seat)
    assert game.winner is not None
    return game.scores(), game.winner


def _summarise(
    names: list[str], per_deal: list[DealResult], seed: int, rules: Rules
) -> ArenaResult:
    n = len(per_deal)
    results = []
    for i, name in enumerate(names):
        wins = [d[i][0] / N_SEATS for d in per_deal]
        scores = [d[i][1] / N_SEATS for d in per_deal]
        results.append(
            AgentResult(
                name=name,
                games=n * N_SEATS,
                wins=sum(d[i][0] for d in per_deal),
                win_share=_mean(wins),
                win_share_ci=_ci(wins),
                mean_score=_mean(scores),
                mean_score_ci=_ci(scores),
            )
        )
    return ArenaResult(tuple(results), n, n * N_SEATS, seed, rules.name)


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def _ci(xs: list[float]) -> tuple[float, float]:
    """Normal-approximation 95% interval of the mean of ``xs`` (one value per deal)."""
    m = _mean(xs)
    if len(xs) < 2:
        return (m, m)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))
    half = Z95 * sd / math.sqrt(len(xs))
    return (m - half, m + half)


def _names(agents: Sequence[AgentSpec]) -> list[str]:
    """Display names; repeated names get #2, #3 suffixes."""
    raw = [a if isinstance(a, str) else getattr(a, "name", type(a).__name__) for a in agents]
    seen: dict[str, int] = {}
    out: list[str] = []
    for name in raw:
        label = name
        while raw.count(name) > 1 and (label == name or label in out or label in raw):
            seen[name] = seen.get(name, 0) + 1
            label = f"{name}#{seen[name]}"
        out.append(label)
    return out
