"""Collecting experience from :class:`envs.vector.Big2VectorEnv` into Tianshou's buffers.

The policy (Tianshou's, called on a Batch ``obs`` holding a
:class:`~envs.decisions.Decisions` record: ``.observation``, ``.legal`` and, when used,
``.critic`` and ``.features``) answers with a *position* in each row's legal list; the
env action is ``legal[row, position]``. Buffers hold those positions and the records
(legal lists padded with -1), never a full-width mask.

Each learner trajectory is a *lane* of a :class:`tianshou.data.VectorReplayBuffer`, so
Tianshou's GAE and n-step returns see it whole; lane k is the env's agent k. With
opponents, agent k is slot k's learner and every step closes one transition per lane.
With ``self-all`` (the env's agents are games x seats, each seat rewarded by the env
itself), a seat's transition stays pending until the seat is to act again (its next
observation) or its game ends, collecting the rewards that land meanwhile (the 2018
paper's scheme). Pending transitions carry over between rollouts, so no trajectory is
cut short. With ``self-all`` among other opponents (a table drawn for each game) the
layout is the same: at a self-play table every seat is the learner's, at any other one
seat is, and the rows of the seats it does not play never act, so they open no
transition and their lanes stay empty for that game; a finished game counts only where
``final_info`` credits a row (:meth:`Episodes.add_finished`).

Tianshou's ``Collector`` is replaced here, and only here. Measured: a cProfile of
20,000 default PPO steps through it (``cProfile`` around ``training.train.train`` at
commit b89f093) put about a seventh of the time in building a ``Batch`` per step and
env, besides a fifth in full-width masks. It also cannot hold legal lists whose width
changes from step to step, nor a transition that closes several steps later (the
self-all lanes).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import torch
from tianshou.data import Batch, VectorReplayBuffer

from envs.decisions import Decisions
from training.ensemble import Actor
from training.nets import MaskedActor, legal_distribution, torch_threads
from training.tianshou_kernels import cache_kernels

# Tianshou's buffer kernels, and its GAE and n-step kernels that the policies built in
# training.build (which imports this module) compile: once per machine, not per process
cache_kernels()


@dataclass
class Chunk:
    """Transitions closed together: one per lane (``lanes`` are distinct)."""

    lanes: np.ndarray
    obs: Decisions
    act: np.ndarray
    rew: np.ndarray
    terminated: np.ndarray
    obs_next: Decisions | None


@dataclass
class Episodes:
    """What finished during a collection: the learner's final rewards and wins, one per
    seat it played (every seat of a self-play game), and with tables drawn per game the
    table (index in the opponents) and pool member (-1: none) each was played at."""

    returns: list[float] = field(default_factory=list)
    wins: list[bool] = field(default_factory=list)
    tables: list[int] = field(default_factory=list)
    members: list[int] = field(default_factory=list)

    def add(
        self,
        returns: Sequence[float] | np.ndarray,
        wins: Sequence[bool] | np.ndarray,
        tables: Sequence[int] | np.ndarray | None = None,
        members: Sequence[int] | np.ndarray | None = None,
    ) -> None:
        self.returns += list(np.asarray(returns, dtype=float).tolist())
        self.wins += list(np.asarray(wins, dtype=bool).tolist())
        none = np.full(len(np.asarray(returns)), -1)
        self.tables += np.asarray(none if tables is None else tables, int).tolist()
        self.members += np.asarray(none if members is None else members, int).tolist()

    def extend(self, other: Episodes) -> None:
        """Add ``other``'s episodes after these."""
        self.add(other.returns, other.wins, other.tables, other.members)

    def add_finished(self, info: dict[str, Any]) -> None:
        """The games that ended in a step, read from its ``final_info`` (only the rows it
        credits: the seats the learner played)."""
        if "final_info" in info:
            done, final = info["_final_info"], info["final_info"]
            seats = final["seat"][done]
            tables = final["table"][done] if "table" in final else None
            members = final["member"][done] if "member" in final else None
            self.add(
                final["final_rewards"][done, seats], final["winner"][done] == seats, tables, members
            )


class VectorEnv(Protocol):
    """What a rollout steps: a :class:`~envs.vector.Big2VectorEnv`, or the run's
    :class:`training.shards.Shards` of them."""

    num_envs: int
    all_seats: bool

    def reset(self, seed: int) -> tuple[dict[str, np.ndarray], dict[str, Any]]: ...

    def step(self, actions: np.ndarray) -> tuple[Any, ...]: ...


class Rollout:
    """Steps ``env`` with ``policy`` and returns closed transitions (see the module docstring).

    It deals with ``seed`` if one is given, else at the first :meth:`restart`.
    ``explore(act, legal)`` may replace positions (DQN's epsilon-greedy).
    """

    def __init__(self, env: VectorEnv, policy: Any, seed: int | None = None) -> None:
        self.env, self.policy = env, policy
        self.lanes = env.num_envs
        self.pending: dict[int, tuple[Decisions, int, float]] = {}  # lane -> (row, act, reward)
        if seed is not None:
            self.restart(seed)

    def restart(self, seed: int) -> None:
        """Deal fresh games in every slot (``seed``); transitions still pending are dropped."""
        obs, info = self.env.reset(seed=seed)
        self._see(obs, info)
        self.pending = {}

    def _see(self, obs: dict[str, np.ndarray], info: dict[str, Any]) -> None:
        """Keep the env's output: every agent's record, and which agents are to act."""
        self.record = Decisions.from_env(obs, info)
        self.acting = np.flatnonzero(info["acting"]) if "acting" in info else None

    def step(self, explore: Any = None) -> tuple[list[Chunk], Episodes]:
        """One decision in every game; the transitions it closes and the finished games."""
        agents = np.arange(self.lanes) if self.acting is None else self.acting
        record = self.record if self.acting is None else self.record.take(agents)
        batch = Batch(obs=Batch(record.as_dict()), info=Batch())
        with torch.no_grad():
            act = np.asarray(self.policy(batch).act, dtype=np.int64)
        if explore is not None:
            act = explore(act, record.legal)
        actions = np.zeros(self.lanes, np.int64)
        actions[agents] = record.legal[np.arange(len(agents)), act]
        new, rew, ended, _, info = self.env.step(actions)
        self._see(new, info)
        episodes = Episodes()
        episodes.add_finished(info)
        if not self.env.all_seats:  # every lane's transition closes at once
            return [Chunk(agents, record, act, rew, ended, self.record)], episodes
        return self._pending(agents, record, act, rew, ended), episodes

    def _pending(
        self,
        agents: np.ndarray,
        record: Decisions,
        act: np.ndarray,
        rew: np.ndarray,
        ended: np.ndarray,
    ) -> list[Chunk]:
        """All seats: hold the acting agents' transitions until each acts again or its game
        ends, adding the rewards that land meanwhile."""
        for i, agent in enumerate(agents.tolist()):
            self.pending[agent] = (record.take([i]), int(act[i]), 0.0)
        for agent in np.flatnonzero(rew).tolist():
            if agent in self.pending:
                row, a, r = self.pending[agent]
                self.pending[agent] = (row, a, r + float(rew[agent]))
        chunks = []
        done = [a for a in np.flatnonzero(ended).tolist() if a in self.pending]
        if done:
            chunks.append(self._close(done, None))
        assert self.acting is not None
        going_on = [a for a in self.acting.tolist() if a in self.pending]
        if going_on:  # a seat's transition closes with its view when it is to act again
            chunks.append(self._close(going_on, self.record.take(going_on)))
        return chunks

    def _close(self, lanes: list[int], obs_next: Decisions | None) -> Chunk:
        """Close the pending transitions of ``lanes``: with ``obs_next`` (the seats' views
        now) their games go on; without, their games ended."""
        rows = [self.pending.pop(lane) for lane in lanes]
        obs = Decisions.concat([r[0] for r in rows])
        act = np.array([r[1] for r in rows], np.int64)
        rew = np.array([r[2] for r in rows], np.float32)
        terminated = np.full(len(rows), obs_next is None)
        return Chunk(np.array(lanes), obs, act, rew, terminated, obs_next)


def to_buffer(chunks: list[Chunk], lanes: int, store_next: bool) -> VectorReplayBuffer:
    """A fresh buffer holding ``chunks`` in order (legal lists padded to the widest)."""
    records = [c.obs for c in chunks] + [c.obs_next for c in chunks if store_next and c.obs_next]
    width = max(r.width for r in records)
    per_lane = np.zeros(lanes, np.int64)
    for c in chunks:
        per_lane[c.lanes] += 1
    buffer = VectorReplayBuffer(int(per_lane.max()) * lanes, lanes, ignore_obs_next=not store_next)
    for c in chunks:
        add(buffer, c, width, store_next)
    return buffer


def add(buffer: VectorReplayBuffer, chunk: Chunk, width: int, store_next: bool) -> None:
    """Write one chunk (one transition per lane) into ``buffer``, records ``width`` wide."""
    data = {
        "obs": Batch(chunk.obs.widen(width).as_dict()),
        "act": chunk.act,
        "rew": chunk.rew,
        "terminated": chunk.terminated,
        "truncated": np.zeros(len(chunk.act), np.bool_),
    }
    if store_next:
        data["obs_next"] = Batch((chunk.obs_next or chunk.obs).widen(width).as_dict())
    buffer.add(Batch(data), buffer_ids=chunk.lanes)


class SnapshotPolicy:
    """A frozen copy of the learner as a :class:`envs.vector.BatchPolicy`: it samples its
    legal actions from its own softmax with its own generator, for all its games at once."""

    def __init__(self, net: MaskedActor, seed: int | Sequence[int]) -> None:
        self.net, self.rng = net, np.random.default_rng(seed)

    def reseed(self, seed: int | Sequence[int]) -> None:
        """Sample from a fresh generator seeded ``seed`` from now on."""
        self.rng = np.random.default_rng(seed)

    def __call__(self, decisions: Decisions) -> np.ndarray:
        legal = decisions.legal
        with torch.no_grad():
            logits = self.net.scores(decisions.observation, legal, decisions.features)
        probs = legal_distribution(logits).probs.cpu().numpy().astype(np.float64)
        probs /= probs.sum(axis=1, keepdims=True)
        u = self.rng.random(len(legal))[:, None]
        position = np.minimum((probs.cumsum(axis=1) < u).sum(axis=1), probs.shape[1] - 1)
        chosen: np.ndarray = legal[np.arange(len(legal)), position]
        return chosen


class GreedyPolicy:
    """The network's likeliest legal action in each of a batch of decisions (a
    :class:`envs.vector.BatchPolicy`): what :func:`training.loop.learner_agent` plays,
    asked for many games at once. Ties go to the lowest action id, as that agent breaks
    them (it lists the legal actions in ascending order). With ``threads`` its forward
    passes run on that many torch threads (search rollouts in arena workers: one), else
    on the caller's."""

    def __init__(self, net: Actor, threads: int | None = None) -> None:
        self.net, self.threads = net, threads

    def __repr__(self) -> str:
        return f"GreedyPolicy({type(self.net).__name__})"

    def __call__(self, decisions: Decisions) -> np.ndarray:
        features = decisions.features if self.net.uses_plan else None
        threads = nullcontext() if self.threads is None else torch_threads(self.threads)
        with torch.no_grad(), threads:
            logits = self.net.scores(decisions.observation, decisions.legal, features)
        legal = decisions.legal[:, : logits.shape[1]]
        scores = np.where(legal >= 0, logits.cpu().numpy(), -np.inf)  # padding never wins
        if np.isnan(scores).any():
            rows = np.flatnonzero(np.isnan(scores).any(axis=1)).tolist()
            raise ValueError(
                f"the network scored NaN for decisions {rows[:10]}: its weights "
                f"or inputs hold NaN or inf"
            )
        best = scores == scores.max(axis=1, keepdims=True)
        chosen: np.ndarray = np.where(best, legal, np.iinfo(legal.dtype).max).min(axis=1)
        return chosen
