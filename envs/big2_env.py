"""# Big Two

| | |
|---|---|
| Import | `from envs.big2_env import env` or `pettingzoo.make("aec", "big2/BigTwo-v0")` after `import envs` |
| Actions | Discrete: 17,859 (`catalog`, STANDARD), 21,076 (`catalog`, CHARLESWORTH), 1,695 (`hand`) |
| Agents | `agents = ['player_0', 'player_1', 'player_2', 'player_3']` (player_i sits in seat i; `rules.players` agents) |
| Action shape | (1,) |
| Observation shape | `Dict(observation=Box(0, 1, (observer.size,), float32), action_mask=Box(0, 1, (n_actions,), int8))` |

Big Two (Cho Dai Di) for four players (or two or three): shed all your cards first by
playing stronger combinations than the table. The rules are a `big2.rules.Rules` value
(`"standard"` by default, `"charlesworth"`, the rules of the 2018 Big Two PPO paper, or
any preset: docs/rules.md); the env has one agent per seat of the rules' `players`
(`three-player`: `player_0` .. `player_2`).

## Arguments

`env(rules="standard", observer="simple", actions="catalog", reward="score", render_mode=None)`

- `rules`: a preset name or a `Rules` value.
- `observer`: a registered observer name (`simple`, `card_counting`, `history`, `planes`,
  `charlesworth`, `oracle`) or an `observers.Observer` instance built for the same rules.
  Their pieces size with the player count (docs/observers.md); `charlesworth` is the 2018
  code's, for four players only.
- `actions`: `"catalog"` or `"hand"` (see Actions; `hand` numbers a 13-card hand, so four
  players only).
- `reward`: `"score"` (the game's zero-sum score at the end), `"score_normalized"` (the
  score divided by the largest possible penalty, 39 under STANDARD, 13 under
  CHARLESWORTH), `"win"` (+1 for going out first, -1/3 for each other seat of four,
  -1/2 of three, -1 of two: zero-sum, and blind to how many cards the losers hold) or `"shaped"` (cards discarded / 5 on every play,
  plus the score at the end; not zero-sum).
- `render_mode`: `None`, `"ansi"` (render() returns the text) or `"human"` (prints it).

## Observation

A dict: `observation` is the observer's float32 vector of the acting agent's view
(seat-relative: me, next, across, previous; of three players me, next, previous),
`action_mask` marks legal actions (all zeros
for agents that are not to act and after the game ends). The default observer, `simple`:

SIMPLE_LAYOUT

Every observer's layout comes from `observers.make(name).layout()`.

## Actions

`catalog`: action i plays `big2.hand_ranking.catalog(rules)[i]` (a fixed meaning whatever
the hand, ordered by size then strength); the last action passes. `hand`: the hand-relative
layout of henrycharlesworth/big2_PPOalgorithm (positions in the sorted hand), the last
action passes; its masks mark this engine's legal moves, which differ from the 2018 code's
own masks in about 0.1% of decisions under CHARLESWORTH (that code never offers the ♦♣♠
triple of a rank held four times, nor full houses on it, nor a higher straight flush on
a lower one; see docs/rules.md). Through `raw_env`, an illegal or out-of-range action raises `ValueError`
naming it, its meaning and the number of legal actions, and the env is unchanged; through
`env()`, PettingZoo's conventions apply: an out-of-range action fails
`AssertOutOfBoundsWrapper` (`AssertionError`) and a masked one makes
`TerminateIllegalWrapper` end the game with -1 to the offender. Under CHARLESWORTH the
automatic opening 3♦ is made by the rules at `reset()`, not as a step (no shaped reward).

## Rewards

Zero until the game ends, then the scores: each loser's penalty is its cards left times
the rules' multiplier, the winner receives the sum (see `reward` above for the variants).

## State

`state()` is a perfect-information vector (every hand) for centralised critics; it
cheats by design. Its rows are absolute seats (0..3; a row per seat of `rules.players`),
and its layout is that of `observers.FullStateObserver` (here of four players):

STATE_LAYOUT

## Parallel API

PettingZoo's `turn_based_aec_to_parallel` makes a parallel env of it (it passes
`pettingzoo.test.parallel_api_test`, which the tests run under `standard`, `charlesworth`,
`three-player` and `two-player`). Each
`step(actions)` plays the action of the seat to act, the one agent whose `action_mask`
marks legal actions, and ignores the others' (the dict needs the acting agent's key, the
others may be left out); every agent's observation, reward and termination come back at
every step, and the final rewards land on the step that ends the game.

>>> from envs.big2_env import env
>>> from pettingzoo.utils.conversions import turn_based_aec_to_parallel
>>> par = turn_based_aec_to_parallel(env())
>>> observations, infos = par.reset(seed=0)
>>> [agent for agent, obs in observations.items() if obs["action_mask"].any()]
['player_0']
>>> observations, rewards, terminations, truncations, infos = par.step({"player_0": 0})
>>> [agent for agent, obs in observations.items() if obs["action_mask"].any()]
['player_1']

## One seat

For single-agent code (SB3's `MaskablePPO` among others), `big2/Big2Single-v0` is a
gymnasium `Env` on this game: one learner seat drawn for each game, opponents by agent
spec moving inside `step`, and `action_masks()` (docs/single.md).

## Version history

- v0: initial release.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

import observers
from big2 import rules as R
from big2.board import make_rng
from big2.game import Game
from big2.hand_ranking import HandRanking
from big2.log import GameLog
from big2.render import render_text
from envs import codecs
from envs.rewards import REWARDS, final_rewards, move_reward
from observers.base import Observer
from observers.state import FullStateObserver

STATE_SIZE = FullStateObserver().size  # of four players; an env's state_space is its rules'


def env(**kwargs: Any) -> AECEnv:
    """The Big Two AEC env in PettingZoo's standard wrappers (illegal action: -1, game over)."""
    aec: AECEnv = raw_env(**kwargs)
    aec = wrappers.TerminateIllegalWrapper(aec, illegal_reward=-1)
    aec = wrappers.AssertOutOfBoundsWrapper(aec)
    return wrappers.OrderEnforcingWrapper(aec)


class raw_env(AECEnv):  # type: ignore[misc]
    """The bare Big Two AEC env (no wrappers, for speed); see the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "big2_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: R.Rules | str = "standard",
        observer: Observer | str = "simple",
        actions: str = "catalog",
        reward: str = "score",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.rules = R.get(rules)
        self.observer = _make_observer(observer, self.rules)
        self.codec = codecs.make(actions, self.rules)
        if reward not in REWARDS:
            raise ValueError(f"unknown reward {reward!r}; expected one of {REWARDS}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"unknown render_mode {render_mode!r}; expected None, 'ansi', 'human'")
        self.reward_mode, self.render_mode = reward, render_mode
        self.possible_agents = [f"player_{i}" for i in range(self.rules.players)]
        self.agents = list(self.possible_agents)
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": self.observer.space,
                "action_mask": spaces.Box(0, 1, (self.codec.n,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: spaces.Discrete(self.codec.n) for a in self.possible_agents}
        self.state_observer = FullStateObserver(self.rules)
        self.state_space = self.state_observer.space
        self._rng = random.Random()
        self.game = Game(self.rules, seed=self._rng)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ episode

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game: ``seed`` reseeds the env's RNG; ``options={"fixed": {seat: cards}}``.

        Other option keys are ignored (PettingZoo's API test passes arbitrary options).
        """
        fixed = (options or {}).get("fixed")
        rng = make_rng(seed) if seed is not None else self._rng
        self.game = Game(self.rules, seed=rng, fixed=fixed)  # raises before anything changes
        self._rng = rng
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.agents[self.game.turn]

    def step(self, action: int | None) -> None:
        if not self.agents:
            raise ValueError("the game is over and every agent has left; call reset() first")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        move = self._legal_move(action)
        self.game.play(move)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = move_reward(move, self.reward_mode)
        if self.game.is_over:
            self._finish()
        self.agent_selection = self.agents[self.game.turn]  # after the end: the winner
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _legal_move(self, action: int | None) -> HandRanking:
        """The move of ``action`` if it is legal now; otherwise ValueError, nothing changed."""
        return codecs.decode_legal(self.codec, action, self.game, self.agent_selection)

    def _finish(self) -> None:
        game = self.game
        rewards = final_rewards(game.scores(), game.winner, self.rules, self.reward_mode)
        for agent, reward in zip(self.agents, rewards, strict=True):
            self.rewards[agent] += reward
        self.terminations = dict.fromkeys(self.agents, True)

    # ------------------------------------------------------------------ views

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seats[agent]
        game = self.game
        if game.is_over or seat != game.turn or self.terminations.get(agent, True):
            mask = np.zeros(self.codec.n, dtype=np.int8)
        else:
            mask = self.codec.mask(game.legal_moves(), game.hand(seat))
        obs = self.observer.observe(game.view(seat), game)
        return {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray:
        """Perfect information (every hand; for centralised critics): see the module docstring."""
        return self.state_observer.observe_game(self.game)

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = render_text(self.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ logs

    def replay(self, log: GameLog) -> Iterator[int]:
        """Reset to the deal of ``log`` and step through its moves, yielding each action.

        Each move is encoded with this env's codec and checked like any action.
        """
        if log.rules != self.rules:
            raise ValueError(f"the log uses the {log.rules.name} rules, the env {self.rules.name}")
        self.reset(options={"fixed": dict(enumerate(log.deal))})
        for entry in log.moves[len(self.game.log.moves) :]:
            action = self.codec.encode(entry.move, self.game.hand(self.game.turn))
            self.step(action)
            yield action


def _make_observer(observer: Observer | str, rules: R.Rules) -> Observer:
    if isinstance(observer, str):
        return observers.make(observer, rules)
    if not isinstance(observer, Observer):
        raise ValueError(f"observer must be a registered name or an Observer, got {observer!r}")
    if observer.rules != rules:
        raise ValueError(
            f"observer was built for the {observer.rules.name} rules, the env uses {rules.name}"
        )
    return observer


__doc__ = (__doc__ or "").replace("SIMPLE_LAYOUT", observers.make("simple").layout())
__doc__ = __doc__.replace("STATE_LAYOUT", FullStateObserver().layout())
