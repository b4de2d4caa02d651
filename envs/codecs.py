"""Action codecs: integers to moves and back, and legal-action masks.

- ``"catalog"`` (:class:`CatalogCodec`): action i is ``catalog(rules)[i]`` whatever the
  hand, and the last action is PASS (STANDARD: 17,858 + 1 = 17,859 actions).
- ``"hand"`` (:class:`HandCodec`): henrycharlesworth/big2_PPOalgorithm's hand-relative
  layout of 1,695 actions. Indices name positions in the acting seat's hand sorted
  weakest first: 13 singles, 33 pairs and 31 triples (positions at most 3 apart), 330
  four-card sets (two such position pairs), 1,287 five-card sets, then PASS. Each block
  is in lexicographic position order. Its masks mark this engine's legal moves, which
  differ from the 2018 code's own masks in about 0.1% of decisions (docs/rules.md).

>>> from big2.cards import parse_cards
>>> from big2.hand_ranking import HandRanking
>>> hand = parse_cards("3D 3S 4H 9C 9D")
>>> codec = HandCodec()
>>> codec.encode(HandRanking.from_str("9D 9C"), hand)  # positions (3, 4): pair number 9
22
>>> str(codec.decode(22, hand)), codec.n
('9D 9C', 1695)
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Protocol

import numpy as np

from big2 import cards as C
from big2.game import Game
from big2.hand_ranking import PASS, HandRanking, catalog, classify
from big2.rules import STANDARD, Rules


class ActionCodec(Protocol):
    """Maps moves to action indices and back for one rules preset."""

    name: str
    n: int
    rules: Rules

    def encode(self, move: HandRanking, hand: int) -> int: ...
    def decode(self, action: int, hand: int) -> HandRanking: ...
    def mask(self, legal_moves: Sequence[HandRanking], hand: int) -> np.ndarray: ...


class CatalogCodec:
    """Action i is catalog combination i; action ``n - 1`` is PASS. ``hand`` is ignored."""

    name = "catalog"

    def __init__(self, rules: Rules = STANDARD) -> None:
        self.rules = rules
        self.catalog = catalog(rules)
        self.n = len(self.catalog) + 1
        self.pass_action = self.n - 1

    def encode(self, move: HandRanking, hand: int = 0) -> int:
        if move is PASS:
            return self.pass_action
        if move not in self.catalog:
            raise ValueError(f"{move!r} is not a combination of the {self.rules.name} rules")
        return move.index

    def decode(self, action: int, hand: int = 0) -> HandRanking:
        action = _check_action(action, self.n)
        return PASS if action == self.pass_action else self.catalog[action]

    def mask(self, legal_moves: Sequence[HandRanking], hand: int = 0) -> np.ndarray:
        out = np.zeros(self.n, dtype=np.int8)
        out.put([self.pass_action if m is PASS else m.index for m in legal_moves], 1)
        return out


def _hand_layout() -> list[tuple[int, ...]]:
    """Charlesworth's position tuples, action by action (PASS excluded)."""
    positions = range(13)
    singles: list[tuple[int, ...]] = [(i,) for i in positions]
    pairs = [p for p in combinations(positions, 2) if p[1] - p[0] <= 3]
    triples = [t for t in combinations(positions, 3) if t[2] - t[0] <= 3]
    fours = sorted(a + b for a in pairs for b in pairs if a[1] < b[0])
    return [*singles, *pairs, *triples, *fours, *combinations(positions, 5)]


HAND_LAYOUT = tuple(_hand_layout())
_HAND_ACTION = {positions: action for action, positions in enumerate(HAND_LAYOUT)}


class HandCodec:
    """Charlesworth's hand-relative actions (1,695); see the module docstring."""

    name = "hand"

    def __init__(self, rules: Rules = STANDARD) -> None:
        if rules.largest_hand != 13:
            raise ValueError(
                f"the hand codec (the 2018 code's) numbers the positions of a 13-card hand; "
                f"the {rules.name} rules deal up to {rules.largest_hand} cards: use actions="
                f"'catalog'"
            )
        self.rules = rules
        self.n = len(HAND_LAYOUT) + 1
        self.pass_action = self.n - 1

    def encode(self, move: HandRanking, hand: int) -> int:
        if move is PASS:
            return self.pass_action
        if move.cards & ~hand:
            shown = C.format_cards(hand, suits=self.rules.suit_order)
            raise ValueError(f"{move} is not in the hand {shown}")
        positions = tuple((hand & ((1 << c) - 1)).bit_count() for c in C.iter_cards(move.cards))
        action = _HAND_ACTION.get(positions)
        if action is None:
            raise ValueError(f"{move} (hand positions {positions}) has no hand-relative action")
        return action

    def decode(self, action: int, hand: int) -> HandRanking:
        action = _check_action(action, self.n)
        if action == self.pass_action:
            return PASS
        cards = list(C.iter_cards(hand))
        positions = HAND_LAYOUT[action]
        if positions[-1] >= len(cards):
            raise ValueError(
                f"action {action} names hand positions {positions}, "
                f"but the hand holds {len(cards)} cards"
            )
        combo = classify(sum(1 << cards[p] for p in positions), self.rules)
        if combo is None:
            chosen = C.format_cards(
                sum(1 << cards[p] for p in positions), suits=self.rules.suit_order
            )
            raise ValueError(f"action {action} picks {chosen}, which is not a combination")
        return combo

    def mask(self, legal_moves: Sequence[HandRanking], hand: int) -> np.ndarray:
        out = np.zeros(self.n, dtype=np.int8)
        out.put([self.encode(m, hand) for m in legal_moves], 1)
        return out


CODECS: dict[str, type[CatalogCodec] | type[HandCodec]] = {
    "catalog": CatalogCodec,
    "hand": HandCodec,
}


def make(name: str, rules: Rules = STANDARD) -> CatalogCodec | HandCodec:
    """A codec by name: ``"catalog"`` or ``"hand"``."""
    cls = CODECS.get(name)
    if cls is None:
        raise ValueError(f"unknown action codec {name!r}; expected one of {sorted(CODECS)}")
    return cls(rules)


def for_rules(actions: CatalogCodec | HandCodec | str, rules: Rules) -> CatalogCodec | HandCodec:
    """``actions`` (a codec's name, or a codec) for ``rules``; a codec built for other
    rules raises ``ValueError``.

    >>> for_rules("hand", STANDARD).n
    1695
    """
    made = make(actions, rules) if isinstance(actions, str) else actions
    if made.rules != rules:
        raise ValueError(f"codec was built for {made.rules.name}, not {rules.name}")
    return made


def decode_legal(codec: ActionCodec, action: object, game: Game, who: str = "") -> HandRanking:
    """The move ``action`` means for the seat to act in ``game``, if it is legal now.

    Otherwise :class:`ValueError` naming the action, its meaning, the table and the legal
    actions (``who`` names the actor in the message); nothing changes.

    >>> from big2.game import Game
    >>> game = Game(seed=0)
    >>> decode_legal(CatalogCodec(), 17858, game, "player_0")
    Traceback (most recent call last):
    ...
    ValueError: action 17858 (pass) is not legal for player_0 on an empty table; 4 legal ...
    """
    hand = game.hand(game.turn)
    legal = game.legal_moves()
    actor = f" for {who}" if who else ""
    try:
        move = codec.decode(action, hand)  # type: ignore[arg-type]
    except ValueError as e:
        raise ValueError(f"{e} ({len(legal)} legal actions{actor})") from None
    if move not in legal:
        table = "an empty table" if game.table is None else f"the table {game.table}"
        raise ValueError(
            f"action {action} ({move}) is not legal{actor} on {table}; "
            f"{len(legal)} legal actions: {sorted(codec.encode(m, hand) for m in legal)[:20]}"
        )
    return move


def _check_action(action: object, n: int) -> int:
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
        raise ValueError(f"action must be an integer in 0..{n - 1}, got {action!r}")
    if not 0 <= action < n:
        raise ValueError(f"action {action} is out of range; expected 0..{n - 1}")
    return int(action)
