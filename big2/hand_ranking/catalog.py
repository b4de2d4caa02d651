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


def _straights(rules: Rules) -> tuple[tuple[tuple[int, ...], int, int], ...]:
    """Every straight's ranks, with its place among the straights and the rank of the
    card whose suit breaks a tie (the place's rank but for the high wraps): 3-4-5-6-7
    (place 4, the 7) up to T-J-Q-K-A (11) or J-Q-K-A-2 (12), and the wraps
    (:attr:`~big2.rules.Rules.wrap_straights`): low, A-2-3-4-5 (2, the 5) and 2-3-4-5-6
    (3, the 6); high, A-2-3-4-5 (12, the 2) and 2-3-4-5-6 (13, the 2)."""
    tops = range(4, 13 if rules.straights_to_two else 12)
    out = [(tuple(range(top - 4, top + 1)), top, top) for top in tops]
    a2345, a23456 = (11, 12, 0, 1, 2), (12, 0, 1, 2, 3)
    if rules.wrap_straights == "low":
        out += [(a2345, 2, 2), (a23456, 3, 3)]
    elif rules.wrap_straights == "high":
        out += [(a2345, 12, 12), (a23456, 13, 12)]
    return tuple(out)


def _level(ranking: Ranking, rules: Rules) -> int:
    """Where ``ranking`` stands among the categories of its size (a higher level beats a
    lower one): the five-card hands in the rules' order, the others by their value."""
    if ranking.value >= Ranking.STRAIGHT:
        return int(Ranking.STRAIGHT) + rules.five_card_hands.index(ranking.name.lower())
    return int(ranking)


def _rank_sets(rank: int, n: int) -> list[int]:
    """Masks of every way to hold ``n`` cards of ``rank``."""
    return [sum(1 << C.card_index(rank, s) for s in suits) for suits in combinations(range(4), n)]


Row = tuple[int, Ranking, int]  # cards, ranking, tie-break


def _generate(rules: Rules) -> list[Row]:
    """Every combination of ``rules`` as (cards, ranking, tie-break), in no order."""
    out = [(1 << i, Ranking.SINGLE, i) for i in range(C.N_CARDS)]
    for r in range(C.N_RANKS):
        out += [(m, Ranking.PAIR, C.highest(m)) for m in _rank_sets(r, 2)]
        out += [(m, Ranking.TRIPLE, r) for m in _rank_sets(r, 3)]
    if rules.four_card_plays:
        for low, high in combinations(range(C.N_RANKS), 2):
            out += [
                (a | b, Ranking.TWO_PAIR, C.highest(b))
                for a in _rank_sets(low, 2)
                for b in _rank_sets(high, 2)
            ]
        out += [(m, Ranking.QUADS, r) for r in range(C.N_RANKS) for m in _rank_sets(r, 4)]
    return out + _generate_fives(rules)


def _run_category(suited: bool, rules: Rules) -> Ranking | None:
    """What five cards in sequence are (``suited``: of one suit) under ``rules``: a
    straight flush, else the straight or flush they also are, or nothing."""
    hands = rules.five_card_hands
    if not suited:
        return Ranking.STRAIGHT if "straight" in hands else None
    for name in ("straight_flush", "straight", "flush"):
        if name in hands:
            return Ranking[name.upper()]
    return None


def _flush_tie(cards: int, rules: Rules) -> int:
    top = C.highest(cards)
    return 16 * C.suit_of(top) + C.rank_of(top) if rules.flush_order == "suit" else top


def _generate_fives(rules: Rules) -> list[Row]:
    out: list[Row] = []
    hands = rules.five_card_hands
    runs = _straights(rules)
    for ranks, place, decider in runs:
        for suits in product(range(4), repeat=5):
            m = sum(1 << C.card_index(r, suit) for r, suit in zip(ranks, suits, strict=True))
            category = _run_category(len(set(suits)) == 1, rules)
            if category is Ranking.FLUSH:
                out.append((m, category, _flush_tie(m, rules)))
            elif category is not None:
                out.append((m, category, 4 * place + suits[ranks.index(decider)]))
    if "flush" in hands:
        run_ranks = {tuple(sorted(ranks)) for ranks, _, _ in runs}
        for suit in range(4):
            for ranks in combinations(range(C.N_RANKS), 5):
                if ranks not in run_ranks:
                    m = sum(1 << C.card_index(r, suit) for r in ranks)
                    out.append((m, Ranking.FLUSH, _flush_tie(m, rules)))
    if "full_house" in hands:
        for t, p in product(range(C.N_RANKS), repeat=2):
            if t != p:
                out += [
                    (a | b, Ranking.FULL_HOUSE, t)
                    for a in _rank_sets(t, 3)
                    for b in _rank_sets(p, 2)
                ]
    if "four_of_a_kind" in hands:
        for r in range(C.N_RANKS):
            quad = _rank_sets(r, 4)[0]
            kickers = C.DECK & ~quad
            out += [(quad | (1 << k), Ranking.FOUR_OF_A_KIND, r) for k in C.iter_cards(kickers)]
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
        generated = _generate(rules)
        # each category's level once (per combination it was half the catalog's build)
        levels = {rk: _level(rk, rules) for rk in {rk for _, rk, _ in generated}}
        rows = sorted(
            (m.bit_count(), levels[rk] * _KEY_STRIDE + tie, m, rk) for m, rk, tie in generated
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
        self.straights = tuple(ranks for ranks, _, _ in _straights(rules))
        self.sizes = (1, 2, 3, 4, 5) if rules.four_card_plays else (1, 2, 3, 5)
        self.flushes = "flush" in rules.five_card_hands
        self.full_houses = "full_house" in rules.five_card_hands
        bomb_names = {name.upper() for name in rules.bombs}
        self.bombs = tuple(h for h in self.entries if h.ranking.name in bomb_names)
        """The entries that may also be played on a play of a size in ``rules.bombs_beat``."""
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
        found = self.by_cards.get(C.parse_cards(text, self.rules.suit_order))
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
        shown = C.format_cards(cards, suits=rules.suit_order)
        raise ValueError(f"{shown} is not a combination under {rules.name}")
    return found


def find(text: str, rules: Rules = STANDARD) -> HandRanking:
    """The catalog entry written in ``text``; :class:`ValueError` if those cards form none.

    (What :meth:`HandRanking.from_str` returns.)
    """
    return catalog(rules).find(text)


use_catalog(Finders(find, lookup))
