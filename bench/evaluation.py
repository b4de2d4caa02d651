"""Evaluation benchmark: ``python -m bench.evaluation`` (part of ``make bench``).

Times a training run's evaluation of the shipped ``trained`` policy (greedy, one torch
thread) on the same duplicate deals against three copies of each evaluation opponent,
in both ``--eval-engine`` settings: the arena (Python games, one decision at a time)
and the compiled engine (:mod:`envs.duplicate`, every game of a batch of deals at once),
and checks on the way that they agree against greedy and heuristic players.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

import torch

from training import checkpoint
from training.config import Config
from training.loop import learner_results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200, help="duplicate deals (4 games each)")
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument("--agent", default="trained", help="a checkpoint or shipped agent name")
    args = parser.parse_args()
    torch.set_num_threads(1)
    data = checkpoint.load(args.agent)
    cfg = Config.from_dict(data["config"])
    net = checkpoint.actor_from(data)
    learner_results(replace(cfg, eval_engine="compiled"), net, "heuristic", 2, 0)  # compile
    for opponent in cfg.eval_opponents:
        seconds, results = {}, {}
        for engine in ("arena", "compiled"):
            start = time.perf_counter()
            results[engine] = learner_results(replace(cfg, eval_engine=engine), net, opponent,
                                              args.deals, args.seed)  # fmt: skip
            seconds[engine] = time.perf_counter() - start
        agree = "same games" if results["arena"] == results["compiled"] else "other games"
        games = 4 * args.deals
        print(f"evaluation vs 3x {opponent}, {args.deals} deals: arena {seconds['arena']:.1f} s "
              f"({games / seconds['arena']:,.0f} games/s), compiled {seconds['compiled']:.1f} s "
              f"({games / seconds['compiled']:,.0f} games/s), {agree}")  # fmt: skip


if __name__ == "__main__":
    main()
