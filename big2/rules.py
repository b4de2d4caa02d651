"""Rule variants as data: a frozen :class:`Rules` value, its presets and rules files.

Big Two is played with different rules across Hong Kong, Taiwan, the Philippines and
elsewhere; every way the variants differ is a field of :class:`Rules`, and a variant is
a value. The presets (:data:`PRESETS`, their sources in ``docs/rules.md``):

- ``standard`` (:data:`STANDARD`, the default; Hong Kong): four players of 13 cards,
  suits ♦ < ♣ < ♥ < ♠, the 3♦ holder leads with a play containing it; singles, pairs,
  triples and five-card hands (straight < flush < full house < four of a kind + kicker <
  straight flush); straights run inside ``3..A``; losers pay cards left x1 (1-9 cards),
  x2 (10-12) or x3 (13 or more).
- ``charlesworth`` (:data:`CHARLESWORTH`): the rules of henrycharlesworth/big2_PPOalgorithm
  (the 2018 Big Two PPO paper): four-card plays (two pair, four of a kind), no
  four-plus-kicker, straights inside ``3..2``, the 3♦ played automatically, penalty =
  cards left. Unlike that code, a higher straight flush beats a lower one.
- ``taiwan``: suits ♣ < ♦ < ♥ < ♠; the 3♣ leads.
- ``pusoy-dos`` (the Philippines): suits ♣ < ♠ < ♥ < ♦, the 3♣ leads, flushes compare by
  suit first, one point per card left.
- ``bombs``: four of a kind + kicker and straight flushes may be played on a single.
- ``western``: A-2-3-4-5 is the lowest straight, flushes compare by suit first.
- ``three-player``: three players of 17 cards, the 52nd card to the 3♦ holder.
- ``two-player``: two players of 26 cards.

A card's index is its strength under the rules' suit order (:mod:`big2.cards`), so 0 is
always the lowest card of the deck: the 3♦ under ``standard``, the 3♣ under ``taiwan``.

>>> from dataclasses import replace
>>> house = replace(STANDARD, name="house", pass_locks_out=True)
>>> house.pass_locks_out, STANDARD.pass_locks_out
(True, False)
>>> replace(STANDARD, name="mine", opening="whoever")
Traceback (most recent call last):
...
ValueError: opening must be one of ('contains', 'auto', 'free'), got 'whoever'
>>> replace(STANDARD, name="mine", straights_to_two=True, wrap_straights="high")
Traceback (most recent call last):
...
ValueError: straights_to_two and wrap_straights='high' cannot combine: ...
>>> replace(STANDARD, pass_locks_out=True)  # still called 'standard'
Traceback (most recent call last):
...
ValueError: the name 'standard' belongs to a preset but these settings differ from it; ...
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields
from itertools import pairwise
from pathlib import Path
from typing import Any

OPENINGS = ("contains", "auto", "free")
LEGACY_OPENINGS = {"contains_3d": "contains", "auto_3d": "auto"}  # the names before variants
FLUSH_ORDERS = ("high_card", "suit")
WRAPS = ("none", "low", "high")
FIVE_CARD_HANDS = ("straight", "flush", "full_house", "four_of_a_kind", "straight_flush")
FOUR_CARD_HANDS = ("two_pair", "quads")
DECK_SIZE = 52
SUIT_LETTERS = "DCHS"


@dataclass(frozen=True)
class Rules:
    """One Big Two variant.

    Attributes:
        name: a short name, used by :func:`get` and in reprs.
        players: 2, 3 or 4 seats. Each is dealt ``52 // players`` cards and the
            leftover (one card, for three players) goes to the holder of the opening
            card.
        suit_order: the four suit letters from lowest to highest: ``"DCHS"``
            (♦ < ♣ < ♥ < ♠) or ``"CDHS"``, say. Card indices follow it (0 is the
            lowest card of the deck).
        opening: who makes the first play, and what it holds. ``"contains"``: the
            opening card's holder leads and the first play must contain it; ``"auto"``:
            the opening card is played for its holder as a single and the next seat
            makes the first decision; ``"free"``: the opening card's holder leads anything.
        opening_card: the opening card as text (``"3C"``); ``""`` (the default) is the
            lowest card of the deck under ``suit_order``.
        four_card_plays: two pair and four of a kind exist as 4-card combinations
            (two pair compares by the highest card of its higher pair; quads beat two pair).
        five_card_hands: the five-card categories that exist, lowest first, among
            ``straight``, ``flush``, ``full_house``, ``four_of_a_kind`` (four of a kind
            plus any fifth card) and ``straight_flush``; any of a higher category beats
            any of a lower one. Without ``straight``, a straight flush is still one
            (if it is listed), and without ``flush`` five cards of one suit are nothing.
        straights_to_two: straights run inside ``3..2`` (J-Q-K-A-2 is the highest);
            when False they run inside ``3..A``.
        wrap_straights: ``"none"``: A-2-3-4-5 and 2-3-4-5-6 are not straights; ``"low"``:
            they are, the lowest two (A-2-3-4-5 < 2-3-4-5-6 < 3-4-5-6-7), compared within a
            sequence by the suit of its top card (the 5, the 6); ``"high"``: they are, the
            highest two (T-J-Q-K-A < A-2-3-4-5 < 2-3-4-5-6), compared by the suit of their 2.
        flush_order: ``"high_card"`` compares flushes by their highest card (rank,
            then suit); ``"suit"`` compares by suit first, then by highest card.
        bombs: categories (of four or five cards) that may also be played on a play
            of a size in ``bombs_beat``, e.g. ``("four_of_a_kind", "straight_flush")``.
        bombs_beat: the sizes of the plays a bomb beats, e.g. ``(1,)`` (singles) or
            ``(1, 2)``. The next play on a bomb is of the bomb's size, as usual.
        pass_locks_out: a seat that passes may not play again until the table clears.
            When False (every preset) a seat that passed may play later in the trick.
        penalty_steps: ``((cards, multiplier), ...)``: a loser holding at least
            ``cards`` cards pays cards x ``multiplier`` (the last step that applies).
            Starts at 1 card, thresholds strictly increasing and at most the largest
            hand, multipliers positive and non-decreasing.
    """

    name: str = "standard"
    players: int = 4
    suit_order: str = "DCHS"
    opening: str = "contains"
    opening_card: str = ""
    four_card_plays: bool = False
    five_card_hands: tuple[str, ...] = FIVE_CARD_HANDS
    straights_to_two: bool = False
    wrap_straights: str = "none"
    flush_order: str = "high_card"
    bombs: tuple[str, ...] = ()
    bombs_beat: tuple[int, ...] = ()
    pass_locks_out: bool = False
    penalty_steps: tuple[tuple[int, int], ...] = field(default=((1, 1), (10, 2), (13, 3)))

    def __post_init__(self) -> None:
        for name in ("five_card_hands", "bombs", "bombs_beat"):  # lists from TOML or JSON
            if isinstance(getattr(self, name), list):
                object.__setattr__(self, name, tuple(getattr(self, name)))
        if self.opening in LEGACY_OPENINGS:
            object.__setattr__(self, "opening", LEGACY_OPENINGS[self.opening])
        _check_choices(self)
        _check_deal(self)
        _check_combinations(self)
        _check_penalty_steps(self.penalty_steps, self.largest_hand, self.players)
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

    @property
    def hand_size(self) -> int:
        """The cards dealt to each seat before the leftover: ``52 // players``.

        >>> STANDARD.hand_size, THREE_PLAYER.hand_size, TWO_PLAYER.hand_size
        (13, 17, 26)
        """
        return DECK_SIZE // self.players

    @property
    def leftover(self) -> int:
        """The cards left after dealing ``hand_size`` to each seat (to the opening card's
        holder): 1 for three players, else 0."""
        return DECK_SIZE - self.players * self.hand_size

    @property
    def largest_hand(self) -> int:
        """The most cards a seat can hold: ``hand_size`` plus the leftover."""
        return self.hand_size + self.leftover

    @property
    def opening_index(self) -> int:
        """The opening card's index (its strength under ``suit_order``).

        >>> STANDARD.opening_index, get("taiwan").opening_index
        (0, 0)
        """
        if not self.opening_card:
            return 0
        from big2.cards import parse_card  # cards imports nothing from here

        return parse_card(self.opening_card, self.suit_order)

    @property
    def five_card_quads(self) -> bool:
        """Whether four of a kind plus a kicker is a five-card hand."""
        return "four_of_a_kind" in self.five_card_hands

    def penalty(self, cards_left: int) -> int:
        """What a loser holding ``cards_left`` cards pays.

        >>> STANDARD.penalty(9), STANDARD.penalty(10), STANDARD.penalty(13)
        (9, 20, 39)
        >>> CHARLESWORTH.penalty(13), THREE_PLAYER.penalty(18)
        (13, 54)
        """
        multiplier = 0
        for threshold, factor in self.penalty_steps:
            if cards_left >= threshold:
                multiplier = factor
        return cards_left * multiplier

    @property
    def max_penalty(self) -> int:
        """The largest penalty a loser can pay (the largest hand left whole)."""
        return self.penalty(self.largest_hand)


def _check_choices(rules: Rules) -> None:
    for name, choices in (("opening", OPENINGS), ("flush_order", FLUSH_ORDERS),
                          ("wrap_straights", WRAPS)):  # fmt: skip
        if getattr(rules, name) not in choices:
            raise ValueError(f"{name} must be one of {choices}, got {getattr(rules, name)!r}")
    for flag in ("four_card_plays", "straights_to_two", "pass_locks_out"):
        if not isinstance(getattr(rules, flag), bool):
            raise ValueError(f"{flag} must be a bool, got {getattr(rules, flag)!r}")
    if not isinstance(rules.name, str) or not rules.name:
        raise ValueError(f"name must be a non-empty text, got {rules.name!r}")


def _check_deal(rules: Rules) -> None:
    if isinstance(rules.players, bool) or rules.players not in (2, 3, 4):
        raise ValueError(f"players must be 2, 3 or 4, got {rules.players!r}")
    order = rules.suit_order
    if not isinstance(order, str) or sorted(order.upper()) != sorted(SUIT_LETTERS):
        raise ValueError(
            f"suit_order must be the four suit letters D, C, H, S once each, lowest "
            f"first (e.g. 'DCHS' or 'CDHS'), got {order!r}"
        )
    if order != order.upper():
        object.__setattr__(rules, "suit_order", order.upper())
    if rules.opening_card:
        try:
            rules.opening_index  # noqa: B018 (parses the card)
        except ValueError as e:
            raise ValueError(f"opening_card {rules.opening_card!r}: {e}") from None
        if rules.opening == "free":
            raise ValueError(
                f"opening_card {rules.opening_card!r} and opening='free' cannot combine: "
                f"a free opening leads anything (leave opening_card empty)"
            )


def _check_combinations(rules: Rules) -> None:
    hands = rules.five_card_hands
    if not isinstance(hands, tuple) or any(h not in FIVE_CARD_HANDS for h in hands):
        raise ValueError(
            f"five_card_hands must name categories of {FIVE_CARD_HANDS}, got {hands!r}"
        )
    if len(set(hands)) != len(hands):
        raise ValueError(f"five_card_hands names a category twice: {hands!r}")
    if {"straight", "flush"} <= set(hands) and "straight_flush" not in hands:
        raise ValueError(
            f"five_card_hands={hands!r} lists straight and flush but not straight_flush: "
            f"five suited cards in sequence would be both; list straight_flush too"
        )
    if rules.straights_to_two and rules.wrap_straights != "none":
        raise ValueError(
            f"straights_to_two and wrap_straights={rules.wrap_straights!r} cannot combine: "
            f"a straight through the 2 is either J-Q-K-A-2 or a wrap-around; choose one"
        )
    if rules.wrap_straights != "none" and not {"straight", "straight_flush"} & set(hands):
        raise ValueError(
            f"wrap_straights={rules.wrap_straights!r} and five_card_hands={hands!r} cannot "
            f"combine: there are no straights to wrap"
        )
    four = FOUR_CARD_HANDS if rules.four_card_plays else ()
    if not isinstance(rules.bombs, tuple) or any(b not in (*hands, *four) for b in rules.bombs):
        bombs = rules.bombs if isinstance(rules.bombs, tuple) else ()
        missing = next((b for b in bombs if b not in (*hands, *four)), None)
        if missing in FOUR_CARD_HANDS:
            raise ValueError(
                f"bombs={rules.bombs!r} and four_card_plays=False cannot combine: {missing} is "
                f"a four-card play"
            )
        if missing in FIVE_CARD_HANDS:
            raise ValueError(
                f"bombs={rules.bombs!r} and five_card_hands={hands!r} cannot combine: "
                f"{missing} is not among the five-card hands"
            )
        raise ValueError(
            f"bombs must name categories that exist under these rules ({(*four, *hands)}), "
            f"got {rules.bombs!r}"
        )
    beat = rules.bombs_beat
    if not isinstance(beat, tuple) or any(s not in (1, 2, 3) for s in beat):
        raise ValueError(f"bombs_beat must be sizes of 1, 2 or 3 cards, got {beat!r}")
    if bool(rules.bombs) != bool(beat):
        raise ValueError(
            f"bombs={rules.bombs!r} and bombs_beat={beat!r} cannot combine: bombs need the "
            f"sizes they beat, and those sizes need bombs (give both or neither)"
        )


def _check_penalty_steps(steps: tuple[tuple[int, int], ...], largest: int, players: int) -> None:
    expected = (
        f"expected ((1, m1), (c2, m2), ...) with thresholds rising up to {largest} (the "
        f"largest hand) and m1 <= m2 <= ..."
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
        and factors[0] > 0
        and all(a <= b for a, b in pairwise(factors))
    )
    if not ok:
        raise ValueError(f"penalty_steps {steps!r} is invalid; {expected}")
    if thresholds[-1] > largest:
        raise ValueError(
            f"penalty_steps {steps!r} and players={players} cannot combine: a threshold of "
            f"{thresholds[-1]} cards is more than the largest hand ({largest} cards)"
        )


def _fields_of(rules: Rules) -> dict[str, object]:
    return {f.name: getattr(rules, f.name) for f in fields(rules)}


_PRESET_FIELDS: dict[str, dict[str, object]] = {}  # filled below, checked by Rules()
STANDARD = Rules()
CHARLESWORTH = Rules(
    name="charlesworth",
    four_card_plays=True,
    five_card_hands=("straight", "flush", "full_house", "straight_flush"),
    straights_to_two=True,
    opening="auto",
    penalty_steps=((1, 1),),
)
TAIWAN = Rules(name="taiwan", suit_order="CDHS")
PUSOY_DOS = Rules(name="pusoy-dos", suit_order="CSHD", flush_order="suit", penalty_steps=((1, 1),))
BOMBS = Rules(name="bombs", bombs=("four_of_a_kind", "straight_flush"), bombs_beat=(1,))
WESTERN = Rules(name="western", wrap_straights="low", flush_order="suit")
THREE_PLAYER = Rules(name="three-player", players=3)
TWO_PLAYER = Rules(name="two-player", players=2)
PRESETS = {
    r.name: r
    for r in (STANDARD, CHARLESWORTH, TAIWAN, PUSOY_DOS, BOMBS, WESTERN, THREE_PLAYER, TWO_PLAYER)
}
_PRESET_FIELDS.update({name: _fields_of(rules) for name, rules in PRESETS.items()})


def get(rules: Rules | str | Path) -> Rules:
    """A :class:`Rules` value from itself, a preset name, or a rules file (``.toml``).

    >>> get("charlesworth") is CHARLESWORTH
    True
    >>> get("hearts")
    Traceback (most recent call last):
    ...
    ValueError: unknown rules 'hearts'; expected one of ['bombs', 'charlesworth', ..., or a ...
    """
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, Path) or str(rules).endswith(".toml"):
        return load(rules)
    try:
        return PRESETS[str(rules).lower()]
    except KeyError:
        raise ValueError(
            f"unknown rules {rules!r}; expected one of {sorted(PRESETS)}, or a rules file NAME.toml"
        ) from None


def load(path: str | Path) -> Rules:
    """The variant written in the TOML file ``path``: any :class:`Rules` fields at the top
    level, over ``base`` (a preset's name; ``standard`` when absent). Its ``name``
    defaults to the file's stem. ValueError names the file and what is wrong.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "house.toml")
    ...     _ = open(path, "w").write('base = "taiwan"\\nplayers = 3\\n')
    ...     house = load(path)
    >>> house.name, house.players, house.suit_order
    ('house', 3, 'CDHS')
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ValueError(f"cannot read rules file {path}: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"rules file {path} is not valid TOML: {e}") from None
    try:
        return from_dict(data, default_name=path.stem)
    except ValueError as e:
        raise ValueError(f"rules file {path}: {e}") from None


def from_dict(data: dict[str, Any], default_name: str = "") -> Rules:
    """A variant from a mapping of :class:`Rules` fields over ``base`` (a preset name,
    default ``standard``); the names before variants (``five_card_quads``,
    ``contains_3d``) are read too, so older logs load.

    >>> from_dict({"name": "mine", "base": "standard", "players": 2}).hand_size
    26
    >>> from_dict({"name": "mine", "seats": 5})
    Traceback (most recent call last):
    ...
    ValueError: unknown rules fields ['seats']; expected base or some of [...]
    """
    values = dict(data)
    base = get(str(values.pop("base", "standard")))
    if "five_card_quads" in values:  # a field before five_card_hands
        quads = values.pop("five_card_quads")
        hands = [h for h in FIVE_CARD_HANDS if h != "four_of_a_kind" or quads]
        values.setdefault("five_card_hands", tuple(hands))
    known = [f.name for f in fields(Rules)]
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise ValueError(f"unknown rules fields {unknown}; expected base or some of {known}")
    if "penalty_steps" in values:
        try:
            values["penalty_steps"] = tuple(tuple(step) for step in values["penalty_steps"])
        except TypeError:
            raise ValueError(f"penalty_steps {values['penalty_steps']!r} is malformed") from None
    merged = {**_fields_of(base), **values}
    if merged["name"] == base.name and values.keys() - {"name"} and default_name:
        merged["name"] = default_name
    made = Rules(**merged)
    return PRESETS[made.name] if PRESETS.get(made.name) == made else made
