"""Game logs: the deal, the rules and every move, as a value that round-trips through JSON.

A log may also hold, for some moves, what the agent that made it weighed (a
:class:`Thought`: its top candidates with probabilities, and its value estimate where it
has one); logs written before thoughts existed load with none. It says who played
(``players``: per seat an agent spec, or ``"you"`` for a person), the seed the deal came
from and the date it was played, where its writer knew them (:meth:`GameLog.sign`):
``big2 play``, ``big2 serve`` and the arena do. Its rules are every field of
:class:`~big2.rules.Rules` and its cards are written in their suit order
(``big2-log/3``). Logs of the earlier formats still load: ``big2-log/2``, whose rules
lack the variant fields of today (their defaults apply) and name two by older names
(``five_card_quads``, ``contains_3d``), and ``big2-log/1``, without players, seed or
date.

>>> from big2.game import Game
>>> game = Game(seed=3)
>>> game.play(game.legal_moves()[0])
>>> text = game.log.to_json()
>>> GameLog.from_json(text) == game.log
True
>>> game.log.sign(["you", "heuristic", "random:1", "trained"], seed=3, date=None)
>>> game.log.seat_names()[1], GameLog.from_json(game.log.to_json()).seed
('seat 1 (heuristic)', 3)
>>> GameLog.from_json('{"format": "big2-log/1"}')
Traceback (most recent call last):
...
ValueError: corrupt game log: missing field 'rules'
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple, overload

from big2 import cards as C
from big2.hand_ranking import PASS, HandRanking
from big2.rules import Rules
from big2.rules import from_dict as rules_from_dict

FORMAT = "big2-log/3"
OLD_FORMATS = ("big2-log/2", "big2-log/1")  # still read: older rules fields; no players
PERSON = "you"  # the player of a seat that a person played


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
    sampled games it went on to win after it, and on how many sampled deals (``deals``)."""

    move: HandRanking
    probability: float
    win_rate: float | None = None
    deals: int | None = None


class Thought(NamedTuple):
    """What an agent weighed before a move: its likeliest candidates, best first, its
    estimate of its chance to win (None when it has none), and the rule that picked the
    move among them, in words (a search's; None: the likeliest)."""

    candidates: tuple[Candidate, ...]
    value: float | None = None
    rule: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{"candidates": [{"move", "probability", "win_rate"[, "deals"]}...], "value"
        [, "rule"]}``: ``deals`` and ``rule`` only where the agent gave them."""
        rows = [_candidate_dict(c) for c in self.candidates]
        out: dict[str, Any] = {"candidates": rows, "value": self.value}
        if self.rule is not None:
            out["rule"] = self.rule
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any], rules: Rules) -> Thought:
        """Read :meth:`to_dict`'s output; anything malformed raises ValueError."""
        rows = data["candidates"]
        if not isinstance(rows, list):
            raise ValueError("a thought's candidates must be a list")
        candidates = tuple(_candidate(r, rules) for r in rows)
        rule = data.get("rule")
        if rule is not None and not isinstance(rule, str):
            raise ValueError(f"a thought's rule must be text, not {rule!r}")
        return cls(candidates, _number(data.get("value")), rule)


@dataclass
class GameLog:
    """The rules, the four dealt hands (masks), the moves in order, and what agents
    thought before some of them (``thoughts``: move number -> :class:`Thought`).

    Who played, and when (:meth:`sign`; empty where unknown): ``players``, per seat an
    agent spec or ``"you"`` (:data:`PERSON`); ``seed``, what the deal was dealt from (a
    number for ``Game(seed=N)``, or text for ``random.Random(TEXT)``: the arena's
    ``"SEED:DEAL"``); ``date``, when the game began (ISO 8601, with the UTC offset).
    """

    rules: Rules
    deal: tuple[int, ...]
    moves: list[LogEntry] = field(default_factory=list)
    thoughts: dict[int, Thought] = field(default_factory=dict)
    players: tuple[str, ...] = ()
    seed: int | str | None = None
    date: str | None = None

    def sign(self, players: Sequence[str], seed: int | str | None, date: str | None) -> None:
        """Note who played each seat, the deal's seed and the date (:func:`now` for
        today); a wrong kind of value raises ValueError and changes nothing."""
        players = tuple(players)
        _check_setting(players, seed, date, self.rules.players)
        self.players, self.seed, self.date = players, seed, date

    def seat_name(self, seat: int) -> str:
        """``"seat 2 (heuristic)"``, or ``"seat 2"`` when the log does not say who played."""
        return f"seat {seat} ({self.players[seat]})" if self.players else f"seat {seat}"

    def seat_names(self) -> list[str]:
        """:meth:`seat_name` of every seat."""
        return [self.seat_name(s) for s in range(len(self.deal))]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: cards as text, moves as ``{"seat", "move", "table"}`` and a
        ``"thought"`` where the log has one; ``players``, ``seed`` and ``date`` (null
        where unknown)."""
        moves = []
        for number, e in enumerate(self.moves):
            row: dict[str, Any] = {"seat": e.seat, "move": str(e.move), "table": _text(e.table)}
            if number in self.thoughts:
                row["thought"] = self.thoughts[number].to_dict()
            moves.append(row)
        return {
            "format": FORMAT,
            "players": list(self.players) or None,
            "seed": self.seed,
            "date": self.date,
            "rules": asdict(self.rules),
            "deal": [C.format_cards(h, suits=self.rules.suit_order) for h in self.deal],
            "moves": moves,
        }

    def to_json(self, indent: int | None = None) -> str:
        """The log as JSON text."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameLog:
        """Read a log written by :meth:`to_dict`; anything malformed raises :class:`ValueError`."""
        try:
            if data.get("format") not in (FORMAT, *OLD_FORMATS):
                raise ValueError(
                    f"format is {data.get('format')!r}, expected {FORMAT!r} "
                    f"(or the older {', '.join(map(repr, OLD_FORMATS))})"
                )
            rules = rules_from_dict(data["rules"])  # older logs' field names are read too
            players = data.get("players") or []
            if not isinstance(players, list):
                raise ValueError(f"players must be a list of agent specs, not {players!r}")
            players = tuple(players)
            seed, date = data.get("seed"), data.get("date")
            _check_setting(players, seed, date, rules.players)
            deal = tuple(C.parse_cards(h, rules.suit_order) for h in data["deal"])
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
        return cls(rules, deal, moves, thoughts, players, seed, date)

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


def now() -> str:
    """This moment as a log's ``date``: local time with its UTC offset, to the second.

    >>> datetime.fromisoformat(now()).tzinfo is not None
    True
    """
    return datetime.now().astimezone().isoformat(timespec="seconds")


def _check_setting(players: tuple[Any, ...], seed: Any, date: Any, seats: int) -> None:
    """Refuse players (of ``seats`` seats), a seed or a date of the wrong kind, saying what
    was expected."""
    if players and (len(players) != seats or not all(isinstance(p, str) and p for p in players)):
        raise ValueError(
            f"players must name the {seats} seats (agent specs, or {PERSON!r}), not "
            f"{list(players)!r}"
        )
    if seed is not None and not (_whole(seed) or isinstance(seed, str)):
        raise ValueError(f"a seed is a whole number or text, not {seed!r}")
    if date is None:
        return
    try:
        datetime.fromisoformat(date)
    except (TypeError, ValueError):
        raise ValueError(f"date {date!r} is not an ISO 8601 date and time") from None


def _text(move: HandRanking | None) -> str | None:
    return None if move is None else str(move)


def _candidate_dict(c: Candidate) -> dict[str, Any]:
    row = {"move": str(c.move), "probability": c.probability, "win_rate": c.win_rate}
    if c.deals is not None:
        row["deals"] = c.deals
    return row


def _candidate(row: dict[str, Any], rules: Rules) -> Candidate:
    move = HandRanking.from_str(row["move"], rules)
    probability = _number(row["probability"])
    if probability is None:
        raise ValueError("a candidate needs a probability")
    deals = row.get("deals")
    if deals is not None and not (_whole(deals) and deals >= 0):
        raise ValueError(f"a candidate's deals must be a whole number, 0 or more, not {deals!r}")
    return Candidate(move, probability, _number(row.get("win_rate")), deals)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any) -> float | None:
    """A finite number or None (JSON has no infinities); anything else raises ValueError."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise ValueError(f"expected a number, got {value!r}")
    return float(value)


def _entry_from(data: dict[str, Any], rules: Rules) -> LogEntry:
    seat = data["seat"]
    if not isinstance(seat, int) or not 0 <= seat < rules.players:
        raise ValueError(f"seat {seat!r} is not a seat 0..{rules.players - 1}")
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
