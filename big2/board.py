"""Dealing: a :class:`Board` holds the hands at the start of a game.

Each of the rules' ``players`` seats is dealt ``52 // players`` cards; the leftover (one
card, for three players) goes to the holder of the opening card (or, when the leftover
is the opening card, to the holder of the lowest card dealt).

>>> board = Board(seed=7)
>>> [h.bit_count() for h in board.hands], board.first_seat == board.holder(0)
([13, 13, 13, 13], True)
>>> from big2.rules import THREE_PLAYER
>>> sorted(h.bit_count() for h in Board(THREE_PLAYER, seed=7).hands)
[17, 17, 18]
>>> Board(fixed={0: "3D 2S"}, seed=1).hands[0] & 1 == 1
True
>>> Board(fixed={5: "3D"})
Traceback (most recent call last):
...
ValueError: unknown seat 5 in fixed cards; expected a seat in 0..3
>>> Board(fixed=["3D"])
Traceback (most recent call last):
...
ValueError: fixed cards must be a mapping from seat (0..3) to cards (a mask or text ...
"""

from __future__ import annotations

import operator
import random
from collections.abc import Mapping
from typing import SupportsIndex

from big2 import cards as C
from big2.rules import STANDARD, Rules

N_SEATS = 4  # the most seats (four players); a game has its rules' ``players``
HAND_SIZE = 13  # the cards each of four players is dealt

Seed = int | random.Random | None


def seats_from(seat: int, players: int = N_SEATS) -> tuple[int, ...]:
    """The ``players`` seats in ``seat``'s order: me, next (acts after me), then on round
    the table (across and previous, of four).

    Every seat-relative encoding uses this order.

    >>> seats_from(2), seats_from(2, players=3)
    ((2, 3, 0, 1), (2, 0, 1))
    """
    return tuple((seat + k) % players for k in range(players))


def relative_seat(seat: int, me: int, players: int = N_SEATS) -> int:
    """Where ``seat`` sits from ``me``: 0 me, 1 next, ... ``players - 1`` previous.

    >>> relative_seat(0, me=3), relative_seat(0, me=2, players=3)
    (1, 1)
    """
    return (seat - me) % players


def make_rng(seed: Seed) -> random.Random:
    """A ``random.Random`` from a seed, an existing generator (used as is), or None (fresh).

    Any integer works, negative ones and numpy's included (``np.int64(7)`` seeds as 7).
    """
    if isinstance(seed, random.Random):
        return seed
    return random.Random(None if seed is None else seed_int(seed))


def seed_int(seed: object) -> int:
    """``seed`` as a Python int: any integer (numpy's too); TypeError for anything else.

    >>> seed_int(7), seed_int(-3)
    (7, -3)
    """
    if isinstance(seed, bool) or not isinstance(seed, SupportsIndex):
        raise TypeError(f"seed must be an integer, a random.Random or None, got {seed!r}")
    return operator.index(seed)


class Board:
    """The deal: the ``rules.players`` hands as masks.

    Args:
        rules: the variant (kept for the game built from this board).
        seed: an int, a ``random.Random`` (advanced by the deal) or None.
        fixed: seat -> cards (mask or text, in the rules' suit order) that seat must
            hold; the rest of the deck is dealt at random. Duplicated cards, more cards
            than a seat holds or an unknown seat raise :class:`ValueError` saying which.
    """

    __slots__ = ("hands", "rules")

    def __init__(
        self,
        rules: Rules = STANDARD,
        seed: Seed = None,
        fixed: Mapping[int, int | str] | None = None,
    ) -> None:
        rng = make_rng(seed)
        hands = _check_fixed({} if fixed is None else fixed, rules)
        taken = 0
        for hand in hands:
            taken |= hand
        rest = [i for i in range(C.N_CARDS) if not taken >> i & 1]
        rng.shuffle(rest)
        start = 0
        for seat in range(rules.players):
            need = max(rules.hand_size - hands[seat].bit_count(), 0)
            for i in rest[start : start + need]:
                hands[seat] |= 1 << i
            start += need
        for i in rest[start:]:  # the leftover
            hands[leftover_seat(hands, rules, 1 << i)] |= 1 << i
        _check_sizes(hands, rules)
        self.rules = rules
        self.hands: tuple[int, ...] = tuple(hands)

    @classmethod
    def from_hands(
        cls, hands: list[int | str] | tuple[int | str, ...], rules: Rules = STANDARD
    ) -> Board:
        """A board with all the hands given (the whole deck, as the rules deal it).

        >>> from big2.cards import parse_cards
        >>> Board.from_hands(["3D", "", "", ""])
        Traceback (most recent call last):
        ...
        ValueError: from_hands needs 13 cards per seat; seat 0 holds 1, seat 1 holds 0, ...
        """
        if len(hands) != rules.players:
            raise ValueError(
                f"from_hands needs {rules.players} hands ({rules.name} rules), got {len(hands)}"
            )
        masks = _check_fixed(dict(enumerate(hands)), rules)
        if sum(m.bit_count() for m in masks) != C.N_CARDS:
            counts = ", ".join(f"seat {s} holds {m.bit_count()}" for s, m in enumerate(masks))
            raise ValueError(f"from_hands needs {_dealt(rules)}; {counts}")
        return cls(rules, seed=0, fixed=dict(enumerate(masks)))

    def holder(self, card: int) -> int:
        """The seat holding card index ``card``."""
        return holder(self.hands, card)

    @property
    def first_seat(self) -> int:
        """The seat holding the opening card (3♦ under the standard rules), who starts."""
        return self.holder(self.rules.opening_index)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self.hands == other.hands and self.rules == other.rules

    def __hash__(self) -> int:
        return hash((self.hands, self.rules))

    def __repr__(self) -> str:
        hands = ", ".join(repr(C.format_cards(h, suits=self.rules.suit_order)) for h in self.hands)
        if self.rules == STANDARD:
            return f"Board.from_hands([{hands}])"
        return f"Board.from_hands([{hands}], rules={self.rules!r})"


def _dealt(rules: Rules) -> str:
    """How ``rules`` deal, in words: ``13 cards per seat``."""
    if not rules.leftover:
        return f"{rules.hand_size} cards per seat"
    return (
        f"{rules.hand_size} cards per seat and {rules.hand_size + rules.leftover} for the "
        f"holder of the opening card"
    )


def leftover_seat(hands: list[int] | tuple[int, ...], rules: Rules, card: int) -> int:
    """Who takes the leftover ``card`` (a mask) after ``hands`` are dealt: the opening
    card's holder, or (the leftover being the opening card) the holder of the lowest card
    dealt.

    >>> from big2.rules import THREE_PLAYER
    >>> leftover_seat([0b10, 0b1, 0b100], THREE_PLAYER, 1 << 51)  # seat 1 holds the 3D
    1
    """
    if card != 1 << rules.opening_index:
        return holder(hands, rules.opening_index)
    dealt = 0
    for hand in hands:
        dealt |= hand
    return holder(hands, C.highest(dealt & -dealt))  # the lowest card dealt


def holder(hands: list[int] | tuple[int, ...], card: int) -> int:
    """The seat of ``hands`` holding card index ``card``.

    >>> holder([0b10, 0b1, 0b100], 0)
    1
    """
    return next(s for s, h in enumerate(hands) if h >> card & 1)


def _check_sizes(hands: list[int], rules: Rules) -> None:
    """ValueError unless ``hands`` hold the deck as ``rules`` deal it (the leftover with
    the opening card's holder)."""
    sizes = [h.bit_count() for h in hands]
    expected = [rules.hand_size] * rules.players
    if rules.leftover:
        expected[holder(hands, rules.opening_index)] += rules.leftover
    if sizes != expected:
        counts = ", ".join(f"seat {s} holds {n}" for s, n in enumerate(sizes))
        raise ValueError(f"the fixed cards cannot be dealt: the {rules.name} rules deal "
                         f"{_dealt(rules)}; {counts}")  # fmt: skip


def _check_fixed(fixed: Mapping[int, int | str], rules: Rules) -> list[int]:
    """The fixed cards as ``rules.players`` masks, after checking seats, sizes and overlaps."""
    seats = f"0..{rules.players - 1}"
    if not isinstance(fixed, Mapping):
        raise ValueError(
            f"fixed cards must be a mapping from seat ({seats}) to cards (a mask or text such "
            f"as '3D 2S'), got {type(fixed).__name__} {fixed!r}"
        )
    hands = [0] * rules.players
    for seat, given in fixed.items():
        if not isinstance(seat, int) or not 0 <= seat < rules.players:
            raise ValueError(f"unknown seat {seat!r} in fixed cards; expected a seat in {seats}")
        mask = (
            C.parse_cards(given, rules.suit_order)
            if isinstance(given, str)
            else C.check_mask(given)
        )
        if mask.bit_count() > rules.largest_hand:
            raise ValueError(
                f"seat {seat} is given {mask.bit_count()} cards; a seat holds at most "
                f"{rules.largest_hand}"
            )
        for other, held in enumerate(hands):
            if held & mask:
                both = C.format_cards(held & mask, suits=rules.suit_order)
                raise ValueError(f"card(s) {both} given to both seat {other} and seat {seat}")
        hands[seat] = mask
    return hands
