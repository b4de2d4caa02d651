"""The Observer protocol: named pieces of one flat float32 array.

An observer declares its layout as data, a list of :class:`Piece` (name, shape,
meaning); the base class derives the flat size, the gymnasium space, offsets and a
layout table. ``write(view, pieces)`` fills the pieces through a :class:`Pieces`
mapping whose views cannot be rebound (``pieces["hand"] = x`` raises;
``pieces["hand"][:] = x`` writes), so the flat array always holds what the pieces show.
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

from big2.rules import STANDARD, Rules

if TYPE_CHECKING:
    from big2.game import Game, View


@dataclass(frozen=True)
class Piece:
    """One named block of an observation: its shape and what it means."""

    name: str
    shape: tuple[int, ...]
    doc: str

    @property
    def size(self) -> int:
        return prod(self.shape)


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
        offset = 0
        for piece in self.pieces:
            self.offsets[piece.name] = offset
            offset += piece.size
        self.size = offset
        self.shapes = {p.name: p.shape for p in self.pieces}

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
        return {p.name: _piece_view(flat, self.offsets[p.name], p) for p in self.pieces}

    def layout(self) -> str:
        """A Markdown table of the pieces: name, shape, offset range and meaning."""
        rows = ["| piece | shape | flat range | meaning |", "|---|---|---|---|"]
        for p in self.pieces:
            start = self.offsets[p.name]
            rows.append(f"| `{p.name}` | {p.shape} | {start}..{start + p.size - 1} | {p.doc} |")
        rows.append(f"| total | ({self.size},) | | |")
        return "\n".join(rows)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(rules={self.rules.name!r})"


def _piece_view(flat: np.ndarray, offset: int, piece: Piece) -> np.ndarray:
    return flat[offset : offset + piece.size].reshape(piece.shape)


class Pieces(Mapping[str, np.ndarray]):
    """Named views on the flat observation being written; they cannot be rebound.

    ``pieces["hand"][:] = x`` writes through the view. Binary features go faster through
    :meth:`cards` and :meth:`one_hot`, which collect flat indices and set them all to 1.0
    in a single numpy call when the observation is finished.
    """

    __slots__ = ("_flat", "_observer", "_ones")

    def __init__(self, observer: Observer, flat: np.ndarray) -> None:
        self._observer, self._flat = observer, flat
        self._ones: list[int] = []

    def __getitem__(self, name: str) -> np.ndarray:
        obs = self._observer
        return _piece_view(self._flat, obs.offsets[name], obs.pieces[obs.index[name]])

    def __iter__(self) -> Iterator[str]:
        return iter(self._observer.offsets)

    def __len__(self) -> int:
        return len(self._observer.offsets)

    def cards(self, name: str, mask: int, at: int = 0) -> None:
        """Mark the cards of ``mask`` in a piece, 3♦ at flat position ``at`` of the piece.

        For a piece of shape (rows, 52), row r starts at ``at=52 * r``.
        """
        base = self._observer.offsets[name] + at
        self._ones += [base + i for i in card_positions(mask)]

    def ones(self, name: str, positions: Iterable[int]) -> None:
        """Set flat ``positions`` of a piece (row-major for shaped pieces) to 1.0."""
        base = self._observer.offsets[name]
        self._ones += [base + i for i in positions]

    def one_hot(self, name: str, index: int) -> None:
        """Set flat position ``index`` of a piece (row-major for shaped pieces) to 1.0."""
        self._ones.append(self._observer.offsets[name] + index)

    def finish(self) -> np.ndarray:
        """Apply the collected ones and return the flat array."""
        if self._ones:
            self._flat.put(self._ones, 1.0)
        return self._flat


# ---------------------------------------------------------------- fast card encoding

_CHUNK = 13
# _POSITIONS[j][c]: the card indices of 13-bit chunk j (cards 13j..13j+12) holding bits c
_POSITIONS = tuple(
    tuple(tuple(_CHUNK * j + b for b in range(_CHUNK) if c >> b & 1) for c in range(1 << _CHUNK))
    for j in range(4)
)


def card_positions(mask: int) -> tuple[int, ...]:
    """The card indices in ``mask``, weakest first (table lookups, no bit loop).

    >>> card_positions(0b1001 | 1 << 51)
    (0, 3, 51)
    """
    p0, p1, p2, p3 = _POSITIONS
    return p0[mask & 8191] + p1[(mask >> 13) & 8191] + p2[(mask >> 26) & 8191] + p3[mask >> 39]


_TABLE = np.array(
    [[(m >> b) & 1 for b in range(_CHUNK)] for m in range(1 << _CHUNK)], dtype=np.float32
)


def card_rows(masks: Sequence[int]) -> np.ndarray:
    """A (len(masks), 52) float32 array: row i has 1.0 at each card of ``masks[i]``.

    >>> card_rows([0b101])[0, :4].tolist()
    [1.0, 0.0, 1.0, 0.0]
    """
    chunks = [(m >> shift) & 8191 for m in masks for shift in (0, 13, 26, 39)]
    return _TABLE[chunks].reshape(len(masks), 52)


def relative_seats(seat: int) -> tuple[int, int, int, int]:
    """Absolute seats in seat-relative order: me, next, across, previous."""
    return (seat, (seat + 1) % 4, (seat + 2) % 4, (seat + 3) % 4)
