"""The catalog: every combination of one :class:`~big2.rules.Rules`, built once.

The catalog is sorted by (size, key, cards), so ``HandRanking.index`` is a stable
action id and, within one size, index order is strength order (ties broken by the
card mask). :func:`classify` and the enumerators hand out references to its entries;
nothing is created per call.

>>> from big2.cards import parse_cards
>>> classify(parse_cards("5C 5D 5S 8H 8D")).ranking.label
'full house'
>>> from big2.rules import CHARLESWORTH
>>> len(catalog()), len(catalog(CHARLESWORTH))
(17858, 21075)
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from itertools import combinations, product
from operator import attrgetter
from typing import overload

from big2 import cards as C
from big2.hand_ranking.combination import Finders, HandRanking, Ranking, use_catalog
from big2.rules import STANDARD, Rules

_INDEX = attrgetter("index")
_SIZE = attrgetter("size")
_KEY_STRIDE = 64  # key = ranking * 64 + tie-break (a card index, a rank, or suit * 16 + rank)


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
    """The :class:`Catalog` of ``rules`` (built on first use, then shared).

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


def lookup(cards: int, rules: Rules) -> HandRanking:
    """The catalog entry of exactly ``cards``; :class:`ValueError` if they form none.

    (How a pickled HandRanking comes back as the catalog's own entry.)
    """
    found = catalog(rules).by_cards.get(cards)
    if found is None:
        raise ValueError(f"{C.format_cards(cards)} is not a combination under {rules.name}")
    return found


def find(text: str, rules: Rules = STANDARD) -> HandRanking:
    """The catalog entry written in ``text``; :class:`ValueError` if those cards form none.

    (What :meth:`HandRanking.from_str` returns.)
    """
    return catalog(rules).find(text)


use_catalog(Finders(find, lookup))
