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
>>> from big2.evaluation.backends import Backend
>>> shards = Shards(Config(envs=5, hidden=(16,)), Backend(), seed=0, count=2)
>>> obs, info = shards.reset(seed=0)
>>> shards.sizes, obs["observation"].shape, info["seat"].shape
([3, 2], (5, 421), (5,))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import torch

from big2.evaluation.backends import Backend
from training.build import make_env
from training.config import Config
from training.nets import make_actor
from training.rollout import SnapshotPolicy

SHARD_SEEDS = 1_000_003  # shard j's snapshot generators: seed + j * SHARD_SEEDS
PADDING = {"legal": -1, "features": 0}  # keys whose axis 1 is the number of legal actions

Snapshots = list[tuple[int, dict[str, Any]]]  # (generator seed, actor weights)


class EnvShard:
    """One shard: a vector env of ``num_envs`` games and its self-play snapshot copies."""

    def __init__(self, cfg: Config, num_envs: int, index: int, seed: int) -> None:
        self.cfg, self.index = cfg, index
        self.pool: list[SnapshotPolicy] = []  # the env's "self" opponents, updated in place
        self.snapshots: dict[int, SnapshotPolicy] = {}
        self.env = make_env(replace(cfg, envs=num_envs), seed, self.pool)

    def reset(self, seed: int) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        return self.env.reset(seed=seed)

    def step(self, actions: np.ndarray) -> tuple[Any, ...]:
        return self.env.step(actions)

    def set_pool(self, snapshots: Snapshots) -> None:
        """Make the self-play pool these snapshots; ones already held keep their state."""
        held = self.snapshots
        self.snapshots = {seed: held.get(seed) or self._build(seed, w) for seed, w in snapshots}
        self.pool[:] = list(self.snapshots.values())

    def _build(self, seed: int, weights: dict[str, Any]) -> SnapshotPolicy:
        with torch.random.fork_rng():  # initialising a network draws from torch's generator
            net = make_actor(self.cfg)
        net.load_state_dict(weights)
        return SnapshotPolicy(net.eval(), seed=seed + SHARD_SEEDS * self.index)


class Shards:
    """The run's games as ``count`` shards on ``backend``, stepped as one env."""

    def __init__(self, cfg: Config, backend: Backend, seed: int, count: int = 1) -> None:
        if not 1 <= count <= cfg.envs:
            raise ValueError(f"shards must be between 1 and envs ({cfg.envs}), got {count}")
        self.backend, self.num_envs = backend, cfg.envs
        self.sizes = [len(part) for part in np.array_split(np.arange(cfg.envs), count)]
        self.offsets = np.cumsum([0, *self.sizes[:-1]]).tolist()
        arguments = [(cfg, n, j, seed + self.offsets[j]) for j, n in enumerate(self.sizes)]
        self.shards = backend.actors(EnvShard, arguments, cpus=1)

    def reset(self, seed: int) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        parts = self.backend.call(self.shards, "reset", [(seed + o,) for o in self.offsets])
        return join([p[0] for p in parts]), join([p[1] for p in parts])

    def step(self, actions: np.ndarray) -> tuple[Any, ...]:
        pieces = np.split(np.asarray(actions), np.cumsum(self.sizes)[:-1])
        parts = self.backend.call(self.shards, "step", [(a,) for a in pieces])
        obs, rew, ended, truncated, info = zip(*parts, strict=True)
        return (
            join(obs),
            np.concatenate(rew),
            np.concatenate(ended),
            np.concatenate(truncated),
            join(info),
        )

    def set_pool(self, snapshots: Snapshots) -> None:
        """Give every shard the self-play snapshots."""
        self.backend.call(self.shards, "set_pool", [(snapshots,)] * len(self.shards))

    def close(self) -> None:
        """End the shards' actors (on Ray, their CPUs return to the cluster)."""
        self.backend.release(self.shards)
        self.shards = []


def join(parts: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The shards' arrays as one batch; legal lists (and their features) padded to the
    widest shard.

    >>> a = {"legal": np.array([[4, 7]]), "seat": np.array([1])}
    >>> b = {"legal": np.array([[2, -1, -1], [5, 6, 8]]), "seat": np.array([0, 3])}
    >>> join([a, b])["legal"].tolist()
    [[4, 7, -1], [2, -1, -1], [5, 6, 8]]
    """
    if len(parts) == 1:
        return parts[0]
    out = {}
    for key in parts[0]:
        arrays = [p[key] for p in parts]
        if key in PADDING:
            width = max(a.shape[1] for a in arrays)
            arrays = [_pad(a, width, PADDING[key]) for a in arrays]
        out[key] = np.concatenate(arrays)
    return out


def _pad(a: np.ndarray, width: int, fill: int) -> np.ndarray:
    extra = [(0, 0), (0, width - a.shape[1])] + [(0, 0)] * (a.ndim - 2)
    return np.pad(a, extra, constant_values=fill)
