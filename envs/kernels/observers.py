"""Compiled observers: ``simple``, ``card_counting``, ``oracle``, ``history`` and ``planes``.

Each ``*_encoder(observer)`` returns ``encode(games, slots, seats, out)`` (see
:mod:`envs.batch_observers`). Where each field starts comes from the observer's declared
pieces, as named tuples (:class:`SimpleStarts`, ...), so the kernels name every field
they write.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, Protocol

import numba
import numpy as np

from big2.cards import DECK
from envs.kernels.bits import lowest_card, popcount
from envs.kernels.turns import CatalogArrays, GameArrays, after, relative
from observers.base import Observer


class Encoder(Protocol):
    """Writes the observation of seat ``seats[i]`` of game ``slots[i]`` of ``games`` (an
    :class:`envs.engine.Games`) into row ``rows[i]`` of ``out`` (default: row ``i``), a
    row that is all zero (the kernels write only the ones)."""

    def __call__(
        self,
        games: Any,
        slots: np.ndarray,
        seats: np.ndarray,
        out: np.ndarray,
        rows: np.ndarray | None = None,
    ) -> None: ...


def rows_of(slots: np.ndarray, rows: np.ndarray | None) -> np.ndarray:
    """The output rows: ``rows``, or one per slot in order."""
    return np.arange(len(slots)) if rows is None else rows


class BatchEncoder:
    """An :class:`Encoder` made of compiled steps, each called with the games' arrays as
    ``kernel(slots, seats, rows, state, cat, *args, out)``, one after the other."""

    def __init__(self, *steps: tuple[Callable[..., None], tuple[Any, ...]]) -> None:
        self.steps = steps

    def __call__(
        self,
        games: Any,
        slots: np.ndarray,
        seats: np.ndarray,
        out: np.ndarray,
        rows: np.ndarray | None = None,
    ) -> None:
        rows = rows_of(slots, rows)
        state, cat = games.arrays, games.tables.arrays
        for kernel, args in self.steps:
            kernel(slots, seats, rows, state, cat, *args, out)


class SimpleStarts(NamedTuple):
    """Where the ``simple`` observer's pieces start (``history`` and the counting
    observers begin with them), the players and the width of a cards-left row (the
    largest hand: a one-hot of n - 1)."""

    hand: int
    table: int
    table_ranking: int
    table_owner: int
    leading: int
    passes: int
    cards_left: int
    players: int
    largest: int

    @classmethod
    def of(cls, observer: Observer) -> SimpleStarts:
        starts = {name: observer.targets[name][0] for name in cls._fields[:-2]}
        return cls(**starts, players=observer.rules.players, largest=observer.rules.largest_hand)


class CountingStarts(NamedTuple):
    """Where ``card_counting``'s own pieces start (``opponent_hands``: -1 unless it
    cheats), and the players."""

    played: int
    unseen: int
    opponent_hands: int
    players: int

    @classmethod
    def of(cls, observer: Observer) -> CountingStarts:
        t, cheats = observer.targets, observer.perfect_information
        hands = t["opponent_hands"][0] if cheats else -1
        return cls(t["played"][0], t["unseen"][0], hands, observer.rules.players)


class HistoryStarts(NamedTuple):
    """Where a ``history`` row's fields start, the row stride, the number of rows and
    the players."""

    seat: int
    passed: int
    cards: int
    stride: int
    rows: int
    players: int

    @classmethod
    def of(cls, observer: Observer) -> HistoryStarts:
        t = observer.targets
        seat, passed, cards = (t[f"history.{field}"][0] for field in ("seat", "pass", "cards"))
        rows, players = observer.shapes["history"][0], observer.rules.players
        return cls(seat, passed, cards, t["history"][1], rows, players)


class PlanesStarts(NamedTuple):
    """Where ``planes``' pieces start, the stride of one (channel, suit) row, the
    players and the largest hand (cards left are divided by it)."""

    planes: int
    table_ranking: int
    table_owner: int
    leading: int
    passes: int
    cards_left: int
    stride: int
    players: int
    largest: int

    @classmethod
    def of(cls, observer: Observer) -> PlanesStarts:
        t, rules = observer.targets, observer.rules
        starts = {name: t[name][0] for name in cls._fields[:-3]}
        return cls(
            **starts, stride=t["planes"][1], players=rules.players, largest=rules.largest_hand
        )


# ------------------------------------------------------------------ simple and friends


def simple_encoder(observer: Observer) -> Encoder:
    """The batch encoder writing what ``observer`` (``simple``) writes."""
    return BatchEncoder((_encode_simple, (SimpleStarts.of(observer),)))


def counting_encoder(observer: Observer) -> Encoder:
    """The batch encoder writing what ``observer`` (``card_counting``, or ``oracle``: the
    same with the other hands) writes."""
    at, counting = SimpleStarts.of(observer), CountingStarts.of(observer)
    return BatchEncoder((_encode_simple, (at,)), (_encode_counting, (counting,)))


@numba.njit(cache=True)
def cards_kernel(mask: np.uint64, out: np.ndarray, row: int, start: int) -> None:
    """Set ``out[row, start + card]`` for every card of ``mask``."""
    while mask:
        low = mask & (~mask + np.uint64(1))
        out[row, start + lowest_card(low)] = 1.0
        mask ^= low


@numba.njit(cache=True)
def context(
    row: int, game: int, seat: int, state: GameArrays, cat: CatalogArrays, at: Any, out: np.ndarray
) -> None:
    """The context pieces (table ranking, its owner, leading, passes) at ``at``'s fields."""
    table = state.table[game]
    if table >= 0:
        out[row, at.table_ranking + cat.ranking[table] - 1] = 1.0
        out[row, at.table_owner + relative(state.table_seat[game], seat, at.players)] = 1.0
        out[row, at.passes + min(state.passes[game], at.players - 2)] = 1.0
    elif state.turn[game] == seat:
        out[row, at.leading] = 1.0


@numba.njit(cache=True)
def _encode_simple(
    slots: np.ndarray,
    seats: np.ndarray,
    rows: np.ndarray,
    state: GameArrays,
    cat: CatalogArrays,
    at: SimpleStarts,
    out: np.ndarray,
) -> None:
    for i in range(slots.shape[0]):
        game, seat, row = slots[i], seats[i], rows[i]
        cards_kernel(state.hands[game, seat], out, row, at.hand)
        if state.table[game] >= 0:
            cards_kernel(cat.cards[state.table[game]], out, row, at.table)
        context(row, game, seat, state, cat, at, out)
        for k in range(at.players - 1):  # next, (across,) previous: one-hot n - 1
            n = popcount(state.hands[game, after(seat, 1 + k, at.players)])
            if n:
                out[row, at.cards_left + at.largest * k + n - 1] = 1.0


@numba.njit(cache=True)
def _encode_counting(
    slots: np.ndarray,
    seats: np.ndarray,
    rows: np.ndarray,
    state: GameArrays,
    cat: CatalogArrays,
    at: CountingStarts,
    out: np.ndarray,
) -> None:
    for i in range(slots.shape[0]):
        game, seat, row = slots[i], seats[i], rows[i]
        seen = state.hands[game, seat]
        for k in range(at.players):  # me, next, (across,) previous
            other = after(seat, k, at.players)
            cards_kernel(state.played[game, other], out, row, at.played + 52 * k)
            seen |= state.played[game, other]
            if at.opponent_hands >= 0 and k > 0:
                cards_kernel(state.hands[game, other], out, row, at.opponent_hands + 52 * (k - 1))
        cards_kernel(np.uint64(DECK) & ~seen, out, row, at.unseen)


# ------------------------------------------------------------------ history and planes


def history_encoder(observer: Observer) -> Encoder:
    """The batch encoder writing what ``observer`` (``history``, its own ``k``) writes."""
    simple, at = SimpleStarts.of(observer), HistoryStarts.of(observer)  # the instance's k
    return BatchEncoder((_encode_simple, (simple,)), (_encode_history, (at,)))


@numba.njit(cache=True)
def _encode_history(
    slots: np.ndarray,
    seats: np.ndarray,
    rows: np.ndarray,
    state: GameArrays,
    cat: CatalogArrays,
    at: HistoryStarts,
    out: np.ndarray,
) -> None:
    """The last ``at.rows`` moves, oldest first, in the last rows."""
    for i in range(slots.shape[0]):
        game, seat, row = slots[i], seats[i], rows[i]
        n = state.n_moves[game]
        recent = min(at.rows, n)
        for j in range(recent):
            entry, base = n - recent + j, at.stride * (at.rows - recent + j)
            out[row, at.seat + base + relative(state.log_seat[game, entry], seat, at.players)] = 1.0
            move = state.log_move[game, entry]
            if move >= 0:
                cards_kernel(cat.cards[move], out, row, at.cards + base)
            else:
                out[row, at.passed + base] = 1.0


def planes_encoder(observer: Observer) -> Encoder:
    """The batch encoder writing what ``observer`` (``planes``) writes."""
    return BatchEncoder((_encode_planes, (PlanesStarts.of(observer),)))


@numba.njit(cache=True)
def _encode_planes(
    slots: np.ndarray,
    seats: np.ndarray,
    rows: np.ndarray,
    state: GameArrays,
    cat: CatalogArrays,
    at: PlanesStarts,
    out: np.ndarray,
) -> None:
    """Channels hand, table, played by me .. previous, unseen; the context; cards left
    / the largest hand."""
    for i in range(slots.shape[0]):
        game, seat, row = slots[i], seats[i], rows[i]
        seen = state.hands[game, seat]
        _plane(seen, out, row, at, 0)
        if state.table[game] >= 0:
            _plane(cat.cards[state.table[game]], out, row, at, 1)
        players = at.players
        for k in range(players):
            other = after(seat, k, players)
            _plane(state.played[game, other], out, row, at, 2 + k)
            seen |= state.played[game, other]
        _plane(np.uint64(DECK) & ~seen, out, row, at, 2 + players)
        context(row, game, seat, state, cat, at, out)
        for k in range(players - 1):  # n / largest in float64, rounded once to float32
            n = popcount(state.hands[game, after(seat, 1 + k, players)])
            out[row, at.cards_left + k] = n / at.largest


@numba.njit(cache=True)
def _plane(mask: np.uint64, out: np.ndarray, row: int, at: PlanesStarts, channel: int) -> None:
    """Mark the cards of ``mask`` in ``channel``'s (suit, rank) plane."""
    while mask:
        low = mask & (~mask + np.uint64(1))
        card = lowest_card(low)
        out[row, at.planes + at.stride * (4 * channel + (card & 3)) + (card >> 2)] = 1.0
        mask ^= low
