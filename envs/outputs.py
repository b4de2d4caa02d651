"""What :class:`envs.vector.Big2VectorEnv` returns, in arrays allocated once and written in place.

The observations, legal rows, rewards, terminations and the finished games' records
live in buffers made when the env is, and every step writes into them.
Only what changed is written: the rows that held a decision last step are cleared (zero
observations, :data:`~envs.decisions.PAD` legal entries), the rows deciding now are
written, so a step costs the rows it touches, not the whole batch. Between steps every
row that holds no decision is zero (observations) or PAD (legal rows), and
``legal[:, :width]`` is the returned legal array.

>>> out = Outputs(num_envs=8, observation=3, critic=None)
>>> out.put_legal(np.array([1, 6]), np.array([[4, 9], [2, PAD]], np.int32))
>>> out.legal_view().tolist()[:2], out.legal_view()[6].tolist()
([[-1, -1], [4, 9]], [2, -1])
>>> out.clear()
>>> bool((out.legal_view() == PAD).all())
True
"""

from __future__ import annotations

import numpy as np

from envs.decisions import PAD
from envs.kernels.rows import copy_rows, fill_rows

FIRST_WIDTH = 64  # legal columns made at first; doubled when a step needs more


class Outputs:
    """The env's returned arrays for ``num_envs`` agents (see the module docstring).

    Args:
        num_envs: the number of agents (rows).
        observation: the observer's width.
        critic: the critic's width, or None without a critic.
        players: the seats of a game (its agents when every seat plays; the width of
            ``final_rewards``).
    """

    def __init__(
        self, num_envs: int, observation: int, critic: int | None, players: int = 4
    ) -> None:
        n, self.players = num_envs, players
        self.observation = np.zeros((n, observation), np.float32)
        self.critic = None if critic is None else np.zeros((n, critic), np.float32)
        self.legal = np.full((n, FIRST_WIDTH), PAD, np.int32)
        self.features: np.ndarray | None = None  # (n, legal width, F), made at first use
        self.width = 1  # legal columns in use
        self.rows = np.zeros(0, np.int64)  # the rows written since the last clear
        self.acting = np.zeros(n, np.bool_)
        self.seat = np.zeros(n, np.int64)
        self.table = np.full(n, -1, np.int64)  # what sits at each agent's table (tables)
        self.member = np.full(n, -1, np.int64)
        self.rewards = np.zeros(n, np.float32)
        self.terminated = np.zeros(n, np.bool_)
        self.truncated = np.zeros(n, np.bool_)  # Big Two has no time limit: never set
        self.everyone = np.ones(n, np.bool_)  # the masks of info keys every agent has
        self.everyone.flags.writeable = False
        self.finals = Finals(n, observation, critic, players)

    def clear(self) -> None:
        """Clear the rows written since the last clear (observations, legal rows, features,
        ``acting``): every row then holds no decision."""
        rows = self.rows
        fill_rows(self.observation, rows, self.observation.shape[1], 0.0)
        if self.critic is not None:
            fill_rows(self.critic, rows, self.critic.shape[1], 0.0)
        fill_rows(self.legal, rows, self.width, PAD)
        if self.features is not None:
            self.features[rows, : self.width] = 0
        self.acting[rows] = False
        self.rows, self.width = np.zeros(0, np.int64), 1

    def written(self, rows: np.ndarray) -> None:
        """Note ``rows`` as written (observations encoded there by the caller)."""
        self.rows = rows if not len(self.rows) else np.concatenate([self.rows, rows])

    def put_legal(self, rows: np.ndarray, legal: np.ndarray) -> None:
        """Write the legal rows ``legal`` (padded with PAD) at ``rows``."""
        width = legal.shape[1]
        self._fit(width)
        copy_rows(legal, self.legal, rows)
        self.width = max(self.width, width)
        self.written(rows)

    def put_features(self, rows: np.ndarray, features: np.ndarray) -> None:
        """Write per-legal-action features (rows aligned with :meth:`put_legal`'s)."""
        width, size = features.shape[1:]
        if self.features is None or self.features.shape[2] != size:
            self.features = np.zeros((*self.legal.shape, size), features.dtype)
        self._fit(width)
        self.features[rows, :width] = features

    def put_tables(self, table: np.ndarray, member: np.ndarray) -> None:
        """Write each game's table draw and pool member (one per game) at its agents."""
        self.table.reshape(-1, self.players)[:] = table[:, None]
        self.member.reshape(-1, self.players)[:] = member[:, None]

    def legal_view(self) -> np.ndarray:
        """The legal rows in use: (num_envs, width)."""
        return self.legal[:, : self.width]

    def features_view(self) -> np.ndarray:
        """The features in use: (num_envs, width, F)."""
        assert self.features is not None
        return self.features[:, : self.width]

    def _fit(self, width: int) -> None:
        """Make room for ``width`` legal columns (doubling: rare, and then never again)."""
        have = self.legal.shape[1]
        if width <= have:
            return
        wider = max(width, 2 * have)
        legal = np.full((len(self.legal), wider), PAD, np.int32)
        legal[:, :have] = self.legal
        self.legal = legal
        if self.features is not None:
            size, kind = self.features.shape[2], self.features.dtype
            features = np.zeros((len(self.legal), wider, size), kind)
            features[:, :have] = self.features
            self.features = features


class Finals:
    """The finished games' records of one step (``final_obs``, ``final_info`` and the
    NEXT_STEP keys), written in place like :class:`Outputs`.

    A finished agent's entry of ``final_obs`` (``obs``) is a dict made once per agent,
    when it first ends, whose arrays are its rows of ``observation`` (and ``critic``);
    everyone else's is None.
    """

    def __init__(
        self, num_envs: int, observation: int, critic: int | None, players: int = 4
    ) -> None:
        n = num_envs
        self.observation = np.zeros((n, observation), np.float32)
        self.critic = None if critic is None else np.zeros((n, critic), np.float32)
        self.mask = np.zeros(n, np.bool_)
        self.winner = np.full(n, -1, np.int64)
        self.seat = np.full(n, -1, np.int64)
        self.table = np.full(n, -1, np.int64)
        self.member = np.full(n, -1, np.int64)
        self.rewards = np.zeros((n, players), np.float32)  # every seat's, by absolute seat
        self.obs = np.full(n, None, dtype=object)
        self._dicts = np.full(n, None, dtype=object)  # made for each agent as it first ends
        self.agents = np.zeros(0, np.int64)  # the agents written since the last clear

    def clear(self) -> None:
        """Forget the last step's finished agents."""
        agents = self.agents
        self.mask[agents] = False
        self.winner[agents] = -1
        self.seat[agents] = -1
        self.table[agents] = -1
        self.member[agents] = -1
        self.rewards[agents] = 0
        self.obs[agents] = None
        self.observation[agents] = 0
        if self.critic is not None:
            self.critic[agents] = 0
        self.agents = np.zeros(0, np.int64)

    def put(
        self, agents: np.ndarray, winner: np.ndarray, seat: np.ndarray, rewards: np.ndarray
    ) -> None:
        """Record the finished ``agents``: their games' winners, their seats and every
        seat's final reward (their observations are encoded into ``observation`` by the
        caller)."""
        self.agents = agents
        self.mask[agents] = True
        self.winner[agents] = winner
        self.seat[agents] = seat
        self.rewards[agents] = rewards

    def put_table(self, agents: np.ndarray, table: np.ndarray, member: np.ndarray) -> None:
        """Record what sat at the finished ``agents``' tables (after :meth:`put`)."""
        self.table[agents] = table
        self.member[agents] = member

    def with_observations(self) -> None:
        """Point the finished agents' ``final_obs`` entries at their observations."""
        agents = self.agents
        missing = self._dicts[agents] == None  # noqa: E711 (element-wise, on objects)
        for agent in agents[missing].tolist():
            views = {"observation": self.observation[agent]}
            if self.critic is not None:
                views["critic"] = self.critic[agent]
            self._dicts[agent] = views
        self.obs[agents] = self._dicts[agents]
