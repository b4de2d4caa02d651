"""A brute-force Big Two reference, written from the rules text alone.

Nothing here is imported from ``big2.hand_ranking``: a combination is recognised by
counting ranks and suits, and compared by a plain tuple. Only the rule fields
``four_card_plays``, ``five_card_quads``, ``straights_to_two`` and ``flush_order`` are read.

A card is an index ``4 * rank + suit`` (rank 0 = ``3`` .. 12 = ``2``, suit 0 = D .. 3 = S),
so comparing two card indices compares rank first, then suit.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

ACE = 11  # rank of the ace; the 2 is rank 12

# Category order inside one size: a higher number beats a lower one.
CATEGORY_ORDER = {
    "SINGLE": 0,
    "PAIR": 0,
    "TRIPLE": 0,
    "TWO_PAIR": 0,
    "QUADS": 1,
    "STRAIGHT": 0,
    "FLUSH": 1,
    "FULL_HOUSE": 2,
    "FOUR_OF_A_KIND": 3,
    "STRAIGHT_FLUSH": 4,
}


def cards_of(mask: int) -> list[int]:
    """The card indices of a mask, weakest first."""
    return [i for i in range(52) if mask >> i & 1]


def mask_of(cards) -> int:
    """The mask of some card indices."""
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


def _is_straight(ranks: list[int], rules) -> bool:
    """Five distinct consecutive ranks inside 3..A (or 3..2 when straights_to_two)."""
    top_allowed = 12 if rules.straights_to_two else ACE
    distinct = sorted(set(ranks))
    return len(distinct) == 5 and distinct[-1] - distinct[0] == 4 and distinct[-1] <= top_allowed


def ref_classify(cards, rules):
    """``(category_name, comparison_tuple)`` of exactly ``cards``, or None.

    ``cards`` is a list of card indices. Comparison tuples only compare within one
    size: the first element is the category's place in its size, the rest break ties.
    """
    cards = sorted(cards)
    if len(set(cards)) != len(cards):
        raise ValueError(f"duplicate cards in {cards}")
    n = len(cards)
    ranks = [c // 4 for c in cards]
    suits = [c % 4 for c in cards]
    rank_counts = Counter(ranks)
    shape = sorted(rank_counts.values(), reverse=True)
    top = max(cards) if cards else None

    if n == 1:
        return "SINGLE", (0, top)
    if n == 2:
        if shape == [2]:
            return "PAIR", (0, ranks[0], max(suits))
        return None
    if n == 3:
        if shape == [3]:
            return "TRIPLE", (0, ranks[0])
        return None
    if n == 4:
        if not rules.four_card_plays:
            return None
        if shape == [4]:
            return "QUADS", (1, ranks[0])
        if shape == [2, 2]:
            higher_pair_rank = max(rank_counts)
            highest_of_higher_pair = max(c for c in cards if c // 4 == higher_pair_rank)
            return "TWO_PAIR", (0, highest_of_higher_pair)
        return None
    if n == 5:
        straight = _is_straight(ranks, rules)
        flush = len(set(suits)) == 1
        if straight and flush:
            return "STRAIGHT_FLUSH", (4, top)
        if shape == [4, 1]:
            if rules.five_card_quads:
                quad_rank = next(r for r, k in rank_counts.items() if k == 4)
                return "FOUR_OF_A_KIND", (3, quad_rank)
            return None
        if shape == [3, 2]:
            triple_rank = next(r for r, k in rank_counts.items() if k == 3)
            return "FULL_HOUSE", (2, triple_rank)
        if flush:
            if rules.flush_order == "suit":
                return "FLUSH", (1, suits[0], top)
            return "FLUSH", (1, top)
        if straight:
            return "STRAIGHT", (0, top)
        return None
    return None


def ref_plays(hand_mask: int, sizes, rules):
    """``{mask: (category_name, comparison_tuple)}`` of every combination in the hand."""
    hand = cards_of(hand_mask)
    found = {}
    for size in sizes:
        for combo in combinations(hand, size):
            classified = ref_classify(list(combo), rules)
            if classified is not None:
                found[mask_of(combo)] = classified
    return found


def ref_stronger_than(hand_mask: int, table_mask, rules) -> set[int]:
    """Masks of every combination in the hand that beats the table (None: empty table)."""
    if table_mask is None:
        return set(ref_plays(hand_mask, range(1, 6), rules))
    table = ref_classify(cards_of(table_mask), rules)
    if table is None:
        raise ValueError(f"table {table_mask:#x} is not a combination")
    size = table_mask.bit_count()
    # Only a combination of the table's size can beat it, so only that size is enumerated.
    return {m for m, (_, key) in ref_plays(hand_mask, [size], rules).items() if key > table[1]}


def ref_category_counts(hand_mask: int, table_mask, rules) -> dict[str, int]:
    """How many plays of each category beat the table (categories with none omitted)."""
    plays = ref_stronger_than(hand_mask, table_mask, rules)
    counts = Counter(ref_classify(cards_of(m), rules)[0] for m in plays)
    return dict(sorted(counts.items()))
