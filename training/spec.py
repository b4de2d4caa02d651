"""A run's configuration resolved once: :class:`RunSpec`, what the env and the networks take.

A :class:`~training.config.Config` names things (``observer="card_counting"``,
``actions="catalog"``, ``rules="standard"``) and stays the flat, saved form of a run (its
flags, ``config.json``, a checkpoint's ``"config"``). :func:`resolve` turns those names
into the objects they name, once per run, grouped as ``--help`` groups the flags: the
env's part (the ``env`` and ``opponents`` groups: rules, observers, codec, per-move
features, reward, opponents) and the network's part (the ``network`` group, with the
sizes that follow from it: :class:`training.nets.NetworkSpec`). The other groups
(``training``, ``ppo``, ``dqn``, ``evaluation``, ``run``) are plain numbers and words,
read from the spec's ``config``. ``make_env``, ``make_algorithm`` and the actor and
critic take the spec or its parts and resolve nothing again.

>>> from training.config import Config
>>> spec = resolve(Config(observer="simple", actions="hand"))
>>> spec.env.observer is spec.network.observer, spec.network.n_actions, spec.env.rules.name
(True, 1695, 'standard')
>>> resolve(spec) is spec
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import observers
from big2.rules import Rules
from big2.rules import get as get_rules
from envs import codecs
from observers.base import Observer
from observers.moves import MoveFeatures
from training.config import SELF_ALL, Config
from training.nets import NetworkSpec, feature_scale


@dataclass(frozen=True)
class EnvSpec:
    """What the run's vector env is built from, resolved (``--help``'s env and opponents
    groups). ``critic`` is the observer of the env's ``"critic"`` key: PPO's centralised
    critic, else None (DQN has no critic)."""

    rules: Rules
    observer: Observer
    codec: codecs.CatalogCodec | codecs.HandCodec
    critic: Observer | None
    features: MoveFeatures | None
    reward: str
    opponents: tuple[str, ...]
    draw: str
    games: int

    @property
    def all_seats(self) -> bool:
        """Whether the env's agents are every seat of every game (``self-all`` among the
        ``--opponents``: alone, or with others in tables drawn per game)."""
        return SELF_ALL in self.opponents

    @property
    def tables(self) -> bool:
        """Whether each game draws its table (``self-all`` among other entries)."""
        return self.all_seats and self.opponents != (SELF_ALL,)


@dataclass(frozen=True)
class RunSpec:
    """A run resolved: its ``config`` (the flat, saved form) and the objects it names.

    It pickles as its config and is resolved again where it lands (a Ray actor, an arena
    worker), so what crosses between processes is the flat form only.
    """

    config: Config
    env: EnvSpec
    network: NetworkSpec

    @classmethod
    def of(cls, cfg: Config) -> RunSpec:
        """Resolve ``cfg``'s names: each observer, the codec and the per-move features
        once. An unknown name raises ``ValueError`` naming it (``Config.check`` says more)."""
        rules = get_rules(cfg.rules)
        observer = observers.make(cfg.observer, rules)
        critic = observers.make(cfg.critic_observer, rules) if cfg.critic_observer else None
        codec = codecs.make(cfg.actions, rules)
        features = cfg.features(observer)
        env = EnvSpec(
            rules,
            observer,
            codec,
            critic if cfg.algo == "ppo" else None,
            features,
            cfg.reward,
            cfg.opponents,
            cfg.opponent_draw,
            cfg.envs,
        )
        network = NetworkSpec(
            observer,
            codec,
            cfg.hidden,
            cfg.body,
            cfg.action_head,
            cfg.action_rest,
            cfg.action_context,
            feature_scale(features),
            critic,
        )
        return cls(cfg, env, network)

    def __reduce__(self) -> tuple[Any, ...]:
        return (RunSpec.of, (self.config,))


def resolve(settings: Config | RunSpec) -> RunSpec:
    """The spec of ``settings``: a config resolved now, a spec as it is."""
    return settings if isinstance(settings, RunSpec) else RunSpec.of(settings)
