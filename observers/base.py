"""The Observer protocol: named pieces of one flat float32 array.

An observer declares its layout as data, a list of :class:`Piece` (name, shape,
meaning), each optionally cut into named :class:`Field` runs along its last axis; the
base class derives the flat size, the gymnasium space, offsets and a layout table.
``write(view, pieces)`` fills the pieces through a :class:`Pieces` mapping whose views
cannot be rebound (``pieces["hand"] = x`` raises; ``pieces["hand"][:] = x`` writes), so
the flat array always holds what the pieces show. A field is addressed as
``"piece.field"`` (``pieces["history.cards"]`` is the (k, 52) view of that field).
``observe(view)`` returns a fresh array.

Observers see a seat's :class:`big2.game.View` only. An observer that needs the full
game (perfect information) sets ``perfect_information = True``, says so in its name,
and receives the game as ``observe(view, game)``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from math import prod
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from gymnasium import spaces

from big2.cards import N_CARDS, card_indices
from big2.rules import STANDARD, Rules

if TYPE_CHECKING:
    from big2.game import Game, View


@dataclass(frozen=True)
class Field:
    """A named run of ``width`` columns along the last axis of a :class:`Piece`."""

    name: str
    width: int
    doc: str


@dataclass(frozen=True)
class Piece:
    """One named block of an observation: its shape, what it means, and its fields.

    ``fields``, when given, cut the last axis into named runs whose widths sum to it.

    >>> Piece("move", (2, 5), "", (Field("seat", 4, ""), Field("pass", 1, ""))).columns()
    {'seat': slice(0, 4, None), 'pass': slice(4, 5, None)}
    >>> Piece("move", (2, 5), "", (Field("seat", 4, ""),))
    Traceback (most recent call last):
    ...
    ValueError: the fields of piece 'move' are [4] wide (4 in all), but its last axis is 5
    """

    name: str
    shape: tuple[int, ...]
    doc: str
    fields: tuple[Field, ...] = ()

    def __post_init__(self) -> None:
        if not self.fields:
            return
        names = [f.name for f in self.fields]
        if len(set(names)) != len(names) or not all(n and "." not in n for n in names):
            raise ValueError(f"piece {self.name!r} needs distinct dot-free field names: {names}")
        widths = [f.width for f in self.fields]
        if min(widths) < 1 or sum(widths) != self.shape[-1]:
            raise ValueError(
                f"the fields of piece {self.name!r} are {widths} wide ({sum(widths)} in all), "
                f"but its last axis is {self.shape[-1]}"
            )

    @property
    def size(self) -> int:
        return prod(self.shape)

    @property
    def rows(self) -> int:
        """How many rows of the last axis the piece holds (1 for a flat piece)."""
        return prod(self.shape[:-1])

    def columns(self) -> dict[str, slice]:
        """Each field's slice of the last axis, in order."""
        out, start = {}, 0
        for f in self.fields:
            out[f.name] = slice(start, start + f.width)
            start += f.width
        return out


SEAT_NAMES = {
    2: ("me", "next"),
    3: ("me", "next", "previous"),
    4: ("me", "next", "across", "previous"),
}


def seat_names(players: int) -> tuple[str, ...]:
    """The names of ``players`` seats seen from one of them, in
    :func:`big2.board.seats_from` order (of two players, "next" is also the previous).

    >>> seat_names(4), seat_names(3), seat_names(2)[1:]
    (('me', 'next', 'across', 'previous'), ('me', 'next', 'previous'), ('next',))
    """
    return SEAT_NAMES[players]


class Observer(ABC):
    """Turns what one seat may see into a float32 vector with values in [0, 1]."""

    name: ClassVar[str] = ""
    perfect_information: ClassVar[bool] = False

    def __init__(self, rules: Rules = STANDARD) -> None:
        self.rules = rules
        self.pieces: tuple[Piece, ...] = tuple(self.declare())
        names = [p.name for p in self.pieces]
        if len(set(names)) != len(names):
            raise ValueError(f"{type(self).__name__} declares duplicate pieces: {names}")
        self.index = {p.name: i for i, p in enumerate(self.pieces)}
        self.offsets: dict[str, int] = {}
        # every piece and "piece.field": (flat start of its first row, flat row stride)
        self.targets: dict[str, tuple[int, int]] = {}
        # and where its view is: (its piece's flat slice, the piece's shape, its columns)
        self._spans: dict[str, tuple[slice, tuple[int, ...], slice | None]] = {}
        offset = 0
        for piece in self.pieces:
            self._address(piece, offset)
            offset += piece.size
        self.size = offset
        self.shapes = {p.name: p.shape for p in self.pieces}

    def _address(self, piece: Piece, offset: int) -> None:
        """Record where ``piece`` (at flat ``offset``) and each of its fields are."""
        self.offsets[piece.name] = offset
        flat, stride = slice(offset, offset + piece.size), piece.shape[-1]
        self.targets[piece.name] = (offset, stride)
        self._spans[piece.name] = (flat, piece.shape, None)
        for field, cols in piece.columns().items():
            self.targets[f"{piece.name}.{field}"] = (offset + cols.start, stride)
            self._spans[f"{piece.name}.{field}"] = (flat, piece.shape, cols)

    @abstractmethod
    def declare(self) -> list[Piece]:
        """The pieces, in the order they appear in the flat array."""

    @abstractmethod
    def write(self, view: View, pieces: Pieces, game: Game | None = None) -> None:
        """Fill ``pieces`` (already zeroed) from ``view`` (and ``game`` if perfect-information)."""

    @property
    def space(self) -> spaces.Box:
        """The gymnasium space of :meth:`observe`'s output."""
        return spaces.Box(0.0, 1.0, (self.size,), np.float32)

    def observe(self, view: View, game: Game | None = None) -> np.ndarray:
        """A fresh float32 array encoding ``view`` (``game`` only for perfect information)."""
        if self.perfect_information and game is None:
            raise ValueError(f"observer {self.name!r} sees the full game: call observe(view, game)")
        out = np.zeros(self.size, dtype=np.float32)
        pieces = Pieces(self, out)
        self.write(view, pieces, game if self.perfect_information else None)
        return pieces.finish()

    def split(self, flat: np.ndarray) -> dict[str, np.ndarray]:
        """The pieces of a flat observation, as arrays of their shapes (views of ``flat``)."""
        if flat.shape != (self.size,):
            raise ValueError(f"expected a flat array of shape ({self.size},), got {flat.shape}")
        return {p.name: self.view_of(flat, p.name) for p in self.pieces}

    def view_of(self, flat: np.ndarray, name: str) -> np.ndarray:
        """The view of piece ``name`` (its shape) or field ``"piece.field"`` in ``flat``.

        A field's view has the piece's shape with the last axis cut to the field's width.
        """
        span, shape, cols = self._spans[name]
        view = flat[span].reshape(shape)
        return view if cols is None else view[..., cols]

    def layout(self) -> str:
        """A Markdown table of the pieces and their fields: name, shape, flat range, meaning.

        A field of a piece with many rows shows its range in the first two rows and the last.
        """
        rows = ["| piece | shape | flat range | meaning |", "|---|---|---|---|"]
        for p in self.pieces:
            start = self.offsets[p.name]
            rows.append(f"| `{p.name}` | {p.shape} | {start}..{start + p.size - 1} | {p.doc} |")
            for f, cols in zip(p.fields, p.columns().values(), strict=True):
                shape = (*p.shape[:-1], f.width)
                where = _field_range(start + cols.start, f.width, p.shape[-1], p.rows)
                rows.append(f"| `{p.name}.{f.name}` | {shape} | {where} | {f.doc} |")
        rows.append(f"| total | ({self.size},) | | |")
        return "\n".join(rows)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(rules={self.rules.name!r})"


def _field_range(start: int, width: int, stride: int, rows: int) -> str:
    """The flat ranges of a field's rows: all of them up to three, else first, second, last.

    >>> _field_range(4, 1, 5, 3)
    '4..4, 9..9, 14..14'
    >>> _field_range(4, 2, 5, 13)
    '4..5, 9..10, ..., 64..65'
    """
    spans = [f"{start + r * stride}..{start + r * stride + width - 1}" for r in range(rows)]
    return ", ".join(spans if rows <= 3 else [*spans[:2], "...", spans[-1]])


class Pieces(Mapping[str, np.ndarray]):
    """Named views on the flat observation being written; they cannot be rebound.

    The mapping's keys are the pieces; ``pieces["piece.field"]`` also gives a field's
    view. ``pieces["hand"][:] = x`` writes through the view. Binary features go faster
    through :meth:`cards`, :meth:`one_hot`, :meth:`ones`, :meth:`one_hot_rows` and
    :meth:`flags`, which take a piece or a field (with a row for pieces of several rows),
    collect flat indices and set them all to 1.0 in one numpy call in :meth:`finish`.

    >>> from observers.encoders import HistoryObserver
    >>> observer = HistoryObserver(k=2)
    >>> pieces = Pieces(observer, np.zeros(observer.size, np.float32))
    >>> pieces.one_hot("history.seat", 2, row=1)
    >>> pieces.cards("history.cards", 0b11, row=1)
    >>> np.flatnonzero(observer.split(pieces.finish())["history"][1]).tolist()
    [2, 5, 6]
    >>> pieces["history.cards"].shape
    (2, 52)
    """

    __slots__ = ("_flat", "_observer", "_ones", "_targets")

    def __init__(self, observer: Observer, flat: np.ndarray) -> None:
        self._observer, self._flat = observer, flat
        self._targets = observer.targets
        self._ones: list[int] = []

    def __getitem__(self, name: str) -> np.ndarray:
        return self._observer.view_of(self._flat, name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._observer.offsets)

    def __len__(self) -> int:
        return len(self._observer.offsets)

    def cards(self, name: str, mask: int, row: int = 0) -> None:
        """Mark the cards of ``mask`` in row ``row`` of a piece or field, 3♦ in its first column."""
        start, stride = self._targets[name]
        base = start + row * stride
        self._ones += [base + i for i in card_indices(mask)]

    def ones(self, name: str, indices: Iterable[int], row: int = 0) -> None:
        """Set columns ``indices`` of row ``row`` of a piece or field to 1.0.

        For a piece, indices past the row's end run on into the next rows (row-major).
        """
        start, stride = self._targets[name]
        base = start + row * stride
        self._ones += [base + i for i in indices]

    def one_hot(self, name: str, index: int, row: int = 0) -> None:
        """Set column ``index`` of row ``row`` of a piece or field to 1.0."""
        start, stride = self._targets[name]
        self._ones.append(start + row * stride + index)

    def one_hot_rows(self, name: str, indices: Iterable[int]) -> None:
        """One one per row: column ``indices[r]`` of row ``r`` of a piece or field."""
        start, stride = self._targets[name]
        self._ones += [start + row * stride + i for row, i in enumerate(indices)]

    def flags(self, name: str, rows: Iterable[int]) -> None:
        """Set a one-column field (its first column for wider ones) in each of ``rows``."""
        start, stride = self._targets[name]
        self._ones += [start + row * stride for row in rows]

    def finish(self) -> np.ndarray:
        """Apply the collected ones and return the flat array."""
        if self._ones:
            self._flat.put(self._ones, 1.0)
        return self._flat


_CHUNK = 13  # cards per lookup: _ROWS[c] is the float row of a 13-bit chunk c
_ROWS = np.array([[(c >> b) & 1 for b in range(_CHUNK)] for c in range(1 << _CHUNK)], np.float32)
_SHIFTS, _CHUNK_MASK = tuple(range(0, N_CARDS, _CHUNK)), (1 << _CHUNK) - 1


def card_rows(masks: Sequence[int]) -> np.ndarray:
    """A (len(masks), 52) float32 array: row i has 1.0 at each card of ``masks[i]``.

    >>> card_rows([0b101])[0, :4].tolist()
    [1.0, 0.0, 1.0, 0.0]
    """
    chunks = [(m >> shift) & _CHUNK_MASK for m in masks for shift in _SHIFTS]
    return _ROWS.take(chunks, axis=0).reshape(len(masks), N_CARDS)
