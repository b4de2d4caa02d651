"""Game logs: the deal, the rules and every move, as a value that round-trips through JSON.

A log may also hold, for some moves, what the agent that made it weighed (a
:class:`Thought`: its top candidates with probabilities, and its value estimate where it
has one); logs written before thoughts existed load with none.

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
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
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


class Candidate(NamedTuple):
    """A move an agent weighed: how likely it was to play it, and (a search) the share of
    sampled games it went on to win after it."""

    move: HandRanking
    probability: float
    win_rate: float | None = None


class Thought(NamedTuple):
    """What an agent weighed before a move: its likeliest candidates, best first, and its
    estimate of its chance to win (None when it has none)."""

    candidates: tuple[Candidate, ...]
    value: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{"candidates": [{"move", "probability", "win_rate"}...], "value"}``."""
        rows = [
            {"move": str(c.move), "probability": c.probability, "win_rate": c.win_rate}
            for c in self.candidates
        ]
        return {"candidates": rows, "value": self.value}

    @classmethod
    def from_dict(cls, data: dict[str, Any], rules: Rules) -> Thought:
        """Read :meth:`to_dict`'s output; anything malformed raises ValueError."""
        rows = data["candidates"]
        if not isinstance(rows, list):
            raise ValueError("a thought's candidates must be a list")
        candidates = tuple(_candidate(r, rules) for r in rows)
        return cls(candidates, _number(data.get("value")))


@dataclass
class GameLog:
    """The rules, the four dealt hands (masks), the moves in order, and what agents
    thought before some of them (``thoughts``: move number -> :class:`Thought`)."""

    rules: Rules
    deal: tuple[int, ...]
    moves: list[LogEntry] = field(default_factory=list)
    thoughts: dict[int, Thought] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: cards as text, moves as ``{"seat", "move", "table"}`` and a
        ``"thought"`` where the log has one."""
        moves = []
        for number, e in enumerate(self.moves):
            row: dict[str, Any] = {"seat": e.seat, "move": str(e.move), "table": _text(e.table)}
            if number in self.thoughts:
                row["thought"] = self.thoughts[number].to_dict()
            moves.append(row)
        return {
            "format": FORMAT,
            "rules": asdict(self.rules),
            "deal": [C.format_cards(h) for h in self.deal],
            "moves": moves,
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
            rows = data["moves"]
            moves = [_entry_from(m, rules) for m in rows]
            thoughts = {
                n: Thought.from_dict(m["thought"], rules)
                for n, m in enumerate(rows)
                if m.get("thought") is not None
            }
        except KeyError as e:
            raise ValueError(f"corrupt game log: missing field {e.args[0]!r}") from None
        except (TypeError, ValueError, AttributeError) as e:
            raise ValueError(f"corrupt game log: {e}") from None
        return cls(rules, deal, moves, thoughts)

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


def _candidate(row: dict[str, Any], rules: Rules) -> Candidate:
    move = HandRanking.from_str(row["move"], rules)
    probability = _number(row["probability"])
    if probability is None:
        raise ValueError("a candidate needs a probability")
    return Candidate(move, probability, _number(row.get("win_rate")))


def _number(value: Any) -> float | None:
    """A finite number or None (JSON has no infinities); anything else raises ValueError."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise ValueError(f"expected a number, got {value!r}")
    return float(value)


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


def unwritable(folder: Path) -> str:
    """Why a file cannot be written in ``folder`` (created if missing), or "" if it can."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as e:
        return e.strerror or str(e)
    return ""
