"""Bit kernels shared by the compiled engine and observers: counts, the lowest card, lookups."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def popcount(x: np.uint64) -> int:
    """The number of set bits of a 64-bit mask (SWAR)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_INDEX = np.zeros(64, np.int64)
for _i in range(64):
    _DEBRUIJN_INDEX[((_DEBRUIJN << np.uint64(_i)) >> np.uint64(58)) & np.uint64(63)] = _i


@numba.njit(cache=True)
def lowest_card(single):
    """The index of the one set bit of ``single`` (a de Bruijn multiply, no loop)."""
    return _DEBRUIJN_INDEX[((single * _DEBRUIJN) >> np.uint64(58)) & np.uint64(63)]


@numba.njit(cache=True)
def lookup(mask, sorted_cards, sorted_index):
    """The index stored beside ``mask`` in the sorted ``sorted_cards``, or -1 if absent."""
    i = np.searchsorted(sorted_cards, mask)
    if i < sorted_cards.shape[0] and sorted_cards[i] == mask:
        return sorted_index[i]
    return -1


@numba.njit(cache=True)
def rank_mask(hand, rank):
    """The 4-bit mask of ``hand``'s cards of ``rank`` (bit ``s``: suit ``s``)."""
    return int((hand >> np.uint64(4 * rank)) & np.uint64(15))


@numba.njit(cache=True)
def bit(card):
    """The one-card mask of card index ``card``."""
    return np.uint64(1) << np.uint64(card)
