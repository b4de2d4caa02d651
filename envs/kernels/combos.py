"""Every combination in a hand, as catalog indices: :mod:`big2.hand_ranking.in_hand`, compiled.

Singles, pairs and triples come from per-rank tables; four-card plays, straights,
flushes, full houses and four of a kind plus a kicker are assembled from the rank masks
and looked up in the catalog's sorted masks. The result is sorted, so it is in catalog
order, as the Python enumerator's.
"""

from __future__ import annotations

import numba
import numpy as np

from big2.hand_ranking import Ranking
from envs.kernels.bits import bit, lookup, rank_mask

_FLUSH = int(Ranking.FLUSH)
SETS = 3  # the low tables' sizes per (rank, suit mask): singles, pairs, triples
SUIT_MASKS = 16  # the subsets of a rank's four suits


@numba.njit(cache=True)
def low_key(rank, suit_mask, size):
    """Where the ``size``-card sets of ``rank`` held in ``suit_mask`` are listed in the
    catalog's low tables (``low_start``, ``low_items``, built by :class:`envs.engine.Tables`)."""
    return SETS * (SUIT_MASKS * rank + suit_mask) + size - 1


@numba.njit(cache=True)
def enumerate_combos(hand, cat, out):
    """Write every combination in ``hand`` (catalog indices, ascending) to ``out``; the count.

    ``cat`` is the catalog (:class:`envs.kernels.turns.CatalogArrays`).
    """
    n = 0
    masks = np.zeros(13, np.int64)
    for r in range(13):
        masks[r] = rank_mask(hand, r)
    for r in range(13):  # singles, pairs, triples
        if masks[r]:
            for k in range(3):
                key = low_key(r, masks[r], k + 1)
                for j in range(cat.low_start[key], cat.low_start[key + 1]):
                    out[n] = cat.low_items[j]
                    n += 1
    if cat.four_card_plays:
        n = _fours(masks, cat, out, n)
    n = _straights(masks, cat, out, n)
    if cat.flushes:
        n = _flushes(hand, cat, out, n)
    if cat.full_houses:
        n = _full_houses(masks, cat, out, n)
    if cat.five_card_quads:
        for r in range(13):
            if masks[r] == 15:
                quad = np.uint64(15) << np.uint64(4 * r)
                for card in range(52):
                    held = (hand >> np.uint64(card)) & np.uint64(1)
                    if held and not (quad >> np.uint64(card)) & 1:
                        out[n] = lookup(quad | bit(card), cat.sorted_cards, cat.sorted_index)
                        n += 1
    out[:n].sort()
    return n


@numba.njit(cache=True)
def _fours(masks, cat, out, n):
    for r1 in range(13):
        if masks[r1] == 15:
            out[n] = lookup(np.uint64(15) << np.uint64(4 * r1), cat.sorted_cards, cat.sorted_index)
            n += 1
        k1 = low_key(r1, masks[r1], 2)
        for r2 in range(r1 + 1, 13):
            k2 = low_key(r2, masks[r2], 2)
            for a in range(cat.low_start[k1], cat.low_start[k1 + 1]):
                for b in range(cat.low_start[k2], cat.low_start[k2 + 1]):
                    both = cat.cards[cat.low_items[a]] | cat.cards[cat.low_items[b]]
                    out[n] = lookup(both, cat.sorted_cards, cat.sorted_index)
                    n += 1
    return n


@numba.njit(cache=True)
def _straights(masks, cat, out, n):
    """Straights and straight flushes: every run of ``cat.straights`` (its five ranks,
    a row) held; a suited run that is a flush is left to :func:`_flushes`, and one that
    is no play (no straights, no flushes) is skipped."""
    for row in range(cat.straights.shape[0]):
        r0, r1, r2 = cat.straights[row, 0], cat.straights[row, 1], cat.straights[row, 2]
        r3, r4 = cat.straights[row, 3], cat.straights[row, 4]
        if not (masks[r0] and masks[r1] and masks[r2] and masks[r3] and masks[r4]):
            continue
        for s0 in range(4):
            if not masks[r0] >> s0 & 1:
                continue
            for s1 in range(4):
                if not masks[r1] >> s1 & 1:
                    continue
                for s2 in range(4):
                    if not masks[r2] >> s2 & 1:
                        continue
                    for s3 in range(4):
                        if not masks[r3] >> s3 & 1:
                            continue
                        for s4 in range(4):
                            if masks[r4] >> s4 & 1:
                                m = (
                                    bit(4 * r0 + s0)
                                    | bit(4 * r1 + s1)
                                    | bit(4 * r2 + s2)
                                    | bit(4 * r3 + s3)
                                    | bit(4 * r4 + s4)
                                )
                                i = lookup(m, cat.sorted_cards, cat.sorted_index)
                                if i >= 0 and cat.ranking[i] != _FLUSH:
                                    out[n] = i
                                    n += 1
    return n


@numba.njit(cache=True)
def _flushes(hand, cat, out, n):
    held = np.zeros(13, np.int64)
    for suit in range(4):
        k = 0
        for r in range(13):
            if (hand >> np.uint64(4 * r + suit)) & np.uint64(1):
                held[k] = 4 * r + suit
                k += 1
        for i0 in range(k):
            for i1 in range(i0 + 1, k):
                for i2 in range(i1 + 1, k):
                    for i3 in range(i2 + 1, k):
                        for i4 in range(i3 + 1, k):
                            m = (
                                bit(held[i0])
                                | bit(held[i1])
                                | bit(held[i2])
                                | bit(held[i3])
                                | bit(held[i4])
                            )
                            i = lookup(m, cat.sorted_cards, cat.sorted_index)
                            if i >= 0 and cat.ranking[i] == _FLUSH:  # runs came with straights
                                out[n] = i
                                n += 1
    return n


@numba.njit(cache=True)
def _full_houses(masks, cat, out, n):
    for tr in range(13):
        kt = low_key(tr, masks[tr], 3)
        for a in range(cat.low_start[kt], cat.low_start[kt + 1]):
            for pr in range(13):
                if pr == tr:
                    continue
                kp = low_key(pr, masks[pr], 2)
                for b in range(cat.low_start[kp], cat.low_start[kp + 1]):
                    both = cat.cards[cat.low_items[a]] | cat.cards[cat.low_items[b]]
                    out[n] = lookup(both, cat.sorted_cards, cat.sorted_index)
                    n += 1
    return n
