"""envs.rollouts.CompiledRollouts against big2.players.search.AgentRollouts (the reference).

On the same sampled deals of the same views, the compiled rollouts must count the same
wins for every candidate move; a SearchAgent with either makes the same choices from the
same seed. Views come from random and heuristic games under both presets and a variant.

``python -m bench.heuristic`` times both.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from big2.players import HeuristicAgent, load_agent
from big2.players.search import AgentRollouts, SearchAgent, sample_deal
from big2.rules import CHARLESWORTH, STANDARD, Rules
from envs.rollouts import CompiledRollouts
from training.twins import sample_views

VARIANT = replace(CHARLESWORTH, name="variant", five_card_quads=True, flush_order="suit",
                  opening="free", pass_locks_out=True)  # fmt: skip
PRESETS = pytest.mark.parametrize("rules", [STANDARD, CHARLESWORTH, VARIANT], ids=lambda r: r.name)


@PRESETS
def test_compiled_rollouts_count_the_python_wins(rules: Rules):
    python, compiled, rng = AgentRollouts(HeuristicAgent()), CompiledRollouts(), random.Random(1)
    games = 0
    for view, legal in sample_views(rules, 40, seed=2):
        moves = legal[:6]
        deals = [sample_deal(view, rng) for _ in range(6)]
        want = python.wins(view, deals, moves)
        assert compiled.wins(view, deals, moves) == want, (view, moves, deals)
        games += len(deals) * len(moves)
    assert games > 40 * 6


def test_search_with_either_rollouts_chooses_the_same_moves():
    for seed, (view, legal) in enumerate(sample_views(STANDARD, 12, seed=3)):
        options = {"determinizations": 8, "candidates": 4, "seed": seed}
        slow = SearchAgent(rollouts=AgentRollouts(HeuristicAgent()), **options)
        fast = SearchAgent(rollouts=CompiledRollouts(), **options)
        assert fast.act(view, legal) == slow.act(view, legal)
        assert fast.rng.random() == slow.rng.random()  # the same deals were drawn


def test_agent_specs_search_with_the_compiled_rollouts():
    assert isinstance(load_agent("search:1").rollouts, CompiledRollouts)
    assert isinstance(load_agent("search").rollouts, CompiledRollouts)
