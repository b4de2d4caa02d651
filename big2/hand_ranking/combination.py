"""A combination as a value: :class:`HandRanking`, its :class:`Ranking`, and :data:`PASS`.

Every HandRanking is an entry of its rules' catalog (:mod:`big2.hand_ranking.catalog`),
built once; equality is identity. The catalog builds its entries from this module, so
this module does not import it: the catalog hands it the two look-ups a HandRanking
needs (:class:`Finders`: :meth:`HandRanking.from_str` and unpickling) when it loads,
which it does with the package. Combinations of the same size compare by a
precomputed integer key; different sizes do not compare (:class:`TypeError`).

>>> pair = HandRanking.from_str("9D 9S")
>>> pair.ranking, pair > HandRanking.from_str("9C 9H")
(<Ranking.PAIR: 2>, True)
>>> bool(PASS), str(PASS)
(False, 'pass')
"""

from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum
from typing import Any, NamedTuple

from big2 import cards as C
from big2.rules import STANDARD, Rules


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
        return _finders().find(text, rules)

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
        return (_finders().lookup, (self.cards, self.rules))

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
        """Whether this combination may be played on ``table`` (None: empty table): a
        stronger one of its size, or a bomb on a play of a size it beats
        (:attr:`~big2.rules.Rules.bombs`).

        >>> HandRanking.from_str("2D").beats(HandRanking.from_str("AS"))
        True
        >>> HandRanking.from_str("3D 3C").beats(HandRanking.from_str("AS"))
        False
        """
        if not self.size:
            return False
        if table is None:
            return True
        if self.size == table.size:
            return self.key > table.key
        rules = self.rules
        return (
            rules is not None
            and table.size in rules.bombs_beat
            and self.ranking.name.lower() in rules.bombs
        )

    def __str__(self) -> str:
        if not self.size:
            return "pass"
        return C.format_cards(self.cards, suits=self.rules.suit_order if self.rules else C.SUITS)

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


class Finders(NamedTuple):
    """The catalog's look-ups that a HandRanking needs, handed over by
    :mod:`big2.hand_ranking.catalog` (:func:`use_catalog`) when it loads."""

    find: Callable[[str, Rules], HandRanking]  # the entry written in a text
    lookup: Callable[[int, Rules], HandRanking]  # the entry of a mask (unpickling)


_catalog: Finders | None = None  # the catalog's, once it has loaded


def use_catalog(finders: Finders) -> None:
    """Find combinations with ``finders`` (called once, by the catalog module)."""
    global _catalog
    _catalog = finders


def _finders() -> Finders:
    if _catalog is None:  # only if this module were loaded without its package
        raise RuntimeError("big2.hand_ranking.catalog is not loaded: import big2.hand_ranking")
    return _catalog
