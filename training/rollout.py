"""Collecting experience from :class:`envs.vector.Big2VectorEnv` into Tianshou's buffers.

The policy (Tianshou's, called on a Batch ``obs`` with ``.obs``, ``.legal`` and, when
used, ``.critic`` and ``.plan``) answers with a *position* in each row's legal list; the
env action is ``legal[row, position]``. Buffers hold those positions and the legal
lists (padded with -1), never a full-width mask.

Each learner trajectory is a *lane* of a :class:`tianshou.data.VectorReplayBuffer`, so
Tianshou's GAE and n-step returns see it whole. With opponents, lane i is slot i's
learner. With ``self-all`` (the learner in every seat), lane ``4 * i + seat`` is that
seat of slot i: a seat's transition stays pending until the seat is to act again (its
next observation) or the game ends, when every seat's pending transition closes with
its own final reward (the 2018 paper's scheme). Pending transitions carry over between
rollouts, so no trajectory is cut short.

Tianshou's ``Collector`` is replaced here, and only here. Measured: a cProfile of
20,000 default PPO steps through it (``cProfile`` around ``training.train.train`` at
commit b89f093) put about a seventh of the time in building a ``Batch`` per step and
env, besides a fifth in full-width masks. It also cannot hold legal lists whose width
changes from step to step, nor a transition that closes several steps later (the
self-all lanes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import torch
from tianshou.data import Batch, VectorReplayBuffer

from envs.vector import Big2VectorEnv
from training.nets import MaskedActor, legal_distribution

Rows = dict[str, np.ndarray]  # "obs", "legal"[, "critic", "plan"]: one row per transition


@dataclass
class Chunk:
    """Transitions closed together: one per lane (``lanes`` are distinct)."""

    lanes: np.ndarray
    obs: Rows
    act: np.ndarray
    rew: np.ndarray
    terminated: np.ndarray
    obs_next: Rows | None


@dataclass
class Episodes:
    """What finished during a collection: the learner's final rewards and wins."""

    returns: list[float] = field(default_factory=list)
    wins: list[bool] = field(default_factory=list)

    def add(self, returns: Sequence[float] | np.ndarray, wins: Sequence[bool] | np.ndarray) -> None:
        self.returns += list(np.asarray(returns, dtype=float).tolist())
        self.wins += list(np.asarray(wins, dtype=bool).tolist())


def rows_of(obs: dict[str, np.ndarray]) -> Rows:
    """The env's observation dict in the policy's names."""
    out = {"obs": obs["observation"], "legal": obs["legal"]}
    if "critic" in obs:
        out["critic"] = obs["critic"]
    if "features" in obs:
        out["plan"] = obs["features"]
    return out


def take(rows: Rows, index: Any) -> Rows:
    return {k: v[index] for k, v in rows.items()}


def pad(arrays: list[np.ndarray], width: int, fill: int) -> np.ndarray:
    """Stack arrays whose axis 1 differs, padded to ``width`` with ``fill``."""
    shape = (sum(len(a) for a in arrays), width, *arrays[0].shape[2:])
    out = np.full(shape, fill, dtype=arrays[0].dtype)
    start = 0
    for a in arrays:
        out[start : start + len(a), : a.shape[1]] = a
        start += len(a)
    return out


def stack(rows: list[Rows], width: int) -> Rows:
    """Rows of several transitions as one, legal lists (and plan rows) padded to ``width``."""
    out: Rows = {}
    for key in rows[0]:
        parts = [r[key] for r in rows]
        if key in ("legal", "plan"):
            out[key] = pad(parts, width, -1 if key == "legal" else 0)
        else:
            out[key] = np.concatenate(parts)
    return out


class VectorEnv(Protocol):
    """What a rollout steps: a :class:`~envs.vector.Big2VectorEnv`, or the run's
    :class:`training.shards.Shards` of them."""

    num_envs: int

    def reset(self, seed: int) -> tuple[dict[str, np.ndarray], dict[str, Any]]: ...

    def step(self, actions: np.ndarray) -> tuple[Any, ...]: ...


class Rollout:
    """Steps ``env`` with ``policy`` and returns closed transitions (see the module docstring).

    ``explore(act, legal)`` may replace positions (DQN's epsilon-greedy).
    """

    def __init__(self, env: VectorEnv | Big2VectorEnv, policy: Any, seed: int,
                 all_seats: bool) -> None:  # fmt: skip
        self.env, self.policy, self.all_seats = env, policy, all_seats
        self.lanes = env.num_envs * (4 if all_seats else 1)
        obs, info = env.reset(seed=seed)
        self.obs, self.seats = rows_of(obs), info["seat"]
        self.pending: dict[int, tuple[Rows, int, float]] = {}  # lane -> (obs, act, reward)

    def step(self, explore: Any = None) -> tuple[list[Chunk], Episodes]:
        """One decision in every game; the transitions it closes and the finished games."""
        obs, n = self.obs, self.env.num_envs
        batch = Batch(obs=Batch(obs), info=Batch())
        with torch.no_grad():
            act = np.asarray(self.policy(batch).act, dtype=np.int64)
        if explore is not None:
            act = explore(act, obs["legal"])
        actions = obs["legal"][np.arange(n), act]
        new, rew, ended, _, info = self.env.step(actions)
        new_rows, seats = rows_of(new), self.seats
        episodes = Episodes()
        if self.all_seats:
            chunks = self._all_seats(obs, act, rew, ended, info, episodes)
        else:
            chunk = Chunk(np.arange(n), obs, act, rew, ended, new_rows)
            episodes.add(rew[ended], info["winner"][ended] == seats[ended])
            chunks = [chunk]
        self.obs, self.seats = new_rows, info["seat"]
        return chunks, episodes

    def _all_seats(
        self, obs: Rows, act: np.ndarray, rew: np.ndarray, ended: np.ndarray,
        info: dict[str, Any], episodes: Episodes,
    ) -> list[Chunk]:  # fmt: skip
        """Close the acting seats' previous transitions, and every seat's in ended games."""
        n = self.env.num_envs
        lanes = (4 * np.arange(n) + self.seats).tolist()
        chunks = []
        going_on = [i for i in range(n) if lanes[i] in self.pending]
        if going_on:  # a seat's previous transition closes with its view now
            chunks.append(self._close([lanes[i] for i in going_on], take(obs, going_on)))
        for i in range(n):  # and its new one waits for its next view
            self.pending[lanes[i]] = (take(obs, [i]), int(act[i]), float(rew[i]))
        done = np.flatnonzero(ended).tolist()
        if done:
            final, closing = info["final_rewards"], []
            for i in done:
                for seat in range(4):
                    lane = 4 * i + seat
                    if lane in self.pending and lane != lanes[i]:  # the actor's reward has it
                        rows, a, r = self.pending[lane]
                        self.pending[lane] = (rows, a, r + float(final[i, seat]))
                    closing += [lane] if lane in self.pending else []
            chunks.append(self._close(closing, None))
            winners = np.repeat(info["winner"][done], 4) == np.tile(np.arange(4), len(done))
            episodes.add(final[done].reshape(-1), winners)
        return chunks

    def _close(self, lanes: list[int], obs_next: Rows | None) -> Chunk:
        """Close the pending transitions of ``lanes``: with ``obs_next`` (the seats' views
        now) their games go on; without, their games ended."""
        rows = [self.pending.pop(lane) for lane in lanes]
        width = max(r[0]["legal"].shape[1] for r in rows)
        obs = stack([r[0] for r in rows], width)
        act = np.array([r[1] for r in rows], np.int64)
        rew = np.array([r[2] for r in rows], np.float32)
        terminated = np.full(len(rows), obs_next is None)
        return Chunk(np.array(lanes), obs, act, rew, terminated, obs_next)


def to_buffer(chunks: list[Chunk], lanes: int, store_next: bool) -> VectorReplayBuffer:
    """A fresh buffer holding ``chunks`` in order (legal lists padded to the widest)."""
    width = max(c.obs["legal"].shape[1] for c in chunks)
    if store_next:
        width = max([width, *(c.obs_next["legal"].shape[1] for c in chunks if c.obs_next)])
    per_lane = np.zeros(lanes, np.int64)
    for c in chunks:
        per_lane[c.lanes] += 1
    buffer = VectorReplayBuffer(int(per_lane.max()) * lanes, lanes, ignore_obs_next=not store_next)
    for c in chunks:
        add(buffer, c, width, store_next)
    return buffer


def add(buffer: VectorReplayBuffer, chunk: Chunk, width: int, store_next: bool) -> None:
    """Write one chunk (one transition per lane) into ``buffer``."""
    data = {
        "obs": Batch(stack([chunk.obs], width)),
        "act": chunk.act,
        "rew": chunk.rew,
        "terminated": chunk.terminated,
        "truncated": np.zeros(len(chunk.act), np.bool_),
    }
    if store_next:
        data["obs_next"] = Batch(stack([chunk.obs_next or chunk.obs], width))
    buffer.add(Batch(data), buffer_ids=chunk.lanes)


class SnapshotPolicy:
    """A frozen copy of the learner as a :class:`envs.vector.BatchPolicy`: it samples its
    legal actions from its own softmax with its own generator, for all its games at once."""

    def __init__(self, net: MaskedActor, seed: int) -> None:
        self.net, self.rng = net, np.random.default_rng(seed)

    def __call__(self, observations: dict[str, np.ndarray]) -> np.ndarray:
        legal = observations["legal"]
        with torch.no_grad():
            logits = self.net.scores(observations["observation"], legal,
                                     observations.get("features"))  # fmt: skip
        probs = legal_distribution(logits).probs.cpu().numpy().astype(np.float64)
        probs /= probs.sum(axis=1, keepdims=True)
        u = self.rng.random(len(legal))[:, None]
        position = np.minimum((probs.cumsum(axis=1) < u).sum(axis=1), probs.shape[1] - 1)
        chosen: np.ndarray = legal[np.arange(len(legal)), position]
        return chosen
