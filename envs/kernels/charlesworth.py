"""The compiled ``charlesworth`` observer (the 2018 code's 412 features), piece by piece."""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from big2.cards import N_RANKS
from big2.hand_ranking import Ranking
from envs.kernels.bits import lowest_card, popcount
from envs.kernels.observers import BatchEncoder, Encoder, cards_kernel
from envs.kernels.turns import CatalogArrays, GameArrays
from observers.base import Observer
from observers.charlesworth import (
    FIRST_ACE,
    FIRST_QUEEN,
    FULL_HOUSE_KIND,
    FULL_HOUSE_TYPE,
    KIND_COLUMNS,
    TYPE_COLUMNS,
)


class Starts(NamedTuple):
    """Where each field of the observer's pieces starts in the flat vector (its first row)."""

    rank: int
    suit: int
    pair: int
    triple: int
    quads: int
    run: int
    flush: int
    cards_left: int
    aces_twos: int
    kinds: int
    high_cards: int
    key_rank: int
    key_suit: int
    control: int
    type: int
    passes: int
    hand_stride: int  # one hand_slots row to the next
    opponent_stride: int  # one opponents row to the next

    @classmethod
    def of(cls, observer: Observer) -> Starts:
        t, piece = observer.targets, {"high_cards": "high_cards"}
        hand_slots = ("rank", "suit", "pair", "triple", "quads", "run", "flush")
        piece |= {f: f"hand_slots.{f}" for f in hand_slots}
        piece |= {f: f"opponents.{f}" for f in ("cards_left", "aces_twos", "kinds")}
        piece |= {f: f"table.{f}" for f in ("key_rank", "key_suit", "control", "type", "passes")}
        starts = {field: t[name][0] for field, name in piece.items()}
        return cls(**starts, hand_stride=t["hand_slots"][1], opponent_stride=t["opponents"][1])


# observers.charlesworth's columns as bit masks: a seat's played_rankings bits -> its
# opponents.kinds columns; a table's Ranking -> its table.type columns
_KIND_BITS = np.array([sum(1 << c for c in cols) for cols in KIND_COLUMNS], np.int64)
_TYPE_BITS = np.array([sum(1 << c for c in TYPE_COLUMNS.get(r, ())) for r in Ranking], np.int64)
# the rankings whose key card is the rank held three times, with no suit
_BY_MAJORITY = np.array([r in (Ranking.FULL_HOUSE, Ranking.FOUR_OF_A_KIND) for r in Ranking])
_STRAIGHT = int(Ranking.STRAIGHT)
_DIAMONDS = np.uint64(sum(1 << 4 * rank for rank in range(N_RANKS)))  # << suit: the others


def charlesworth_encoder(observer: Observer) -> Encoder:
    """The batch encoder writing what ``observer`` (a ``charlesworth`` observer) writes."""
    at = Starts.of(observer)
    span = N_RANKS if observer.rules.straights_to_two else N_RANKS - 1  # the ranks runs use
    faithful = bool(getattr(observer, "faithful", False))
    return BatchEncoder((_encode_charlesworth, (span, faithful, at)))


@numba.njit(cache=True)
def _encode_charlesworth(
    slots: np.ndarray,
    seats: np.ndarray,
    rows: np.ndarray,
    state: GameArrays,
    c: CatalogArrays,
    span: int,
    faithful: bool,
    at: Starts,
    out: np.ndarray,
) -> None:
    for j in range(slots.shape[0]):
        g, seat, i = slots[j], seats[j], rows[j]
        _hand_slots(state.hands[g, seat], span, at, out, i)
        for k in range(3):  # next, across, previous
            s, base = (seat + 1 + k) % 4, at.opponent_stride * k
            n = popcount(state.hands[g, s])
            if n:
                out[i, at.cards_left + base + n - 1] = 1.0
            cards_kernel(state.played[g, s] >> np.uint64(FIRST_ACE), out, i, at.aces_twos + base)
            kinds = state.kinds[g, s]
            _bits(_KIND_BITS[kinds], out, i, at.kinds + base)
            if faithful and kinds >> _STRAIGHT & 1:  # the anchor's isFullHouse quirk
                out[i, at.kinds + base + FULL_HOUSE_KIND] = 1.0
        everyone = state.played[g, 0] | state.played[g, 1] | state.played[g, 2] | state.played[g, 3]
        cards_kernel(everyone >> np.uint64(FIRST_QUEEN), out, i, at.high_cards)
        _table(i, g, seat, state, c, faithful, at, out)


@numba.njit(cache=True)
def _hand_slots(hand: np.uint64, span: int, at: Starts, out: np.ndarray, i: int) -> None:
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
        out[i, at.rank + base + rank] = 1.0
        out[i, at.suit + base + suit] = 1.0
        held = popcount(_rank_mask(hand, rank))
        if held >= 2:
            out[i, at.pair + base] = 1.0
        if held >= 3:
            out[i, at.triple + base] = 1.0
        if held >= 4:
            out[i, at.quads + base] = 1.0
        if runs >> rank & 1:
            out[i, at.run + base] = 1.0
        if long >> suit & 1:
            out[i, at.flush + base] = 1.0
        mask ^= low
        base += at.hand_stride


@numba.njit(cache=True)
def _table(
    i: int,
    g: int,
    seat: int,
    state: GameArrays,
    c: CatalogArrays,
    faithful: bool,
    at: Starts,
    out: np.ndarray,
) -> None:
    """The ``table`` piece: key card, control, type, passes."""
    t = state.table[g]
    if t < 0:
        if state.turn[g] == seat:
            out[i, at.control] = 1.0
        return
    quirk = faithful and c.ranking[t] == _STRAIGHT
    if quirk:  # taken for a full house: the middle card's rank, no suit
        out[i, at.key_rank + (_third_card(c.cards[t]) >> 2)] = 1.0
        out[i, at.type + FULL_HOUSE_TYPE] = 1.0
    elif _BY_MAJORITY[c.ranking[t]]:
        out[i, at.key_rank + _majority_rank(c.cards[t])] = 1.0
    else:
        top = _highest(c.cards[t])
        out[i, at.key_rank + (top >> 2)] = 1.0
        out[i, at.key_suit + (top & 3)] = 1.0
    _bits(_TYPE_BITS[c.ranking[t]], out, i, at.type)
    out[i, at.passes + min(state.passes[g], 2)] = 1.0


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
def _third_card(mask: np.uint64) -> int:
    """The third weakest card of a mask of five."""
    mask &= mask - np.uint64(1)
    mask &= mask - np.uint64(1)
    return int(lowest_card(mask & (~mask + np.uint64(1))))


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
