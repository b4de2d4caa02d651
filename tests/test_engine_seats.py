"""The compiled engine for two and three players against :mod:`big2.game`, move by move.

Random games run in :class:`envs.engine.Games` and in :class:`big2.game.Game` in lockstep:
at every position the acting seat, the legal move list (in order) and, at the end, the
winner and the final scores must agree. The compiled deals must be ``Board``'s, and the
compiled heuristic must play as the Python one. Four players are covered by the tests of
the vector env, the deals kernel and the compiled heuristic, unchanged.
"""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

import observers
from big2.board import Board
from big2.game import Game
from big2.hand_ranking import catalog
from big2.rules import BOMBS, STANDARD, THREE_PLAYER, TWO_PLAYER, Rules
from envs.batch_observers import batch_encoder, view_of
from envs.engine import Games, Tables, max_combos, max_moves, reference_game
from envs.kernels import deals
from envs.kernels.turns import fill_legal, legal_ranges
from training.twins import HEURISTIC, MIXED, RANDOM, play_lockstep

# three players with bombs (on singles and pairs), another opening card (the leftover
# follows it) and the auto opening; two players with the free opening
THREE_BOMBS = replace(BOMBS, name="three-bombs", players=3, opening_card="5H", bombs_beat=(1, 2))
THREE_AUTO = replace(THREE_PLAYER, name="three-auto", opening="auto", opening_card="3S")
TWO_FREE = replace(TWO_PLAYER, name="two-free", opening="free", pass_locks_out=True)
SEATS = [THREE_PLAYER, TWO_PLAYER, THREE_BOMBS, THREE_AUTO, TWO_FREE]
BY_NAME = pytest.mark.parametrize("rules", SEATS, ids=lambda r: r.name)


def legal_lists(games: Games, slots: np.ndarray) -> list[list[int]]:
    """Each game's legal moves (catalog indices, -1 a pass), in the engine's order."""
    n, width = len(slots), max_combos(games.tables.rules) + 1
    lo, hi, count = (np.zeros(n, np.int64) for _ in range(3))
    may_pass = np.zeros(n, np.bool_)
    cat = games.tables.arrays
    legal_ranges(slots, games.arrays, cat, lo, hi, may_pass, count)
    moves, actions = np.empty((n, width), np.int64), np.empty((n, width), np.int64)
    empty = np.empty(0, np.int64)
    fill_legal(slots, games.arrays, cat, lo, hi, may_pass, empty, PASS_ACTION, moves, actions)
    return [moves[i, : count[i]].tolist() for i in range(n)]


PASS_ACTION = -1


def play_random(rules: Rules, n_games: int, seed: int) -> int:
    """Play ``n_games`` random games in both engines, comparing every position; the count."""
    games, rng = Games(n_games, Tables.of(rules)), random.Random(seed)
    mt, index = deals.states_from([random.Random(seed * 1000 + g) for g in range(n_games)])
    deals.deal_games(np.arange(n_games), mt, index, games.arrays, games.tables.arrays)
    refs = [Game(rules, seed=seed * 1000 + g) for g in range(n_games)]
    live, checked = np.arange(n_games), 0
    while live.size:
        moves = np.empty(live.size, np.int64)
        for i, (g, listed) in enumerate(zip(live.tolist(), legal_lists(games, live), strict=True)):
            game = refs[g]
            assert games.turn[g] == game.turn, (rules.name, g, checked)
            legal = game.legal_moves()
            assert listed == [m.index if m else -1 for m in legal], (rules.name, g, checked)
            move = rng.choice(legal)
            game.play(move)
            moves[i] = move.index if move else -1
        checked += live.size
        games.apply(live, moves)
        live = live[games.winner[live] < 0]
    for g, game in enumerate(refs):
        assert game.is_over and games.winner[g] == game.winner
        assert games.scores(g) == game.scores()
        assert list(games.history(g)) == game.log.moves
    return checked


@BY_NAME
def test_random_games_play_as_the_python_engine(rules: Rules):
    # 100 games, over 2,000 positions a rule set (300 cost make test 12 s summed)
    assert play_random(rules, n_games=100, seed=3) > 100 * 20


@BY_NAME
def test_compiled_deals_are_board_deals(rules: Rules):
    tables, seeds = Tables.of(rules), [0, 5, -7, 2**70]
    mt, index = deals.states_from([random.Random(s) for s in seeds])
    rngs = [random.Random(s) for s in seeds]
    games = Games(len(seeds), tables)
    for _ in range(40):
        deals.deal_games(np.arange(len(seeds)), mt, index, games.arrays, tables.arrays)
        for slot, rng in enumerate(rngs):
            board = Board(rules, seed=rng)
            dealt = games.hands[slot] | games.played[slot]  # the auto opening has played
            assert tuple(dealt.tolist()) == board.hands
            assert games.turn[slot] == board.first_seat or rules.opening == "auto"


def test_the_leftover_follows_the_opening_card_and_the_lowest_card_when_it_is_left():
    # the leftover (the 52nd card of the shuffle) is the opening card for some seeds
    rules, seen = THREE_BOMBS, 0
    hands = np.zeros((1, 3), np.uint64)
    for seed in range(1000):
        mt, index = deals.states_from([random.Random(seed)])
        deals.deal(np.array([0]), mt, index, hands, Tables.of(rules).opening_card)
        board = Board(rules, seed=random.Random(seed))
        assert tuple(hands[0].tolist()) == board.hands
        deck = list(range(52))
        random.Random(seed).shuffle(deck)
        seen += deck[-1] == rules.opening_index
    assert seen >= 3


@BY_NAME
def test_reference_game_replays_the_log(rules: Rules):
    games = Games(1, Tables.of(rules))
    games.deal(0, Board(rules, seed=9).hands)
    rng = random.Random(2)
    while games.winner[0] < 0:
        games.apply(np.array([0]), np.array([rng.choice(legal_lists(games, np.array([0]))[0])]))
        if rng.random() < 0.05:
            game = reference_game(games, 0)
            assert game.turn == games.turn[0] and game.hands == tuple(games.hands[0].tolist())
    assert reference_game(games, 0).scores() == games.scores(0)


@pytest.mark.parametrize("rules", [THREE_PLAYER, TWO_PLAYER, THREE_BOMBS], ids=lambda r: r.name)
@pytest.mark.parametrize(
    "explore", [HEURISTIC, MIXED, RANDOM], ids=["heuristic", "mixed", "random"]
)
def test_compiled_heuristic_plays_as_the_python_one(rules: Rules, explore: float):
    # 8 games a case, 72 in all (16 a case cost make test 16 s summed)
    assert play_lockstep(rules, n_games=8, seed=5, explore=explore, replies_every=2) > 8 * 15


def test_sizes_follow_the_players():
    for rules in (STANDARD, THREE_PLAYER, TWO_PLAYER):
        games = Games(2, Tables.of(rules))
        assert games.hands.shape == (2, rules.players)
        assert games.combos.shape == (2, rules.players, max_combos(rules))
        assert games.log_move.shape == (2, max_moves(rules))
    assert max_combos(TWO_PLAYER) == len(catalog(TWO_PLAYER))  # capped by the catalog
    with pytest.raises(ValueError, match="seat 3 players, got 4 hands"):
        Games(1, Tables.of(THREE_PLAYER)).deal(0, Board(seed=0).hands)


@pytest.mark.parametrize("rules", [THREE_BOMBS, TWO_PLAYER], ids=lambda r: r.name)
@pytest.mark.parametrize("name", ["simple", "card_counting", "planes"])
def test_batch_observers_of_fewer_players_write_what_the_observers_do(rules: Rules, name: str):
    observer = observers.make(name, rules)
    encode, vectorised = batch_encoder(observer)
    assert vectorised  # compiled for any player count
    board, rng = Board(rules, seed=8), random.Random(8)
    game, games = Game.from_board(board), Games(1, Tables.of(rules))
    games.deal(0, board.hands)
    while not game.is_over:
        seats = np.arange(rules.players)
        got = np.zeros((rules.players, observer.size), np.float32)
        encode(games, np.zeros(rules.players, np.int64), seats, got)
        for seat in range(rules.players):
            assert view_of(games, 0, seat) == game.view(seat)
            assert np.array_equal(got[seat], observer.observe(game.view(seat)))
        move = rng.choice(game.legal_moves())
        game.play(move)
        games.apply(np.array([0]), np.array([move.index if move else -1]))
