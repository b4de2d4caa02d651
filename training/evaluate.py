"""Evaluate a saved agent: ``python -m training.evaluate CHECKPOINT --opponents NAME``.

Plays the arena's duplicate deals with the agent in one seat and copies of the opponent
in the others (three under four-player rules; the rules are the checkpoint's), and
prints its win share and mean score with 95% CIs (``--json``: one JSON object with
``win_share`` and ``mean_score`` at the top level). ``trained`` names the shipped agent;
``CHECKPOINT+search`` plays it with determinized search at each decision
(:mod:`big2.players.search`, the policy as prior and, in the rollouts, the searching
seat; ``--rollouts heuristic`` plays the heuristic there); the checkpoint is an agent
spec (:mod:`big2.players.specs`), so ``trained+search:3`` seeds the search.

``--engine compiled`` plays the same duplicate deals in the compiled engine
(:mod:`envs.duplicate`: every game of 250 deals at once, the network asked in batches),
for a network alone (no ``+search``): minutes become seconds. Against greedy and
heuristic players it plays the arena's games; random players draw other cards to play
than the arena's, so those results differ deal by deal but not in distribution.

``--baseline SPEC`` plays another agent on the same deals and prints the difference
(checkpoint minus baseline), deal by deal, with its 95% interval: a paired comparison,
far tighter than two intervals side by side.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from typing import Any

from big2.evaluation import backends, deal_results, display_names, summarise
from big2.evaluation.arena import ArenaResult
from big2.evaluation.backends import Backend
from big2.evaluation.stats import mean, normal_ci
from big2.players import Agent, AgentSpec, load_agent
from big2.players.search import CANDIDATES, DETERMINIZATIONS, LATE_FACTOR, PRIOR_WEIGHT
from big2.players.specs import ROLLOUTS
from big2.rules import Rules
from envs.kernels.interrupts import signals_after_compiling
from training import checkpoint
from training.cli import command
from training.loop import figures, learner_results

ENGINES = ("arena", "compiled")
SEARCH_OPTIONS = (
    "determinizations",
    "max_determinizations",
    "candidates",
    "prior_weight",
    "rollouts",
)


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


def play_deals(
    spec: AgentSpec, agent: Agent, rules: Rules, args: argparse.Namespace, backend: Backend
) -> tuple[ArenaResult, list[tuple[int, int]]]:
    """``agent`` against three ``args.opponents`` players on the duplicate deals of
    ``args.seed``, in ``args.engine``: the summary, and the agent's (wins, total score) of
    each deal."""
    if args.engine == "compiled":
        if spec.search or not isinstance(agent, checkpoint.NetworkAgent):
            raise ValueError(
                f"--engine compiled plays a network alone; {spec} is not one "
                f"(leave out +search, or use --engine arena)"
            )
        compiled = replace(agent.spec, config=replace(agent.cfg, eval_engine="compiled"))
        mine = learner_results(compiled, agent.net, args.opponents, args.deals, args.seed)
        return summarise([agent.name], [[r] for r in mine], args.seed, rules), mine
    players = [agent, *(load_agent(args.opponents, rules) for _ in range(rules.players - 1))]
    deals, seed, progress = args.deals, args.seed, not args.json
    per_deal = deal_results(players, deals, seed, rules, progress=progress, backend=backend)
    result = summarise(display_names(players), per_deal, seed, rules)
    return result, [deal[0] for deal in per_deal]


def paired(
    mine: list[tuple[int, int]], theirs: list[tuple[int, int]], seatings: int = 4
) -> dict[str, Any]:
    """The mean difference, per deal, of win share and of score (mine minus theirs; each
    deal's ``seatings`` games: the rules' players), with 95% intervals over deals.

    >>> paired([(2, 10), (1, -4)], [(1, 6), (1, -8)])["win_share"]
    0.125
    """
    wins = [(a[0] - b[0]) / seatings for a, b in zip(mine, theirs, strict=True)]
    scores = [(a[1] - b[1]) / seatings for a, b in zip(mine, theirs, strict=True)]
    return {
        "win_share": mean(wins),
        "win_share_ci": normal_ci(wins),
        "mean_score": mean(scores),
        "mean_score_ci": normal_ci(scores),
    }


def main(argv: list[str] | None = None) -> None:
    parser = command("python -m training.evaluate", __doc__)
    parser.add_argument("checkpoint", help="a checkpoint file or 'trained', either with '+search'")
    parser.add_argument("--opponents", default="heuristic")
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    backends.add_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    engine_help = "where the games run (compiled: a network alone, faster)"
    parser.add_argument("--engine", choices=ENGINES, default="arena", help=engine_help)
    baseline_help = (
        "an agent spec to compare with, deal by deal, on the same deals (the difference, with "
        "its 95%% interval)"
    )
    parser.add_argument("--baseline", help=baseline_help)
    add_search_arguments(parser)
    args = parser.parse_args(argv)
    options = search_options(args)
    try:
        specs = [AgentSpec.parse(a) for a in (args.checkpoint, args.baseline) if a]
        rules = checkpoint.load_agent(specs[0].name).codec.rules
        agents = [
            load_agent(spec, rules, **(options if not k or spec.search else {}))
            for k, spec in enumerate(specs)
        ]
        # Ctrl-C inside numba's compiler (a search's first rollout) would crash it
        with backends.from_arguments(args) as backend, signals_after_compiling():
            runs = [
                play_deals(spec, agent, rules, args, backend)
                for spec, agent in zip(specs, agents, strict=True)
            ]
    except (ValueError, ImportError) as e:  # CheckpointError included; ImportError: an extra
        raise SystemExit(f"evaluate: {e}") from None
    except KeyboardInterrupt:  # nothing is written before the result: nothing to keep
        print("evaluate: interrupted", file=sys.stderr)
        raise SystemExit(130) from None
    result, me = runs[0][0], runs[0][0].agents[0]
    difference = paired(runs[0][1], runs[1][1], rules.players) if args.baseline else None
    if args.json:
        run = {"checkpoint": args.checkpoint, "opponents": args.opponents}
        out = {**run, "deals": result.deals, "seed": args.seed, **figures(me), "games": me.games}
        if difference is not None:
            theirs = runs[1][0].agents[0].win_share
            out |= {"baseline": args.baseline, "baseline_win_share": theirs, "paired": difference}
        print(json.dumps(out))
        return
    print(result.table())
    if difference is not None:
        print(
            f"\n{runs[1][0].table()}\n\n{args.checkpoint} minus {args.baseline}, deal by deal: "
            f"win share {difference['win_share']:+.4f} "
            f"[{difference['win_share_ci'][0]:+.4f}, {difference['win_share_ci'][1]:+.4f}], "
            f"mean score {difference['mean_score']:+.3f} "
            f"[{difference['mean_score_ci'][0]:+.3f}, {difference['mean_score_ci'][1]:+.3f}]"
        )


if __name__ == "__main__":
    main()
