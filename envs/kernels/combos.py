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


@numba.njit(cache=True)
def enumerate_combos(hand, c, out):
    """Write every combination in ``hand`` (catalog indices, ascending) to ``out``; the count.

    ``c`` is the catalog (:class:`envs.kernels.turns.CatalogArrays`).
    """
    n = 0
    masks = np.zeros(13, np.int64)
    for r in range(13):
        masks[r] = rank_mask(hand, r)
    for r in range(13):  # singles, pairs, triples
        if masks[r]:
            for k in range(3):
                key = 3 * (16 * r + masks[r]) + k
                for j in range(c.low_start[key], c.low_start[key + 1]):
                    out[n] = c.low_items[j]
                    n += 1
    if c.four_card_plays:
        n = _fours(masks, c, out, n)
    n = _straights(masks, c, out, n)
    n = _flushes(hand, c, out, n)
    n = _full_houses(masks, c, out, n)
    if c.five_card_quads:
        for r in range(13):
            if masks[r] == 15:
                quad = np.uint64(15) << np.uint64(4 * r)
                for card in range(52):
                    held = (hand >> np.uint64(card)) & np.uint64(1)
                    if held and not (quad >> np.uint64(card)) & 1:
                        out[n] = lookup(quad | bit(card), c.sorted_cards, c.sorted_index)
                        n += 1
    out[:n].sort()
    return n


@numba.njit(cache=True)
def _fours(masks, c, out, n):
    for r1 in range(13):
        if masks[r1] == 15:
            out[n] = lookup(np.uint64(15) << np.uint64(4 * r1), c.sorted_cards, c.sorted_index)
            n += 1
        k1 = 3 * (16 * r1 + masks[r1]) + 1
        for r2 in range(r1 + 1, 13):
            k2 = 3 * (16 * r2 + masks[r2]) + 1
            for a in range(c.low_start[k1], c.low_start[k1 + 1]):
                for b in range(c.low_start[k2], c.low_start[k2 + 1]):
                    both = c.cards[c.low_items[a]] | c.cards[c.low_items[b]]
                    out[n] = lookup(both, c.sorted_cards, c.sorted_index)
                    n += 1
    return n


@numba.njit(cache=True)
def _straights(masks, c, out, n):
    for s in c.starts:
        if masks[s] and masks[s + 1] and masks[s + 2] and masks[s + 3] and masks[s + 4]:
            for s0 in range(4):
                if not masks[s] >> s0 & 1:
                    continue
                for s1 in range(4):
                    if not masks[s + 1] >> s1 & 1:
                        continue
                    for s2 in range(4):
                        if not masks[s + 2] >> s2 & 1:
                            continue
                        for s3 in range(4):
                            if not masks[s + 3] >> s3 & 1:
                                continue
                            for s4 in range(4):
                                if masks[s + 4] >> s4 & 1:
                                    m = (
                                        bit(4 * s + s0)
                                        | bit(4 * s + 4 + s1)
                                        | bit(4 * s + 8 + s2)
                                        | bit(4 * s + 12 + s3)
                                        | bit(4 * s + 16 + s4)
                                    )
                                    out[n] = lookup(m, c.sorted_cards, c.sorted_index)
                                    n += 1
    return n


@numba.njit(cache=True)
def _flushes(hand, c, out, n):
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
                            i = lookup(m, c.sorted_cards, c.sorted_index)
                            if c.ranking[i] == _FLUSH:  # straight flushes came with straights
                                out[n] = i
                                n += 1
    return n


@numba.njit(cache=True)
def _full_houses(masks, c, out, n):
    for tr in range(13):
        kt = 3 * (16 * tr + masks[tr]) + 2
        for a in range(c.low_start[kt], c.low_start[kt + 1]):
            for pr in range(13):
                if pr == tr:
                    continue
                kp = 3 * (16 * pr + masks[pr]) + 1
                for b in range(c.low_start[kp], c.low_start[kp + 1]):
                    both = c.cards[c.low_items[a]] | c.cards[c.low_items[b]]
                    out[n] = lookup(both, c.sorted_cards, c.sorted_index)
                    n += 1
    return n
