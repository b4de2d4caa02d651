"""Properties of whole random games (hypothesis): every step is checked against the rules.

Games are dealt from a drawn seed under both presets and a ``pass_locks_out`` variant of
each; moves are chosen by a hypothesis-controlled random generator.
"""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from big2.cards import DECK
from big2.game import Game
from big2.hand_ranking import PASS, combinations_in, stronger_than
from big2.log import GameLog
from big2.rules import CHARLESWORTH, STANDARD

ALL_RULES = [
    STANDARD,
    CHARLESWORTH,
    replace(STANDARD, name="standard-locks", pass_locks_out=True),
    replace(CHARLESWORTH, name="charlesworth-locks", pass_locks_out=True),
]
MAX_STEPS = 4 * 52  # at most 3 passes between two plays, at most 52 plays
# 250 games checked at every step (about 15,000 positions); 1,000 cost make test 15 s
SETTINGS = settings(max_examples=250, deadline=None)


def expected_penalty(rules, left: int) -> int:
    """Cards left x 1, 2 (10-12 cards) or 3 (13 cards); CHARLESWORTH: x 1 always."""
    if rules.penalty_steps == ((1, 1),):
        return left
    return left * (3 if left == 13 else 2 if left >= 10 else 1)


def check_position(game: Game, first: bool, passed: int) -> None:
    """The legal moves of the seat to act, checked against the rules text."""
    rules, seat, table, hand = game.rules, game.turn, game.table, game.hands[game.turn]
    legal = game.legal_moves()
    plays = [m for m in legal if m]
    assert [m.index for m in plays] == sorted(m.index for m in plays)
    assert len(set(plays)) == len(plays)
    for m in plays:
        assert m.cards & ~hand == 0, f"{m} is not held by seat {seat}"
        assert m.rules == rules
        if table is not None:
            assert m.size == table.size and m.key > table.key
    if table is None:
        assert PASS not in legal and plays
        combos = tuple(combinations_in(hand, rules=rules))
        if first and rules.opening == "contains":
            combos = tuple(c for c in combos if c.cards & 1)
        assert tuple(plays) == combos
    else:
        assert legal[-1] is PASS and PASS not in legal[:-1]
        if not (rules.pass_locks_out and passed >> seat & 1):
            # everything held that beats the table is offered
            assert tuple(plays) == stronger_than(hand, table, rules)


def play_out(rules, seed: int, rng: random.Random) -> Game:
    """A full random game, checking every step; returns the finished game."""
    game = Game(rules, seed=seed)
    deal = game.board.hands
    assert sorted(h.bit_count() for h in deal) == [13] * 4
    assert sum(deal) == DECK
    first = rules.opening == "contains"
    if rules.opening == "auto":
        holder = game.board.first_seat
        assert game.turn == (holder + 1) % 4 and str(game.table) == "3D"
    # model: cards played per seat, seats that passed since the table last cleared,
    # consecutive passes, the last seat to play
    played, passed, run = list(game.view(0).played), 0, 0
    last = game.table_seat
    for _ in range(MAX_STEPS):
        if game.is_over:
            break
        check_position(game, first, passed)
        legal = game.legal_moves()
        seat, table, n_log = game.turn, game.table, len(game.log.moves)
        move = rng.choice(legal)
        game.play(move)
        entry = game.log.moves[-1]
        assert len(game.log.moves) == n_log + 1
        assert entry.seat == seat and entry.move is move and entry.table is table
        if move:
            first, last, run = False, seat, 0
            played[seat] |= move.cards
            assert game.table is move and game.table_seat == seat and game.passes == 0
            assert game.is_over or game.turn == (seat + 1) % 4
        elif run == 2:  # the third consecutive pass clears the table; the last player leads
            assert game.table is None and game.turn == last and game.passes == 0
            passed = run = 0
        else:
            passed, run = passed | 1 << seat, run + 1
            assert game.table is table and game.passes == run and game.turn == (seat + 1) % 4
        # cards are conserved: hands and played cards partition the deck
        view = game.view(seat)
        hands = game.hands
        assert sum(hands) + sum(view.played) == DECK
        assert hands[0] | hands[1] | hands[2] | hands[3] | sum(view.played) == DECK
        assert view.cards_left == tuple(h.bit_count() for h in hands)
    assert game.is_over, f"not over after {MAX_STEPS} moves"
    assert game.view(0).played == tuple(played)
    assert all(deal[s] == game.hands[s] | played[s] for s in range(4))
    return game


@SETTINGS
@given(st.sampled_from(ALL_RULES), st.integers(0, 2**32 - 1), st.randoms(use_true_random=False))
def test_random_games_follow_the_rules(rules, seed, rng):
    play_out(rules, seed, rng)


@settings(max_examples=100, deadline=None)  # the end of 100 more games (400 cost 7.6 s)
@given(st.sampled_from(ALL_RULES), st.integers(0, 2**32 - 1), st.randoms(use_true_random=False))
def test_end_scores_and_replay(rules, seed, rng):
    game = play_out(rules, seed, rng)
    winner = game.winner
    assert game.hands[winner] == 0 and game.turn == winner
    assert all(game.hands[s] for s in range(4) if s != winner)
    assert game.legal_moves() == ()
    scores = game.scores()
    assert sum(scores) == 0
    for s in range(4):
        if s != winner:
            assert scores[s] == -expected_penalty(rules, game.hands[s].bit_count()) < 0
    # the log survives JSON and replays to the same game
    log = GameLog.from_json(game.log.to_json())
    assert log == game.log and log.rules == rules
    again = Game.replay(log)
    assert again.hands == game.hands and again.winner == winner
    assert again.scores() == scores and again.log == game.log


def test_pass_locks_out_model_agrees_with_engine_in_standard_rules():
    """Without pass_locks_out a seat that passed is offered plays later in the trick."""
    seen = 0
    for seed in range(20):
        game, rng, passed = Game(seed=seed), random.Random(seed), 0
        while not game.is_over:
            if game.table is not None and passed >> game.turn & 1:
                beats = stronger_than(game.hands[game.turn], game.table)
                assert game.legal_moves() == (*beats, PASS)
                seen += bool(beats)
            move = rng.choice(game.legal_moves())
            game.play(move)
            passed = 0 if game.table is None else passed | (not move) << move_seat(game)
    assert seen > 0


def move_seat(game: Game) -> int:
    return game.log.moves[-1].seat


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.sampled_from(ALL_RULES[2:]), st.integers(0, 2**32 - 1), st.randoms(use_true_random=False))
def _locks_hold(rules, seed, rng):
    game, passed = Game(rules, seed=seed), 0
    while not game.is_over:
        if passed >> game.turn & 1:
            assert game.legal_moves() == (PASS,), "a seat that passed may only pass"
        move = rng.choice(game.legal_moves())
        game.play(move)
        passed = 0 if game.table is None else passed | (not move) << move_seat(game)


def test_pass_locks_out_holds_in_random_games():
    _locks_hold()
