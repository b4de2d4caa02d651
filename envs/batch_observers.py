"""Observers over many games at once: numba kernels that write exactly what the observers do.

:func:`batch_encoder` returns, for an :class:`observers.Observer`, a function
``encode(games, slots, seats, out)`` that writes the observation of seat ``seats[i]`` in
game ``slots[i]`` of a :class:`envs.engine.Games` into row ``i`` of ``out`` (zeroed
float32, one row per slot). Every registered observer has a kernel below, keyed by its
exact type (a subclass may write something else), and is encoded in one compiled call;
any other observer (a user's own, say) falls back to building each seat's
:class:`big2.game.View` from the arrays and calling ``observer.observe``: exact, but
Python-speed. The kernels read the piece offsets from the observer's declared layout
(``observer.targets``), so they follow its named pieces, and the tests check every
kernel, bit for bit, against its observer on every seat of thousands of positions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numba
import numpy as np

from big2.cards import DECK, N_RANKS
from big2.game import View
from big2.hand_ranking import Ranking, catalog
from envs.engine import Games, lowest_card, popcount, reference_game
from observers.base import Observer
from observers.charlesworth import (
    _FIRST_ACE,
    _FIRST_QUEEN,
    _KIND_COLUMNS,
    _TYPE_COLUMNS,
    CharlesworthObserver,
)
from observers.encoders import (
    CardCountingObserver,
    HistoryObserver,
    OracleObserver,
    PlanesObserver,
    SimpleObserver,
)

Encoder = Callable[[Games, np.ndarray, np.ndarray, np.ndarray], None]


def batch_encoder(observer: Observer) -> tuple[Encoder, bool]:
    """``(encode, vectorised)`` for ``observer`` (see the module docstring)."""
    make = _KERNELS.get(type(observer))
    if make is None:
        return _fallback(observer), False
    return make(observer), True


def view_of(games: Games, slot: int, seat: int) -> View:
    """The :class:`~big2.game.View` of ``seat`` in game ``slot``, built from the arrays."""
    cat = catalog(games.tables.rules)
    table = int(games.table[slot])
    table_seat = int(games.table_seat[slot])
    hands = [int(h) for h in games.hands[slot]]
    return View(
        seat=seat,
        hand=hands[seat],
        turn=int(games.turn[slot]),
        table=cat[table] if table >= 0 else None,
        table_seat=table_seat if table_seat >= 0 else None,
        passes=int(games.passes[slot]),
        cards_left=tuple(h.bit_count() for h in hands),
        played=tuple(int(p) for p in games.played[slot]),
        history=games.history(slot),
        rules=games.tables.rules,
        played_rankings=tuple(int(k) for k in games.kinds[slot]),
    )


def _fallback(observer: Observer) -> Encoder:
    def encode(games: Games, slots: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        for i, (slot, seat) in enumerate(zip(slots.tolist(), seats.tolist(), strict=True)):
            full = observer.perfect_information  # replaying the game is slow: only if needed
            game = reference_game(games, slot, _deal_of(games, slot)) if full else None
            out[i] = observer.observe(view_of(games, slot, seat), game)

    return encode


def _deal_of(games: Games, slot: int) -> tuple[int, ...]:
    """The four hands dealt in ``slot``: what each seat holds plus what it has played."""
    return tuple(
        int(h) | int(p) for h, p in zip(games.hands[slot], games.played[slot], strict=True)
    )


# ------------------------------------------------------------------ kernels' inputs


class _Arrays(NamedTuple):
    """What the kernels read of a :class:`Games` and of its catalog (numba takes named tuples)."""

    hands: np.ndarray
    played: np.ndarray
    kinds: np.ndarray
    turn: np.ndarray
    table: np.ndarray
    table_seat: np.ndarray
    passes: np.ndarray
    n_moves: np.ndarray
    log_seat: np.ndarray
    log_move: np.ndarray
    cards: np.ndarray  # the catalog's
    ranking: np.ndarray


def _arrays(g: Games) -> _Arrays:
    return _Arrays(g.hands, g.played, g.kinds, g.turn, g.table, g.table_seat, g.passes,
                   g.n_moves, g.log_seat, g.log_move, g.tables.cards, g.tables.ranking)  # fmt: skip


_CONTEXT = ("table_ranking", "table_owner", "leading", "passes")  # observers.encoders._CONTEXT


def _starts(observer: Observer, names: tuple[str, ...]) -> np.ndarray:
    """The flat starts of the named pieces or fields of ``observer``."""
    return np.array([observer.targets[name][0] for name in names], dtype=np.int64)


# ------------------------------------------------------------------ simple and friends


def _simple_targets(observer: Observer) -> np.ndarray:
    return _starts(observer, ("hand", "table", *_CONTEXT, "cards_left"))


def _simple(observer: Observer) -> Encoder:
    at = _simple_targets(observer)

    def encode(games: Games, slots: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        _encode_simple(slots, seats, _arrays(games), at, out)

    return encode


def _card_counting(observer: Observer) -> Encoder:
    at = _simple_targets(observer)
    played_at, unseen_at = observer.targets["played"][0], observer.targets["unseen"][0]
    oracle = observer.targets["opponent_hands"][0] if observer.perfect_information else -1

    def encode(games: Games, slots: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        arrays = _arrays(games)
        _encode_simple(slots, seats, arrays, at, out)
        _encode_counting(slots, seats, arrays, played_at, unseen_at, oracle, out)

    return encode


@numba.njit(cache=True)
def _cards(mask: np.uint64, out: np.ndarray, row: int, start: int) -> None:  # pragma: no cover
    """Set ``out[row, start + card]`` for every card of ``mask``."""
    while mask:
        low = mask & (~mask + np.uint64(1))
        out[row, start + lowest_card(low)] = 1.0
        mask ^= low


@numba.njit(cache=True)
def _context(i: int, g: int, seat: int, a: _Arrays, at: np.ndarray,
             out: np.ndarray) -> None:  # pragma: no cover  # fmt: skip
    """The :data:`_CONTEXT` pieces (table ranking, owner, leading, passes), starting at ``at``."""
    t = a.table[g]
    if t >= 0:
        out[i, at[0] + a.ranking[t] - 1] = 1.0
        out[i, at[1] + (a.table_seat[g] - seat) % 4] = 1.0
        out[i, at[3] + min(a.passes[g], 2)] = 1.0
    elif a.turn[g] == seat:
        out[i, at[2]] = 1.0


@numba.njit(cache=True)
def _encode_simple(slots: np.ndarray, seats: np.ndarray, a: _Arrays, at: np.ndarray,
                   out: np.ndarray) -> None:  # pragma: no cover  # fmt: skip
    for i in range(slots.shape[0]):
        g, seat = slots[i], seats[i]
        _cards(a.hands[g, seat], out, i, at[0])
        if a.table[g] >= 0:
            _cards(a.cards[a.table[g]], out, i, at[1])
        _context(i, g, seat, a, at[2:6], out)
        for k in range(3):  # next, across, previous: cards left one-hot (n - 1)
            n = popcount(a.hands[g, (seat + 1 + k) % 4])
            if n:
                out[i, at[6] + 13 * k + n - 1] = 1.0


@numba.njit(cache=True)
def _encode_counting(slots: np.ndarray, seats: np.ndarray, a: _Arrays, played_at: int,
                     unseen_at: int, oracle_at: int,
                     out: np.ndarray) -> None:  # pragma: no cover  # fmt: skip
    for i in range(slots.shape[0]):
        g, seat = slots[i], seats[i]
        seen = a.hands[g, seat]
        for k in range(4):  # me, next, across, previous
            s = (seat + k) % 4
            _cards(a.played[g, s], out, i, played_at + 52 * k)
            seen |= a.played[g, s]
            if oracle_at >= 0 and k > 0:
                _cards(a.hands[g, s], out, i, oracle_at + 52 * (k - 1))
        _cards(np.uint64(DECK) & ~seen, out, i, unseen_at)


# ------------------------------------------------------------------ history and planes


def _history(observer: Observer) -> Encoder:
    simple, k = _simple_targets(observer), observer.shapes["history"][0]  # the instance's k
    at = _starts(observer, ("history.seat", "history.pass", "history.cards"))
    stride = observer.targets["history"][1]

    def encode(games: Games, slots: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        arrays = _arrays(games)
        _encode_simple(slots, seats, arrays, simple, out)
        _encode_history(slots, seats, arrays, k, at, stride, out)

    return encode


@numba.njit(cache=True)
def _encode_history(slots: np.ndarray, seats: np.ndarray, a: _Arrays, k: int, at: np.ndarray,
                    stride: int, out: np.ndarray) -> None:  # pragma: no cover  # fmt: skip
    """The last ``k`` moves, oldest first, in the last rows (seat, pass, cards at ``at``)."""
    for i in range(slots.shape[0]):
        g, seat = slots[i], seats[i]
        n = a.n_moves[g]
        recent = min(k, n)
        for j in range(recent):
            e, base = n - recent + j, stride * (k - recent + j)
            out[i, at[0] + base + (a.log_seat[g, e] - seat) % 4] = 1.0
            if a.log_move[g, e] >= 0:
                _cards(a.cards[a.log_move[g, e]], out, i, at[2] + base)
            else:
                out[i, at[1] + base] = 1.0


def _planes(observer: Observer) -> Encoder:
    at = _starts(observer, ("planes", *_CONTEXT, "cards_left"))
    stride = observer.targets["planes"][1]

    def encode(games: Games, slots: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        _encode_planes(slots, seats, _arrays(games), at, stride, out)

    return encode


@numba.njit(cache=True)
def _encode_planes(slots: np.ndarray, seats: np.ndarray, a: _Arrays, at: np.ndarray,
                   stride: int, out: np.ndarray) -> None:  # pragma: no cover  # fmt: skip
    """Channels hand, table, played by me .. previous, unseen; the context; cards left / 13."""
    for i in range(slots.shape[0]):
        g, seat = slots[i], seats[i]
        seen = a.hands[g, seat]
        _plane(seen, out, i, at[0], stride, 0)
        if a.table[g] >= 0:
            _plane(a.cards[a.table[g]], out, i, at[0], stride, 1)
        for k in range(4):
            s = (seat + k) % 4
            _plane(a.played[g, s], out, i, at[0], stride, 2 + k)
            seen |= a.played[g, s]
        _plane(np.uint64(DECK) & ~seen, out, i, at[0], stride, 6)
        _context(i, g, seat, a, at[1:5], out)
        for k in range(3):  # n / 13 in float64, rounded once to float32, as numpy stores it
            out[i, at[5] + k] = popcount(a.hands[g, (seat + 1 + k) % 4]) / 13


@numba.njit(cache=True)
def _plane(mask: np.uint64, out: np.ndarray, row: int, start: int, stride: int,
           channel: int) -> None:  # pragma: no cover  # fmt: skip
    """Mark the cards of ``mask`` in ``channel``'s (suit, rank) plane (``stride`` ranks a row)."""
    while mask:
        low = mask & (~mask + np.uint64(1))
        card = lowest_card(low)
        out[row, start + stride * (4 * channel + (card & 3)) + (card >> 2)] = 1.0
        mask ^= low


# ------------------------------------------------------------------ charlesworth

_CHARLESWORTH = ("hand_slots.rank", "hand_slots.suit", "hand_slots.pair", "hand_slots.triple",
                 "hand_slots.quads", "hand_slots.run", "hand_slots.flush",
                 "opponents.cards_left", "opponents.aces_twos", "opponents.kinds",
                 "high_cards", "table.key_rank", "table.key_suit", "table.control",
                 "table.type", "table.passes")  # fmt: skip
# observers.charlesworth's columns as bit masks: a seat's played_rankings bits -> its
# opponents.kinds columns; a table's Ranking -> its table.type columns
_KIND_BITS = np.array([sum(1 << c for c in cols) for cols in _KIND_COLUMNS], np.int64)
_TYPE_BITS = np.array([sum(1 << c for c in _TYPE_COLUMNS.get(r, ())) for r in Ranking], np.int64)
# the rankings whose key card is the rank held three times, with no suit
_BY_MAJORITY = np.array([r in (Ranking.FULL_HOUSE, Ranking.FOUR_OF_A_KIND) for r in Ranking])
_DIAMONDS = np.uint64(sum(1 << 4 * rank for rank in range(N_RANKS)))  # << suit: the others


def _charlesworth(observer: Observer) -> Encoder:
    at = _starts(observer, _CHARLESWORTH)
    strides = np.array([observer.targets[p][1] for p in ("hand_slots", "opponents")], np.int64)
    span = N_RANKS if observer.rules.straights_to_two else N_RANKS - 1  # the ranks runs use

    def encode(games: Games, slots: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        _encode_charlesworth(slots, seats, _arrays(games), span, at, strides, out)

    return encode


@numba.njit(cache=True)
def _encode_charlesworth(slots: np.ndarray, seats: np.ndarray, a: _Arrays, span: int,
                         at: np.ndarray, strides: np.ndarray,
                         out: np.ndarray) -> None:  # pragma: no cover  # fmt: skip
    for i in range(slots.shape[0]):
        g, seat = slots[i], seats[i]
        _hand_slots(a.hands[g, seat], span, at, strides[0], out, i)
        for k in range(3):  # next, across, previous
            s, base = (seat + 1 + k) % 4, strides[1] * k
            n = popcount(a.hands[g, s])
            if n:
                out[i, at[7] + base + n - 1] = 1.0
            _cards(a.played[g, s] >> np.uint64(_FIRST_ACE), out, i, at[8] + base)
            _bits(_KIND_BITS[a.kinds[g, s]], out, i, at[9] + base)
        everyone = a.played[g, 0] | a.played[g, 1] | a.played[g, 2] | a.played[g, 3]
        _cards(everyone >> np.uint64(_FIRST_QUEEN), out, i, at[10])
        _table(i, g, seat, a, at, out)


@numba.njit(cache=True)
def _hand_slots(hand: np.uint64, span: int, at: np.ndarray, stride: int, out: np.ndarray,
                i: int) -> None:  # pragma: no cover  # fmt: skip
    """One row per card of ``hand``, weakest first: rank, suit, set, run and flush flags."""
    runs, long = _run_ranks(hand, span), 0
    for suit in range(4):
        if popcount(hand & (_DIAMONDS << np.uint64(suit))) >= 5:
            long |= 1 << suit
    mask, base = hand, 0
    while mask:
        low = mask & (~mask + np.uint64(1))
        card = lowest_card(low)
        rank, suit = card >> 2, card & 3
        out[i, at[0] + base + rank] = 1.0
        out[i, at[1] + base + suit] = 1.0
        for j in range(popcount(_rank_mask(hand, rank)) - 1):  # pair, triple, quads
            out[i, at[2 + j] + base] = 1.0
        if runs >> rank & 1:
            out[i, at[5] + base] = 1.0
        if long >> suit & 1:
            out[i, at[6] + base] = 1.0
        mask ^= low
        base += stride


@numba.njit(cache=True)
def _table(i: int, g: int, seat: int, a: _Arrays, at: np.ndarray,
           out: np.ndarray) -> None:  # pragma: no cover  # fmt: skip
    """The ``table`` piece: key card, control, type, passes."""
    t = a.table[g]
    if t < 0:
        if a.turn[g] == seat:
            out[i, at[13]] = 1.0
        return
    if _BY_MAJORITY[a.ranking[t]]:
        out[i, at[11] + _majority_rank(a.cards[t])] = 1.0
    else:
        top = _highest(a.cards[t])
        out[i, at[11] + (top >> 2)] = 1.0
        out[i, at[12] + (top & 3)] = 1.0
    _bits(_TYPE_BITS[a.ranking[t]], out, i, at[14])
    out[i, at[15] + min(a.passes[g], 2)] = 1.0


@numba.njit(cache=True)
def _bits(bits: int, out: np.ndarray, row: int, start: int) -> None:  # pragma: no cover
    """Set ``out[row, start + j]`` for every set bit ``j`` of ``bits``."""
    j = 0
    while bits:
        if bits & 1:
            out[row, start + j] = 1.0
        bits >>= 1
        j += 1


@numba.njit(cache=True)
def _rank_mask(mask: np.uint64, rank: int) -> np.uint64:  # pragma: no cover - compiled
    return (mask >> np.uint64(4 * rank)) & np.uint64(15)


@numba.njit(cache=True)
def _run_ranks(hand: np.uint64, span: int) -> int:  # pragma: no cover - compiled
    """Bit r set for the ranks in runs of five or more consecutive held ranks below ``span``."""
    out, start = 0, 0
    for r in range(span + 1):
        if r == span or not _rank_mask(hand, r):
            if r - start >= 5:
                out |= ((1 << (r - start)) - 1) << start
            start = r + 1
    return out


@numba.njit(cache=True)
def _highest(mask: np.uint64) -> int:  # pragma: no cover - compiled
    """The strongest card of a non-empty mask."""
    while mask & (mask - np.uint64(1)):
        mask &= mask - np.uint64(1)
    return int(lowest_card(mask))


@numba.njit(cache=True)
def _majority_rank(mask: np.uint64) -> int:  # pragma: no cover - compiled
    """The rank held three or more times in ``mask`` (a full house or four of a kind)."""
    for rank in range(N_RANKS):
        if popcount(_rank_mask(mask, rank)) >= 3:
            return rank
    return -1


_KERNELS: dict[type[Observer], Callable[[Observer], Encoder]] = {
    SimpleObserver: _simple,
    CardCountingObserver: _card_counting,
    HistoryObserver: _history,
    PlanesObserver: _planes,
    CharlesworthObserver: _charlesworth,
    OracleObserver: _card_counting,
}
