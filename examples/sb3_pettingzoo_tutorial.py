"""PettingZoo's SB3 tutorial on Big Two: ``python examples/sb3_pettingzoo_tutorial.py``.

The tutorial (PettingZoo's ``tutorials/SB3/connect_four``) turns an AEC env into a
gymnasium-like env that SB3 can train with ``MaskablePPO``: one model plays every seat,
each step is the acting seat's move, and the action mask comes from the env. Big Two
needs nothing special beyond choosing the ``hand`` codec: SB3 computes a full-width
softmax over every action at every step, and ``hand`` has 1,695 actions where
``catalog`` has 17,859. At the end the model plays ``--eval-deals`` duplicate deals
against three random players in the arena (needs ``pip install sb3-contrib``).

The PettingZoo path, kept as the tutorial gives it, with its caveat: its wrapper hands SB3
only the reward of the seat that just moved, so the three seats that lose a game never
see their penalty, the model learns from winners alone, and it ends below random (0.165
after 50,000 decisions, docs/results.md). For SB3, ``examples/sb3_maskable_ppo.py`` on
the one-seat env (``big2/Big2Single-v0``) is the path that learns.
"""

from __future__ import annotations

import argparse
from typing import Any

import gymnasium
import numpy as np
import pettingzoo.utils
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from sb3_contrib.common.wrappers import ActionMasker

from big2.evaluation import evaluate
from envs.big2_env import env as big2_env
from envs.policy_agent import PolicyAgent


class SB3ActionMaskWrapper(pettingzoo.utils.BaseWrapper, gymnasium.Env):  # type: ignore[misc]
    """An AEC env as SB3 expects: one observation and action space, gymnasium's step."""

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed, options)
        self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
        self.action_space = super().action_space(self.possible_agents[0])
        return self.observe(self.agent_selection), {}

    def step(self, action: int) -> tuple[Any, ...]:
        """The next seat's observation; the reward and end of the seat that just moved."""
        mover = self.agent_selection
        super().step(int(action))
        return (self.observe(self.agent_selection), self._cumulative_rewards[mover],
                self.terminations[mover], self.truncations[mover], self.infos[mover])  # fmt: skip

    def observe(self, agent: str) -> Any:
        return super().observe(agent)["observation"]

    def action_mask(self) -> np.ndarray:
        mask: np.ndarray = super().observe(self.agent_selection)["action_mask"]
        return mask


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50_000, help="decisions to train on")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--observer", default="card_counting")
    parser.add_argument("--actions", default="hand", help="hand (1,695) or catalog (17,859)")
    parser.add_argument("--eval-deals", type=int, default=200)
    parser.add_argument("--eval-seed", type=int, default=2026, help="deals never trained on")
    args = parser.parse_args(argv)

    env = SB3ActionMaskWrapper(big2_env(observer=args.observer, actions=args.actions,
                                        reward="score_normalized"))  # fmt: skip
    env.reset(seed=args.seed)  # defines the spaces
    env = ActionMasker(env, lambda e: e.action_mask())
    model = MaskablePPO(MaskableActorCriticPolicy, env, seed=args.seed, verbose=0)
    model.learn(total_timesteps=args.steps)

    def act(observation: np.ndarray, mask: np.ndarray) -> int:
        return int(model.predict(observation, action_masks=mask, deterministic=True)[0])

    aec = env.unwrapped
    player = PolicyAgent(act, aec.observer, aec.codec, aec.rules, name="sb3-maskable-ppo")
    result = evaluate([player, "random", "random", "random"], args.eval_deals, args.eval_seed)
    share = result.agents[0].win_share
    print(f"win share vs three random players after {args.steps:,} decisions: {share:.3f} "
          f"({args.eval_deals} duplicate deals of seed {args.eval_seed}; parity 0.25)")  # fmt: skip
    return share


if __name__ == "__main__":
    main()
