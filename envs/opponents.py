"""The opponents inside :class:`envs.vector.Big2VectorEnv`: who sits where, and how they move.

Each game of a slot has one learner seat (game j of the slot: seat j mod 4) and three
opponents, each drawn from the env's ``opponents`` list for that game (an entry that is a
list is a pool: one member is drawn for the game; an empty pool plays as ``random``).
Opponents move in rounds: every game waiting on an opponent gets one move per round,
grouped by kind so that each kind answers for all its games at once (compiled
``random`` and ``greedy``, one call of a :class:`~envs.vector.BatchPolicy`, or a
:class:`big2.players.Agent` asked game by game), until every game is back at its
learner's turn or over.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from big2.hand_ranking import PASS, catalog
from big2.players import Agent, load_agent
from envs.batch_observers import view_of

if TYPE_CHECKING:
    from envs.vector import BatchPolicy, Big2VectorEnv

COMPILED = ("random", "greedy")  # opponents that run on the arrays, without a View


class Opponents:
    """The opponent seats of every game of ``env`` (see the module docstring)."""

    def __init__(
        self, env: Big2VectorEnv, mix: Sequence[str | BatchPolicy | list[BatchPolicy]]
    ) -> None:
        _check_mix(mix)
        self.env, self.mix = env, list(mix)
        # an Agent for each spec that is not compiled; checked now, before any game
        self.agents: dict[int, Agent] = {
            i: load_agent(m, env.rules)
            for i, m in enumerate(self.mix)
            if isinstance(m, str) and m not in COMPILED
        }
        self.kind = np.full((env.num_envs, 4), -1, np.int64)  # index in mix; -1: learner
        self.member = np.full((env.num_envs, 4), -1, np.int64)  # in a pool; -1: plays random
        self.learner = np.zeros(env.num_envs, np.int64)

    def start(self, slots: np.ndarray) -> None:
        """Seat the learner and draw three opponents for the new games in ``slots``."""
        rng = self.env._np_rng
        for slot in slots.tolist():
            seat = int(self.env._games_played[slot] % 4)
            self.learner[slot] = seat
            draws = rng.integers(len(self.mix), size=4)
            draws[seat] = -1
            self.kind[slot] = draws
            for s in range(4):  # pools: draw a member (an empty pool plays as random)
                entry = self.mix[draws[s]] if s != seat else None
                if isinstance(entry, list):
                    self.member[slot, s] = rng.integers(len(entry)) if entry else -1
            for i in set(draws.tolist()) & set(self.agents):
                reset = getattr(self.agents[i], "reset", None)
                if callable(reset):
                    reset(int(rng.integers(2**63)))

    def advance(self) -> None:
        """Let opponents move until every game is at its learner's turn or over."""
        games = self.env.games
        while True:
            slots = np.flatnonzero((games.winner < 0) & (games.turn != self.learner))
            if not len(slots):
                return
            moves, actions, counts = self.env.legal_of(slots)
            kinds = self.kind[slots, games.turn[slots]]
            chosen = np.empty(len(slots), np.int64)
            for kind in np.unique(kinds).tolist():
                rows = np.flatnonzero(kinds == kind)
                chosen[rows] = self._moves(kind, slots[rows], moves[rows], actions[rows],
                                           counts[rows])  # fmt: skip
            games.apply(slots, chosen)

    def _moves(
        self, kind: int, slots: np.ndarray, moves: np.ndarray, actions: np.ndarray,
        counts: np.ndarray,
    ) -> np.ndarray:  # fmt: skip
        """The catalog moves that opponent ``kind`` makes in ``slots``."""
        who = self.mix[kind]
        if who == "random":
            return moves[np.arange(len(slots)), self.env._np_rng.integers(counts)]
        if who == "greedy":
            return _greedy(moves, counts, self.env.games.table[slots] < 0, self.env)
        if kind in self.agents:
            return self._ask(self.agents[kind], slots, moves, counts)
        if not isinstance(who, list):
            assert not isinstance(who, str)
            return self._batch(who, slots, moves, actions)
        # a pool: each game's member was drawn at its start (-1: it was empty, play random)
        members = self.member[slots, self.env.games.turn[slots]]
        out = np.empty(len(slots), np.int64)
        for m in np.unique(members).tolist():
            rows = np.flatnonzero(members == m)
            if m < 0:
                out[rows] = moves[rows, self.env._np_rng.integers(counts[rows])]
            else:
                out[rows] = self._batch(who[m], slots[rows], moves[rows], actions[rows])
        return out

    def _batch(
        self, policy: BatchPolicy, slots: np.ndarray, moves: np.ndarray, actions: np.ndarray
    ) -> np.ndarray:
        """The moves of one batch policy in ``slots``, from one call."""
        observations = self.env.observe(slots, self.env.games.turn[slots], moves, actions)
        rows = np.arange(len(slots))
        picked = np.asarray(policy(observations))
        where = actions == picked.reshape(-1, 1)
        if picked.shape != (len(slots),) or not where.any(axis=1).all():
            raise ValueError(f"batch policy {policy!r} chose actions that are not legal")
        chosen: np.ndarray = moves[rows, where.argmax(axis=1)]
        return chosen

    def _ask(
        self, agent: Agent, slots: np.ndarray, moves: np.ndarray, counts: np.ndarray
    ) -> np.ndarray:
        """Each game's move from ``agent``, asked with that seat's view (Python speed)."""
        games, cat = self.env.games, catalog(self.env.rules)
        out = np.empty(len(slots), np.int64)
        for i, slot in enumerate(slots.tolist()):
            view = view_of(games, slot, int(games.turn[slot]))
            legal = tuple(cat[m] if m >= 0 else PASS for m in moves[i, : counts[i]].tolist())
            move = agent.act(view, legal)
            if move not in legal:
                raise ValueError(f"opponent {agent!r} chose {move}, not legal in slot {slot}")
            out[i] = -1 if move is PASS else move.index
        return out


def _check_mix(mix: Any) -> None:
    """Raise ValueError unless ``mix`` is a non-empty list of opponents (agent specs, batch
    policies, or lists of batch policies)."""
    expected = ("expected a list of agent specs (such as ['random', 'heuristic']), batch "
                "policies or lists of them (pools), or None for all seats")  # fmt: skip
    if isinstance(mix, str | bytes) or not isinstance(mix, Sequence):
        raise ValueError(f"opponents must be a list, got {mix!r}; {expected}")
    if not len(mix):
        raise ValueError("opponents must name at least one agent (or be None: all seats)")
    for i, entry in enumerate(mix):
        pool = isinstance(entry, list) and all(callable(m) for m in entry)
        if not (isinstance(entry, str) or callable(entry) or pool):
            raise ValueError(f"opponents[{i}] is {entry!r}; {expected}")


def _greedy(moves: np.ndarray, counts: np.ndarray, leading: np.ndarray, env: Any) -> np.ndarray:
    """:class:`big2.players.GreedyAgent` on legal-move rows: the weakest play, or the
    weakest of the longest when leading; PASS when there is no play."""
    sizes = np.where(moves >= 0, env.games.tables.size[np.maximum(moves, 0)], 0)
    first_play = np.where(sizes[:, 0] > 0, moves[:, 0], -1)
    longest = sizes.max(axis=1, keepdims=True)
    first_longest = moves[np.arange(len(moves)), (sizes == longest).argmax(axis=1)]
    chosen: np.ndarray = np.where(leading, first_longest, first_play)
    return chosen
