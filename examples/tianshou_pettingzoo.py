"""Tianshou's ``PettingZooEnv`` wrapper on Big Two's AEC env: ``examples/tianshou_pettingzoo.py``.

The pattern of Tianshou's own PettingZoo example (tic-tac-toe), on Big Two: a DQN
learner in seat 0 against three of Tianshou's masked random players, in
``MultiAgentOffPolicyAlgorithm`` with a ``Collector`` and the off-policy trainer. Two traps
of multi-agent Tianshou are avoided here: the n-step horizon is the four
seats (a seat's next observation comes four moves later, so a one-step target would
bootstrap on an opponent's view), and the ``hand`` codec keeps Tianshou's full-width
Q-values and masks at 1,695 actions. At the end the greedy Q-network plays
``--eval-deals`` duplicate deals against three random players in the arena.
"""

from __future__ import annotations

import argparse
import logging

import numpy as np
import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from big2.evaluation import evaluate
from envs.big2_env import env as big2_env
from envs.policy_agent import PolicyAgent


def make_env(observer: str) -> PettingZooEnv:
    return PettingZooEnv(big2_env(observer=observer, actions="hand", reward="score_normalized"))


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--epoch-steps", type=int, default=10_000, help="env steps per epoch")
    parser.add_argument("--envs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--observer", default="card_counting")
    parser.add_argument("--eval-deals", type=int, default=200)
    parser.add_argument("--eval-seed", type=int, default=2026, help="deals never trained on")
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)  # Tianshou's collector and buffers draw from numpy's globals
    logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)  # 4-seat return shapes

    env = make_env(args.observer)
    size = env.observation_space["observation"].shape[0]
    net = Net(state_shape=size, action_shape=env.action_space.n, hidden_sizes=[256, 256])
    learner = DQN(
        policy=DiscreteQLearningPolicy(
            model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.1
        ),
        optim=AdamOptimizerFactory(lr=1e-4), gamma=0.99, n_step_return_horizon=4,
        target_update_freq=500,
    )  # fmt: skip
    randoms = [
        MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in range(3)
    ]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[learner, *randoms], env=env)
    train_envs = DummyVectorEnv([lambda: make_env(args.observer) for _ in range(args.envs)])
    train_envs.seed(args.seed)
    buffer = VectorReplayBuffer(50_000, args.envs)
    collector = Collector[CollectStats](algorithm, train_envs, buffer, exploration_noise=True)
    collector.reset()
    collector.collect(n_step=64 * args.envs)
    algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=collector, max_epochs=args.epochs,
            epoch_num_steps=args.epoch_steps, collection_step_num_env_steps=64,
            update_step_num_gradient_steps_per_sample=0.1, batch_size=64,
            test_in_training=False, show_progress=False,
            multi_agent_return_reduction=lambda returns: returns[:, 0],
        )
    )  # fmt: skip

    def q_values(observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            q = net(torch.as_tensor(observation[None], dtype=torch.float32))[0][0].numpy()
        return np.where(mask.astype(bool), q, -1e9)

    aec = env.env.unwrapped
    player = PolicyAgent(q_values, aec.observer, aec.codec, aec.rules, name="tianshou-dqn")
    result = evaluate([player, "random", "random", "random"], args.eval_deals, args.eval_seed)
    share = result.agents[0].win_share
    print(f"win share vs three random players after {args.epochs * args.epoch_steps:,} env "
          f"steps: {share:.3f} ({args.eval_deals} duplicate deals of seed {args.eval_seed}; "
          f"parity 0.25)")  # fmt: skip
    return share


if __name__ == "__main__":
    main()
