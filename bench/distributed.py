"""Local against Ray on one machine: ``python -m bench.distributed`` (also ``make bench``).

Prints, for the same work on each backend:

- Ray's start-up time (a local instance sized to the machine), excluded below;
- arena: ``--deals`` duplicate deals of greedy against three heuristic players: local in
  one process, local in two processes, and Ray tasks;
- training: ``--steps`` learner decisions of the default PPO config with one torch
  thread (evaluation excluded, after a short warm-up run): one shard in this process,
  two shards in this process, and two shards as Ray actors (learning stays here).

The results of each pair are identical (tests/test_distributed.py); only time differs.
On a few cores Ray's scheduling and serialisation cost more than they save: it is for
more machines.
"""

from __future__ import annotations

import argparse
import time

from bench.train import measure
from big2.evaluation import evaluate
from big2.evaluation.backends import Backend, RayBackend


def arena_seconds(backend: Backend, deals: int) -> float:
    start = time.perf_counter()
    evaluate(["greedy", "heuristic", "heuristic", "heuristic"], deals, seed=0, backend=backend)
    return time.perf_counter() - start


def training_rate(backend: Backend, steps: int, shards: int) -> float:
    """Learner decisions per second, collection and updates (no evaluation)."""
    extra = {"shards": shards, "backend": backend.name}
    return measure(steps, extra, threads=1, backend=backend)["end_to_end"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=20_000)
    args = parser.parse_args()
    start = time.perf_counter()
    ray = RayBackend()
    print(f"Ray start-up: {time.perf_counter() - start:.1f} s ({ray.workers} CPUs)")
    try:
        print(f"arena, {args.deals} deals (seconds):")
        for label, backend in (("local, 1 process", Backend(1)),
                               ("local, 2 processes", Backend(2)), ("ray", ray)):  # fmt: skip
            print(f"  {label:<22}{arena_seconds(backend, args.deals):>8.1f}")
        training_rate(Backend(), 2048, 1)  # loads the compiled kernels: not timed below
        print(f"training, default PPO, {args.steps:,} steps (learner decisions/s):")
        for label, backend, shards in (("local, 1 shard", Backend(), 1),
                                       ("local, 2 shards", Backend(), 2),
                                       ("ray, 2 shard actors", ray, 2)):  # fmt: skip
            print(f"  {label:<22}{training_rate(backend, args.steps, shards):>8,.0f}")
    finally:
        ray.close()


if __name__ == "__main__":
    main()
