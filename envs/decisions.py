"""One record for seats about to decide, made once and named once on its way to a network.

:class:`Decisions` holds, for M seats (one per game) that must move, what a policy is
given: the observer's vector, the legal actions (each row's legal action ids first, in
the order of :meth:`big2.game.Game.legal_moves`, padded with :data:`PAD`), and optionally
the move features of each legal action (:mod:`observers.moves`) and a critic's vector.
The vector env makes it, opponents and policies read it, and training stores it: the
same names all the way (``observation``, ``legal``, ``features``, ``critic``). A
:class:`BatchPolicy` is what answers one: one action per row.

:class:`DecisionMaker` makes it from the compiled engine's arrays.

>>> import numpy as np
>>> a = Decisions(np.zeros((1, 2), np.float32), np.array([[4, 7]], np.int32))
>>> b = Decisions(np.ones((2, 2), np.float32), np.array([[2, PAD, PAD], [5, 6, 8]], np.int32))
>>> both = Decisions.concat([a, b])
>>> both.legal.tolist(), both.counts.tolist()
([[4, 7, -1], [2, -1, -1], [5, 6, 8]], [2, 1, 3])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, Protocol

import numpy as np

from envs import codecs
from envs.batch_moves import batch_move_features
from envs.batch_observers import batch_encoder
from envs.engine import Games
from envs.kernels.turns import PAD, fill_legal, legal_ranges
from observers.base import Observer
from observers.moves import MoveFeatures

__all__ = ["PAD", "DecisionMaker", "Decisions", "Legal", "pad_rows"]


@dataclass(frozen=True)
class Decisions:
    """What M deciding seats see: one row each (see the module docstring).

    Attributes:
        observation: (M, D) float32, the observer's vector of each seat's view.
        legal: (M, K) int32, each row's legal action ids, then :data:`PAD`.
        features: (M, K, F), a row of move features per legal action, or None.
        critic: (M, C) float32, the critic observer's vector (may see every hand), or None.
    """

    observation: np.ndarray
    legal: np.ndarray
    features: np.ndarray | None = None
    critic: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.legal)

    @property
    def width(self) -> int:
        """K, the width of the legal rows."""
        return int(self.legal.shape[1])

    @property
    def counts(self) -> np.ndarray:
        """(M,) the number of legal actions in each row."""
        counts: np.ndarray = (self.legal != PAD).sum(axis=1)
        return counts

    def take(self, rows: Any) -> Decisions:
        """The record of ``rows`` only (an index array, a mask or a slice)."""
        return Decisions(
            self.observation[rows],
            self.legal[rows],
            None if self.features is None else self.features[rows],
            None if self.critic is None else self.critic[rows],
        )

    def widen(self, width: int) -> Decisions:
        """The record with its legal rows (and features) padded to ``width`` columns."""
        if width == self.width:
            return self
        if width < self.width:
            raise ValueError(f"cannot narrow legal rows of width {self.width} to {width}")
        features = None if self.features is None else pad_rows(self.features, width, 0)
        return replace(self, legal=pad_rows(self.legal, width, PAD), features=features)

    @classmethod
    def concat(cls, parts: Sequence[Decisions]) -> Decisions:
        """The records one after another, padded to the widest (the one place rows of
        different widths meet)."""
        width = max(p.width for p in parts)
        wide = [p.widen(width) for p in parts]
        if len(wide) == 1:
            return wide[0]

        def joined(name: str) -> np.ndarray | None:
            arrays = [getattr(p, name) for p in wide]
            return None if arrays[0] is None else np.concatenate(arrays)

        observation, legal = joined("observation"), joined("legal")
        assert observation is not None and legal is not None
        return cls(observation, legal, joined("features"), joined("critic"))

    def items(self) -> list[tuple[str, np.ndarray | None]]:
        """(name, array or None) for every field."""
        return [(f.name, getattr(self, f.name)) for f in fields(self)]

    def as_dict(self) -> dict[str, np.ndarray]:
        """The present fields by name (for a Tianshou ``Batch``, or pickling)."""
        return {k: v for k, v in self.items() if v is not None}

    @classmethod
    def from_env(cls, obs: dict[str, np.ndarray], info: dict[str, Any]) -> Decisions:
        """The record of a vector env's ``reset`` or ``step`` output (every agent's row)."""
        return cls(obs["observation"], info["legal"], info.get("features"), obs.get("critic"))

    @classmethod
    def from_dict(cls, data: Any) -> Decisions:
        """A record from :meth:`as_dict` data (a dict or a Tianshou ``Batch``)."""
        get: Callable[[str], Any] = (
            data.get if isinstance(data, dict) else lambda key: getattr(data, key, None)
        )
        return cls(get("observation"), get("legal"), get("features"), get("critic"))


class BatchPolicy(Protocol):
    """An opponent that answers for many games at once: ``(Decisions) -> actions``.

    The :class:`~envs.decisions.Decisions` record holds what the env would give those M
    games' acting seats (``observation`` (M, D), ``legal`` (M, K), and ``features`` when
    the env has ``move_features``); the result is one action per row, an entry of its
    legal row.
    """

    def __call__(self, decisions: Decisions) -> np.ndarray: ...


def pad_rows(a: np.ndarray, width: int, fill: float) -> np.ndarray:
    """``a`` with axis 1 padded to ``width`` with ``fill`` (the one padding of legal rows).

    >>> pad_rows(np.array([[3, 5]]), 4, PAD).tolist()
    [[3, 5, -1, -1]]
    """
    extra = [(0, 0), (0, width - a.shape[1])] + [(0, 0)] * (a.ndim - 2)
    return np.pad(a, extra, constant_values=fill)


@dataclass(frozen=True)
class Legal:
    """Legal moves of M games' acting seats: catalog moves (-1 PASS, then
    :data:`envs.kernels.turns.NO_MOVE`),
    the codec's actions (then PAD), and the counts."""

    moves: np.ndarray
    actions: np.ndarray
    counts: np.ndarray

    def take(self, rows: Any) -> Legal:
        """The lists of ``rows`` only."""
        return Legal(self.moves[rows], self.actions[rows], self.counts[rows])


class DecisionMaker:
    """Makes :class:`Decisions` (and :class:`Legal` lists) from a :class:`Games`' arrays:
    the observers' vectors by :func:`envs.batch_observers.batch_encoder`, the move features'
    rows by :func:`envs.batch_moves.batch_move_features`."""

    def __init__(
        self,
        games: Games,
        observer: Observer,
        codec: Any,
        critic_observer: Observer | None = None,
        move_features: MoveFeatures | None = None,
    ) -> None:
        self.games, self.observer, self.codec = games, observer, codec
        self.encode = batch_encoder(observer)[0]
        self.critic_observer = critic_observer
        self.encode_critic = None if critic_observer is None else batch_encoder(critic_observer)[0]
        self.move_features = move_features
        self.move_rows = None if move_features is None else batch_move_features(move_features)[0]
        self.hand_actions = _hand_action_table(codec)

    def legal(self, slots: np.ndarray) -> Legal:
        """The legal moves of the acting seats of ``slots`` (rows as wide as the most)."""
        g, t = self.games, self.games.tables
        n = len(slots)
        lo, hi = np.zeros(n, np.int64), np.zeros(n, np.int64)
        may_pass, counts = np.zeros(n, np.bool_), np.zeros(n, np.int64)
        legal_ranges(slots, g.arrays, t.arrays, lo, hi, may_pass, counts)
        width = max(1, int(counts.max()) if n else 1)
        moves, actions = np.empty((n, width), np.int32), np.empty((n, width), np.int32)
        state, cat, last = g.arrays, t.arrays, self.codec.n - 1  # last: the highest action
        fill_legal(slots, state, cat, lo, hi, may_pass, self.hand_actions, last, moves, actions)
        return Legal(moves, actions, counts)

    def decisions(
        self, slots: np.ndarray, seats: np.ndarray, legal: Legal | None, critic: bool = True
    ) -> Decisions:
        """The record of ``seats`` in ``slots``; ``legal`` holds their legal lists (rows of
        :meth:`legal`), or None for seats that are not to move (no legal actions, so no
        features either). ``critic=False`` leaves the critic's vector out (for players,
        who never read it)."""
        obs = self._encode(self.encode, self.observer, slots, seats)
        seen = None
        if critic and self.encode_critic is not None:
            assert self.critic_observer is not None
            seen = self._encode(self.encode_critic, self.critic_observer, slots, seats)
        if legal is None:
            return Decisions(obs, np.full((len(slots), 1), PAD, np.int32), None, seen)
        features = None if self.move_rows is None else self.features(slots, legal)
        return Decisions(obs, legal.actions.copy(), features, seen)

    def encode_into(
        self,
        slots: np.ndarray,
        seats: np.ndarray,
        rows: np.ndarray,
        observation: np.ndarray,
        critic: np.ndarray | None = None,
    ) -> None:
        """Encode ``seats`` of ``slots`` into rows ``rows`` (all zero) of ``observation``,
        and of ``critic`` when given (the critic observer's vector)."""
        self.encode(self.games, slots, seats, observation, rows)
        if critic is not None and self.encode_critic is not None:
            self.encode_critic(self.games, slots, seats, critic, rows)

    def _encode(
        self, encode: Any, observer: Observer, slots: np.ndarray, seats: np.ndarray
    ) -> np.ndarray:
        out = np.zeros((len(slots), observer.size), np.float32)
        encode(self.games, slots, seats, out)
        return out

    def features(self, slots: np.ndarray, legal: Legal) -> np.ndarray:
        """The move features of the acting seats of ``slots``, one row per legal move,
        aligned with ``legal``'s rows (zeros past each row's count)."""
        assert self.move_rows is not None
        return self.move_rows(self.games, slots, legal.moves, legal.counts)


def _hand_action_table(codec: Any) -> np.ndarray:
    """For the hand codec: a 13-bit mask of hand positions -> action (-1: none); else empty."""
    if codec.name != "hand":
        return np.zeros(0, np.int32)
    out = np.full(1 << 13, -1, np.int32)
    for action, positions in enumerate(codecs.HAND_LAYOUT):
        out[sum(1 << p for p in positions)] = action
    return out
