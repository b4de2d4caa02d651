"""The batch encoders against the observers: bit for bit, every seat, every position.

Random games run in the compiled engine and, move for move, in :class:`big2.game.Game`
(the reference); at every position, the final one included, each seat's row from
``batch_encoder(observer)`` must equal ``observer.observe(game.view(seat), game)``: under
four-player rules and under two and three players (every observer but ``charlesworth``,
which is defined for four players of 13 cards).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pytest

import observers
from big2.board import Board
from big2.game import Game, View
from big2.hand_ranking import PASS, catalog
from big2.rules import CHARLESWORTH, STANDARD, THREE_PLAYER, TWO_PLAYER, Rules
from envs.batch_observers import batch_encoder, view_of
from envs.engine import Games, Tables, reference_game
from envs.vector import Big2VectorEnv
from observers import Observer, Piece, Pieces
from observers.encoders import SimpleObserver

RULES = pytest.mark.parametrize("rules", [STANDARD, CHARLESWORTH], ids=lambda r: r.name)
FEWER = pytest.mark.parametrize("rules", [THREE_PLAYER, TWO_PLAYER], ids=lambda r: r.name)
CASES: list[tuple[str, dict[str, Any]]] = [(name, {}) for name in sorted(observers.REGISTRY)]
CASES += [("history", {"k": 1}), ("history", {"k": 40}), ("charlesworth", {"faithful": True})]
OBSERVERS = pytest.mark.parametrize(
    ("name", "params"), CASES, ids=[f"{n}{''.join(map(str, p.values()))}" for n, p in CASES]
)
SEATED = [(n, p) for n, p in CASES if n != "charlesworth"]  # those of any player count
ANY_COUNT = pytest.mark.parametrize(
    ("name", "params"), SEATED, ids=[f"{n}{''.join(map(str, p.values()))}" for n, p in SEATED]
)


def _differences(observer: Observer, got: np.ndarray, want: np.ndarray) -> list[str]:
    """The pieces where two observations differ."""
    mine, theirs = observer.split(got), observer.split(want)
    return [name for name in mine if not np.array_equal(mine[name], theirs[name])]


def _compare(observer: Observer, env: Big2VectorEnv, refs: list[Game], slots: np.ndarray) -> int:
    """Check every seat of the games in ``slots``; the number of rows checked."""
    players = observer.rules.players
    slots, seats = np.repeat(slots, players), np.tile(np.arange(players), len(slots))
    got = np.zeros((len(slots), observer.size), np.float32)
    env.maker.encode(env.games, slots, seats, got)
    pairs = zip(slots.tolist(), seats.tolist(), strict=True)
    want = np.stack([observer.observe(refs[g].view(s), refs[g]) for g, s in pairs])
    if not np.array_equal(got, want):
        row = int(np.flatnonzero((got != want).any(axis=1))[0])
        game, pieces = refs[slots[row]], _differences(observer, got[row], want[row])
        pytest.fail(f"{observer!r}, seat {seats[row]} after {len(game.log.moves)} moves of "
                    f"the deal {game.log.deal}: {pieces} differ")  # fmt: skip
    return len(slots)


def _play(observer: Observer, rules: Rules, n_games: int, seed: int) -> int:
    """Play ``n_games`` random games to the end, checking each position; the rows checked."""
    env = Big2VectorEnv(rules.players * n_games, observer=observer, rules=rules, seed=seed)
    env.reset(seed=seed)
    games, cat, rng = env.games, catalog(rules), np.random.default_rng(seed)
    refs = [reference_game(games, g) for g in range(n_games)]
    live, checked = np.arange(n_games), 0
    while live.size:
        checked += _compare(observer, env, refs, live)
        live = live[games.winner[live] < 0]  # the games just finished were checked once
        if live.size:
            legal = env.maker.legal(live)
            picked = legal.moves[np.arange(live.size), rng.integers(legal.counts)].astype(np.int64)
            games.apply(live, picked)
            for g, move in zip(live.tolist(), picked.tolist(), strict=True):
                refs[g].play(cat[move] if move >= 0 else PASS)
    assert all(game.is_over for game in refs)
    return checked


@RULES
@OBSERVERS
def test_every_registered_observer_has_a_kernel(name: str, params: dict[str, Any], rules: Rules):
    assert batch_encoder(observers.make(name, rules, **params))[1] is True


@RULES
@OBSERVERS
def test_kernels_write_what_the_observers_do(name: str, params: dict[str, Any], rules: Rules):
    # 40 games, every seat at every position (120 cost make test 48 s summed)
    assert _play(observers.make(name, rules, **params), rules, n_games=40, seed=1) > 40 * 4 * 10


@FEWER
@ANY_COUNT
def test_kernels_write_what_the_observers_do_at_fewer_seats(
    name: str, params: dict[str, Any], rules: Rules
):
    observer = observers.make(name, rules, **params)
    assert batch_encoder(observer)[1] is True
    assert _play(observer, rules, n_games=30, seed=1) > 30 * rules.players * 10


# The long runs add other deals (seed 2) to the games above, 30 an observer and rules (150
# cost make test 80 s summed: each row checked is an observe() of the Python observer).
@pytest.mark.slow
@RULES
@OBSERVERS
def test_kernels_write_what_the_observers_do_long(name: str, params: dict[str, Any], rules: Rules):
    assert _play(observers.make(name, rules, **params), rules, n_games=30, seed=2) > 30 * 4 * 10


@pytest.mark.slow
@FEWER
@ANY_COUNT
def test_kernels_write_what_the_observers_do_long_at_fewer_seats(
    name: str, params: dict[str, Any], rules: Rules
):
    observer = observers.make(name, rules, **params)
    assert _play(observer, rules, n_games=30, seed=2) > 30 * rules.players * 10


def _observes_the_acting_seat(observer: Observer, rules: Rules) -> None:
    players = rules.players
    env = Big2VectorEnv(8 * players, observer=observer, rules=rules, seed=3)
    obs, info = env.reset(seed=3)
    refs = [reference_game(env.games, g) for g in range(8)]
    rng, restarts = np.random.default_rng(3), 0
    for _ in range(150):
        rows = np.flatnonzero(info["acting"])  # game g's acting agent: P g + its seat
        for g, (row, game) in enumerate(zip(rows.tolist(), refs, strict=True)):
            want = observer.observe(game.view(row % players), game)
            assert row % players == game.turn, g
            assert np.array_equal(obs["observation"][row], want), g
        actions = env.sample_legal(rng)
        obs, _, ended, _, info = env.step(actions)
        for g, game in enumerate(refs):
            if ended[players * g]:  # the slot holds its next game already
                refs[g] = reference_game(env.games, g)
                restarts += 1
            else:
                game.play(env.codec.decode(int(actions[rows[g]])))
    assert restarts >= 8


@RULES
@OBSERVERS
def test_vector_env_observes_the_acting_seat(name: str, params: dict[str, Any], rules: Rules):
    _observes_the_acting_seat(observers.make(name, rules, **params), rules)


@FEWER
@ANY_COUNT
def test_vector_env_observes_the_acting_seat_at_fewer_seats(
    name: str, params: dict[str, Any], rules: Rules
):
    _observes_the_acting_seat(observers.make(name, rules, **params), rules)


@RULES
@pytest.mark.parametrize("name", ["simple", "planes", "charlesworth"])
def test_kernels_on_every_table(name: str, rules: Rules):
    """Each catalog entry on the table, some of which random games rarely play (quads)."""
    observer, tables, chunk = observers.make(name, rules), Tables.of(rules), 256
    encode, games = batch_encoder(observer)[0], Games(chunk, tables)
    games.hands[:] = Board(rules, seed=7).hands
    for first in range(0, len(tables.cards), chunk):
        index = np.arange(first, min(first + chunk, len(tables.cards)))
        slots, seats = np.arange(len(index)), index // 3 % 4
        games.table[slots], games.table_seat[slots] = index, index % 4
        games.passes[slots], games.turn[slots] = index % 3, (index + index % 3 + 1) % 4
        got = np.zeros((len(slots), observer.size), np.float32)
        encode(games, slots, seats, got)
        for g, seat in zip(slots.tolist(), seats.tolist(), strict=True):
            want = observer.observe(view_of(games, g, seat))
            assert np.array_equal(got[g], want), _differences(observer, got[g], want)


class HandSizeObserver(Observer):
    """A user's observer: my hand size one-hot and whether I act."""

    name: ClassVar[str] = "hand_size"

    def declare(self) -> list[Piece]:
        return [Piece("size", (14,), "cards in my hand, one-hot"), Piece("acting", (1,), "")]

    def write(self, view: View, pieces: Pieces, game: Game | None = None) -> None:
        pieces.one_hot("size", view.hand.bit_count())
        if view.turn == view.seat:
            pieces.one_hot("acting", 0)


class PeekObserver(HandSizeObserver):
    """A user's perfect-information observer: it adds the next seat's hand."""

    name: ClassVar[str] = "peek"
    perfect_information: ClassVar[bool] = True

    def declare(self) -> list[Piece]:
        return [*super().declare(), Piece("next_hand", (52,), "CHEAT: the next seat's hand")]

    def write(self, view: View, pieces: Pieces, game: Game | None = None) -> None:
        assert game is not None
        super().write(view, pieces, game)
        pieces.cards("next_hand", game.hand((view.seat + 1) % 4))


class TableBlindObserver(SimpleObserver):
    """A subclass of a registered observer that writes less: it must not get its kernel."""

    def write(self, view: View, pieces: Pieces, game: Game | None = None) -> None:
        super().write(view._replace(table=None), pieces, game)


@RULES
@pytest.mark.parametrize("make", [HandSizeObserver, PeekObserver, TableBlindObserver])
def test_other_observers_fall_back_and_encode_exactly(make: type[Observer], rules: Rules):
    observer = make(rules)
    assert batch_encoder(observer)[1] is False
    _play(observer, rules, n_games=3, seed=4)


@RULES
def test_view_of_is_the_games_view(rules: Rules):
    board, rng = Board(rules, seed=5), np.random.default_rng(5)
    game, games = Game.from_board(board), Games(1, Tables.of(rules))
    games.deal(0, board.hands)
    while True:
        for seat in range(4):
            assert view_of(games, 0, seat) == game.view(seat)
        if game.is_over:
            break
        moves = game.legal_moves()
        move = moves[rng.integers(len(moves))]
        game.play(move)
        games.apply(np.array([0]), np.array([move.index if move else -1]))


def test_planes_cards_left_is_stored_as_numpy_rounds_n_over_13():
    observer = observers.make("planes")
    games, encode = Games(13, Tables.of(STANDARD)), batch_encoder(observer)[0]
    hands = Board(seed=6).hands
    for n in range(1, 14):  # the next seat holds its n weakest cards
        games.deal(n - 1, (hands[0], _weakest(hands[1], n), *hands[2:]))
    out = np.zeros((13, observer.size), np.float32)
    encode(games, np.arange(13), np.zeros(13, np.int64), out)
    left = out[:, observer.targets["cards_left"][0]]
    assert (left == np.array([n / 13 for n in range(1, 14)], np.float32)).all()


def _weakest(hand: int, n: int) -> int:
    """The ``n`` weakest cards of ``hand``."""
    while hand.bit_count() > n:
        hand &= ~(1 << (hand.bit_length() - 1))
    return hand
