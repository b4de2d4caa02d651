"""Compiled observers: ``simple``, ``card_counting``, ``oracle``, ``history`` and ``planes``.

Each ``*_encoder(observer)`` returns ``encode(games, slots, seats, out)`` (see
:mod:`envs.batch_observers`); offsets come from the observer's declared pieces.
"""

from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np

from big2.cards import DECK
from envs.engine import Games
from envs.kernels.bits import lowest_card, popcount
from envs.kernels.turns import CatalogArrays, GameArrays
from observers.base import Observer

Encoder = Callable[[Games, np.ndarray, np.ndarray, np.ndarray], None]


_CONTEXT = ("table_ranking", "table_owner", "leading", "passes")  # observers.encoders._CONTEXT


def starts(observer: Observer, names: tuple[str, ...]) -> np.ndarray:
    """The flat starts of the named pieces or fields of ``observer``."""
    return np.array([observer.targets[name][0] for name in names], dtype=np.int64)


# ------------------------------------------------------------------ simple and friends


def _simple_targets(observer: Observer) -> np.ndarray:
    return starts(observer, ("hand", "table", *_CONTEXT, "cards_left"))


def simple_encoder(observer: Observer) -> Encoder:
    at = _simple_targets(observer)

    def encode(games: Games, slots: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        _encode_simple(slots, seats, games.arrays, games.tables.arrays, at, out)

    return encode


def counting_encoder(observer: Observer) -> Encoder:
    at = _simple_targets(observer)
    played_at, unseen_at = observer.targets["played"][0], observer.targets["unseen"][0]
    oracle = observer.targets["opponent_hands"][0] if observer.perfect_information else -1

    def encode(games: Games, slots: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        state, c = games.arrays, games.tables.arrays
        _encode_simple(slots, seats, state, c, at, out)
        _encode_counting(slots, seats, state, c, played_at, unseen_at, oracle, out)

    return encode


@numba.njit(cache=True)
def cards_kernel(mask: np.uint64, out: np.ndarray, row: int, start: int) -> None:
    """Set ``out[row, start + card]`` for every card of ``mask``."""
    while mask:
        low = mask & (~mask + np.uint64(1))
        out[row, start + lowest_card(low)] = 1.0
        mask ^= low


@numba.njit(cache=True)
def context(
    i: int, g: int, seat: int, state: GameArrays, c: CatalogArrays, at: np.ndarray, out: np.ndarray
) -> None:
    """The :data:`_CONTEXT` pieces (table ranking, owner, leading, passes), starting at ``at``."""
    t = state.table[g]
    if t >= 0:
        out[i, at[0] + c.ranking[t] - 1] = 1.0
        out[i, at[1] + (state.table_seat[g] - seat) % 4] = 1.0
        out[i, at[3] + min(state.passes[g], 2)] = 1.0
    elif state.turn[g] == seat:
        out[i, at[2]] = 1.0


@numba.njit(cache=True)
def _encode_simple(
    slots: np.ndarray,
    seats: np.ndarray,
    state: GameArrays,
    c: CatalogArrays,
    at: np.ndarray,
    out: np.ndarray,
) -> None:
    for i in range(slots.shape[0]):
        g, seat = slots[i], seats[i]
        cards_kernel(state.hands[g, seat], out, i, at[0])
        if state.table[g] >= 0:
            cards_kernel(c.cards[state.table[g]], out, i, at[1])
        context(i, g, seat, state, c, at[2:6], out)
        for k in range(3):  # next, across, previous: cards left one-hot (n - 1)
            n = popcount(state.hands[g, (seat + 1 + k) % 4])
            if n:
                out[i, at[6] + 13 * k + n - 1] = 1.0


@numba.njit(cache=True)
def _encode_counting(
    slots: np.ndarray,
    seats: np.ndarray,
    state: GameArrays,
    c: CatalogArrays,
    played_at: int,
    unseen_at: int,
    oracle_at: int,
    out: np.ndarray,
) -> None:
    for i in range(slots.shape[0]):
        g, seat = slots[i], seats[i]
        seen = state.hands[g, seat]
        for k in range(4):  # me, next, across, previous
            s = (seat + k) % 4
            cards_kernel(state.played[g, s], out, i, played_at + 52 * k)
            seen |= state.played[g, s]
            if oracle_at >= 0 and k > 0:
                cards_kernel(state.hands[g, s], out, i, oracle_at + 52 * (k - 1))
        cards_kernel(np.uint64(DECK) & ~seen, out, i, unseen_at)


# ------------------------------------------------------------------ history and planes


def history_encoder(observer: Observer) -> Encoder:
    simple, k = _simple_targets(observer), observer.shapes["history"][0]  # the instance's k
    at = starts(observer, ("history.seat", "history.pass", "history.cards"))
    stride = observer.targets["history"][1]

    def encode(games: Games, slots: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        state, c = games.arrays, games.tables.arrays
        _encode_simple(slots, seats, state, c, simple, out)
        _encode_history(slots, seats, state, c, k, at, stride, out)

    return encode


@numba.njit(cache=True)
def _encode_history(
    slots: np.ndarray,
    seats: np.ndarray,
    state: GameArrays,
    c: CatalogArrays,
    k: int,
    at: np.ndarray,
    stride: int,
    out: np.ndarray,
) -> None:
    """The last ``k`` moves, oldest first, in the last rows (seat, pass, cards at ``at``)."""
    for i in range(slots.shape[0]):
        g, seat = slots[i], seats[i]
        n = state.n_moves[g]
        recent = min(k, n)
        for j in range(recent):
            e, base = n - recent + j, stride * (k - recent + j)
            out[i, at[0] + base + (state.log_seat[g, e] - seat) % 4] = 1.0
            if state.log_move[g, e] >= 0:
                cards_kernel(c.cards[state.log_move[g, e]], out, i, at[2] + base)
            else:
                out[i, at[1] + base] = 1.0


def planes_encoder(observer: Observer) -> Encoder:
    at = starts(observer, ("planes", *_CONTEXT, "cards_left"))
    stride = observer.targets["planes"][1]

    def encode(games: Games, slots: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        _encode_planes(slots, seats, games.arrays, games.tables.arrays, at, stride, out)

    return encode


@numba.njit(cache=True)
def _encode_planes(
    slots: np.ndarray,
    seats: np.ndarray,
    state: GameArrays,
    c: CatalogArrays,
    at: np.ndarray,
    stride: int,
    out: np.ndarray,
) -> None:
    """Channels hand, table, played by me .. previous, unseen; the context; cards left / 13."""
    for i in range(slots.shape[0]):
        g, seat = slots[i], seats[i]
        seen = state.hands[g, seat]
        _plane(seen, out, i, at[0], stride, 0)
        if state.table[g] >= 0:
            _plane(c.cards[state.table[g]], out, i, at[0], stride, 1)
        for k in range(4):
            s = (seat + k) % 4
            _plane(state.played[g, s], out, i, at[0], stride, 2 + k)
            seen |= state.played[g, s]
        _plane(np.uint64(DECK) & ~seen, out, i, at[0], stride, 6)
        context(i, g, seat, state, c, at[1:5], out)
        for k in range(3):  # n / 13 in float64, rounded once to float32, as numpy stores it
            out[i, at[5] + k] = popcount(state.hands[g, (seat + 1 + k) % 4]) / 13


@numba.njit(cache=True)
def _plane(
    mask: np.uint64, out: np.ndarray, row: int, start: int, stride: int, channel: int
) -> None:
    """Mark the cards of ``mask`` in ``channel``'s (suit, rank) plane (``stride`` ranks a row)."""
    while mask:
        low = mask & (~mask + np.uint64(1))
        card = lowest_card(low)
        out[row, start + stride * (4 * channel + (card & 3)) + (card >> 2)] = 1.0
        mask ^= low
