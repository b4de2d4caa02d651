"""Combinations within a hand: every one of them, and those that beat the table.

Both enumerators read the hand rank by rank (4-bit suit masks) and look the
combinations up in the catalog, so their results are catalog entries in catalog order.

>>> from big2.cards import parse_cards
>>> from big2.hand_ranking.combination import HandRanking
>>> hand = parse_cards("9H 9S TD TS 2C")
>>> [str(c) for c in stronger_than(hand, HandRanking.from_str("9D 9S"))]  # 9H 9S only ties
['TD TS']
"""

from __future__ import annotations

from itertools import combinations, product
from operator import attrgetter

from big2 import cards as C
from big2.hand_ranking.catalog import Catalog, catalog
from big2.hand_ranking.combination import HandRanking, Ranking
from big2.rules import STANDARD, Rules

_INDEX = attrgetter("index")


def _low(t: Catalog, ms: list[int], n: int) -> list[HandRanking]:
    """Singles (n=1), pairs (2) or triples (3) of the rank masks ``ms``, in catalog order."""
    out: list[HandRanking] = []
    low, k = t.low, n - 1
    for r, m in enumerate(ms):
        if m:
            out += low[16 * r + m][k]
    return out


def _fours(t: Catalog, ms: list[int]) -> list[HandRanking]:
    """Two pairs then quads (four-card plays), in catalog order."""
    by_cards, low = t.by_cards, t.low
    pairs = [low[16 * r + m][1] for r, m in enumerate(ms) if C.POPCOUNT4[m] >= 2]
    out = [
        by_cards[a.cards | b.cards]
        for i, lower in enumerate(pairs)
        for higher in pairs[i + 1 :]
        for a in lower
        for b in higher
    ]
    out.sort(key=_INDEX)
    return out + [by_cards[15 << (4 * r)] for r, m in enumerate(ms) if m == 15]


def _fives(t: Catalog, hand: int, ms: list[int]) -> list[HandRanking]:
    """Every five-card hand in ``hand`` (rank masks ``ms``), in catalog order."""
    by_cards, shifted = t.by_cards, _SHIFTED
    out: list[HandRanking] = []
    for ranks in t.straights:  # straights and straight flushes (or what else runs are)
        if all(ms[r] for r in ranks):
            picks = product(*[shifted[r][ms[r]] for r in ranks])
            runs = (by_cards.get(sum(p)) for p in picks)  # a suited run that is a flush
            out += [h for h in runs if h is not None and h.ranking is not Ranking.FLUSH]
    if t.flushes:  # flushes (those of runs were found above)
        for suit_cards in C.SUIT_MASKS:
            held = hand & suit_cards
            if held.bit_count() >= 5:
                fives = (by_cards.get(sum(f)) for f in combinations(C.single_bits(held), 5))
                out += [h for h in fives if h is not None and h.ranking is Ranking.FLUSH]
    if t.full_houses and any(C.POPCOUNT4[m] >= 3 for m in ms):
        out += _full_houses(t, ms)
    if t.rules.five_card_quads and 15 in ms:
        for r, m in enumerate(ms):
            if m == 15:
                quad = 15 << (4 * r)
                out += [by_cards[quad | k] for k in C.single_bits(hand & ~quad)]
    out.sort(key=_INDEX)
    return out


def _full_houses(t: Catalog, ms: list[int]) -> list[HandRanking]:
    by_cards, low = t.by_cards, t.low
    pairs = [(r, low[16 * r + m][1]) for r, m in enumerate(ms) if C.POPCOUNT4[m] >= 2]
    return [
        by_cards[a.cards | b.cards]
        for tr, m in enumerate(ms)
        if C.POPCOUNT4[m] >= 3
        for a in low[16 * tr + m][2]
        for pr, ps in pairs
        if pr != tr
        for b in ps
    ]


# _SHIFTED[rank][suit_mask] = the single-card masks of that rank held in suit_mask
_SHIFTED = tuple(
    tuple(tuple(1 << C.card_index(r, s) for s in range(4) if m >> s & 1) for m in range(16))
    for r in range(C.N_RANKS)
)


def _of_size(t: Catalog, hand: int, ms: list[int], size: int) -> list[HandRanking]:
    if size <= 3:
        return _low(t, ms, size) if size > 0 else []
    if size == 4:
        return _fours(t, ms) if t.rules.four_card_plays else []
    return _fives(t, hand, ms) if size == 5 else []


def combinations_in(
    hand: int, size: int | tuple[int, ...] | None = None, rules: Rules = STANDARD
) -> list[HandRanking]:
    """Every combination in ``hand``: of one ``size``, of a tuple of sizes, or of every size.

    Catalog order (by size, then weakest first); a fresh list.

    >>> from big2.cards import parse_cards
    >>> [str(c) for c in combinations_in(parse_cards("3D 3C 3H 4S"), 2)]
    ['3D 3C', '3D 3H', '3C 3H']
    >>> len(combinations_in(parse_cards("4D 4S 7C 7H 7S")))  # 5 singles, 4 pairs, triple, FH
    11
    """
    cat, ms = catalog(rules), C.rank_masks(C.check_mask(hand))
    if isinstance(size, int):
        return _of_size(cat, hand, ms, size)
    return [c for n in size or cat.sizes for c in _of_size(cat, hand, ms, n)]


def stronger_than(
    hand: int, table: HandRanking, rules: Rules = STANDARD
) -> tuple[HandRanking, ...]:
    """Every combination in ``hand`` that beats the combination ``table``.

    The order is catalog order (weakest first): plays of the table's size, then the
    bombs that beat it (:attr:`~big2.rules.Rules.bombs`). On an empty table every
    combination may be played: that is :func:`combinations_in`. Turn rules (the opening 3♦, passing)
    belong to :class:`big2.game.Game`.

    >>> from big2.cards import parse_cards
    >>> hand = parse_cards("4D 4S 7C 7H 7S")
    >>> [str(c) for c in stronger_than(hand, HandRanking.from_str("5D 5C"))]
    ['7C 7H', '7C 7S', '7H 7S']
    >>> stronger_than(hand, None)
    Traceback (most recent call last):
    ...
    ValueError: table must be a combination of the standard rules, got None; ...
    """
    cat = catalog(rules)
    if not isinstance(table, HandRanking) or table not in cat:
        raise ValueError(
            f"table must be a combination of the {rules.name} rules, got {table!r}; "
            f"for every combination in a hand (an empty table) use combinations_in(hand)"
        )
    first = cat.beaten_from(table)
    ms = C.rank_masks(C.check_mask(hand))
    combos = _of_size(cat, hand, ms, table.size)
    found = [c for c in combos if c.index >= first]
    if cat.bombs and table.size in rules.bombs_beat:  # bombs: bigger, after in catalog order
        kinds = {b.ranking for b in cat.bombs}
        for size in sorted({b.size for b in cat.bombs}):
            found += [c for c in _of_size(cat, hand, ms, size) if c.ranking in kinds]
    return tuple(found)
