"""Checkpoints: save, load with clear errors, and turn one into an arena agent.

A checkpoint is one ``torch.save`` file holding a dict: ``format``, the run ``config``,
the algorithm's ``state`` (networks and optimizers), ``epoch``, ``env_step``,
``update_step``, the evaluation ``history`` and the self-play ``snapshots``. An exported
agent (:mod:`training.export`) also holds ``exported``; an ensemble's, ``members`` and
``member_runs`` (:mod:`training.ensemble`).

The shipped agents (:data:`SHIPPED`: ``trained`` for STANDARD rules,
``trained-charlesworth`` for CHARLESWORTH) are package data of ``training``
(``training/agents/*.pt``), found through :mod:`importlib.resources`, so they load from
a checkout, an editable install or a wheel alike. Every agent that shipped is also
named by the day it shipped, ``NAME@YYYY-MM-DD`` (:mod:`training.shipped`): the current
ones, and the ones they replaced, which are kept in the repository and not in the wheel.
"""

from __future__ import annotations

import errno
import io
import pickle
from importlib import resources
from pathlib import Path
from typing import Any

import torch

from big2.rules import Rules
from envs.policy_agent import PolicyAgent
from envs.rollouts import PolicyRollouts
from training import shipped
from training.config import Config
from training.ensemble import Actor, Ensemble
from training.nets import MaskedActor, NumpyLogits, QNet, make_actor
from training.rollout import GreedyPolicy
from training.rundir import write_whole
from training.spec import RunSpec
from training.spec import resolve as resolve_spec

FORMAT = "big2-checkpoint/1"
KEYS = ("format", "config", "state", "epoch", "env_step", "update_step", "history", "snapshots")
READ_FAULTS = (errno.EACCES, errno.EPERM, errno.EIO)  # a file that may be fine, unreadable here
SHIPPED = shipped.FILES  # the current agents' files, by name
# config keys added after the first checkpoints, with the value older runs used
LATER_KEYS = {
    "action_head": "dot",
    "action_rest": False,
    "plan_features": False,
    "reply_features": False,
    "action_context": False,
    "body": "auto",
}


def setting(cfg: dict[str, Any], key: str) -> Any:
    """A checkpoint config's ``key``, or what runs saved before that key existed used."""
    return cfg.get(key, LATER_KEYS[key]) if key in LATER_KEYS else cfg[key]


class CheckpointError(ValueError):
    """A checkpoint that is missing, unreadable or not a big2 checkpoint."""


def save(path: Path | str, data: dict[str, Any]) -> None:
    """Write ``data`` atomically (:func:`training.rundir.write_whole`): no half-written
    files, and a disk that cannot take it raises ``OSError`` naming ``path``, leaving the
    file there was as it was."""
    missing = [k for k in KEYS if k != "format" and k not in data]
    if missing:
        raise ValueError(f"checkpoint data lacks {missing}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()  # serialised in memory: torch's own file errors say no errno
    torch.save({**data, "format": FORMAT}, buffer)
    write_whole(path, buffer.getvalue())


def load(path: Path | str) -> dict[str, Any]:
    """Read a checkpoint; anything wrong raises :class:`CheckpointError` saying what."""
    path = resolve(path)
    if not path.is_file():
        raise CheckpointError(f"no checkpoint at {path}: expected a file written by training")
    try:
        # weights_only: tensors and plain containers only, so a crafted file cannot run code
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # any unreadable file, whatever the unpickler raises
        raise CheckpointError(_unreadable(path, e)) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not a {FORMAT} file")
    missing = [k for k in KEYS if k not in data]
    if missing:
        raise CheckpointError(f"{path} lacks {missing}; expected {list(KEYS)}")
    return data


def _unreadable(path: Path, error: Exception) -> str:
    """Why ``path`` did not load (``error``: what torch raised), and what to do; torch's own
    advice (to load it with ``weights_only=False``, which runs any code the file holds) is
    never repeated."""
    if isinstance(error, OSError) and error.errno in READ_FAULTS:  # the disk, not the file
        return f"cannot read {path}: {(error.strerror or str(error)).lower()}"
    why = (
        "it is not a file written by big2's training, or it was cut short (a full disk, an "
        "interrupted copy) or altered"
    )
    if isinstance(error, pickle.UnpicklingError) and "weights_only" in str(error):
        why = (
            "it holds Python objects that no big2 checkpoint holds (checkpoints are loaded as "
            "tensors and plain data only, so that a file cannot run code)"
        )
    return (
        f"{path} is corrupt or not a checkpoint: {why}; name a checkpoint that training or "
        f"training.export wrote, or copy this one again from where it came from"
    )


def resolve(path: Path | str) -> Path:
    """The file of a shipped agent's name (``trained``, ``trained@2026-11-24``); anything
    else is a path.

    A shipped agent missing from the installation (a past one in a wheel, a day nothing
    shipped) raises :class:`CheckpointError` saying so.
    """
    name = str(path)
    if shipped.is_dated(name):
        name = _dated(name)
        if name not in SHIPPED:
            return Path(name)  # a past agent's file
    if name not in SHIPPED:
        return Path(path)
    found = shipped.current_file(name)
    if not found.is_file():
        raise CheckpointError(
            f"the shipped agent {name!r} is missing from this installation of big2 (looked "
            f"for agents/{SHIPPED[name]} in the package {resources.files('training')}); "
            f"reinstall big2 from a source or wheel that includes its package data"
        )
    return found  # package data is a file on disk in every install we support


def _dated(name: str) -> str:
    """The shipped name or the file of ``NAME@YYYY-MM-DD``; :class:`CheckpointError` for a
    day nothing shipped, or a past agent this installation lacks."""
    try:
        agent = shipped.find(name)
        return agent.name if shipped.is_current(agent) else str(shipped.kept_file(agent))
    except LookupError as e:
        raise CheckpointError(str(e)) from None


def config_of(data: dict[str, Any]) -> Config:
    """The :class:`Config` of a checkpoint (older checkpoints: the settings they used); a
    checkpoint of a removed option (:data:`training.config.REMOVED`) raises
    :class:`CheckpointError` saying why."""
    try:
        return Config.from_dict({**LATER_KEYS, **data["config"]})
    except ValueError as e:
        raise CheckpointError(f"the checkpoint's {e}") from None


def actor_from(data: dict[str, Any]) -> Actor:
    """The acting network of a checkpoint (PPO's actor or DQN's Q-network, or the
    :class:`~training.ensemble.Ensemble` of an ensemble's members), in eval mode."""
    return _actor(data, RunSpec.of(config_of(data)))


def _actor(data: dict[str, Any], spec: RunSpec) -> Actor:
    """:func:`actor_from` for checkpoint ``data`` whose config resolves to ``spec``."""
    algo, network = spec.config.algo, spec.network
    net: Actor
    if data.get("members"):
        net = Ensemble([make_actor(network) for _ in range(data["members"])])
    else:
        net = make_actor(network, MaskedActor if algo == "ppo" else QNet)
    prefix = "policy.actor." if algo == "ppo" else "policy.model."
    weights = {k[len(prefix) :]: v for k, v in data["state"].items() if k.startswith(prefix)}
    try:
        net.load_state_dict(weights)
    except RuntimeError as e:
        raise CheckpointError(f"checkpoint weights do not fit its config: {e}") from None
    return net.eval()


def network_from(data: dict[str, Any], name: Path | str) -> MaskedActor:
    """The one acting network of checkpoint ``name`` (its loaded ``data``), for what trains
    it further; an ensemble raises (:func:`require_one_network`)."""
    require_one_network(data, name)
    net = actor_from(data)
    assert isinstance(net, MaskedActor)
    return net


def require_one_network(data: dict[str, Any], name: Path | str) -> None:
    """Raise :class:`CheckpointError` if checkpoint ``name`` (its loaded ``data``) is an
    ensemble, saying how to export one of its members."""
    if data.get("members"):
        runs = ", ".join(str(r["run_dir"]) for r in data.get("member_runs", []))
        raise CheckpointError(
            f"{name} is an ensemble of {data['members']} networks and this needs one: export "
            f"one with 'python -m training.export {name} --member 0 member0.pt' and name "
            f"that (the members' runs: {runs})"
        )


def agent_named(name: str, rules: Rules) -> PolicyAgent | None:
    """What the ``big2.agent_loaders`` plugin (:mod:`training.loader`) serves ``name`` as: a
    shipped agent or a checkpoint file's agent, None for a file that is not a checkpoint."""
    if shipped.claims(name):
        data = load(name)  # ours: a missing or broken file raises, saying why
    elif Path(name).is_file():
        try:
            data = load(name)
        except CheckpointError:
            return None  # not a checkpoint: another loader's, perhaps
    else:
        return None
    agent = agent_of(data, _label(name))
    if agent.codec.rules != rules:
        raise CheckpointError(
            f"{name} was trained for the {agent.codec.rules.name} rules, not {rules.name}"
        )
    return agent


def load_agent(path: Path | str, name: str | None = None) -> PolicyAgent:
    """An arena agent playing a checkpoint's policy greedily (the most likely legal action).

    Its :meth:`~envs.policy_agent.PolicyAgent.scores` are the network's logits (a DQN
    checkpoint's Q-values serve as logits), so ``NAME+search`` can use it as a prior.

    >>> from big2.game import Game
    >>> game, agent = Game(seed=0), load_agent("trained")
    >>> len(agent.scores(game.view(game.turn), game.legal_moves())) == len(game.legal_moves())
    True
    """
    return agent_of(load(path), name or _label(path))


def _label(path: Path | str) -> str:
    """An agent's name in the arena: a shipped agent's name, or the file's stem."""
    named = str(path) in SHIPPED or shipped.is_dated(str(path))
    return str(path) if named else Path(path).stem


class NetworkAgent(PolicyAgent):
    """A checkpoint's network as an arena agent (a :class:`PolicyAgent` playing its
    likeliest legal move) that also plays search rollouts: ``NAME+search`` asks it for
    :meth:`search_rollouts`, so the searching seat plays the network in every rollout."""

    def __init__(
        self, net: Actor, settings: Config | RunSpec, name: str, *, cheat: bool = False
    ) -> None:
        spec = resolve_spec(settings)
        inputs = (spec.env.observer, spec.env.codec, spec.env.rules, name, spec.env.features)
        super().__init__(NumpyLogits(net), *inputs, cheat=cheat)
        self.net, self.spec = net, spec

    @property
    def cfg(self) -> Config:
        """The flat settings of the network's run."""
        return self.spec.config

    def search_rollouts(self, net: Actor | None = None) -> PolicyRollouts:
        """Rollouts in which ``net`` plays the searching seat, the compiled heuristic every
        other (:class:`envs.rollouts.PolicyRollouts`), on one torch thread as the agent's
        own moves (:class:`~training.nets.NumpyLogits`). By default this agent's network,
        of an ensemble its first member alone: on the validation deals its search won as
        much as with the whole ensemble there, in 30% less time (docs/search.md); the
        prior stays the ensemble's."""
        if net is None:
            net = self.net.nets[0] if isinstance(self.net, Ensemble) else self.net
        policy = GreedyPolicy(net, threads=1)
        return PolicyRollouts(policy, self.observer, self.codec, self.features)


def agent_of(data: dict[str, Any], label: str) -> NetworkAgent:
    """The arena agent of loaded checkpoint ``data``, named ``label``."""
    spec = RunSpec.of(config_of(data))
    return NetworkAgent(_actor(data, spec), spec, label)
