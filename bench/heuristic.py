"""Heuristic benchmark: ``python -m bench.heuristic`` (part of ``make bench``).

Times the compiled heuristic (:mod:`envs.compiled_heuristic`) against
:class:`~big2.players.heuristic.HeuristicAgent`, and the compiled search rollouts
(:class:`envs.rollouts.CompiledRollouts`) against the Python ones
(:class:`~big2.players.search.AgentRollouts`), each pair on the same positions. The
positions come from :mod:`training.twins` (the lockstep games and sampled views of
``tests/test_compiled_heuristic.py`` and ``tests/test_compiled_rollouts.py``), which
checks on the way that both answer alike.
"""

from __future__ import annotations

import argparse
import random
import time

from big2.players import HeuristicAgent
from big2.players.search import AgentRollouts, sample_deal
from big2.rules import CHARLESWORTH, STANDARD
from envs.rollouts import CompiledRollouts
from training.twins import MIXED, Timer, play_lockstep, sample_views


def heuristic(n_games: int, seed: int) -> None:
    """Decisions per second of both players on the same positions (after compiling)."""
    play_lockstep(STANDARD, 2, seed=0, explore=MIXED)  # compile (or load the cache)
    for rules in (STANDARD, CHARLESWORTH):
        timer = Timer()
        checked = play_lockstep(rules, n_games, seed, MIXED, timer)
        print(f"heuristic, {rules.name}: compiled {timer.decisions / timer.compiled:,.0f} "
              f"decisions/s, Python {timer.decisions / timer.python:,.0f} decisions/s "
              f"({checked:,} positions, in games of {n_games} slots)")  # fmt: skip


def rollouts(n_views: int, deals: int, seed: int) -> None:
    """Rollouts per second of both, on the same views and deals (after compiling)."""
    python, compiled, rng = AgentRollouts(HeuristicAgent()), CompiledRollouts(), random.Random(0)
    cases = [(v, [sample_deal(v, rng) for _ in range(deals)], legal[:6])
             for v, legal in sample_views(STANDARD, n_views, seed)]  # fmt: skip
    compiled.wins(*cases[0])
    seconds = {}
    for label, player in (("compiled", compiled), ("Python", python)):
        start = time.perf_counter()
        for case in cases:
            player.wins(*case)
        seconds[label] = time.perf_counter() - start
    n = sum(len(d) * len(moves) for _, d, moves in cases)
    rates = ", ".join(f"{k} {n / s:,.0f} rollouts/s" for k, s in seconds.items())
    print(f"search rollouts: {rates} ({n:,} rollouts from {n_views} views)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="lockstep games per preset")
    parser.add_argument("--views", type=int, default=60, help="views for the rollout timing")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    heuristic(args.games, args.seed)
    rollouts(args.views, 16, args.seed)


if __name__ == "__main__":
    main()
