"""The pieces a training run is built from: its env, its algorithm, its starting weights.

The env and the algorithm are built from the run's :class:`~training.spec.RunSpec` (given
a :class:`~training.config.Config`, :func:`make_env` and :func:`make_algorithm` resolve it
first).

>>> from training.config import Config
>>> from training.spec import resolve
>>> spec = resolve(Config(hidden=(16,), envs=2, opponents=("random",)))
>>> make_env(spec, seed=0).num_envs, type(make_algorithm(spec)).__name__
(2, 'PPO')
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from tianshou.algorithm.modelfree.dqn import DQN
from tianshou.algorithm.modelfree.ppo import PPO
from tianshou.algorithm.modelfree.reinforce import DiscreteActorPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory, LRSchedulerFactory
from torch.optim.lr_scheduler import LambdaLR, LRScheduler

from big2.players.specs import load_agent
from envs.opponents import COMPILED
from envs.pools import Pool
from envs.vector import SELF_ALL, Big2VectorEnv
from training import checkpoint
from training.config import SELF, Config
from training.nets import (
    MaskedActor,
    MaskedQPolicy,
    QNet,
    legal_distribution,
    make_actor,
    make_critic,
)
from training.rollout import GreedyPolicy, SnapshotPolicy
from training.spec import RunSpec, resolve


def device_of(cfg: Config) -> torch.device:
    """The torch device of the run (``auto``: cuda when available)."""
    if cfg.device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(cfg.device)


def make_env(
    settings: Config | RunSpec,
    seed: int,
    pool: Pool | list[SnapshotPolicy] | None = None,
    games: int | None = None,
) -> Big2VectorEnv:
    """The vector env of a run (``games``, by default ``--envs``, games; with ``self-all``
    among the opponents its agents are those games x the rules' players); ``pool`` holds
    the ``self`` snapshots (shared, updated between steps; while it is empty, or without
    one, ``self`` plays as ``random``). A checkpoint among the opponents that reads what the learner
    reads plays as one batch policy (:func:`opponent_entry`), one for all its listings."""
    spec = resolve(settings)
    env = spec.env
    mix: list[Any] | None = None
    if env.opponents != (SELF_ALL,):
        self_play = pool if pool is not None else "random"
        entries = {name: opponent_entry(name, spec) for name in set(env.opponents) - {SELF}}
        mix = [self_play if name == SELF else entries[name] for name in env.opponents]
    n = env.games if games is None else games
    return Big2VectorEnv(
        n * (env.rules.players if env.all_seats else 1),
        env.observer,
        env.codec,
        env.rules,
        opponents=mix,
        reward=env.reward,
        seed=seed,
        critic_observer=env.critic,
        move_features=env.features,
        opponent_draw=env.draw,
    )


# what an opponent's network must read as the learner does to play from the env's records
INPUTS = ("observer", "actions", "plan_features", "reply_features", "upper_bound")


def opponent_entry(name: str, spec: RunSpec) -> str | GreedyPolicy:
    """The env's opponent entry for agent spec ``name``: a checkpoint (a shipped agent, a
    past one, a file) whose network reads the run's :data:`INPUTS` as a
    :class:`~training.rollout.GreedyPolicy`, the moves its arena agent plays, answering
    for all its games in one call; anything else as its spec, which the env plays
    (``random``, ``greedy`` and ``heuristic`` compiled, others game by game)."""
    if name in (*COMPILED, SELF_ALL):
        return name
    agent = load_agent(name, spec.env.rules)
    if not isinstance(agent, checkpoint.NetworkAgent):
        return name
    theirs, ours = agent.cfg.to_dict(), spec.config.to_dict()
    if any(theirs.get(k) != ours[k] for k in INPUTS):
        return name
    return GreedyPolicy(agent.net)


class LinearDecay(LRSchedulerFactory):
    """The learning rate times ``1 - progress()``, at least 0 (``--lr-schedule linear``, as
    CleanRL's ``anneal_lr``). Tianshou steps the scheduler after every update, and
    ``progress`` is read then (and when the optimizer is made), so a resumed run picks up
    where its learner decisions left it.

    >>> done = [0.25]
    >>> decay = LinearDecay(lambda: done[0])
    >>> optim = torch.optim.Adam([torch.zeros(1, requires_grad=True)], lr=1e-3)
    >>> schedule = decay.create_scheduler(optim)
    >>> done[0] = 0.5                  # an update later: half the decisions done
    >>> optim.step(); schedule.step()
    >>> round(optim.param_groups[0]["lr"], 6)
    0.0005
    """

    def __init__(self, progress: Callable[[], float]) -> None:
        self.progress = progress

    def create_scheduler(self, optim: torch.optim.Optimizer) -> LRScheduler:
        return LambdaLR(optim, lambda _: max(0.0, 1.0 - self.progress()))


def make_algorithm(
    settings: Config | RunSpec, progress: Callable[[], float] | None = None
) -> PPO | DQN:
    """Masked PPO (actor + critic) or masked DQN, as ``--algo`` says (:func:`make_ppo`,
    :func:`make_dqn`)."""
    spec = resolve(settings)
    make = make_ppo if spec.config.algo == "ppo" else make_dqn
    return make(spec, progress)


def make_ppo(spec: RunSpec, progress: Callable[[], float] | None = None) -> PPO:
    """Masked PPO: the actor and the critic of ``spec.network``, on the run's device.
    ``progress`` is the share of the run's learner decisions done, which
    ``--lr-schedule linear`` reads."""
    cfg, network = spec.config, spec.network
    policy = DiscreteActorPolicy(
        actor=make_actor(network),  # built before the critic: torch's RNG draws in this order
        dist_fn=legal_distribution,
        action_space=gym.spaces.Discrete(network.store_width),  # it acts by legal position
    )
    algorithm = PPO(
        policy=policy,
        critic=make_critic(network),
        optim=_optimizer(cfg, progress),
        gamma=cfg.gamma,
        ent_coef=cfg.ent_coef,
        gae_lambda=cfg.gae_lambda,
        eps_clip=cfg.eps_clip,
        vf_coef=cfg.vf_coef,
        max_grad_norm=cfg.max_grad_norm,
    )
    return algorithm.to(device_of(cfg))


def make_dqn(spec: RunSpec, progress: Callable[[], float] | None = None) -> DQN:
    """Masked DQN: the Q-network of ``spec.network``, on the run's device (``progress``:
    as :func:`make_ppo`)."""
    cfg, network = spec.config, spec.network
    policy = MaskedQPolicy(
        model=make_actor(network, QNet),
        action_space=gym.spaces.Discrete(network.store_width),  # it acts by legal position
        eps_training=cfg.eps_train,
        eps_inference=0.0,
    )
    algorithm = DQN(
        policy=policy,
        optim=_optimizer(cfg, progress),
        gamma=cfg.gamma,
        n_step_return_horizon=cfg.n_step,
        target_update_freq=cfg.target_update_freq,
    )
    return algorithm.to(device_of(cfg))


def _optimizer(cfg: Config, progress: Callable[[], float] | None) -> AdamOptimizerFactory:
    """Adam at ``--lr``, decaying with ``progress`` under ``--lr-schedule linear``."""
    optim = AdamOptimizerFactory(lr=cfg.lr)
    if cfg.lr_schedule == "linear":
        optim = optim.with_lr_scheduler_factory(LinearDecay(progress or (lambda: 0.0)))
    return optim


def acting_net(algorithm: PPO | DQN) -> MaskedActor:
    """The network that picks actions: PPO's actor or DQN's Q-network."""
    net = algorithm.policy.actor if isinstance(algorithm, PPO) else algorithm.policy.model
    assert isinstance(net, MaskedActor)
    return net


# what a checkpoint given to --init must share with the run
ARCHITECTURE = (
    "algo",
    "observer",
    "actions",
    "rules",
    "hidden",
    "action_head",
    "action_rest",
    "plan_features",
    "reply_features",
    "action_context",
    "body",
)


def architecture_differences(theirs: dict[str, Any], ours: dict[str, Any], where: str) -> list[str]:
    """Each :data:`ARCHITECTURE` setting in which config ``theirs`` differs from ``ours``,
    as ``"key: THEIRS there, OURS WHERE"`` (settings older checkpoints lack: their values).

    >>> small, large = Config(hidden=(8,)).to_dict(), Config(hidden=(16,)).to_dict()
    >>> architecture_differences(small, large, "here")
    ['hidden: [8] there, [16] here']
    """
    return [
        f"{k}: {checkpoint.setting(theirs, k)!r} there, {checkpoint.setting(ours, k)!r} {where}"
        for k in ARCHITECTURE
        if checkpoint.setting(theirs, k) != checkpoint.setting(ours, k)
    ]


def load_init(cfg: Config, algorithm: PPO | DQN) -> None:
    """Load the networks of checkpoint ``cfg.init`` into ``algorithm`` (not its optimizer).

    The acting network always; PPO's critic too when the checkpoint has one of the same
    shape and ``cfg.init_critic`` (an exported agent has none: the critic starts fresh,
    as with ``--no-init-critic``); DQN's target network
    becomes a copy of the loaded Q-network. A checkpoint built differently raises
    ``ValueError`` naming the settings that differ, and ``algorithm`` is left unchanged.
    """
    try:
        data = checkpoint.load(cfg.init)
        checkpoint.require_one_network(data, cfg.init)  # a run trains one network
    except checkpoint.CheckpointError as e:
        raise ValueError(f"--init: {e}") from None
    differ = architecture_differences(data["config"], cfg.to_dict(), "here")
    if differ:
        raise ValueError(f"--init {cfg.init} was trained with other networks ({'; '.join(differ)})")
    state = algorithm.state_dict()
    acting = "policy.actor." if cfg.algo == "ppo" else "policy.model."
    loaded = {k: v for k, v in data["state"].items() if k.startswith(acting)}
    critic = {k: v for k, v in data["state"].items() if k.startswith("critic.")}
    fits = critic and all(k in state and state[k].shape == v.shape for k, v in critic.items())
    if cfg.init_critic and fits:
        loaded.update(critic)
    if cfg.algo == "dqn":
        target = "model_old.module."
        loaded.update({target + k[len(acting) :]: v for k, v in loaded.items()})
    mismatched = [k for k, v in loaded.items() if k not in state or state[k].shape != v.shape]
    if mismatched or not any(k.startswith(acting) for k in loaded):
        raise ValueError(f"--init {cfg.init}: its weights do not fit this run's networks")
    algorithm.load_state_dict({**state, **loaded})


@contextmanager
def scoped_seed(seed: int) -> Iterator[None]:
    """Seed torch, numpy and random for the block; restore their states afterwards."""
    np_state, py_state = np.random.get_state(), random.getstate()
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        np.random.seed(seed % 2**32)
        random.seed(seed)
        try:
            yield
        finally:
            np.random.set_state(np_state)
            random.setstate(py_state)
