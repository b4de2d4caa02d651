"""# One seat: `Big2SingleEnv`

| | |
|---|---|
| Import | `from envs.single import Big2SingleEnv`, or `gymnasium.make("envs:big2/Big2Single-v0")` |
| Conventions | a gymnasium `Env`: `reset(seed=...)`, `step(action)`; `action_masks()` for SB3 |
| Actions | `Discrete`: 17,859 (`catalog`; CHARLESWORTH: 21,076) or 1,695 (`hand`) |
| Observation | the observer's `Box(0, 1, (observer.size,), float32)` |
| Legal actions | `action_masks()` (int8, for SB3's `MaskablePPO`), or `info["action_mask"]` |

One learner against three opponents that move inside `step` (one or two under the
`two-player` and `three-player` rules): what SB3 and most single-agent code take. Each
game draws the learner's seat (0..3, or below the rules' `players`) and an opponent for
each of the other seats from `opponents`, every entry alike, from the env's
generator; the opponents then move until it is the learner's turn or the game is over.
The game is the PettingZoo env's (`envs.big2_env.raw_env`, docs/env.md): its
observers, action codecs, rewards and rules, all from the learner's seat.

## Arguments

`Big2SingleEnv(opponents=("random",), observer="simple", rules="standard",
actions="catalog", reward="score", illegal="raise", render_mode=None)`

- `opponents`: a list of agent specs (`"random"`, `"greedy"`, `"heuristic"`, `"trained"`,
  `"search"`, ...: docs/agents.md) or agents (anything with `act(view, legal_moves)`);
  each is loaded once, when the env is made, and agents with a `reset(seed)` method are
  reseeded from the env's generator at every game.
- `observer`, `rules`, `actions`, `reward`, `render_mode`: as the AEC env's (docs/env.md).
- `illegal`: what a legal-looking but masked action does. `"raise"`: `ValueError`
  naming the action, its meaning and the legal actions, and nothing changes. `"lose"`:
  the learner forfeits, as PettingZoo's `TerminateIllegalWrapper` makes it: the game
  ends unchanged (`terminated`), the learner's reward is the worst its `reward` gives
  (losing with all 13 cards: -39 under `score` and STANDARD, -1 under
  `score_normalized`, -1/3 under `win`, -1/2 of three players) and `info["illegal"]`
  says what was wrong. It is for code that steps unmasked actions, such as gymnasium's
  `check_env` (which samples `action_space.sample()`) or an algorithm without masks. An
  action outside the action space raises `ValueError` either way.

## Steps

`reset(seed=None, options=None)` seeds the env's generator (`seed`), which then draws
every game's seat, opponents and deal, so one seed gives the same sequence of games.
`options={"fixed": {seat: cards}}` deals those cards, as in the AEC env. `step(action)`
plays the learner's move, then the opponents' until the learner is to act again or the
game is over, and returns the learner's observation, the rewards that landed on the
learner meanwhile (zero until the game ends, except for `shaped`), `terminated` at the
end of the game, never `truncated`. `info["seat"]` is the learner's seat,
`info["action_mask"]` its legal actions (gymnasium's `action_space.sample(mask)` takes
it); at the end of a game `info["winner"]` is the winning seat and `info["scores"]`
every seat's score. `env.game` is the game being played.

>>> import gymnasium, envs
>>> env = gymnasium.make("envs:big2/Big2Single-v0", opponents=["heuristic", "random"])
>>> obs, info = env.reset(seed=0)
>>> _ = env.action_space.seed(0)  # its own generator, for sample()
>>> obs.shape, info["seat"]
((161,), 3)
>>> terminated = False
>>> while not terminated:
...     action = env.action_space.sample(info["action_mask"])
...     obs, reward, terminated, truncated, info = env.step(action)
>>> info["winner"], info["scores"], reward
(2, (-2, -1, 7, -4), -4.0)

## With SB3

`sb3_contrib.MaskablePPO("MlpPolicy", env)` finds `action_masks()` by itself, through
gymnasium's wrappers and SB3's vector envs. SB3 computes a softmax over every action at
every step: `actions="hand"` (1,695) is 10.5 times narrower than `catalog`. SB3's
`make_vec_env` asks for `render_mode="rgb_array"` unless told otherwise: give it
`env_kwargs={..., "render_mode": None}`. `examples/sb3_maskable_ppo.py` trains against
three random players and beats them: a win share of 0.689 on 200 duplicate deals (parity
0.25) after 100,000 decisions, in about 3 minutes (docs/results.md).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from big2 import rules as R
from big2.game import Game
from big2.players import Agent, load_agent
from envs.big2_env import raw_env
from envs.rewards import final_rewards
from observers.base import Observer

ILLEGAL = ("raise", "lose")  # what a masked action does (see the module docstring)


class Big2SingleEnv(gymnasium.Env[np.ndarray, np.int64]):
    """One learner seat against opponents moving inside ``step`` (see the module)."""

    # gymnasium.Env declares it an instance variable, and make() reads it on the class
    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"]}  # noqa: RUF012

    def __init__(
        self,
        opponents: Sequence[str | Agent] = ("random",),
        observer: Observer | str = "simple",
        rules: R.Rules | str = "standard",
        actions: str = "catalog",
        reward: str = "score",
        illegal: str = "raise",
        render_mode: str | None = None,
    ) -> None:
        if illegal not in ILLEGAL:
            raise ValueError(f"unknown illegal {illegal!r}; expected one of {ILLEGAL}")
        self.aec = raw_env(rules, observer, actions, reward, render_mode)
        self.opponents = load_opponents(opponents, self.aec.rules)
        self.illegal, self.render_mode = illegal, render_mode
        self.observation_space = self.aec.observer.space
        self.action_space = spaces.Discrete(self.aec.codec.n)
        self.seat = 0  # the learner's seat in this game
        self.seated: list[Agent | None] = [None] * self.aec.rules.players  # each seat's opponent
        self._mask: np.ndarray | None = None  # the learner's legal actions; None: no game
        self._over = True  # the game is over (or forfeited), or there is none yet

    @property
    def game(self) -> Game:
        """The game being played."""
        return self.aec.game

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Draw the learner's seat, the opponents and the deal of a new game (see module)."""
        previous = copy.deepcopy(self._np_random), self._np_random_seed
        super().reset(seed=seed)
        rng, players = self.np_random, self.aec.rules.players
        seat, kinds = int(rng.integers(players)), rng.integers(len(self.opponents), size=players)
        reseeds, deal = rng.integers(2**63, size=players), int(rng.integers(2**63))
        try:
            self.aec.reset(seed=deal, options=options)
        except ValueError:  # a bad fixed deal: the generator as it was
            self._np_random, self._np_random_seed = previous
            raise
        self.seat, self.seated = seat, [self.opponents[k] for k in kinds.tolist()]
        self.seated[seat] = None
        for agent, reseed in zip(self.seated, reseeds.tolist(), strict=True):
            reset = getattr(agent, "reset", None)
            if callable(reset):
                reset(reseed)
        reward = self._opponents_move()
        assert reward == 0.0 and not self.game.is_over  # the learner always gets a turn
        return self._observe()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's ``action``, then the opponents' moves (see the module)."""
        if self._over or self._mask is None:
            raise ValueError("no game to play: call reset() first (the last one is over)")
        if not self.action_space.contains(action):
            raise ValueError(
                f"action {action!r} is not in the action space {self.action_space} "
                f"(an integer in 0..{self.aec.codec.n - 1})"
            )
        if self.illegal == "lose" and not self._mask[action]:
            return self._forfeit(int(action))
        learner = self.aec.agent_selection
        self.aec.step(int(action))  # ValueError if illegal, nothing changed
        reward = self.aec.rewards[learner] + self._opponents_move()
        obs, info = self._observe()
        return obs, reward, self.game.is_over, False, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (int8, 1: legal); all zeros when the game is over."""
        if self._mask is None:
            raise ValueError("no game yet: call reset() first")
        return self._mask.copy()

    def render(self) -> str | None:
        """The table as text (``render_mode="ansi"``), printed (``"human"``), or None."""
        return self.aec.render()

    def _opponents_move(self) -> float:
        """Let the opponents move until the learner is to act or the game is over; the
        learner's rewards meanwhile."""
        game, learner, reward = self.game, self.aec.possible_agents[self.seat], 0.0
        while not game.is_over and game.turn != self.seat:
            agent, legal = self.seated[game.turn], game.legal_moves()
            assert agent is not None
            move = agent.act(game.view(game.turn), legal)
            if move not in legal:
                raise ValueError(f"opponent {agent!r} in seat {game.turn} chose {move}, not legal")
            self.aec.step(self.aec.codec.encode(move, game.hand(game.turn)))
            reward += self.aec.rewards[learner]
        return reward

    def _observe(self) -> tuple[np.ndarray, dict[str, Any]]:
        """The learner's observation and info; keeps its mask for :meth:`action_masks`."""
        seen = self.aec.observe(self.aec.possible_agents[self.seat])
        self._mask, self._over = seen["action_mask"], self.game.is_over
        info: dict[str, Any] = {"seat": self.seat, "action_mask": self._mask.copy()}
        if self._over:
            info["winner"], info["scores"] = self.game.winner, self.game.scores()
        return seen["observation"], info

    def _forfeit(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """``illegal="lose"``: the game ends as it is, the learner's reward the worst."""
        rules = self.aec.rules
        worst = tuple(-rules.max_penalty if s == self.seat else 0 for s in range(rules.players))
        reward = final_rewards(worst, None, rules, self.aec.reward_mode)[self.seat]
        obs, info = self._observe()
        meaning = self.aec.codec.decode(action, self.game.hand(self.seat))
        info["illegal"] = f"action {action} ({meaning}) is not legal: the learner forfeits"
        self._mask, self._over = np.zeros_like(self._mask), True
        info["action_mask"] = self._mask.copy()
        return obs, reward, True, False, info


def load_opponents(opponents: Any, rules: R.Rules) -> list[Agent]:
    """The agents that ``opponents`` names: agent specs are loaded for ``rules``, agents
    kept; a clear ValueError for anything else.

    >>> load_opponents(["random", "heuristic"], R.STANDARD)
    [RandomAgent(), HeuristicAgent()]
    >>> load_opponents("random", R.STANDARD)
    Traceback (most recent call last):
    ...
    ValueError: opponents must be a list of agent specs or agents, got 'random' (['random']?)
    """
    if isinstance(opponents, str):
        raise ValueError(
            f"opponents must be a list of agent specs or agents, got {opponents!r} "
            f"([{opponents!r}]?)"
        )
    if not isinstance(opponents, Sequence) or not opponents:
        raise ValueError(
            f"opponents must be a non-empty list of agent specs (such as ['random', "
            f"'heuristic']) or agents with act(view, legal_moves), got {opponents!r}"
        )
    agents = []
    for i, entry in enumerate(opponents):
        if isinstance(entry, str):
            agents.append(load_agent(entry, rules))
        elif isinstance(entry, Agent):
            agents.append(entry)
        else:
            raise ValueError(
                f"opponents[{i}] is {entry!r}; expected an agent spec (such as 'random') "
                f"or an agent with act(view, legal_moves)"
            )
    return agents
