"""Combinations: what they are, how they compare, which ones beat the table.

Every legal combination of a :class:`~big2.rules.Rules` exists once, in that rules'
**catalog**, as a frozen :class:`HandRanking` with a precomputed integer comparison
key. :func:`classify` and :func:`stronger_than` hand out references to catalog
entries; nothing is created per call, and equality is identity.

The catalog is sorted by (size, key, cards), so ``HandRanking.index`` is a stable
action id and, within one size, index order is strength order (ties broken by the
card mask). :func:`stronger_than` returns combinations in catalog order: by size,
then weakest first.

>>> from big2.cards import parse_cards
>>> pair = classify(parse_cards("9D 9S"))
>>> pair
HandRanking.from_str('9D 9S')
>>> pair.ranking, pair > classify(parse_cards("9C 9H"))
(<Ranking.PAIR: 2>, True)
>>> [str(c) for c in stronger_than(parse_cards("9H 9S TD TS 2C"), pair)]  # 9H 9S only ties
['TD TS']
>>> len(catalog())
17858
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from enum import IntEnum
from itertools import combinations, product
from operator import attrgetter
from typing import Any, overload

from big2 import cards as C
from big2.rules import STANDARD, Rules

__all__ = [
    "PASS",
    "Catalog",
    "HandRanking",
    "Ranking",
    "all_combinations_in",
    "catalog",
    "classify",
    "combinations_in",
    "stronger_than",
]


class Ranking(IntEnum):
    """Categories of combinations. Within one size, a higher value beats a lower one."""

    PASS = 0
    SINGLE = 1
    PAIR = 2
    TRIPLE = 3
    TWO_PAIR = 4  # four cards (CHARLESWORTH only)
    QUADS = 5  # four of a kind as four cards (CHARLESWORTH only)
    STRAIGHT = 6
    FLUSH = 7
    FULL_HOUSE = 8
    FOUR_OF_A_KIND = 9  # four of a kind plus any fifth card (STANDARD)
    STRAIGHT_FLUSH = 10

    @property
    def label(self) -> str:
        """A readable name: ``'full house'``."""
        return self.name.lower().replace("_", " ")


_INDEX = attrgetter("index")
_SIZE = attrgetter("size")
_KEY_STRIDE = 64  # key = ranking * 64 + tie-break (a card index, a rank, or suit * 16 + rank)


class HandRanking:
    """One combination (or :data:`PASS`): a frozen catalog entry.

    Attributes: ``cards`` (mask), ``ranking`` (:class:`Ranking`), ``size`` (number of
    cards), ``key`` (comparison key within a size), ``index`` (position in
    ``catalog(rules)``; -1 for PASS, which belongs to no catalog), ``rules``.

    ``<``, ``>``, ``<=``, ``>=`` compare combinations of the same size and raise
    :class:`TypeError` otherwise. Equal keys mean neither beats the other. PASS is
    falsy, like python-chess's null move.

    >>> single, pair = HandRanking.from_str("2S"), HandRanking.from_str("3D 3C")
    >>> single > pair
    Traceback (most recent call last):
    ...
    TypeError: cannot compare a single (1 card) with a pair (2 cards)
    """

    __slots__ = ("cards", "index", "key", "ranking", "rules", "size")

    cards: int
    ranking: Ranking
    size: int
    key: int
    index: int
    rules: Rules | None

    def __init__(
        self, cards: int, ranking: Ranking, key: int, index: int, rules: Rules | None
    ) -> None:
        for name, value in (
            ("cards", cards),
            ("ranking", ranking),
            ("size", cards.bit_count()),
            ("key", key),
            ("index", index),
            ("rules", rules),
        ):
            object.__setattr__(self, name, value)

    @classmethod
    def from_str(cls, text: str, rules: Rules = STANDARD) -> HandRanking:
        """The combination written in ``text`` (``'pass'`` gives :data:`PASS`).

        >>> HandRanking.from_str("7h 3h 5h 4h 6h").ranking.label
        'straight flush'
        """
        if text.strip().lower() == "pass":
            return PASS
        found = classify(C.parse_cards(text), rules)
        if found is None:
            raise ValueError(f"{text!r} is not a combination under the {rules.name} rules")
        return found

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"HandRanking is frozen; cannot set {name}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"HandRanking is frozen; cannot delete {name}")

    def __bool__(self) -> bool:
        return self.size != 0

    def __hash__(self) -> int:
        return hash((self.cards, self.index))

    def __reduce__(self) -> tuple[Any, ...]:
        # Unpickling returns the catalog singleton, so identity equality survives.
        if self.rules is None:
            return (_pass, ())
        return (_lookup, (self.cards, self.rules))

    def __copy__(self) -> HandRanking:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> HandRanking:
        return self

    def _check_comparable(self, other: HandRanking) -> None:
        if self.size != other.size or not self.size:
            raise TypeError(f"cannot compare {self._describe()} with {other._describe()}")

    def _describe(self) -> str:
        if not self.size:
            return "a pass"
        noun = "card" if self.size == 1 else "cards"
        return f"a {self.ranking.label} ({self.size} {noun})"

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, HandRanking):
            return NotImplemented
        self._check_comparable(other)
        return self.key < other.key

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, HandRanking):
            return NotImplemented
        self._check_comparable(other)
        return self.key > other.key

    def __le__(self, other: object) -> bool:
        if not isinstance(other, HandRanking):
            return NotImplemented
        self._check_comparable(other)
        return self.key <= other.key

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, HandRanking):
            return NotImplemented
        self._check_comparable(other)
        return self.key >= other.key

    def beats(self, table: HandRanking | None) -> bool:
        """Whether this combination may be played on ``table`` (None: empty table).

        >>> HandRanking.from_str("2D").beats(HandRanking.from_str("AS"))
        True
        >>> HandRanking.from_str("3D 3C").beats(HandRanking.from_str("AS"))
        False
        """
        if not self.size:
            return False
        if table is None:
            return True
        return self.size == table.size and self.key > table.key

    def __str__(self) -> str:
        return C.format_cards(self.cards) if self.size else "pass"

    def __repr__(self) -> str:
        if not self.size:
            return "PASS"
        if self.rules is None or self.rules == STANDARD:
            return f"HandRanking.from_str({str(self)!r})"
        return f"HandRanking.from_str({str(self)!r}, rules={self.rules!r})"


PASS = HandRanking(0, Ranking.PASS, -1, -1, None)
"""The pass: falsy, in no catalog, comparable with nothing."""


def _pass() -> HandRanking:
    return PASS


def _lookup(cards: int, rules: Rules) -> HandRanking:
    found = catalog(rules).by_cards.get(cards)
    if found is None:
        raise ValueError(f"{C.format_cards(cards)} is not a combination under {rules.name}")
    return found


# --------------------------------------------------------------------------- catalog


def _straight_starts(rules: Rules) -> range:
    """Lowest ranks of the straights: 3-4-5-6-7 (start 0) up to T-J-Q-K-A (7) or J-Q-K-A-2 (8)."""
    return range(9 if rules.straights_to_two else 8)


def _tie_break(ranking: Ranking, cards: int, rules: Rules) -> int:
    top = C.highest(cards)
    if ranking in (Ranking.TRIPLE, Ranking.QUADS, Ranking.FULL_HOUSE, Ranking.FOUR_OF_A_KIND):
        return C.majority_rank(cards)
    if ranking == Ranking.FLUSH and rules.flush_order == "suit":
        return 16 * C.suit_of(top) + C.rank_of(top)
    return top  # singles, pairs, two pair, straights, flushes, straight flushes


def _rank_sets(rank: int, n: int) -> list[int]:
    """Masks of every way to hold ``n`` cards of ``rank``."""
    return [sum(1 << C.card_index(rank, s) for s in suits) for suits in combinations(range(4), n)]


def _generate(rules: Rules) -> list[tuple[int, Ranking]]:
    """Every combination of ``rules`` as (cards, ranking), in no particular order."""
    out = [(1 << i, Ranking.SINGLE) for i in range(C.N_CARDS)]
    for r in range(C.N_RANKS):
        out += [(m, Ranking.PAIR) for m in _rank_sets(r, 2)]
        out += [(m, Ranking.TRIPLE) for m in _rank_sets(r, 3)]
    if rules.four_card_plays:
        for low, high in combinations(range(C.N_RANKS), 2):
            out += [
                (a | b, Ranking.TWO_PAIR) for a in _rank_sets(low, 2) for b in _rank_sets(high, 2)
            ]
        out += [(m, Ranking.QUADS) for r in range(C.N_RANKS) for m in _rank_sets(r, 4)]
    return out + _generate_fives(rules)


def _generate_fives(rules: Rules) -> list[tuple[int, Ranking]]:
    out: list[tuple[int, Ranking]] = []
    starts = _straight_starts(rules)
    straight_ranks = {tuple(range(s, s + 5)) for s in starts}
    for s in starts:
        for suits in product(range(4), repeat=5):
            m = sum(1 << C.card_index(s + i, suit) for i, suit in enumerate(suits))
            flush = len(set(suits)) == 1
            out.append((m, Ranking.STRAIGHT_FLUSH if flush else Ranking.STRAIGHT))
    for suit in range(4):
        for ranks in combinations(range(C.N_RANKS), 5):
            if ranks not in straight_ranks:
                out.append((sum(1 << C.card_index(r, suit) for r in ranks), Ranking.FLUSH))
    for t, p in product(range(C.N_RANKS), repeat=2):
        if t != p:
            out += [(a | b, Ranking.FULL_HOUSE) for a in _rank_sets(t, 3) for b in _rank_sets(p, 2)]
    if rules.five_card_quads:
        for r in range(C.N_RANKS):
            quad = _rank_sets(r, 4)[0]
            kickers = C.DECK & ~quad
            out += [(quad | (1 << k), Ranking.FOUR_OF_A_KIND) for k in C.iter_cards(kickers)]
    return out


class Catalog(Sequence[HandRanking]):
    """Every combination of one :class:`Rules`, sorted by (size, key, cards).

    A read-only sequence: ``catalog[i].index == i``. It also holds the lookup tables
    that make enumeration cheap; get it with :func:`catalog` (built once per rules).

    >>> cat = catalog()
    >>> cat[cat.beaten_from(cat.find("AS"))]  # the weakest single that beats AS
    HandRanking.from_str('2D')
    """

    def __init__(self, rules: Rules) -> None:
        rows = sorted(
            (m.bit_count(), rk * _KEY_STRIDE + _tie_break(rk, m, rules), m, rk)
            for m, rk in _generate(rules)
        )
        self.rules = rules
        self.entries = tuple(
            HandRanking(m, Ranking(rk), key, i, rules) for i, (_, key, m, rk) in enumerate(rows)
        )
        self.by_cards = {h.cards: h for h in self.entries}
        # low[16 * rank + suit_mask] = (singles, pairs, triples) held in that rank
        self.low = [
            tuple(self._within(r, m, n) for n in (1, 2, 3))
            for r in range(C.N_RANKS)
            for m in range(16)
        ]
        self.starts = tuple(_straight_starts(rules))
        self.sizes = (1, 2, 3, 4, 5) if rules.four_card_plays else (1, 2, 3, 5)
        self._beaten_from = _first_stronger(self.entries)
        self._size_end = {n: bisect_right(self.entries, n, key=_SIZE) for n in range(6)}

    def _within(self, rank: int, suit_mask: int, n: int) -> tuple[HandRanking, ...]:
        held = suit_mask << (4 * rank)
        found = [self.by_cards[m] for m in _rank_sets(rank, n) if m & held == m]
        return tuple(sorted(found, key=_INDEX))

    @overload
    def __getitem__(self, i: int) -> HandRanking: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[HandRanking, ...]: ...
    def __getitem__(self, i: int | slice) -> HandRanking | tuple[HandRanking, ...]:
        return self.entries[i]

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[HandRanking]:
        return iter(self.entries)

    def __contains__(self, item: object) -> bool:
        return isinstance(item, HandRanking) and self.owns(item)

    def owns(self, combo: HandRanking) -> bool:
        """Whether ``combo`` is this catalog's entry (not another rules' or PASS)."""
        return 0 <= combo.index < len(self.entries) and self.entries[combo.index] is combo

    def find(self, text: str) -> HandRanking:
        """The entry written in ``text``; :class:`ValueError` if those cards form none."""
        found = self.by_cards.get(C.parse_cards(text))
        if found is None:
            raise ValueError(f"{text!r} is not a combination under the {self.rules.name} rules")
        return found

    def beaten_from(self, table: HandRanking) -> int:
        """The first index whose entry beats ``table``; entries of that size from there on do."""
        return self._beaten_from[table.index]

    def size_end(self, size: int) -> int:
        """One past the last index of the entries of ``size`` cards."""
        return self._size_end[size]

    def __repr__(self) -> str:
        return f"catalog({self.rules!r})"


def _first_stronger(entries: tuple[HandRanking, ...]) -> list[int]:
    """For each entry, the index of the first entry of its size with a greater key."""
    out = [0] * len(entries)
    nxt = len(entries)
    for i in range(len(entries) - 1, -1, -1):
        e = entries[i]
        if i + 1 < len(entries):
            after = entries[i + 1]
            # a new size starts: nothing beats the strongest entry (an empty range)
            if after.size != e.size or after.key != e.key:
                nxt = i + 1
        out[i] = nxt
    return out


_CATALOGS: dict[Rules, Catalog] = {}


def catalog(rules: Rules = STANDARD) -> Catalog:
    """The :class:`Catalog` of ``rules`` (built on first use, about 0.2 s, then shared).

    >>> len(catalog()), catalog()[0], catalog()[-1]
    (17858, HandRanking.from_str('3D'), HandRanking.from_str('TS JS QS KS AS'))
    """
    found = _CATALOGS.get(rules)
    if found is None:
        found = _CATALOGS[rules] = Catalog(rules)
    return found


def classify(cards: int, rules: Rules = STANDARD) -> HandRanking | None:
    """The combination formed by exactly ``cards``, or None if they form none.

    >>> from big2.cards import parse_cards
    >>> classify(parse_cards("5C 5D 5S 8H 8D")).ranking.label
    'full house'
    >>> classify(parse_cards("5C 6D")) is None
    True
    """
    return catalog(rules).by_cards.get(C.check_mask(cards))


# ----------------------------------------------------------------------- enumeration


def _rank_masks(hand: int) -> list[int]:
    """The 4-bit suit mask of every rank in ``hand``."""
    return [(hand >> shift) & 15 for shift in range(0, C.N_CARDS, 4)]


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
    pairs = [low[16 * r + m][1] for r, m in enumerate(ms) if _POP[m] >= 2]
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
    for s in t.starts:  # straights and straight flushes
        if ms[s] and ms[s + 1] and ms[s + 2] and ms[s + 3] and ms[s + 4]:
            picks = product(*[shifted[r][ms[r]] for r in range(s, s + 5)])
            out += [by_cards[sum(p)] for p in picks]
    for suit_cards in _SUITS:  # flushes (straight flushes were found above)
        held = hand & suit_cards
        if held.bit_count() >= 5:
            fives = (by_cards[sum(f)] for f in combinations(_bits(held), 5))
            out += [h for h in fives if h.ranking is Ranking.FLUSH]
    if any(_POP[m] >= 3 for m in ms):
        out += _full_houses(t, ms)
    if t.rules.five_card_quads and 15 in ms:
        for r, m in enumerate(ms):
            if m == 15:
                quad = 15 << (4 * r)
                out += [by_cards[quad | k] for k in _bits(hand & ~quad)]
    out.sort(key=_INDEX)
    return out


def _full_houses(t: Catalog, ms: list[int]) -> list[HandRanking]:
    by_cards, low = t.by_cards, t.low
    pairs = [(r, low[16 * r + m][1]) for r, m in enumerate(ms) if _POP[m] >= 2]
    return [
        by_cards[a.cards | b.cards]
        for tr, m in enumerate(ms)
        if _POP[m] >= 3
        for a in low[16 * tr + m][2]
        for pr, ps in pairs
        if pr != tr
        for b in ps
    ]


def _bits(mask: int) -> list[int]:
    """The single-bit masks of ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


_POP = tuple(m.bit_count() for m in range(16))
_SUITS = tuple(sum(1 << C.card_index(r, s) for r in range(C.N_RANKS)) for s in range(4))
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


def combinations_in(hand: int, size: int, rules: Rules = STANDARD) -> list[HandRanking]:
    """Every combination of ``size`` cards in ``hand``, in catalog order (a fresh list).

    >>> from big2.cards import parse_cards
    >>> [str(c) for c in combinations_in(parse_cards("3D 3C 3H 4S"), 2)]
    ['3D 3C', '3D 3H', '3C 3H']
    """
    return _of_size(catalog(rules), C.check_mask(hand), _rank_masks(hand), size)


def all_combinations_in(
    hand: int, rules: Rules = STANDARD, sizes: tuple[int, ...] | None = None
) -> list[HandRanking]:
    """Every combination in ``hand`` (of ``sizes``, default all), in catalog order."""
    cat, ms = catalog(rules), _rank_masks(C.check_mask(hand))
    return [c for size in sizes or cat.sizes for c in _of_size(cat, hand, ms, size)]


def stronger_than(
    hand: int, table: HandRanking | None, rules: Rules = STANDARD
) -> tuple[HandRanking, ...]:
    """Every combination in ``hand`` that beats ``table`` (all of them when it is None).

    PASS is never included; the order is catalog order (by size, then weakest first).
    Turn rules (the opening 3♦, passing) belong to :class:`big2.game.Game`.

    >>> from big2.cards import parse_cards
    >>> hand = parse_cards("4D 4S 7C 7H 7S")
    >>> [str(c) for c in stronger_than(hand, HandRanking.from_str("5D 5C"))]
    ['7C 7H', '7C 7S', '7H 7S']
    >>> len(stronger_than(hand, None))  # 5 singles, 4 pairs, 1 triple, 1 full house
    11
    """
    if table is None:
        return tuple(all_combinations_in(hand, rules))
    cat = catalog(rules)
    if not isinstance(table, HandRanking) or table not in cat:
        raise ValueError(
            f"table must be a combination of the {rules.name} rules or None, got {table!r}"
        )
    first = cat.beaten_from(table)
    combos = _of_size(cat, C.check_mask(hand), _rank_masks(hand), table.size)
    return tuple(c for c in combos if c.index >= first)
