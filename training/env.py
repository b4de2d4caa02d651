"""A single-agent gymnasium view of Big Two, and the opponents in it.

The learner holds one seat; the other three are opponents drawn for every game from
an :class:`OpponentPool` (agents named by spec, and frozen snapshots of the learner).
After the learner's move the opponents play (:func:`big2.players.play`) until it is the
learner's turn again or the game ends, and the learner receives every reward that
landed meanwhile (including the final score when an opponent goes out). The learner's
seat rotates over games. This is the layout that works for both PPO and DQN in
Tianshou (its multi-agent dispatcher drops rewards that land on other seats' moves).

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
from big2.game import Game
from big2.players import Agent, load_agent, play
from big2.players.specs import BASELINES
from big2.rules import STANDARD, Rules
from big2.rules import get as get_rules
from envs import codecs
from envs.big2_env import REWARDS, final_rewards, move_reward
from envs.codecs import ActionCodec
from envs.policy_agent import ActionFeatures, PolicyAgent
from observers.base import Observer
from training.features import PLAN_FEATURES, plan_features

Logits = Callable[..., np.ndarray]  # (observation, mask[, plan features]) -> logits


class OpponentPool:
    """What the opponents are: for each opponent seat of each game, one entry of ``mix``.

    ``mix`` holds agent specs (``random``, ``greedy``, ``heuristic``, a checkpoint: see
    :mod:`big2.players.specs`) and ``self`` (a frozen snapshot of the learner, drawn
    uniformly from the last ``max_snapshots``, sampling from its policy; ``random`` until
    the first snapshot exists). Agents are reseeded from the env's RNG every game.
    """

    def __init__(
        self, mix: Sequence[str], max_snapshots: int = 5, rules: Rules | str = STANDARD
    ) -> None:
        if not mix:
            raise ValueError(f"no opponents; expected some of {[*BASELINES, 'self']}")
        self.mix = list(mix)
        self.max_snapshots = max_snapshots
        self.snapshots: list[Logits] = []
        # "self" plays as "random" until the first snapshot exists
        names = {"random" if name == "self" else name for name in mix}
        self._agents = {name: _opponent(name, get_rules(rules)) for name in sorted(names)}

    def add_snapshot(self, logits: Logits) -> None:
        """Add a frozen policy (observation, mask) -> logits; the oldest drops out."""
        self.snapshots = [*self.snapshots, logits][-self.max_snapshots :]

    def draw(
        self,
        rng: random.Random,
        observer: Observer,
        codec: ActionCodec,
        features: ActionFeatures | None = None,
    ) -> list[Agent]:
        """Three opponents for one game (snapshots get ``features`` like the learner)."""
        out: list[Agent] = []
        for _ in range(3):
            name = rng.choice(self.mix)
            if name == "self" and self.snapshots:
                logits = rng.choice(self.snapshots)
                snapshot = PolicyAgent(logits, observer, codec, name="self", features=features,
                                       sample=True, seed=rng)  # fmt: skip
                out.append(snapshot)
            else:
                agent = self._agents["random" if name == "self" else name]
                reset = getattr(agent, "reset", None)
                if callable(reset):
                    reset(rng.getrandbits(64))
                out.append(agent)
        return out


def _opponent(spec: str, rules: Rules) -> Agent:
    try:
        return load_agent(spec, rules)
    except ValueError as e:
        raise ValueError(
            f"unknown opponents [{spec!r}] ({e}); expected some of {[*BASELINES, 'self']} "
            f"or an agent spec"
        ) from None


class Big2SingleAgentEnv(gym.Env[Any, Any]):
    """The learner's view of Big Two: observation ``{"obs", "mask"}``, Discrete actions.

    Optional keys: ``"critic"`` (``critic_observer``'s view, for a centralised critic)
    and ``"plan"`` (with ``plan=True``: :func:`training.features.plan_features`, catalog
    codec only). ``game`` is the game being played.
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
        self.rules = get_rules(rules)
        self.observer = observers.make(observer, self.rules)
        if self.observer.perfect_information:
            raise ValueError(f"observer {observer!r} sees every hand; the learner plays a seat")
        self.codec = codecs.make(actions, self.rules)
        if reward not in REWARDS:
            raise ValueError(f"unknown reward {reward!r}; expected one of {REWARDS}")
        self.pool, self.reward = pool, reward
        n = self.codec.n
        # an optional second observation for a centralised critic (e.g. "oracle": it sees
        # every hand); the actor never reads it, so the policy stays a fair player
        self.critic_observer = (
            observers.make(critic_observer, self.rules) if critic_observer else None
        )
        spaces = {"obs": self.observer.space, "mask": gym.spaces.MultiBinary(n)}
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
        self._seats: list[Agent] = []
        self.game = Game(self.rules, seed=0)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:  # a seeded reset starts over: same seat, same deal
            self._rng = random.Random(seed)
            self._games = 0
        self.seat = self._games % 4
        self._games += 1
        opponents = iter(self.pool.draw(self._rng, self.observer, self.codec, self.features))
        self._seats = [_LEARNER if s == self.seat else next(opponents) for s in range(4)]
        self.game = Game(self.rules, seed=random.Random(self._rng.getrandbits(64)))
        self._advance()
        return self._observation(), {"seat": self.seat}

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        game = self.game
        if game.is_over:
            raise ValueError("the game is over; call reset() first")
        move = codecs.decode_legal(self.codec, action, game, f"seat {self.seat}")
        game.play(move)
        reward = move_reward(move, self.reward) + self._advance()
        info: dict[str, Any] = {"seat": self.seat}
        if game.is_over:
            info["won"] = game.winner == self.seat
        return self._observation(), float(reward), game.is_over, False, info

    def _advance(self) -> float:
        """Opponents play until the learner's turn or the end; the learner's final reward."""
        play(self.game, self._seats, until=lambda game: game.turn == self.seat)
        if not self.game.is_over:
            return 0.0
        return final_rewards(self.game, self.reward)[self.seat]

    def _observation(self) -> dict[str, np.ndarray]:
        game, seat = self.game, self.seat
        view = game.view(seat)
        legal = () if game.is_over or game.turn != seat else game.legal_moves()
        mask = self.codec.mask(legal, view.hand) if legal else np.zeros(self.codec.n, np.int8)
        out = {"obs": self.observer.observe(view), "mask": mask}
        if self.critic_observer is not None:
            out["critic"] = self.critic_observer.observe(view, game)
        if self.features is not None:
            out["plan"] = self.features(view, legal, self.codec)
        return out


class _Learner:
    """The learner's seat in :func:`big2.players.play`: never asked (play stops first)."""

    def act(self, view: Any, legal_moves: Any) -> Any:
        raise AssertionError("the learner moves through step(), not through play()")


_LEARNER = _Learner()
