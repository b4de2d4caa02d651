"""``Big2VectorEnv``: N games of Big Two stepped in one call, for high-throughput training.

| | |
|---|---|
| Import | `from envs.vector import Big2VectorEnv` |
| Conventions | gymnasium `VectorEnv`: batched `reset`, `step`, `close`; autoreset `SAME_STEP` |
| Actions | `(N,)` integers of the codec (`catalog`: 17,859 under STANDARD; `hand`: 1,695) |
| Observations | `{"observation": (N, D) float32, "legal": (N, K) int32}` |

``Big2VectorEnv(num_envs, observer="simple", actions="catalog", rules="standard",
opponents=None, reward="score", seed=None, critic_observer=None, legal_features=None)``.
The games run in a compiled engine (:mod:`envs.engine`) that the tests check move by
move against :mod:`big2.game`.

**Who acts.** With ``opponents=None`` every seat belongs to the caller: each ``step``
advances every game by one decision of the seat whose turn it is, the observation is
that seat's view and ``info["seat"]`` (N,) says whose it is. With ``opponents`` (a list of
agent specs such as ``"random"``, ``"greedy"``, ``"heuristic"``, :class:`BatchPolicy`
objects, or lists of them: a pool, one member drawn for each opponent seat of each game,
``random`` while empty),
each game has one learner seat, rotating over the games of a slot (game j of a
slot: seat j mod 4), and three opponents drawn from the list for every game; the
opponents move inside ``step`` until it is the learner's turn again or the game ends,
and the learner receives every reward that lands meanwhile. ``random`` and ``greedy``
opponents run compiled; other specs are :class:`big2.players.Agent` objects asked one
game at a time (exact, slower); a :class:`BatchPolicy` answers for every game that
needs it in one call.

**Observations.** ``"observation"`` is the observer's vector of the acting (learner)
seat; ``"legal"`` holds each game's legal actions first, in the order of
:meth:`big2.game.Game.legal_moves`, padded with -1. Its width K is the largest legal
count in the batch (so it varies from step to step; no legal move is ever dropped).
:meth:`action_masks` gives the full-width ``(N, n_actions)`` bool masks on demand.
The declared ``observation_space`` gives ``"legal"`` its widest possible width (2,380),
since K varies, and leaves out ``"features"`` (its width is the feature function's); it
is built on first use, since its bounds take memory in proportion to N.
Two optional keys: ``"critic"`` (N, C), the ``critic_observer``'s vector of the same seat
(e.g. ``"oracle"``, which sees every hand: for centralised critics, never for the
actor), and ``"features"`` (N, K, F), ``legal_features(view, legal_moves)`` per legal
action (rows aligned with ``"legal"``; computed game by game in Python).

**Rewards and the end of a game.** ``reward`` (N,) is the acting (learner) seat's: zero
until its game ends (under ``"shaped"``, each of its plays also earns its size / 5 at
once), then its final reward (``"score"``, ``"score_normalized"``, ``"win"``
or ``"shaped"``, as in the AEC env). When the game in slot i ends, ``terminated[i]`` is
True and ``info["final_rewards"][i]`` (N, 4) holds every seat's final reward by absolute
seat (zeros for slots whose game goes on); ``info["winner"]`` (N,) is the winning seat
(-1 where no game ended). Autoreset is ``SAME_STEP``: the returned observation of a
finished slot is already the first decision of its next game (a finished game has
nothing left to decide, so no final observation is returned).

**Seeding.** ``reset(seed=s)`` deals game i exactly as ``raw_env(...).reset(seed=s + i)``
does; each slot keeps its own ``random.Random(s + i)``, so its later deals are those of
that raw env's later ``reset()`` calls. Any integer seeds, numpy's and negative ones
included, as in ``raw_env`` (Python's ``random`` seeds ``-s`` as ``s``). Opponent draws and
the compiled random opponent use one generator seeded from ``(s, N)``. ``reset()``
without a seed continues them all.

**Bad input.** An action array of the wrong shape or dtype, or an out-of-range or
illegal action in any slot, raises :class:`ValueError` naming the slot, the action and
its legal count, and no game advances. An ``opponents`` value that is not a list of
agent specs, batch policies and pools (a bare string, ``None`` in the list) is refused
at construction.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

import observers
from big2.board import Board, seed_int
from big2.game import View
from big2.hand_ranking import PASS, HandRanking, catalog
from big2.rules import Rules
from big2.rules import get as get_rules
from envs import codecs
from envs.batch_observers import batch_encoder, view_of
from envs.big2_env import REWARDS, final_rewards
from envs.engine import MAX_COMBOS, Games, Tables
from envs.kernels.turns import fill_legal, find_actions, legal_ranges
from envs.opponents import Opponents
from observers.base import Observer


class BatchPolicy(Protocol):
    """An opponent that answers for many games at once: ``(observation dict) -> actions``.

    The dict holds what the env would return for those M games' acting seats
    (``"observation"`` (M, D), ``"legal"`` (M, K), and ``"features"`` when the env has
    ``legal_features``); the result is one action per row, an entry of its legal row.
    """

    def __call__(self, observations: dict[str, np.ndarray]) -> np.ndarray: ...


# per legal move of a seat's view, a row of features: (view, legal moves) -> (K, F)
LegalFeatures = Callable[[View, Sequence[HandRanking]], np.ndarray]


class Big2VectorEnv(gym.vector.VectorEnv):
    """N games of Big Two in one call; see the module docstring."""

    def __init__(
        self,
        num_envs: int,
        observer: Observer | str = "simple",
        actions: str = "catalog",
        rules: Rules | str = "standard",
        opponents: Sequence[str | BatchPolicy | list[BatchPolicy]] | None = None,
        reward: str = "score",
        seed: int | None = None,
        critic_observer: Observer | str | None = None,
        legal_features: LegalFeatures | None = None,
    ) -> None:
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        if reward not in REWARDS:
            raise ValueError(f"unknown reward {reward!r}; expected one of {REWARDS}")
        self.metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}
        self.num_envs, self.reward_mode = num_envs, reward
        self.rules = get_rules(rules)
        self.observer = self._observer(observer)
        self.codec = codecs.make(actions, self.rules)
        self.encode, self.vectorised = batch_encoder(self.observer)
        self.critic_observer: Observer | None = None
        self.encode_critic = None
        if critic_observer is not None:
            self.critic_observer = self._observer(critic_observer)
            self.encode_critic = batch_encoder(self.critic_observer)[0]
        self.legal_features = legal_features
        self.games = Games(num_envs, Tables.of(self.rules))
        self._hand_actions = _hand_action_table(self.codec)
        self.opponents = None if opponents is None else Opponents(self, opponents)
        self._declare_spaces()
        self._seed(seed)
        self._legal_moves = np.zeros((num_envs, 1), np.int32)
        self._legal_actions = np.full((num_envs, 1), -1, np.int32)
        self._counts = np.zeros(num_envs, np.int64)

    def _observer(self, observer: Observer | str) -> Observer:
        made = observers.make(observer, self.rules) if isinstance(observer, str) else observer
        if made.rules != self.rules:
            raise ValueError(f"observer was built for {made.rules.name}, not {self.rules.name}")
        return made

    def _declare_spaces(self) -> None:
        n, widest = self.codec.n, MAX_COMBOS + 1
        self.single_action_space = gym.spaces.Discrete(n)
        self.action_space = gym.spaces.MultiDiscrete(np.full(self.num_envs, n))
        spaces: dict[str, gym.Space[Any]] = {
            "observation": self.observer.space,
            "legal": gym.spaces.Box(-1, n - 1, (widest,), np.int32),  # K varies, at most this
        }
        if self.critic_observer is not None:
            spaces["critic"] = self.critic_observer.space
        self.single_observation_space = gym.spaces.Dict(spaces)
        self._batched_space: gym.spaces.Dict | None = None

    @property
    def observation_space(self) -> gym.spaces.Dict:  # type: ignore[override]
        """The batched space, built on first use: its bounds take memory in proportion to
        ``num_envs`` x the widths, which most users never ask for."""
        if self._batched_space is None:
            space = gym.vector.utils.batch_space(self.single_observation_space, self.num_envs)
            assert isinstance(space, gym.spaces.Dict)
            self._batched_space = space
        return self._batched_space

    def _seed(self, seed: int | None) -> None:
        base = random.randrange(2**32) if seed is None else seed_int(seed)
        self._deal_rngs = [random.Random(base + i) for i in range(self.num_envs)]
        # SeedSequence entropy must be non-negative; the sign is kept as a separate word
        self._np_rng = np.random.default_rng([abs(base), self.num_envs, *([1] * (base < 0))])
        self._games_played = np.zeros(self.num_envs, np.int64)

    # ------------------------------------------------------------------ API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Deal a new game in every slot (see Seeding in the module docstring)."""
        if seed is not None:
            self._seed(seed)  # also restarts each slot's learner rotation at seat 0
        self._restart(np.ones(self.num_envs, np.bool_))
        return self._observe(), {"seat": self.games.turn.copy()}

    def step(
        self, actions: np.ndarray
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play one action per game (the learner's, with opponents); see the module docstring."""
        moves = self._moves_of(actions)  # raises before anything changes
        games, slots = self.games, np.arange(self.num_envs)
        actors = games.turn.copy()  # the learners' seats, with opponents
        rewards = np.zeros(self.num_envs, np.float32)
        if self.reward_mode == "shaped":
            rewards += np.where(moves >= 0, games.tables.size[np.maximum(moves, 0)] / 5, 0)
        games.apply(slots, moves)
        if self.opponents is not None:
            self.opponents.advance()
        final, winner = self._finish()
        rewards += final[slots, actors]
        ended = winner >= 0
        self._games_played += ended
        self._restart(ended)
        info = {"seat": games.turn.copy(), "final_rewards": final, "winner": winner}
        return self._observe(), rewards, ended, np.zeros(self.num_envs, np.bool_), info

    def action_masks(self) -> np.ndarray:
        """``(N, n_actions)`` bool: the legal actions of each game's acting seat."""
        out = np.zeros((self.num_envs, self.codec.n), np.bool_)
        rows, cols = np.nonzero(self._legal_actions >= 0)
        out[rows, self._legal_actions[rows, cols]] = True
        return out

    def close(self, **kwargs: Any) -> None:
        """Nothing to release (no processes or files)."""

    # ------------------------------------------------------------------ internals

    def _moves_of(self, actions: Any) -> np.ndarray:
        """The catalog move of each slot's action, after checking all of them."""
        arr = np.asarray(actions)
        if arr.shape != (self.num_envs,) or not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(
                f"actions must be an integer array of shape ({self.num_envs},), got "
                f"{arr.dtype} {arr.shape}"
            )
        positions = np.empty(self.num_envs, np.int64)
        bad = find_actions(arr.astype(np.int64), self._legal_actions, self._counts, positions)
        if bad >= 0:
            n, action = int(self._counts[bad]), int(arr[bad])
            why = "out of range" if not 0 <= action < self.codec.n else "not legal"
            raise ValueError(
                f"slot {bad}: action {action} is {why} (actions 0..{self.codec.n - 1}); "
                f"{n} legal actions there: {self._legal_actions[bad, : min(n, 20)].tolist()}; "
                f"no game was advanced"
            )
        return self._legal_moves[np.arange(self.num_envs), positions].astype(np.int64)

    def _deal(self, slot: int) -> None:
        board = Board(self.rules, seed=self._deal_rngs[slot])
        self.games.deal(slot, board.hands)

    def _finish(self) -> tuple[np.ndarray, np.ndarray]:
        """Every seat's final reward (N, 4) and the winner (N,) of the games that ended."""
        winner = self.games.winner.copy()
        final = np.zeros((self.num_envs, 4), np.float32)
        for slot in np.flatnonzero(winner >= 0).tolist():
            scores = self.games.scores(slot)
            final[slot] = final_rewards(scores, int(winner[slot]), self.rules, self.reward_mode)
        return final, winner

    def _restart(self, ended: np.ndarray) -> None:
        """Deal the next game in the slots of ``ended``; opponents move up to the learner."""
        slots = np.flatnonzero(ended)
        for slot in slots.tolist():
            self._deal(slot)
        if self.opponents is not None and len(slots):
            self.opponents.start(slots)
            self.opponents.advance()

    def _observe(self) -> dict[str, np.ndarray]:
        slots = np.arange(self.num_envs)
        self._legal_moves, self._legal_actions, self._counts = self.legal_of(slots)
        return self.observe(slots, self.games.turn, self._legal_moves, self._legal_actions)

    def observe(
        self, slots: np.ndarray, seats: np.ndarray, moves: np.ndarray, actions: np.ndarray
    ) -> dict[str, np.ndarray]:
        """The observation dict of ``seats`` in ``slots`` whose legal (moves, actions) are
        given (rows of :meth:`legal_of`)."""
        obs = np.zeros((len(slots), self.observer.size), np.float32)
        self.encode(self.games, slots, seats, obs)
        out = {"observation": obs, "legal": actions.copy()}
        if self.encode_critic is not None:
            assert self.critic_observer is not None
            critic = np.zeros((len(slots), self.critic_observer.size), np.float32)
            self.encode_critic(self.games, slots, seats, critic)
            out["critic"] = critic
        if self.legal_features is not None:
            out["features"] = self._features(slots, seats, moves)
        return out

    def _features(self, slots: np.ndarray, seats: np.ndarray, moves: np.ndarray) -> np.ndarray:
        """``legal_features`` of each row's legal moves, aligned with its legal row."""
        assert self.legal_features is not None
        cat = catalog(self.rules)
        rows = []
        for i, (slot, seat) in enumerate(zip(slots.tolist(), seats.tolist(), strict=True)):
            legal = tuple(cat[m] if m >= 0 else PASS for m in moves[i].tolist() if m >= -1)
            rows.append(self.legal_features(view_of(self.games, slot, seat), legal))
        width = rows[0].shape[1] if rows else 0
        out = np.zeros((len(slots), moves.shape[1], width), rows[0].dtype if rows else np.int8)
        for i, row in enumerate(rows):
            out[i, : len(row)] = row
        return out

    def legal_of(self, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(moves, actions, counts) of the acting seats of ``slots`` (rows padded with -1)."""
        g, t = self.games, self.games.tables
        n = len(slots)
        lo, hi = np.zeros(n, np.int64), np.zeros(n, np.int64)
        may_pass, counts = np.zeros(n, np.bool_), np.zeros(n, np.int64)
        legal_ranges(slots, g.arrays, t.arrays, lo, hi, may_pass, counts)
        width = max(1, int(counts.max()) if n else 1)
        moves, actions = np.empty((n, width), np.int32), np.empty((n, width), np.int32)
        fill_legal(slots, g.arrays, t.arrays, lo, hi, may_pass, self._hand_actions,
                   self.codec.n - 1, moves, actions)  # fmt: skip
        return moves, actions, counts


def _hand_action_table(codec: Any) -> np.ndarray:
    """For the hand codec: a 13-bit mask of hand positions -> action (-1: none); else empty."""
    if codec.name != "hand":
        return np.zeros(0, np.int32)
    out = np.full(1 << 13, -1, np.int32)
    for action, positions in enumerate(codecs.HAND_LAYOUT):
        out[sum(1 << p for p in positions)] = action
    return out
