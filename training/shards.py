"""A run's games in shards that step together: in this process, or as Ray actors.

``--shards K`` splits the run's ``--envs`` games into K :class:`EnvShard` objects, each a
:class:`envs.vector.Big2VectorEnv` with its opponents (and its own copies of the
self-play snapshots). :class:`Shards` steps them together and joins their batched
arrays, so to :class:`training.rollout.Rollout` they are one env; the policy and the
learning stay in the driver. On the ``local`` backend the shards live in this process;
on ``ray`` each is an actor that owns its shard (``--backend ray``), and only arrays
cross between them.

What a run collects depends on the shards, never on the backend: shard j's games are
slots ``offset_j ..`` of the run, reset with ``seed + offset_j`` (so the first deals are
the ones a single env deals), and its snapshots sample with their own generators. One
shard (the default) is exactly the single env.

>>> from training.config import Config
>>> from training.spec import resolve
>>> from big2.evaluation.backends import Backend
>>> cfg = Config(envs=5, hidden=(16,), observer="card_counting", opponents=("random",),
...              plan_features=False, reply_features=False)
>>> shards = Shards(resolve(cfg), Backend(), seed=0, count=2)
>>> obs, info = shards.reset(seed=0)
>>> shards.sizes, obs["observation"].shape, info["seat"].shape
([3, 2], (5, 421), (5,))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from big2.evaluation.backends import Backend
from envs.decisions import PAD, pad_rows
from envs.pools import Pool
from training.build import make_env
from training.nets import make_actor
from training.rollout import SnapshotPolicy
from training.spec import RunSpec

PADDING = {"legal": PAD, "features": 0}  # keys whose axis 1 is the number of legal actions

# (the epoch it was taken after, its sampling seed, its actor weights: None when the
# shards hold it already)
Snapshots = list[tuple[int, int, dict[str, Any] | None]]


class EnvShard:
    """One shard: a vector env of ``num_envs`` games and its self-play snapshot copies."""

    def __init__(self, spec: RunSpec, num_envs: int, index: int, seed: int) -> None:
        self.spec, self.index = spec, index
        self.pool = Pool()  # the env's "self" opponents, updated in place
        self.snapshots: dict[int, SnapshotPolicy] = {}
        self.env = make_env(spec, seed, self.pool, games=num_envs)

    def reset(self, seed: int) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        return self.env.reset(seed=seed)

    def step(self, actions: np.ndarray) -> tuple[Any, ...]:
        return self.env.step(actions)

    def set_pool(self, snapshots: Snapshots, chances: Sequence[float] | None = None) -> None:
        """Make the self-play pool these snapshots, each sampling from its seed (each shard
        its own stream), drawn by ``chances`` (one weight per snapshot) or uniformly; a
        snapshot already held keeps its network."""
        held, self.snapshots = self.snapshots, {}
        for taken, seed, weights in snapshots:
            policy = held.get(taken) or self._build(weights)
            policy.reseed([seed, self.index])
            self.snapshots[taken] = policy
        self.pool.replace(list(self.snapshots.values()), chances)

    def _build(self, weights: dict[str, Any] | None) -> SnapshotPolicy:
        if weights is None:
            raise ValueError("a snapshot this shard does not hold came without its weights")
        with torch.random.fork_rng():  # initialising a network draws from torch's generator
            net = make_actor(self.spec.network)
        net.load_state_dict(weights)
        return SnapshotPolicy(net.eval(), seed=0)  # reseeded by set_pool


class Shards:
    """The run's games as ``count`` shards on ``backend``, stepped as one env."""

    def __init__(self, spec: RunSpec, backend: Backend, seed: int, count: int = 1) -> None:
        games = spec.env.games
        if not 1 <= count <= games:
            raise ValueError(f"shards must be between 1 and envs ({games}), got {count}")
        self.backend, self.all_seats = backend, spec.env.all_seats
        seats = spec.env.rules.players if self.all_seats else 1
        self.num_envs = games * seats  # agents: games, or games x seats under self-all
        self.sizes = [len(part) for part in np.array_split(np.arange(games), count)]
        self.agents = [n * seats for n in self.sizes]
        self.offsets = np.cumsum([0, *self.sizes[:-1]]).tolist()
        arguments = [(spec, n, j, seed + self.offsets[j]) for j, n in enumerate(self.sizes)]
        self.shards = backend.actors(EnvShard, arguments, cpus=1)

    def reset(self, seed: int) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        parts = self.backend.call(self.shards, "reset", [(seed + o,) for o in self.offsets])
        return join([p[0] for p in parts]), join([p[1] for p in parts])

    def step(self, actions: np.ndarray) -> tuple[Any, ...]:
        pieces = np.split(np.asarray(actions), np.cumsum(self.agents)[:-1])
        parts = self.backend.call(self.shards, "step", [(a,) for a in pieces])
        obs, rew, ended, truncated, info = zip(*parts, strict=True)
        return (
            join(obs),
            np.concatenate(rew),
            np.concatenate(ended),
            np.concatenate(truncated),
            join(info),
        )

    def set_pool(self, snapshots: Snapshots, chances: Sequence[float] | None = None) -> None:
        """Give every shard the self-play snapshots, drawn by ``chances`` (or uniformly)."""
        arguments = [(snapshots, chances)] * len(self.shards)
        self.backend.call(self.shards, "set_pool", arguments)

    def close(self) -> None:
        """End the shards' actors (on Ray, their CPUs return to the cluster)."""
        self.backend.release(self.shards)
        self.shards = []


def join(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The shards' observation or info dicts as one batch, as gymnasium lays out infos:
    a key some shards lack (``final_info`` when only some games ended) gets its fill and a
    False ``_key`` mask there; legal lists (and their features) are padded to the widest.

    >>> a = {"legal": np.array([[4, 7]]), "seat": np.array([1])}
    >>> b = {"legal": np.array([[2, -1, -1], [5, 6, 8]]), "seat": np.array([0, 3])}
    >>> join([a, b])["legal"].tolist()
    [[4, 7, -1], [2, -1, -1], [5, 6, 8]]
    """
    if len(parts) == 1:
        return dict(parts[0])
    sizes = [_size(p) for p in parts]
    keys = list(dict.fromkeys(k for p in parts for k in p))
    return {key: _join_key(key, [p.get(key) for p in parts], sizes) for key in keys}


def _join_key(key: str, values: list[Any], sizes: list[int]) -> Any:
    present = next(v for v in values if v is not None)
    if isinstance(present, dict):
        filled = [
            v if v is not None else {k: _filler(a, n, k) for k, a in present.items()}
            for v, n in zip(values, sizes, strict=True)
        ]
        return join(filled)
    arrays = [
        v if v is not None else _filler(present, n, key) for v, n in zip(values, sizes, strict=True)
    ]
    if key in PADDING and present.ndim >= 2:
        width = max(a.shape[1] for a in arrays)
        arrays = [pad_rows(a, width, PADDING[key]) for a in arrays]
    return np.concatenate(arrays)


def _filler(like: np.ndarray, n: int, key: str) -> np.ndarray:
    """What a shard without ``key`` contributes: False masks, None objects, else zeros."""
    if like.dtype == object:
        return np.full(n, None, dtype=object)
    fill = PADDING.get(key, -1 if key in ("winner", "seat") else 0)
    return np.full((n, *like.shape[1:]), fill, like.dtype)  # a mask's fill: False


def _size(part: dict[str, Any]) -> int:
    for value in part.values():
        if isinstance(value, np.ndarray):
            return len(value)
    raise ValueError("a shard returned no arrays")
