"""Vector-env benchmark: ``python -m bench.vector`` (also run by ``make bench``).

Steps :class:`envs.vector.Big2VectorEnv` with uniformly random legal actions picked from
its ``"legal"`` rows (the caller's share of the work: a few numpy calls per step) and
prints decisions per second on one core, for the configuration the targets name (N =
1,024 games, all seats to the caller, ``simple`` observer, catalog actions) and a few
others, and the memory the env's arrays hold per 1,000 games.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from envs.vector import Big2VectorEnv

ROWS: list[tuple[str, dict[str, Any]]] = [
    ("all seats, simple, catalog", {}),
    ("all seats, simple, hand", {"actions": "hand"}),
    (
        "all seats, card_counting + oracle critic",
        {"observer": "card_counting", "critic_observer": "oracle"},
    ),
    (
        "all seats, charlesworth, charlesworth rules",
        {"observer": "charlesworth", "rules": "charlesworth"},
    ),
    ("learner vs random + greedy", {"opponents": ["random", "greedy"]}),
]


def decisions_per_second(n: int, seconds: float, seed: int, **options: Any) -> float:
    """Random legal play in ``n`` games for about ``seconds``; caller decisions per second
    (one per game and step: with every seat played, the games' acting seats)."""
    agents = n * (4 if options.get("opponents") is None else 1)
    env = Big2VectorEnv(agents, seed=seed, **options)
    env.reset()
    rng = np.random.default_rng(seed)

    def step() -> None:
        env.step(env.sample_legal(rng))

    for _ in range(3):  # compile and warm up
        step()
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        step()
        steps += 1
    return steps * env.num_games / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=1024)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for label, options in ROWS:
        rate = decisions_per_second(args.envs, args.seconds, args.seed, **options)
        print(f"{label:<44}{rate:>14,.0f} decisions/s  (N = {args.envs:,})")
    env = Big2VectorEnv(1000, opponents=["random"])
    print(f"memory per 1,000 games: {env.games.nbytes() / 2**20:.1f} MiB of game arrays")


if __name__ == "__main__":
    main()
