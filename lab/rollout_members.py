"""Who should play an ensemble's search rollouts? ``python -m lab.rollout_members``.

About 12 minutes a row on one core. ``trained+search`` keeps the ensemble as its prior
and puts, in the searching seat of its rollouts, the whole ensemble or one member alone
(the default since 2026-11-28: member 0); each plays one seat against three heuristic
players on the same duplicate deals. It prints each one's win share, its difference from
the whole ensemble's deal by deal, and its milliseconds per decision (docs/search.md).

Found (2026-11-28, docs/search.md, "One network in the rollouts"; the recipes' `trained`
pair as the prior, 200 validation deals of seed 12345, three heuristic players; the pair
alone wins 0.344): the pair in the rollouts won 0.378 at 80.8 ms a decision, member 0
alone 0.393 (+0.015 [-0.003, +0.033] deal by deal) at 57.4 ms, member 1 alone 0.376
(-0.001 [-0.017, +0.015]) at 71.4 ms. Either member searched as well as the pair, so an
ensemble's rollouts are played by its member 0 since.
"""

from __future__ import annotations

import argparse

import torch

from bench.search import Timed
from big2.evaluation.arena import deal_results
from big2.players import load_agent
from big2.players.search import SearchAgent
from big2.rules import get as get_rules
from training.checkpoint import NetworkAgent
from training.cli import command
from training.ensemble import Actor, Ensemble
from training.evaluate import paired


def searchers(spec: str, rules_name: str) -> dict[str, SearchAgent]:
    """``spec+search`` with each choice of rollout network, by label (the ensemble first)."""
    policy = load_agent(spec, get_rules(rules_name))
    if not isinstance(policy, NetworkAgent) or not isinstance(policy.net, Ensemble):
        raise ValueError(f"{spec} is not an ensemble of networks")
    nets: dict[str, Actor] = {"the ensemble": policy.net}
    nets |= {f"member {m}": net for m, net in enumerate(policy.net.nets)}
    out = {}
    for label, net in nets.items():
        rollouts = policy.search_rollouts(net)
        out[label] = SearchAgent(policy.scores, rollouts=rollouts, seed=0, name=f"{spec}+search")
    return out


def compare(rows: dict[str, SearchAgent], deals: int, seed: int, rules_name: str) -> None:
    """Play each searcher of ``rows`` on the same ``deals`` of ``seed`` against three
    heuristic players and print its win share, its difference from the first row's deal by
    deal, and its milliseconds per decision (its label first)."""
    rules = get_rules(rules_name)
    first: list[tuple[int, int]] | None = None
    for label, searcher in rows.items():
        # a deal of another seed first, untimed: numba compiles (or loads) its kernels then
        deal_results([searcher, *["heuristic"] * 3], 1, seed + 1, rules)
        timed = Timed(searcher)  # reseeded every game, so the warm-up changes nothing
        per_deal = deal_results([timed, *["heuristic"] * 3], deals, seed, rules)
        mine = [deal[0] for deal in per_deal]  # the searcher's (wins, score) of each deal
        share = sum(wins for wins, _ in mine) / (4 * len(mine))
        first = first or mine
        diff = paired(mine, first)
        low, high = diff["win_share_ci"]
        print(
            f"{label}: win share {share:.3f} against three heuristic players, "
            f"{diff['win_share']:+.3f} [{low:+.3f}, {high:+.3f}] against the first row's "
            f"deal by deal, {1000 * timed.seconds / timed.decisions:.1f} ms per decision "
            f"({deals} deals of seed {seed})",
            flush=True,
        )


def parser(prog: str, doc: str, agent: str) -> argparse.ArgumentParser:
    """The options every search experiment takes (``agent``: what ``--agent`` may be)."""
    out = command(prog, doc)
    out.add_argument("--agent", default="trained", help=agent)
    out.add_argument("--rules", default="standard")
    out.add_argument("--deals", type=int, default=200)
    out.add_argument("--seed", type=int, default=12345, help="the validation deals'")
    return out


def main() -> None:
    args = parser(
        "python -m lab.rollout_members", __doc__, "a shipped ensemble or its file"
    ).parse_args()
    torch.set_num_threads(1)
    labelled = {
        f"{label} in the rollouts": searcher
        for label, searcher in searchers(args.agent, args.rules).items()
    }
    compare(labelled, args.deals, args.seed, args.rules)


if __name__ == "__main__":
    main()
