"""Training benchmark: ``python -m bench.train`` (also run by ``make bench``).

For each configuration below, trains for ``--steps`` learner decisions in a fresh
process (evaluation excluded: one deal) and prints

- end to end: learner env steps per second, collection and learning together;
- update only: transitions per second that the same network's updates consume, timed
  in the same run (PPO: the whole rollout buffer through ``ppo_repeat`` passes; DQN: its
  gradient steps per collected transition), and the ratio of the two (1.0: the pipeline
  costs nothing beside the network);
- the process's peak memory, and the bytes the buffer stores per transition.

Every configuration changes one base: the settings these figures were first measured
on, ``training.train``'s defaults until 2026-12-02 (``training.config.FORMER_DEFAULTS``:
a ``card_counting`` actor, hidden layers 256 and 128, PPO collections of 2,048 decisions,
opponents random, greedy and heuristic), so that the rows stay comparable over time;
``PPO, former default`` is the base alone. Today's defaults (the shipped agent's first
stage) are ``training.train``'s own: ``make train`` times them.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

PLAN = {"plan_features": True, "action_head": "mlp"}
CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("PPO, former default", {}),
    ("PPO, self-all", {"opponents": ["self-all"]}),
    ("PPO, plan features", PLAN),
    ("PPO, hand codec", {"actions": "hand"}),
    ("DQN, catalog", {"algo": "dqn"}),
]


def measure(
    steps: int, extra: dict[str, Any], threads: int, backend: Any = None
) -> dict[str, float]:
    """Run one short training in this process and time its parts (its shards on
    ``backend``: :mod:`big2.evaluation.backends`, local by default)."""
    import torch
    from tianshou.utils.torch_utils import policy_within_training_step

    from training.build import make_algorithm
    from training.config import FORMER_DEFAULTS, Config
    from training.loop import Run, RunState
    from training.spec import resolve

    torch.set_num_threads(threads)
    with tempfile.TemporaryDirectory() as run_dir:
        settings = {**FORMER_DEFAULTS, "steps": steps, "epoch_steps": steps, "eval_deals": 1}
        where = {"eval_opponents": ["random"], "run_dir": run_dir, "threads": threads}
        cfg = Config.from_settings({**settings, **where, **extra})
        spec = resolve(cfg)
        algorithm = make_algorithm(spec)
        with policy_within_training_step(algorithm.policy):
            run = Run(spec, Path(run_dir), algorithm, RunState(), backend)
            run.run()
        collect, update = run.timing["collect"], run.timing["update"]
        buffer = run.buffer
        assert buffer is not None
        stored = sum(v.nbytes for v in _arrays(buffer)) / buffer.maxsize
    env_steps = run.state.env_step
    return {
        "end_to_end": env_steps / (collect + update),
        "update_only": env_steps / update,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "bytes_per_transition": stored,
    }


def _arrays(buffer: Any) -> list[Any]:
    """Every array a Tianshou buffer holds (nested Batches included)."""

    def walk(batch: Any) -> list[Any]:
        out = []
        for key in batch.get_keys():
            value = batch[key]
            out += walk(value) if hasattr(value, "get_keys") else [value]
        return out

    return walk(buffer._meta)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--threads", type=int, default=1, help="torch threads per run")
    parser.add_argument("--one", metavar="JSON", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.steps, json.loads(args.one), args.threads)))
        return
    print(f"{'configuration':<22}{'end to end':>12}{'update only':>13}{'ratio':>7}"
          f"{'peak memory':>13}{'bytes/transition':>18}")  # fmt: skip
    for label, extra in CONFIGS:
        cmd = [sys.executable, "-m", "bench.train", "--steps", str(args.steps),
               "--threads", str(args.threads), "--one", json.dumps(extra)]  # fmt: skip
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        print(f"{label:<22}{r['end_to_end']:>12,.0f}{r['update_only']:>13,.0f}"
              f"{r['end_to_end'] / r['update_only']:>7.2f}{r['peak_mb']:>10,.0f} MB"
              f"{r['bytes_per_transition']:>18,.0f}")  # fmt: skip
    print("env steps/s: learner decisions per second; see docs/benchmarks.md")


if __name__ == "__main__":
    main()
