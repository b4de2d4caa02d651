"""The compiled ``charlesworth`` observer (the 2018 code's 412 features), piece by piece."""

from __future__ import annotations

import numba
import numpy as np

from big2.cards import N_RANKS
from big2.hand_ranking import Ranking
from envs.engine import Games
from envs.kernels.bits import lowest_card, popcount
from envs.kernels.observers import Encoder, cards_kernel, starts
from envs.kernels.turns import CatalogArrays, GameArrays
from observers.base import Observer
from observers.charlesworth import _FIRST_ACE, _FIRST_QUEEN, _KIND_COLUMNS, _TYPE_COLUMNS

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


def charlesworth_encoder(observer: Observer) -> Encoder:
    at = starts(observer, _CHARLESWORTH)
    strides = np.array([observer.targets[p][1] for p in ("hand_slots", "opponents")], np.int64)
    span = N_RANKS if observer.rules.straights_to_two else N_RANKS - 1  # the ranks runs use

    def encode(games: Games, slots: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        _encode_charlesworth(
            slots, seats, games.arrays, games.tables.arrays, span, at, strides, out
        )

    return encode


@numba.njit(cache=True)
def _encode_charlesworth(
    slots: np.ndarray,
    seats: np.ndarray,
    state: GameArrays,
    c: CatalogArrays,
    span: int,
    at: np.ndarray,
    strides: np.ndarray,
    out: np.ndarray,
) -> None:
    for i in range(slots.shape[0]):
        g, seat = slots[i], seats[i]
        _hand_slots(state.hands[g, seat], span, at, strides[0], out, i)
        for k in range(3):  # next, across, previous
            s, base = (seat + 1 + k) % 4, strides[1] * k
            n = popcount(state.hands[g, s])
            if n:
                out[i, at[7] + base + n - 1] = 1.0
            cards_kernel(state.played[g, s] >> np.uint64(_FIRST_ACE), out, i, at[8] + base)
            _bits(_KIND_BITS[state.kinds[g, s]], out, i, at[9] + base)
        everyone = state.played[g, 0] | state.played[g, 1] | state.played[g, 2] | state.played[g, 3]
        cards_kernel(everyone >> np.uint64(_FIRST_QUEEN), out, i, at[10])
        _table(i, g, seat, state, c, at, out)


@numba.njit(cache=True)
def _hand_slots(
    hand: np.uint64, span: int, at: np.ndarray, stride: int, out: np.ndarray, i: int
) -> None:
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
def _table(
    i: int, g: int, seat: int, state: GameArrays, c: CatalogArrays, at: np.ndarray, out: np.ndarray
) -> None:
    """The ``table`` piece: key card, control, type, passes."""
    t = state.table[g]
    if t < 0:
        if state.turn[g] == seat:
            out[i, at[13]] = 1.0
        return
    if _BY_MAJORITY[c.ranking[t]]:
        out[i, at[11] + _majority_rank(c.cards[t])] = 1.0
    else:
        top = _highest(c.cards[t])
        out[i, at[11] + (top >> 2)] = 1.0
        out[i, at[12] + (top & 3)] = 1.0
    _bits(_TYPE_BITS[c.ranking[t]], out, i, at[14])
    out[i, at[15] + min(state.passes[g], 2)] = 1.0


@numba.njit(cache=True)
def _bits(bits: int, out: np.ndarray, row: int, start: int) -> None:
    """Set ``out[row, start + j]`` for every set bit ``j`` of ``bits``."""
    j = 0
    while bits:
        if bits & 1:
            out[row, start + j] = 1.0
        bits >>= 1
        j += 1


@numba.njit(cache=True)
def _rank_mask(mask: np.uint64, rank: int) -> np.uint64:
    return (mask >> np.uint64(4 * rank)) & np.uint64(15)


@numba.njit(cache=True)
def _run_ranks(hand: np.uint64, span: int) -> int:
    """Bit r set for the ranks in runs of five or more consecutive held ranks below ``span``."""
    out, start = 0, 0
    for r in range(span + 1):
        if r == span or not _rank_mask(hand, r):
            if r - start >= 5:
                out |= ((1 << (r - start)) - 1) << start
            start = r + 1
    return out


@numba.njit(cache=True)
def _highest(mask: np.uint64) -> int:
    """The strongest card of a non-empty mask."""
    while mask & (mask - np.uint64(1)):
        mask &= mask - np.uint64(1)
    return int(lowest_card(mask))


@numba.njit(cache=True)
def _majority_rank(mask: np.uint64) -> int:
    """The rank held three or more times in ``mask`` (a full house or four of a kind)."""
    for rank in range(N_RANKS):
        if popcount(_rank_mask(mask, rank)) >= 3:
            return rank
    return -1
