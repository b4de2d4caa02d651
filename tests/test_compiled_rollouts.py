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
from big2.players.inference import draw_chain, walk
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


@PRESETS
def test_compiled_agreements_count_the_python_ones(rules: Rules):
    python, compiled, rng = AgentRollouts(HeuristicAgent()), CompiledRollouts(), random.Random(4)
    counted = []
    for view, _ in views(rules, 30, seed=5):
        deals = [sample_deal(view, rng) for _ in range(5)]
        want = python.agreements(view, deals)
        assert compiled.agreements(view, deals) == want, (view, deals)
        counted += want
    others = [e for v, _ in views(rules, 30, seed=5) for e in v.history if e.seat != v.seat]
    assert 0 < sum(counted) < 5 * len(others)  # some moves agree, not all of them


def test_the_seat_that_played_like_the_heuristic_agrees_on_its_true_deal():
    game, agent = Game(seed=9), HeuristicAgent()
    for _ in range(20):
        game.play(agent.act(game.view(game.turn), game.legal_moves()))
    view = game.view(game.turn)
    true_deal = tuple(game.hand(s) | view.played[s] for s in range(4))
    others = sum(e.seat != view.seat for e in view.history)  # STANDARD makes no move itself
    assert CompiledRollouts().agreements(view, [true_deal]) == [others]


@PRESETS
def test_the_compiled_chain_walks_to_the_python_deals(rules: Rules):
    python, compiled, rng = AgentRollouts(HeuristicAgent()), CompiledRollouts(), random.Random(6)
    moved = 0
    for view, _ in views(rules, 16, seed=7):
        chain = draw_chain(view, rng, deals=3, burn_in=6, thin=2)
        want = walk(view, chain, 1.5, python.agreements)
        assert compiled.walk(view, chain, 1.5) == want, (view, chain)
        assert len(want) == 3 and all(sum(d).bit_count() == 52 for d in want)
        moved += sum(d != chain.start for d in want)
    assert moved > 0  # some chains moved off their first deal


def test_the_chain_leans_to_deals_that_explain_the_moves():
    game, agent, rng = Game(seed=11), HeuristicAgent(), random.Random(0)
    for _ in range(16):
        game.play(agent.act(game.view(game.turn), game.legal_moves()))
    view, rollouts = game.view(game.turn), CompiledRollouts()
    uniform = rollouts.agreements(view, [sample_deal(view, rng) for _ in range(40)])
    chained = rollouts.agreements(view, rollouts.walk(view, draw_chain(view, rng, 40), 3.0))
    assert sum(chained) / 40 > sum(uniform) / 40 + 2  # more of the moves seen, explained


@pytest.mark.parametrize("inference", [0.0, 2.0])
def test_search_with_either_rollouts_chooses_the_same_moves(inference: float):
    for seed, (view, legal) in enumerate(views(STANDARD, 12, seed=3)):
        options = {"determinizations": 8, "candidates": 4, "seed": seed, "inference": inference}
        slow = SearchAgent(rollouts=AgentRollouts(HeuristicAgent()), **options)
        fast = SearchAgent(rollouts=CompiledRollouts(), **options)
        assert fast.act(view, legal) == slow.act(view, legal)
        assert fast.rng.random() == slow.rng.random()  # the same deals were drawn


def test_agent_specs_search_with_the_compiled_rollouts():
    assert isinstance(load_agent("search:1").rollouts, CompiledRollouts)
    assert isinstance(load_agent("search").rollouts, CompiledRollouts)
