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

from big2.game import Game, View
from big2.hand_ranking import HandRanking
from big2.players import HeuristicAgent, RandomAgent, load_agent
from big2.players.search import AgentRollouts, SearchAgent, sample_deal
from big2.rules import CHARLESWORTH, STANDARD, Rules
from envs.rollouts import CompiledRollouts
from tests.test_search import advance

VARIANT = replace(CHARLESWORTH, name="variant", five_card_quads=True, flush_order="suit",
                  opening="free", pass_locks_out=True)  # fmt: skip
PRESETS = pytest.mark.parametrize("rules", [STANDARD, CHARLESWORTH, VARIANT], ids=lambda r: r.name)


def views(rules: Rules, n: int, seed: int) -> list[tuple[View, tuple[HandRanking, ...]]]:
    """(view, legal moves) of the acting seat, some moves into random or heuristic games."""
    rng, out = random.Random(seed), []
    while len(out) < n:
        game = Game(rules, seed=rng.randrange(1 << 30))
        agent = RandomAgent(rng.randrange(1000)) if len(out) % 2 else HeuristicAgent()
        game = advance(game, agent, rng.randrange(0, 45))
        out.append((game.view(game.turn), game.legal_moves()))
    return out


@PRESETS
def test_compiled_rollouts_count_the_python_wins(rules: Rules):
    python, compiled, rng = AgentRollouts(HeuristicAgent()), CompiledRollouts(), random.Random(1)
    games = 0
    for view, legal in views(rules, 40, seed=2):
        moves = legal[:6]
        deals = [sample_deal(view, rng) for _ in range(6)]
        want = python.wins(view, deals, moves)
        assert compiled.wins(view, deals, moves) == want, (view, moves, deals)
        games += len(deals) * len(moves)
    assert games > 40 * 6


def test_search_with_either_rollouts_chooses_the_same_moves():
    for seed, (view, legal) in enumerate(views(STANDARD, 12, seed=3)):
        options = {"determinizations": 8, "candidates": 4, "seed": seed}
        slow = SearchAgent(rollouts=AgentRollouts(HeuristicAgent()), **options)
        fast = SearchAgent(rollouts=CompiledRollouts(), **options)
        assert fast.act(view, legal) == slow.act(view, legal)
        assert fast.rng.random() == slow.rng.random()  # the same deals were drawn


def test_agent_specs_search_with_the_compiled_rollouts():
    assert isinstance(load_agent("search:1").rollouts, CompiledRollouts)
    assert isinstance(load_agent("search").rollouts, CompiledRollouts)
