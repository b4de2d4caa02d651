"""Evaluate a saved agent: ``python -m training.evaluate CHECKPOINT --opponents NAME``.

Plays the arena's duplicate deals with the agent in one seat and three copies of the
opponent in the others, and prints its win share and mean score with 95% CIs
(``--json``: one JSON object with ``win_share`` and ``mean_score`` at the top level).
``trained`` names the shipped agent; ``CHECKPOINT+search`` plays it with determinized
search at each decision (:mod:`big2.players.search`, the policy as prior and, in the
rollouts, the searching seat; ``--rollouts heuristic`` plays the heuristic there); the
checkpoint is an agent spec (:mod:`big2.players.specs`), so ``trained+search:3`` seeds
the search.
"""

from __future__ import annotations

import argparse
import json
import sys

from big2.evaluation import backends, evaluate
from big2.players import AgentSpec, load_agent
from big2.players.search import CANDIDATES, DETERMINIZATIONS, LATE_FACTOR, PRIOR_WEIGHT
from big2.players.specs import ROLLOUTS
from envs.kernels.interrupts import signals_after_compiling
from training import checkpoint

SEARCH_OPTIONS = (
    "determinizations", "max_determinizations", "candidates", "prior_weight", "rollouts",
)  # fmt: skip


def add_search_arguments(parser: argparse.ArgumentParser) -> None:
    """The search's settings as options (for ``CHECKPOINT+search``); see :func:`search_options`."""
    group = parser.add_argument_group("search (only with CHECKPOINT+search)")
    group.add_argument(
        "--determinizations",
        type=int,
        help=f"deals per decision at a full table (default {DETERMINIZATIONS})",
    )
    group.add_argument(
        "--max-determinizations",
        type=int,
        help=f"deals per decision late in the game, at most (default {LATE_FACTOR}x the above)",
    )
    group.add_argument(
        "--candidates", type=int, help=f"moves tried per decision (default {CANDIDATES})"
    )
    group.add_argument(
        "--prior-weight",
        type=float,
        help=f"weight of the policy's log-probability (default {PRIOR_WEIGHT})",
    )
    group.add_argument(
        "--rollouts",
        choices=ROLLOUTS,
        help="who plays the searching seat in the rollouts: the policy (the default for a "
        "trained network) or the heuristic (the other seats are always the heuristic)",
    )


def search_options(args: argparse.Namespace) -> dict[str, int | float | str]:
    """The search settings given on the command line, as keyword arguments of ``load_agent``."""
    options = {k: getattr(args, k) for k in SEARCH_OPTIONS}
    return {k: v for k, v in options.items() if v is not None}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m training.evaluate", description=__doc__)
    parser.add_argument("checkpoint", help="a checkpoint file or 'trained', either with '+search'")
    parser.add_argument("--opponents", default="heuristic")
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    backends.add_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_search_arguments(parser)
    args = parser.parse_args(argv)
    options = search_options(args)
    try:
        spec = AgentSpec.parse(args.checkpoint)
        rules = checkpoint.load_agent(spec.name).codec.rules
        agent = load_agent(spec, rules, **options)
        opponents = [load_agent(args.opponents, rules) for _ in range(3)]
        # Ctrl-C inside numba's compiler (a search's first rollout) would crash it
        with backends.from_arguments(args) as backend, signals_after_compiling():
            result = evaluate([agent, *opponents], args.deals, args.seed, rules,
                              progress=not args.json, backend=backend)  # fmt: skip
    except (ValueError, ImportError) as e:  # CheckpointError included; ImportError: an extra
        raise SystemExit(f"evaluate: {e}") from None
    except KeyboardInterrupt:  # nothing is written before the result: nothing to keep
        print("evaluate: interrupted", file=sys.stderr)
        raise SystemExit(130) from None
    me = result.agents[0]
    if args.json:
        print(json.dumps({
            "checkpoint": args.checkpoint, "opponents": args.opponents, "deals": result.deals,
            "seed": args.seed, "win_share": me.win_share, "win_share_ci": me.win_share_ci,
            "mean_score": me.mean_score, "mean_score_ci": me.mean_score_ci, "games": me.games,
        }))  # fmt: skip
    else:
        print(result.table())


if __name__ == "__main__":
    main()
