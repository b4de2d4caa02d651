"""Are the search's settings still right for today's agent? ``python -m lab.search_settings``.

About 9 minutes a row on one core. ``trained+search`` as specs make it (the ensemble's
prior, member 0 in the rollouts), with its defaults and with one setting changed at a
time, each playing one seat against three heuristic players on the same duplicate deals;
it prints each one's win share, its difference from the defaults' deal by deal, and its
milliseconds per decision (docs/search.md). ``--settings`` picks the rows (the defaults
always come first), so that rows can run in processes of their own:

    python -m lab.search_settings --settings prior_weight=0 candidates=4

Found (2026-11-29, docs/search.md, "The settings again, with the recipes' pair"; 200
validation deals of seed 12345, three heuristic players): the defaults (prior weight
0.0375, 6 candidates) won 0.393; prior weight 0 0.390 (-0.003 [-0.035, +0.030]), 0.1
0.359 (-0.034 [-0.054, -0.013]), 4 candidates 0.391 (-0.001 [-0.004, +0.001]) and 10
candidates 0.394 (+0.001 [-0.001, +0.004]), at 68, 77, 71, 58 and 84 ms a decision. So
the defaults stay: the candidates past the prior's fourth rarely change an outcome, and a
heavier prior loses 3 points.
"""

from __future__ import annotations

import argparse
from typing import Any

import torch

from big2.players import load_agent
from big2.players.search import SearchAgent
from big2.rules import get as get_rules
from lab.rollout_members import compare, parser
from training.evaluate import SEARCH_OPTIONS, add_search_arguments, search_options

SETTINGS = ("prior_weight=0", "prior_weight=0.1", "candidates=4", "candidates=10")


def searcher(spec: str, rules_name: str, setting: str | None) -> SearchAgent:
    """``spec+search`` as agent specs build it (:func:`big2.players.load_agent`), with
    ``setting`` (``KEY=VALUE``, KEY a ``training.evaluate`` search option) changed.

    >>> searcher("trained", "standard", "candidates=4").candidates
    4
    """
    changed: dict[str, Any] = {}
    if setting is not None:
        key, _, value = setting.partition("=")
        if key not in SEARCH_OPTIONS:
            raise ValueError(
                f"setting {setting!r}: expected KEY=VALUE, KEY one of {list(SEARCH_OPTIONS)}"
            )
        options = argparse.ArgumentParser(prog="lab.search_settings")
        add_search_arguments(options)  # the search options' one parser: types and choices
        changed = search_options(options.parse_args(["--" + key.replace("_", "-"), value]))
    agent = load_agent(f"{spec}+search", get_rules(rules_name), **changed)
    assert isinstance(agent, SearchAgent)
    return agent


def main() -> None:
    options = parser("python -m lab.search_settings", __doc__, "a shipped agent or its file")
    options.add_argument("--settings", nargs="*", default=list(SETTINGS), metavar="KEY=VALUE")
    args = options.parse_args()
    torch.set_num_threads(1)
    rows = {"the defaults": searcher(args.agent, args.rules, None)}
    rows |= {setting: searcher(args.agent, args.rules, setting) for setting in args.settings}
    compare(rows, args.deals, args.seed, args.rules)


if __name__ == "__main__":
    main()
