"""Pools of opponents in the vector env, drawn uniformly or by weights a trainer sets.

A pool is an entry of :class:`envs.vector.Big2VectorEnv`'s ``opponents``: a game that
draws it seats one of its members (an empty pool plays as ``random``). A plain list of
batch policies is a pool drawn uniformly, which its owner may grow between steps. A
:class:`Pool` may also carry draw weights, which the trainer sets between steps: for
prioritized fictitious self-play, the snapshots that beat the learner most often drawn
most. Draws come from the env's opponent generator, so the same seed draws the same
members.

>>> def first(decisions):  # a batch policy: the first legal action of every row
...     return decisions.legal[:, 0]
>>> pool = Pool([first, first, first], weights=[0, 1, 3])
>>> rng = np.random.default_rng(0)
>>> draws = [draw_member(pool, rng) for _ in range(1000)]
>>> [draws.count(m) for m in range(3)]
[0, 231, 769]
>>> pool.weights = [1, 1]
Traceback (most recent call last):
ValueError: weights must be 3 numbers (one per member of the pool), got [1, 1]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from envs.decisions import BatchPolicy


class Pool:
    """Batch policies drawn by weight (``weights=None``: uniformly, as a plain list).

    Args:
        members: the batch policies.
        weights: one non-negative number per member, not all zero (a draw picks a member
            in proportion to its weight), or None to draw uniformly.
    """

    def __init__(
        self, members: Iterable[BatchPolicy] = (), weights: Sequence[float] | None = None
    ) -> None:
        self._members: list[BatchPolicy] = []
        for member in members:
            self._members.append(_checked_member(member))
        self._weights: np.ndarray | None = None
        self._chances: np.ndarray | None = None  # the weights over their sum
        self.weights = weights

    @property
    def weights(self) -> np.ndarray | None:
        """The members' draw weights (a copy), or None: uniform. Set new ones (any
        non-negative scale) or None between steps."""
        return None if self._weights is None else self._weights.copy()

    @weights.setter
    def weights(self, weights: Sequence[float] | None) -> None:
        self._use(None if weights is None else _checked_weights(weights, len(self._members)))

    def _use(self, checked: np.ndarray | None) -> None:
        """Draw by these checked weights (None: uniformly)."""
        self._weights = checked
        self._chances = None if checked is None else checked / checked.sum()

    def append(self, member: BatchPolicy, weight: float | None = None) -> None:
        """Add ``member``; ``weight`` is its draw weight, which a pool drawn by weight
        needs and a uniform one refuses (the others' weights are kept as they were)."""
        member = _checked_member(member)
        if (weight is None) != (self._weights is None):
            need = "needs a weight" if weight is None else "is uniform: it takes no weight"
            raise ValueError(f"this pool {need} for a new member (got weight={weight!r})")
        weights = None if self._weights is None else [*self._weights, weight]
        self._members.append(member)
        try:
            self.weights = weights
        except ValueError:
            self._members.pop()  # refused: the pool is as it was
            raise

    def replace(
        self, members: Iterable[BatchPolicy], weights: Sequence[float] | None = None
    ) -> None:
        """Make the pool ``members``, drawn by ``weights`` (None: uniformly), between steps
        (a trainer's pool of snapshots as old ones leave it); both are checked before
        anything changes, so a refused pair leaves the pool as it was.

        >>> def first(decisions):
        ...     return decisions.legal[:, 0]
        >>> pool = Pool()
        >>> pool.replace([first, first], weights=[1, 3])
        >>> len(pool), pool.weights.tolist()
        (2, [1.0, 3.0])
        """
        new = [_checked_member(m) for m in members]
        checked = None if weights is None else _checked_weights(weights, len(new))
        self._members = new
        self._use(checked)

    def draw(self, rng: np.random.Generator) -> int:
        """A member's index drawn from ``rng`` (-1 for an empty pool)."""
        if not self._members:
            return -1
        if self._chances is None:
            return int(rng.integers(len(self._members)))
        return int(rng.choice(len(self._members), p=self._chances))

    def __len__(self) -> int:
        return len(self._members)

    def __getitem__(self, index: int) -> BatchPolicy:
        return self._members[index]

    def __iter__(self) -> Iterator[BatchPolicy]:
        return iter(self._members)

    def __repr__(self) -> str:
        weights = None if self._weights is None else self._weights.tolist()
        return f"Pool({self._members!r}, weights={weights!r})"


def draw_member(pool: list[BatchPolicy] | Pool, rng: np.random.Generator) -> int:
    """A member's index of ``pool`` drawn from ``rng``: by its weights for a :class:`Pool`,
    uniformly for a list; -1 for an empty pool (it plays as ``random``)."""
    if isinstance(pool, Pool):
        return pool.draw(rng)
    return int(rng.integers(len(pool))) if pool else -1


def _checked_member(member: Any) -> BatchPolicy:
    if not callable(member):
        raise ValueError(f"a pool's members are batch policies (callables), got {member!r}")
    policy: BatchPolicy = member
    return policy


def _checked_weights(weights: Any, n: int) -> np.ndarray:
    """``weights`` as a float array, after checking them; ValueError naming what is wrong."""
    expected = f"weights must be {n} numbers (one per member of the pool), got {weights!r}"
    try:
        values = np.array(weights, np.float64)
    except (TypeError, ValueError):
        raise ValueError(expected) from None
    if values.shape != (n,):
        raise ValueError(expected)
    if not np.isfinite(values).all() or (values < 0).any() or values.sum() <= 0:
        raise ValueError(
            f"weights must be finite and non-negative, and not all zero, got {values.tolist()}"
        )
    return values
