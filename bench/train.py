"""Training benchmark: ``python -m bench.train`` (also run by ``make bench``).

For PPO and DQN with each action codec (and PPO with the plan features of the shipped
agent), trains for ``--steps`` env steps in a fresh process and reports env steps per
second including learning (from the training loop's own timing, evaluation excluded)
and the process's peak memory (max RSS).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time

PLAN = {"plan_features": True, "action_head": "mlp"}
CONFIGS: list[tuple[str, str, dict[str, object]]] = [
    ("ppo", "catalog", {}),
    ("ppo", "hand", {}),
    ("dqn", "catalog", {}),
    ("dqn", "hand", {}),
    ("ppo", "catalog", PLAN),
]


def measure(algo: str, actions: str, steps: int, extra: dict[str, object]) -> dict[str, float]:
    """Run one short training in this process; steps/s and peak RSS in MB."""
    import torch

    from training.train import Config, train

    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as run_dir:
        cfg = Config(algo=algo, actions=actions, steps=steps, epoch_steps=steps, envs=8,
                     eval_deals=1, eval_opponents=["random"], run_dir=run_dir,
                     **extra)  # type: ignore[arg-type]  # fmt: skip
        start = time.perf_counter()
        state = train(cfg)
        seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"steps_per_s": state["env_step"] / seconds, "peak_mb": peak_mb}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument(
        "--one", nargs=3, metavar=("ALGO", "ACTIONS", "JSON"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.one:
        algo, actions, extra = args.one
        print(json.dumps(measure(algo, actions, args.steps, json.loads(extra))))
        return
    print(f"{'algo':<6}{'actions':<14}{'env steps/s':>13}{'peak memory':>14}")
    for algo, actions, extra in CONFIGS:
        cmd = [
            sys.executable,
            "-m",
            "bench.train",
            "--steps",
            str(args.steps),
            "--one",
            algo,
            actions,
            json.dumps(extra),
        ]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        result = json.loads(out.strip().splitlines()[-1])
        label = actions + ("+plan" if extra.get("plan_features") else "")
        print(f"{algo:<6}{label:<14}{result['steps_per_s']:>13,.0f}{result['peak_mb']:>11,.0f} MB")


if __name__ == "__main__":
    main()
