"""Training benchmark: ``python -m bench.train`` (also run by ``make bench``).

For PPO and DQN with each action codec, trains for ``--steps`` env steps in a fresh
process and reports env steps per second including learning (from the training loop's
own timing, evaluation excluded) and the process's peak memory (max RSS).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time

CONFIGS = [("ppo", "catalog"), ("ppo", "hand"), ("dqn", "catalog"), ("dqn", "hand")]


def measure(algo: str, actions: str, steps: int) -> dict[str, float]:
    """Run one short training in this process; steps/s and peak RSS in MB."""
    import torch

    from training.train import Config, train

    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as run_dir:
        cfg = Config(algo=algo, actions=actions, steps=steps, epoch_steps=steps, envs=8,
                     eval_deals=1, eval_opponents=["random"], run_dir=run_dir)  # fmt: skip
        start = time.perf_counter()
        state = train(cfg)
        seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"steps_per_s": state["env_step"] / seconds, "peak_mb": peak_mb}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--one", nargs=2, metavar=("ALGO", "ACTIONS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(*args.one, args.steps)))
        return
    print(f"{'algo':<6}{'actions':<9}{'env steps/s':>13}{'peak memory':>14}")
    for algo, actions in CONFIGS:
        cmd = [
            sys.executable,
            "-m",
            "bench.train",
            "--steps",
            str(args.steps),
            "--one",
            algo,
            actions,
        ]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        result = json.loads(out.strip().splitlines()[-1])
        print(f"{algo:<6}{actions:<9}{result['steps_per_s']:>13,.0f}{result['peak_mb']:>11,.0f} MB")


if __name__ == "__main__":
    main()
