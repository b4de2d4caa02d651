"""A brute-force Big Two reference, written from the rules text alone (docs/rules.md).

Nothing here is imported from ``big2.hand_ranking``: a combination is recognised by
counting ranks and suits, and compared by a plain tuple. The rule fields read are
``four_card_plays``, ``five_card_hands``, ``straights_to_two``, ``wrap_straights``,
``flush_order``, ``bombs`` and ``bombs_beat``.

A card is an index ``4 * rank + suit`` (rank 0 = ``3`` .. 12 = ``2``; suit = its place in
the rules' suit order, 0 the lowest), so comparing two card indices compares rank first,
then suit, under every suit order: the reference never needs to know which suit is which.
:func:`ref_index` says which index a card's text has under a suit order.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from itertools import combinations

RANKS = "3456789TJQKA2"  # rank 0 .. 12

FOUR_CARD = {"two_pair", "quads"}  # the four-card plays (four_card_plays); quads beat two pair


def ref_index(text: str, suit_order: str) -> int:
    """The index of the card written ``text`` (``"3C"``) when the suits rank as
    ``suit_order`` (lowest first): 4 x rank + the suit's place in the order."""
    rank, suit = text.upper()
    return 4 * RANKS.index(rank) + suit_order.index(suit)


def cards_of(mask: int) -> list[int]:
    """The card indices of a mask, weakest first."""
    return [i for i in range(52) if mask >> i & 1]


def mask_of(cards) -> int:
    """The mask of some card indices."""
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


def straight_sequences(rules) -> list[tuple[str, str]]:
    """Every straight's ranks, lowest first, with the rank of its top card (whose suit
    breaks a tie between two straights of the same ranks).

    Straights run inside 3..A, or 3..2 with ``straights_to_two``; ``wrap_straights``
    adds A-2-3-4-5 and 2-3-4-5-6 as the lowest two (top cards the 5 and the 6) or the
    highest two (top card the 2 of both).
    """
    inner = RANKS if rules.straights_to_two else RANKS[:-1]
    runs = [(inner[i : i + 5], inner[i + 4]) for i in range(len(inner) - 4)]
    if rules.wrap_straights == "low":
        return [("A2345", "5"), ("23456", "6"), *runs]
    if rules.wrap_straights == "high":
        return [*runs, ("A2345", "2"), ("23456", "2")]
    return runs


@cache
def _runs(rules) -> dict[frozenset[int], tuple[int, int]]:
    """The ranks of each straight -> (its place among the straights, its top card's rank)."""
    return {
        frozenset(RANKS.index(r) for r in run): (place, RANKS.index(top))
        for place, (run, top) in enumerate(straight_sequences(rules))
    }


def _five(cards: list[int] | tuple[int, ...], rules):
    """(category, key) of five cards, or None; the key's first element is the
    category's place in ``five_card_hands``."""
    hands = rules.five_card_hands
    ranks = [c // 4 for c in cards]
    distinct = frozenset(ranks)
    suited = len({c % 4 for c in cards}) == 1
    if len(distinct) == 5:
        run = _runs(rules).get(distinct)
        if run is not None:
            place, top_rank = run
            top_suit = next(c % 4 for c in cards if c // 4 == top_rank)
            # five suited cards in sequence: a straight flush, else what else they are
            names = ("straight_flush", "straight", "flush") if suited else ("straight",)
            name = next((n for n in names if n in hands), None)
            if name is None:
                return None
            if name == "flush":
                return "FLUSH", _flush_key(cards, rules)
            return name.upper(), (hands.index(name), place, top_suit)
        if suited and "flush" in hands:
            return "FLUSH", _flush_key(cards, rules)
        return None
    (most, times), (_, second) = Counter(ranks).most_common(2)
    if times == 4 and "four_of_a_kind" in hands:  # and any fifth card
        return "FOUR_OF_A_KIND", (hands.index("four_of_a_kind"), most)
    if (times, second) == (3, 2) and "full_house" in hands:
        return "FULL_HOUSE", (hands.index("full_house"), most)
    return None


def _flush_key(cards: list[int] | tuple[int, ...], rules) -> tuple[int, ...]:
    """A flush compares by its highest card (rank, then suit), or by suit first."""
    level, top = rules.five_card_hands.index("flush"), max(cards)
    return (level, top % 4, top) if rules.flush_order == "suit" else (level, top)


def ref_classify(cards, rules):
    """``(category_name, comparison_tuple)`` of exactly ``cards``, or None.

    ``cards`` is a list of card indices. Comparison tuples only compare within one
    size: the first element is the category's place in its size, the rest break ties.
    """
    cards = sorted(cards)
    if len(set(cards)) != len(cards):
        raise ValueError(f"duplicate cards in {cards}")
    return _classify(cards, rules)


def _classify(cards: list[int] | tuple[int, ...], rules):
    """:func:`ref_classify` of distinct cards, weakest first."""
    n = len(cards)
    if n == 5:
        return _five(cards, rules)
    ranks = [c // 4 for c in cards]
    shape = sorted(Counter(ranks).values(), reverse=True)
    if n == 1:
        return "SINGLE", (0, cards[0])
    if n == 2:
        return ("PAIR", (0, ranks[0], cards[1] % 4)) if shape == [2] else None
    if n == 3:
        return ("TRIPLE", (0, ranks[0])) if shape == [3] else None
    if n == 4:
        if not rules.four_card_plays:
            return None
        if shape == [4]:
            return "QUADS", (1, ranks[0])
        if shape == [2, 2]:
            return "TWO_PAIR", (0, cards[-1])  # the higher pair's higher card
    return None


def ref_beats(play: int, table: int | None, rules) -> bool:
    """Whether the combination ``play`` (a mask) may be played on ``table`` (a mask,
    None when empty): a stronger one of the same size, or a bomb on a play of a size
    in ``bombs_beat``."""
    mine = ref_classify(cards_of(play), rules)
    if mine is None:
        return False
    if table is None:
        return True
    theirs = ref_classify(cards_of(table), rules)
    if theirs is None:
        raise ValueError(f"table {table:#x} is not a combination")
    if play.bit_count() == table.bit_count():
        return mine[1] > theirs[1]
    return table.bit_count() in rules.bombs_beat and mine[0].lower() in rules.bombs


def ref_plays(hand_mask: int, sizes, rules):
    """``{mask: (category_name, comparison_tuple)}`` of every combination in the hand."""
    hand = cards_of(hand_mask)
    found = {}
    for size in sizes:
        for combo in combinations(hand, size):  # distinct cards, weakest first
            classified = _classify(combo, rules)
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
    found = {m for m, (_, key) in ref_plays(hand_mask, [size], rules).items() if key > table[1]}
    if size in rules.bombs_beat:  # bombs are of four cards (two pair, quads) or five
        four = FOUR_CARD & set(rules.bombs)
        sizes = [4] * bool(four) + [5] * bool(set(rules.bombs) - four)
        bombs = ref_plays(hand_mask, sizes, rules)
        found |= {m for m, (name, _) in bombs.items() if name.lower() in rules.bombs}
    return found


def ref_category_counts(hand_mask: int, table_mask, rules) -> dict[str, int]:
    """How many plays of each category beat the table (categories with none omitted)."""
    plays = ref_stronger_than(hand_mask, table_mask, rules)
    counts = Counter(ref_classify(cards_of(m), rules)[0] for m in plays)
    return dict(sorted(counts.items()))
