"""The compiled heuristic against :class:`big2.players.heuristic.HeuristicAgent`, in lockstep.

Games run in the compiled engine and, move for move, in :class:`big2.game.Game` (the
reference); at every position the compiled choice of the acting seat must be the move the
Python agent makes on that seat's view and legal moves, and the compiled plan features of
its legal moves (:data:`training.features.PLAN`'s ``batch``) must be the rows that
:func:`training.features.plan_features` computes from that view, and so must the reply
features, fair and cheating (:func:`training.features.reply_features`). Games are played by the
heuristic itself, by random moves, and by a mix, under both rules presets.

``python -m bench.heuristic`` times both players on the same positions.
"""

from __future__ import annotations

import random
import time
from dataclasses import replace

import numpy as np
import pytest

import observers
from big2.board import Board
from big2.cards import format_cards, parse_cards
from big2.game import Game
from big2.hand_ranking import PASS, HandRanking, catalog, combinations_in
from big2.players import heuristic
from big2.players.heuristic import HeuristicAgent
from big2.rules import CHARLESWORTH, STANDARD, Rules
from envs import codecs
from envs.compiled_heuristic import CompiledHeuristic, make_plan, plan_cost
from envs.decisions import DecisionMaker
from envs.engine import Games, Tables, reference_game
from training.features import CHEATING_REPLIES, PLAN, REPLIES, plan_features, reply_features

RULES = pytest.mark.parametrize("rules", [STANDARD, CHARLESWORTH], ids=lambda r: r.name)
VARIANT = replace(CHARLESWORTH, name="variant", five_card_quads=True, flush_order="suit",
                  opening="free", pass_locks_out=True)  # fmt: skip
NAMES = ("plan features", "reply features", "cheating reply features")
HEURISTIC, MIXED, RANDOM = 0.0, 0.25, 1.0  # the share of random moves in a game
EXPLORE = pytest.mark.parametrize(
    "explore", [HEURISTIC, MIXED, RANDOM], ids=["heuristic", "mixed", "random"]
)


def _describe(game: Game, legal: tuple[HandRanking, ...], got: int, want: HandRanking) -> str:
    """A mismatch, with what it takes to find it again."""
    cat, view = catalog(game.rules), game.view(game.turn)
    return (f"{game.rules.name}: seat {game.turn} holds {format_cards(view.hand)}, "
            f"table {game.table} (by seat {game.table_seat}, {game.passes} passes), "
            f"cards left {view.cards_left}; legal {[str(m) for m in legal]}; "
            f"compiled {cat[got] if got >= 0 else PASS}, Python {want}; "
            f"deal {game.log.deal} after {len(game.log.moves)} moves")  # fmt: skip


class Timer:
    """Seconds spent and decisions made by each player (for the benchmark)."""

    def __init__(self) -> None:
        self.compiled = self.python = 0.0
        self.decisions = 0

    def add(self, compiled: float, python: float, decisions: int) -> None:
        self.compiled += compiled
        self.python += python
        self.decisions += decisions


def play_lockstep(
    rules: Rules, n_games: int, seed: int, explore: float, timer: Timer | None = None
) -> int:
    """Play ``n_games`` deals to the end, comparing both players at every position; the
    number of positions. ``explore`` is the chance of a random move instead of the heuristic's."""
    games = Games(n_games, Tables.of(rules))
    for g in range(n_games):
        games.deal(g, Board(rules, seed=seed * 1_000_003 + g).hands)
    refs = [reference_game(games, g) for g in range(n_games)]
    agent, compiled, rng = HeuristicAgent(), CompiledHeuristic(), random.Random(seed)
    maker = DecisionMaker(games, observers.make("simple", rules), codecs.make("catalog", rules))
    live, checked = np.arange(n_games), 0
    while live.size:
        start = time.perf_counter()
        got = compiled.choose(games, live)
        compiled_seconds, python_seconds = time.perf_counter() - start, 0.0
        listed = maker.legal(live)
        features = PLAN.batch(games, live, listed)
        replies = REPLIES.batch(games, live, listed), CHEATING_REPLIES.batch(games, live, listed)
        moves = np.empty_like(got)
        for i, g in enumerate(live.tolist()):
            game = refs[g]
            legal, view = game.legal_moves(), game.view(game.turn)
            before = time.perf_counter()
            want = agent.act(view, legal)
            python_seconds += time.perf_counter() - before  # act() only, not the view
            if got[i] != want.index:
                pytest.fail(_describe(game, legal, int(got[i]), want))
            expected = (plan_features(view, legal), reply_features(view, legal),
                        reply_features(view, legal, game.hands))  # fmt: skip
            for name, batch, rows in zip(NAMES, (features, *replies), expected, strict=True):
                if not (batch[i, : len(legal)] == rows).all() or batch[i, len(legal) :].any():
                    where = _describe(game, legal, int(got[i]), want)
                    pytest.fail(f"{name} {batch[i, : len(legal)].tolist()} differ: {where}")
            move = rng.choice(legal) if rng.random() < explore else want
            game.play(move)
            moves[i] = move.index
        if timer is not None:
            timer.add(compiled_seconds, python_seconds, live.size)
        checked += live.size
        games.apply(live, moves)
        live = live[games.winner[live] < 0]
    assert all(game.is_over and game.hands == tuple(games.hands[g].tolist())
               for g, game in enumerate(refs))  # fmt: skip
    return checked


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
    assert play_lockstep(rules, n_games=24, seed=11, explore=explore) > 24 * 30


@pytest.mark.slow
@RULES
@EXPLORE
def test_compiled_heuristic_plays_as_the_python_one_long(rules: Rules, explore: float):
    # six cases of more than 16,800 positions: over 100,000 in all
    assert play_lockstep(rules, n_games=600, seed=12, explore=explore) > 600 * 28


@pytest.mark.parametrize("rules", [VARIANT], ids=["variant"])
@EXPLORE
def test_compiled_heuristic_follows_other_rules(rules: Rules, explore: float):
    """Nothing is special-cased for the presets: locked-out passes, a free opening, flushes
    ordered by suit, five-card quads beside four-card plays."""
    assert play_lockstep(rules, n_games=16, seed=14, explore=explore) > 16 * 30


def test_a_finished_game_passes():
    games = Games(1, Tables.of(STANDARD))
    games.deal(0, Board(seed=3).hands)
    games.winner[0] = 0
    assert CompiledHeuristic().choose(games, np.array([0])).tolist() == [-1]
