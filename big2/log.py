"""Game logs: the deal, the rules and every move, as a value that round-trips through JSON.

>>> from big2.game import Game
>>> game = Game(seed=3)
>>> game.play(game.legal_moves()[0])
>>> text = game.log.to_json()
>>> GameLog.from_json(text) == game.log
True
>>> GameLog.from_json('{"format": "big2-log/1"}')
Traceback (most recent call last):
...
ValueError: corrupt game log: missing field 'rules'
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any, NamedTuple, overload

from big2 import cards as C
from big2.hand_ranking import PASS, HandRanking
from big2.rules import Rules

FORMAT = "big2-log/1"


class LogEntry(NamedTuple):
    """One move: the seat that made it, the move (a combination or PASS), the table before."""

    seat: int
    move: HandRanking
    table: HandRanking | None

    def __str__(self) -> str:
        return f"seat {self.seat}: {self.move}"


class History(Sequence[LogEntry]):
    """A read-only window on the first ``len`` moves of an append-only move list.

    Views hand this out instead of copying the moves, so making a view stays O(1).
    """

    __slots__ = ("_length", "_moves")

    def __init__(self, moves: list[LogEntry], length: int | None = None) -> None:
        self._moves = moves
        self._length = len(moves) if length is None else length

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, i: int) -> LogEntry: ...
    @overload
    def __getitem__(self, i: slice) -> list[LogEntry]: ...
    def __getitem__(self, i: int | slice) -> LogEntry | list[LogEntry]:
        if isinstance(i, slice):
            return self._moves[: self._length][i]
        if i < 0:
            i += self._length
        if not 0 <= i < self._length:
            raise IndexError(f"move {i} out of range for a history of {self._length} moves")
        return self._moves[i]

    def __iter__(self) -> Iterator[LogEntry]:
        moves = self._moves
        return (moves[i] for i in range(self._length))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, History):
            return list(self) == list(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"History({self._moves[: self._length]!r})"


@dataclass
class GameLog:
    """The rules, the four dealt hands (masks) and the moves in order."""

    rules: Rules
    deal: tuple[int, ...]
    moves: list[LogEntry] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: cards as text, moves as ``{"seat", "move", "table"}``."""
        return {
            "format": FORMAT,
            "rules": asdict(self.rules),
            "deal": [C.format_cards(h) for h in self.deal],
            "moves": [
                {"seat": e.seat, "move": str(e.move), "table": _text(e.table)} for e in self.moves
            ],
        }

    def to_json(self, indent: int | None = None) -> str:
        """The log as JSON text."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameLog:
        """Read a log written by :meth:`to_dict`; anything malformed raises :class:`ValueError`."""
        try:
            if data.get("format") != FORMAT:
                raise ValueError(f"format is {data.get('format')!r}, expected {FORMAT!r}")
            rules = _rules_from(data["rules"])
            deal = tuple(C.parse_cards(h) for h in data["deal"])
            moves = [_entry_from(m, rules) for m in data["moves"]]
        except KeyError as e:
            raise ValueError(f"corrupt game log: missing field {e.args[0]!r}") from None
        except (TypeError, ValueError, AttributeError) as e:
            raise ValueError(f"corrupt game log: {e}") from None
        return cls(rules, deal, moves)

    @classmethod
    def from_json(cls, text: str) -> GameLog:
        """Read a log written by :meth:`to_json`."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValueError(f"corrupt game log: not JSON ({e})") from None
        if not isinstance(data, dict):
            raise ValueError("corrupt game log: expected a JSON object")
        return cls.from_dict(data)


def _text(move: HandRanking | None) -> str | None:
    return None if move is None else str(move)


def _rules_from(data: dict[str, Any]) -> Rules:
    known = {f.name for f in fields(Rules)}
    unknown = set(data) - known
    if unknown:
        raise ValueError(f"unknown rules fields {sorted(unknown)}; expected {sorted(known)}")
    values = dict(data)
    if "penalty_steps" in values:
        values["penalty_steps"] = tuple(tuple(step) for step in values["penalty_steps"])
    return Rules(**values)


def _entry_from(data: dict[str, Any], rules: Rules) -> LogEntry:
    seat = data["seat"]
    if not isinstance(seat, int) or not 0 <= seat < 4:
        raise ValueError(f"seat {seat!r} is not a seat 0..3")
    move = HandRanking.from_str(data["move"], rules)
    table = None if data["table"] is None else HandRanking.from_str(data["table"], rules)
    if table is PASS:
        raise ValueError("a table cannot be a pass")
    return LogEntry(seat, move, table)
