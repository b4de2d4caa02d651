"""The compiled heuristic against :class:`big2.players.heuristic.HeuristicAgent`, in lockstep.

Games run in the compiled engine and, move for move, in :class:`big2.game.Game` (the
reference); at every position the compiled choice of the acting seat must be the move the
Python agent makes on that seat's view and legal moves, and the compiled plan features of
its legal moves (:func:`envs.batch_moves.batch_move_features` of
:data:`observers.moves.PLAN`) must be the rows that :func:`observers.moves.plan_features`
computes from that view, and so must the reply features, fair and cheating
(:func:`observers.moves.reply_features`). Games are played by the heuristic itself, by
random moves, and by a mix, under both rules presets.

The lockstep games are :func:`training.twins.play_lockstep`'s; ``python -m
bench.heuristic`` times both players on the same positions.
"""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from big2.board import Board
from big2.cards import format_cards, parse_cards
from big2.hand_ranking import combinations_in
from big2.players import heuristic
from big2.rules import CHARLESWORTH, FIVE_CARD_HANDS, STANDARD, Rules, get
from envs.compiled_heuristic import CompiledHeuristic, make_plan, plan_cost
from envs.engine import Games, Tables
from training.twins import HEURISTIC, MIXED, RANDOM, LockstepMismatch, play_lockstep

RULES = pytest.mark.parametrize("rules", [STANDARD, CHARLESWORTH], ids=lambda r: r.name)
VARIANT = replace(CHARLESWORTH, name="variant", five_card_hands=FIVE_CARD_HANDS, flush_order="suit",
                  opening="free", pass_locks_out=True)  # fmt: skip
EXPLORE = pytest.mark.parametrize(
    "explore", [HEURISTIC, MIXED, RANDOM], ids=["heuristic", "mixed", "random"]
)


def _hands(rules: Rules, n: int, seed: int) -> list[int]:
    """Hands of every size, and full hands drawn from few cards (rich in five-card hands)."""
    rng, out = random.Random(seed), []
    for k in range(n):
        pool = rng.sample(range(52), rng.randint(13, 20) if k % 2 else 52)
        out.append(sum(1 << c for c in rng.sample(pool, 13 if k % 2 else rng.randint(1, 13))))
    return out


# quads alone (two pairs under STANDARD), with a kicker, two of them, behind many fives
QUADS = ["3D 3C 3H 3S", "9D 9C 9H 9S KD", "3D 3C 3H 3S 2D 2C 2H 2S",
         "4D 4C 4H 4S 5D 6D 7D 8D 9D TD JD QD KD", "2D 2C 2H 2S AD AC AH KS"]  # fmt: skip


@RULES
def test_the_plan_is_the_python_plan(rules: Rules):
    rich = 0
    for hand in [parse_cards(text) for text in QUADS] + _hands(rules, 1500, seed=1):
        want = [c.index for c in heuristic.make_plan(hand, rules)]
        assert make_plan(hand, rules) == want, format_cards(hand)
        assert plan_cost(hand, rules) == heuristic.plan_cost(hand, rules), format_cards(hand)
        rich += len(combinations_in(hand, 5, rules)) > heuristic.MAX_FIVES
    assert rich > 20  # the cut at MAX_FIVES five-card hands is exercised


@RULES
@EXPLORE
def test_compiled_heuristic_plays_as_the_python_one(rules: Rules, explore: float):
    # 16 games, every feature at every position (24 cost 50% longer)
    assert play_lockstep(rules, n_games=16, seed=11, explore=explore) > 16 * 30


@pytest.mark.slow
@RULES
@EXPLORE
def test_compiled_heuristic_plays_as_the_python_one_long(rules: Rules, explore: float):
    # other deals than the short run's: six cases of more than 1,680 positions, over 10,000
    # in all, the reply features (two thirds of the time) at those of every fourth game
    # (300 games a case cost make test 57 s summed; 600, 30 s more)
    assert play_lockstep(rules, n_games=60, seed=12, explore=explore, replies_every=4) > 60 * 28


# the four-player presets beyond the two above, and wraps with a category left out
FOUR_PLAYER = [get("taiwan"), get("pusoy-dos"), get("western"), get("bombs"),
               Rules(name="bombs-on-pairs", bombs=("four_of_a_kind", "straight_flush"),
                     bombs_beat=(1, 2)),
               Rules(name="wraps-high-no-flush", wrap_straights="high",
                     five_card_hands=("straight", "full_house", "straight_flush"))]  # fmt: skip


@pytest.mark.parametrize("rules", [VARIANT, *FOUR_PLAYER], ids=lambda r: r.name)
@EXPLORE
def test_compiled_heuristic_follows_other_rules(rules: Rules, explore: float):
    """Nothing is special-cased for the presets: locked-out passes, a free opening, flushes
    ordered by suit, five-card quads beside four-card plays, other suit orders, wraps."""
    # 8 games, 240-600 positions a case (16 cost make test 52 s summed, most of it the
    # Python engine listing five-card bombs over every single and pair on the table)
    assert play_lockstep(rules, n_games=8, seed=14, explore=explore) > 8 * 30


def test_a_finished_game_passes():
    games = Games(1, Tables.of(STANDARD))
    games.deal(0, Board(seed=3).hands)
    games.winner[0] = 0
    assert CompiledHeuristic().choose(games, np.array([0])).tolist() == [-1]


def test_a_difference_is_reported_with_the_position(monkeypatch):
    monkeypatch.setattr(heuristic.HeuristicAgent, "act", lambda self, view, legal: legal[-1])
    with pytest.raises(LockstepMismatch, match=r"standard: seat \d holds .* deal "):
        play_lockstep(STANDARD, n_games=2, seed=1, explore=HEURISTIC)
