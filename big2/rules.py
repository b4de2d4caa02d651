"""Rule variants as data: a frozen :class:`Rules` value and its presets.

Two presets ship:

- :data:`STANDARD` (the default): singles, pairs, triples and five-card hands
  (straight < flush < full house < four of a kind + kicker < straight flush);
  straights run inside ``3..A``; the first play must contain 3♦; losers pay
  cards left x1 (1-9 cards), x2 (10-12) or x3 (13).
- :data:`CHARLESWORTH`: the rules of henrycharlesworth/big2_PPOalgorithm (the 2018
  Big Two PPO paper), so results can be compared with it: four-card plays (two
  pair, four of a kind), no four-plus-kicker, straights inside ``3..2``
  (J-Q-K-A-2 is legal), 3♦ played automatically, penalty = cards left. Unlike
  that code, a higher straight flush beats a lower one.

Every field is a way the variants differ; a new variant is a new value:

>>> from dataclasses import replace
>>> house = replace(STANDARD, name="house", pass_locks_out=True)
>>> house.pass_locks_out, STANDARD.pass_locks_out
(True, False)
>>> replace(STANDARD, name="mine", opening="whoever")
Traceback (most recent call last):
...
ValueError: opening must be one of ('contains_3d', 'auto_3d', 'free'), got 'whoever'
>>> replace(STANDARD, pass_locks_out=True)  # still called 'standard'
Traceback (most recent call last):
...
ValueError: the name 'standard' belongs to a preset but these settings differ from it; ...
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from itertools import pairwise

OPENINGS = ("contains_3d", "auto_3d", "free")
FLUSH_ORDERS = ("high_card", "suit")


@dataclass(frozen=True)
class Rules:
    """One Big Two variant. All presets deal 13 cards to each of 4 seats.

    Attributes:
        name: a short name, used by :func:`get` and in reprs.
        four_card_plays: two pair and four of a kind exist as 4-card combinations
            (two pair compares by the highest card of its higher pair; quads beat two pair).
        five_card_quads: four of a kind plus any fifth card is a 5-card hand, ranked
            between full house and straight flush.
        straights_to_two: straights run inside ``3..2`` (J-Q-K-A-2 is the highest);
            when False they run inside ``3..A`` and a 2 is never in a straight.
            Wrap-arounds (A-2-3-4-5, 2-3-4-5-6) are never straights.
        flush_order: ``"high_card"`` compares flushes by their highest card (rank,
            then suit); ``"suit"`` compares by suit first, then by highest card.
        opening: ``"contains_3d"``: the 3♦ holder leads and the first play must
            contain 3♦; ``"auto_3d"``: the 3♦ is played for its holder as a single and
            the next seat makes the first decision; ``"free"``: the 3♦ holder leads
            anything.
        pass_locks_out: a seat that passes may not play again until the table clears.
            When False (both presets) a seat that passed may play later in the trick.
        penalty_steps: ``((cards, multiplier), ...)``: a loser holding at least
            ``cards`` cards pays cards x ``multiplier`` (the last step that applies).
            Starts at 1 card, thresholds strictly increasing and at most 13,
            multipliers positive and non-decreasing.
    """

    name: str = "standard"
    four_card_plays: bool = False
    five_card_quads: bool = True
    straights_to_two: bool = False
    flush_order: str = "high_card"
    opening: str = "contains_3d"
    pass_locks_out: bool = False
    penalty_steps: tuple[tuple[int, int], ...] = field(default=((1, 1), (10, 2), (13, 3)))

    def __post_init__(self) -> None:
        if self.opening not in OPENINGS:
            raise ValueError(f"opening must be one of {OPENINGS}, got {self.opening!r}")
        if self.flush_order not in FLUSH_ORDERS:
            raise ValueError(f"flush_order must be one of {FLUSH_ORDERS}, got {self.flush_order!r}")
        for flag in ("four_card_plays", "five_card_quads", "straights_to_two", "pass_locks_out"):
            if not isinstance(getattr(self, flag), bool):
                raise ValueError(f"{flag} must be a bool, got {getattr(self, flag)!r}")
        _check_penalty_steps(self.penalty_steps)
        preset = _PRESET_FIELDS.get(self.name)
        if preset is not None and preset != _fields_of(self):
            raise ValueError(
                f"the name {self.name!r} belongs to a preset but these settings differ from it; "
                f"give the variant its own name, e.g. replace(..., name='my-variant')"
            )

    def __hash__(self) -> int:
        # Rules key caches on hot paths; hash the fields once.
        try:
            return self.__dict__["_hash"]  # type: ignore[no-any-return]
        except KeyError:
            value = hash(tuple(getattr(self, f.name) for f in fields(self)))
            self.__dict__["_hash"] = value
            return value

    def __getstate__(self) -> dict[str, object]:
        # the cached hash is this process's (str hashes are salted per process): another
        # process must hash the fields again, or its caches keyed by rules go astray
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    def penalty(self, cards_left: int) -> int:
        """What a loser holding ``cards_left`` cards pays.

        >>> STANDARD.penalty(9), STANDARD.penalty(10), STANDARD.penalty(13)
        (9, 20, 39)
        >>> CHARLESWORTH.penalty(13)
        13
        """
        multiplier = 0
        for threshold, factor in self.penalty_steps:
            if cards_left >= threshold:
                multiplier = factor
        return cards_left * multiplier

    @property
    def max_penalty(self) -> int:
        """The largest penalty a loser can pay (13 cards left)."""
        return self.penalty(13)


def _check_penalty_steps(steps: tuple[tuple[int, int], ...]) -> None:
    expected = (
        "expected ((1, m1), (c2, m2), ...) with thresholds rising up to 13 and m1 <= m2 <= ..."
    )
    try:
        pairs = [(int(c), int(m)) for c, m in steps]
    except (TypeError, ValueError):
        raise ValueError(f"penalty_steps {steps!r} is malformed; {expected}") from None
    thresholds = [c for c, _ in pairs]
    factors = [m for _, m in pairs]
    ok = (
        bool(pairs)
        and thresholds[0] == 1
        and all(a < b for a, b in pairwise(thresholds))
        and thresholds[-1] <= 13
        and factors[0] > 0
        and all(a <= b for a, b in pairwise(factors))
    )
    if not ok:
        raise ValueError(f"penalty_steps {steps!r} is invalid; {expected}")


def _fields_of(rules: Rules) -> dict[str, object]:
    return {f.name: getattr(rules, f.name) for f in fields(rules)}


_PRESET_FIELDS: dict[str, dict[str, object]] = {}  # filled below, checked by Rules()
STANDARD = Rules()
CHARLESWORTH = Rules(
    name="charlesworth",
    four_card_plays=True,
    five_card_quads=False,
    straights_to_two=True,
    opening="auto_3d",
    penalty_steps=((1, 1),),
)
PRESETS = {r.name: r for r in (STANDARD, CHARLESWORTH)}
_PRESET_FIELDS.update({name: _fields_of(rules) for name, rules in PRESETS.items()})


def get(rules: Rules | str) -> Rules:
    """A :class:`Rules` value from itself or a preset name.

    >>> get("charlesworth") is CHARLESWORTH
    True
    """
    if isinstance(rules, Rules):
        return rules
    try:
        return PRESETS[str(rules).lower()]
    except KeyError:
        raise ValueError(f"unknown rules {rules!r}; expected one of {sorted(PRESETS)}") from None
