"""A single-agent gymnasium view of the Big Two AEC env, and the opponents in it.

The learner holds one seat; the other three are opponents drawn for every game from
an :class:`OpponentPool` (baseline agents and frozen snapshots of the learner). After
the learner's move the opponents play until it is the learner's turn again or the game
ends, and the learner receives every reward that landed meanwhile (including the final
score when an opponent goes out). The learner's seat rotates over games. This is the
layout the project's Tianshou notes found to work for both PPO and DQN.

>>> env = Big2SingleAgentEnv(OpponentPool(["random"]), seed=0)
>>> obs, info = env.reset()
>>> sorted(obs), obs["mask"].dtype, info["seat"]
(['mask', 'obs'], dtype('int8'), 0)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

import observers
from big2.agents import AGENTS, Agent, make_agent
from big2.game import View
from big2.hand_ranking import HandRanking
from big2.rules import Rules
from big2.rules import get as get_rules
from envs.big2_env import raw_env
from envs.policy_agent import ActionFeatures
from observers.base import Observer
from training.features import PLAN_FEATURES, plan_features

Logits = Callable[..., np.ndarray]  # (observation, mask[, plan features]) -> logits


class SnapshotAgent:
    """A frozen copy of the learner: samples from its masked policy with its own RNG."""

    def __init__(
        self,
        logits: Logits,
        observer: Observer,
        codec: Any,
        rng: random.Random,
        features: ActionFeatures | None = None,
    ) -> None:
        self.logits, self.observer, self.codec, self.rng = logits, observer, codec, rng
        self.features = features
        self.name = "self"

    def act(self, view: View, legal_moves: Sequence[HandRanking]) -> HandRanking:
        mask = self.codec.mask(legal_moves, view.hand)
        extra = () if self.features is None else (self.features(view, legal_moves, self.codec),)
        logits = self.logits(self.observer.observe(view), mask, *extra)
        legal = mask.view(np.bool_).nonzero()[0]
        weights = np.exp(logits[legal] - logits[legal].max())
        action = self.rng.choices(legal.tolist(), weights=weights.tolist())[0]
        return self.codec.decode(int(action), view.hand)  # type: ignore[no-any-return]


class OpponentPool:
    """What the opponents are: for each opponent seat of each game, one entry of ``mix``.

    ``mix`` names baseline agents (``random``, ``greedy``, ``heuristic``) and ``self``
    (a frozen snapshot of the learner, drawn uniformly from the last ``max_snapshots``;
    ``random`` until the first snapshot exists).
    """

    def __init__(self, mix: Sequence[str], max_snapshots: int = 5) -> None:
        unknown = [m for m in mix if m != "self" and m not in AGENTS]
        if not mix or unknown:
            choices = [*sorted(AGENTS), "self"]
            raise ValueError(f"unknown opponents {unknown or mix}; expected some of {choices}")
        self.mix = list(mix)
        self.max_snapshots = max_snapshots
        self.snapshots: list[Logits] = []
        # "self" plays as "random" until the first snapshot exists
        names = {"random" if name == "self" else name for name in mix}
        self._baselines = {name: make_agent(name) for name in names}

    def add_snapshot(self, logits: Logits) -> None:
        """Add a frozen policy (observation, mask) -> logits; the oldest drops out."""
        self.snapshots = [*self.snapshots, logits][-self.max_snapshots :]

    def draw(
        self,
        rng: random.Random,
        observer: Observer,
        codec: Any,
        features: ActionFeatures | None = None,
    ) -> list[Agent]:
        """Three opponents for one game (snapshots get ``features`` like the learner)."""
        out: list[Agent] = []
        for _ in range(3):
            name = rng.choice(self.mix)
            if name == "self" and self.snapshots:
                logits = rng.choice(self.snapshots)
                out.append(SnapshotAgent(logits, observer, codec, rng, features))
            else:
                agent = self._baselines["random" if name == "self" else name]
                reset = getattr(agent, "reset", None)
                if callable(reset):
                    reset(rng.getrandbits(64))
                out.append(agent)
        return out


class Big2SingleAgentEnv(gym.Env[Any, Any]):
    """The learner's view of Big Two: observation ``{"obs", "mask"}``, Discrete actions.

    Optional keys: ``"critic"`` (``critic_observer``'s view, for a centralised critic)
    and ``"plan"`` (with ``plan=True``: :func:`training.features.plan_features`, catalog
    codec only).
    """

    metadata = {"render_modes": []}  # noqa: RUF012 - gymnasium's convention

    def __init__(
        self,
        pool: OpponentPool,
        rules: Rules | str = "standard",
        observer: str = "simple",
        actions: str = "catalog",
        reward: str = "score_normalized",
        seed: int | None = None,
        critic_observer: str | None = None,
        plan: bool = False,
    ) -> None:
        self.raw = raw_env(
            rules=get_rules(rules), observer=observer, actions=actions, reward=reward
        )
        self.pool = pool
        n = self.raw.codec.n
        # an optional second observation for a centralised critic (e.g. "oracle": it sees
        # every hand); the actor never reads it, so the policy stays a fair player
        self.critic_observer = observers.make(critic_observer, rules) if critic_observer else None
        spaces = {"obs": self.raw.observer.space, "mask": gym.spaces.MultiBinary(n)}
        if self.critic_observer is not None:
            spaces["critic"] = self.critic_observer.space
        if plan and actions != "catalog":
            raise ValueError(f"plan features need the catalog codec, not {actions!r}")
        self.features = plan_features if plan else None
        if plan:
            spaces["plan"] = gym.spaces.Box(-128, 127, (PLAN_FEATURES, n), np.int8)
        self.observation_space = gym.spaces.Dict(spaces)
        self.action_space = gym.spaces.Discrete(n)
        self._rng = random.Random(seed)
        self._games = 0
        self.seat = 0
        self._opponents: list[Agent] = []

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:  # a seeded reset starts over: same seat, same deal
            self._rng = random.Random(seed)
            self._games = 0
        self.seat = self._games % 4
        self._games += 1
        self._opponents = self.pool.draw(
            self._rng, self.raw.observer, self.raw.codec, self.features
        )
        self.raw.reset(seed=self._rng.getrandbits(64))
        self._advance()
        return self._observation(), {"seat": self.seat}

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        agent = self.raw.possible_agents[self.seat]
        self.raw.step(int(action))
        reward = self.raw.rewards[agent] + self._advance()
        game = self.raw.game
        info: dict[str, Any] = {"seat": self.seat}
        if game.is_over:
            info["won"] = game.winner == self.seat
        return self._observation(), float(reward), game.is_over, False, info

    def _advance(self) -> float:
        """Opponents play until the learner's turn or the end; the learner's rewards meanwhile."""
        raw, game = self.raw, self.raw.game
        agent = raw.possible_agents[self.seat]
        total = 0.0
        while not game.is_over and game.turn != self.seat:
            seat = game.turn
            opponent = self._opponents[(seat - self.seat) % 4 - 1]
            move = opponent.act(game.view(seat), game.legal_moves())
            raw.step(raw.codec.encode(move, game.hand(seat)))
            total += raw.rewards[agent]
        return total

    def _observation(self) -> dict[str, np.ndarray]:
        obs = self.raw.observe(self.raw.possible_agents[self.seat])
        out = {"obs": obs["observation"], "mask": obs["action_mask"]}
        game = self.raw.game
        if self.critic_observer is not None:
            out["critic"] = self.critic_observer.observe(game.view(self.seat), game)
        if self.features is not None:
            legal = () if game.is_over else game.legal_moves()
            out["plan"] = self.features(game.view(self.seat), legal, self.raw.codec)
        return out
