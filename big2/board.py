"""Dealing: a :class:`Board` holds the four hands at the start of a game.

>>> board = Board(seed=7)
>>> [h.bit_count() for h in board.hands], board.first_seat == board.holder(0)
([13, 13, 13, 13], True)
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

N_SEATS = 4
HAND_SIZE = 13

Seed = int | random.Random | None


def seats_from(seat: int) -> tuple[int, int, int, int]:
    """The four seats in ``seat``'s order: me, next (acts after me), across, previous.

    Every seat-relative encoding uses this order.

    >>> seats_from(2)
    (2, 3, 0, 1)
    """
    return (seat, (seat + 1) % N_SEATS, (seat + 2) % N_SEATS, (seat + 3) % N_SEATS)


def relative_seat(seat: int, me: int) -> int:
    """Where ``seat`` sits from ``me``: 0 me, 1 next, 2 across, 3 previous.

    >>> relative_seat(0, me=3)
    1
    """
    return (seat - me) % N_SEATS


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
    """The deal: four 13-card hands as masks.

    Args:
        rules: the variant (kept for the game built from this board).
        seed: an int, a ``random.Random`` (advanced by the deal) or None.
        fixed: seat -> cards (mask or text) that seat must hold; the rest of the deck
            is dealt at random. Duplicated cards, more than 13 cards for a seat or an
            unknown seat raise :class:`ValueError` saying which.
    """

    __slots__ = ("hands", "rules")

    def __init__(
        self,
        rules: Rules = STANDARD,
        seed: Seed = None,
        fixed: Mapping[int, int | str] | None = None,
    ) -> None:
        rng = make_rng(seed)
        hands = _check_fixed({} if fixed is None else fixed)
        taken = hands[0] | hands[1] | hands[2] | hands[3]
        rest = [i for i in range(C.N_CARDS) if not taken >> i & 1]
        rng.shuffle(rest)
        start = 0
        for seat in range(N_SEATS):
            need = HAND_SIZE - hands[seat].bit_count()
            for i in rest[start : start + need]:
                hands[seat] |= 1 << i
            start += need
        self.rules = rules
        self.hands: tuple[int, ...] = tuple(hands)

    @classmethod
    def from_hands(
        cls, hands: list[int | str] | tuple[int | str, ...], rules: Rules = STANDARD
    ) -> Board:
        """A board with all four hands given (13 cards each, the whole deck).

        >>> from big2.cards import parse_cards
        >>> Board.from_hands(["3D", "", "", ""])
        Traceback (most recent call last):
        ...
        ValueError: from_hands needs 13 cards per seat; seat 0 holds 1, seat 1 holds 0, ...
        """
        if len(hands) != N_SEATS:
            raise ValueError(f"from_hands needs {N_SEATS} hands, got {len(hands)}")
        masks = _check_fixed(dict(enumerate(hands)))
        if any(m.bit_count() != HAND_SIZE for m in masks):
            counts = ", ".join(f"seat {s} holds {m.bit_count()}" for s, m in enumerate(masks))
            raise ValueError(f"from_hands needs {HAND_SIZE} cards per seat; {counts}")
        return cls(rules, seed=0, fixed=dict(enumerate(masks)))

    def holder(self, card: int) -> int:
        """The seat holding card index ``card``."""
        return next(s for s, h in enumerate(self.hands) if h >> card & 1)

    @property
    def first_seat(self) -> int:
        """The seat holding 3♦, who starts."""
        return self.holder(0)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self.hands == other.hands and self.rules == other.rules

    def __hash__(self) -> int:
        return hash((self.hands, self.rules))

    def __repr__(self) -> str:
        hands = ", ".join(repr(C.format_cards(h)) for h in self.hands)
        return f"Board.from_hands([{hands}])"


def _check_fixed(fixed: Mapping[int, int | str]) -> list[int]:
    """The fixed cards as four masks, after checking seats, sizes and overlaps."""
    if not isinstance(fixed, Mapping):
        raise ValueError(
            f"fixed cards must be a mapping from seat (0..3) to cards (a mask or text such "
            f"as '3D 2S'), got {type(fixed).__name__} {fixed!r}"
        )
    hands = [0] * N_SEATS
    for seat, given in fixed.items():
        if not isinstance(seat, int) or not 0 <= seat < N_SEATS:
            raise ValueError(f"unknown seat {seat!r} in fixed cards; expected a seat in 0..3")
        mask = C.parse_cards(given) if isinstance(given, str) else C.check_mask(given)
        if mask.bit_count() > HAND_SIZE:
            raise ValueError(
                f"seat {seat} is given {mask.bit_count()} cards; a seat holds at most {HAND_SIZE}"
            )
        for other, held in enumerate(hands):
            if held & mask:
                both = C.format_cards(held & mask)
                raise ValueError(f"card(s) {both} given to both seat {other} and seat {seat}")
        hands[seat] = mask
    return hands
