"""What a centralised critic may read besides its observer: where the game is heading.

Measured by ``python -m training.critic_report`` on a PPO learner (``card_counting``
actor, ``oracle`` critic, trained 1.5M decisions the recipes' way) over 38,000 of its
decisions against three heuristic players: the critic explained 7% of the variance of
the return, and nothing before the last five decisions, while one number, whether
the seat would go out first if the heuristic played every seat from here, explained
52% (fitted linearly; 96% over the last two decisions). Against the recipes' mix of
heuristic, greedy and random players: 12% against 37%. The outlook hands the critic
that number, and which opponent holds each seat, which it cannot see otherwise
(docs/training.md says what it did for training).

An outlook row is float32, seat-relative (the seat itself, then the next seats in
turn order), in two named pieces (:data:`PIECES`):

- ``playout``: one-hot, the seat that goes out first when the compiled heuristic
  plays all four seats from the current position (the position itself is left alone;
  a finished game's winner is its own);
- ``opponents``: for each of the three other seats, one-hot over the env's opponent
  kinds (their names in the order the mix first names them; a pool of snapshots is
  ``self``); all zero when there are no opponents (every seat is a learner).

It is for training only: it sees every hand (through the playout), so it is part of
the ``critic`` key, never of what an actor reads.

>>> from big2.board import Board
>>> from big2.rules import STANDARD
>>> from envs.engine import Games, Tables
>>> games = Games(1, Tables.of(STANDARD))
>>> games.deal(0, Board(seed=5).hands)
>>> outlook = Outlook(games, mix=("heuristic", "random"))
>>> outlook.size, outlook.offsets
(10, {'playout': 0, 'opponents': 4})
>>> row = outlook.rows(np.array([0]), np.array([0]), np.array([[-1, 0, 1, 0]]))[0]
>>> float(row[:4].sum()), row[4:].tolist()   # one winner; next seat heuristic, then random
(1.0, [1.0, 0.0, 0.0, 1.0, 1.0, 0.0])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from envs.compiled_heuristic import CompiledHeuristic
from envs.engine import Games

PIECES = ("playout", "opponents")


def kind_name(entry: Any) -> str:
    """The kind of one opponent-mix entry: an agent spec is its own name, a pool of
    snapshots is ``self``, any other batch policy its type's name."""
    if isinstance(entry, str):
        return entry
    return "self" if isinstance(entry, list) else type(entry).__name__


def kind_names(mix: Sequence[Any]) -> tuple[str, ...]:
    """The opponent kinds of a mix: each entry's :func:`kind_name`, once, in the order
    first named.

    >>> kind_names(["heuristic", "random", "heuristic", []])
    ('heuristic', 'random', 'self')
    """
    return tuple(dict.fromkeys(kind_name(entry) for entry in mix))


class Outlook:
    """Outlook rows (see the module docstring) of the games of ``games``, whose opponents
    are drawn from ``mix`` (None: every seat is a learner)."""

    def __init__(self, games: Games, mix: Sequence[Any] | None = None) -> None:
        self.games, self.kinds = games, kind_names(mix or ())
        # each mix entry's index in kinds
        self.kind_of_entry = np.array([self.kinds.index(kind_name(e)) for e in mix or ()],
                                      np.int64)  # fmt: skip
        self.heuristic = CompiledHeuristic()
        sizes = {"playout": 4, "opponents": 3 * len(self.kinds)}
        self.offsets = {name: sum(sizes[p] for p in PIECES[:i]) for i, name in enumerate(PIECES)}
        self.size = sum(sizes.values())

    def rows(self, slots: np.ndarray, seats: np.ndarray, drawn: np.ndarray | None) -> np.ndarray:
        """(len(slots), size) float32 for seat ``seats[i]`` of game ``slots[i]``; ``drawn``
        gives each game's seats as indices into the mix (-1: a learner), one row of four
        per slot, or None without opponents."""
        n = len(slots)
        out = np.zeros((n, self.size), np.float32)
        if not n:
            return out
        winners = self.heuristic.playout_winners(self.games, slots)
        out[np.arange(n), (winners - seats) % 4] = 1.0
        if drawn is not None and self.kinds:
            start = self.offsets["opponents"]
            for k in range(1, 4):  # the other seats, in turn order
                entry = drawn[np.arange(n), (seats + k) % 4]
                rows = np.flatnonzero(entry >= 0)
                kind = self.kind_of_entry[entry[rows]]
                out[rows, start + (k - 1) * len(self.kinds) + kind] = 1.0
        return out
