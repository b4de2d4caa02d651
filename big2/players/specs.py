"""Agent specs: one grammar that names every agent, parsed in one place.

``NAME[+search][:SEED]``, where NAME is a baseline (``random``, ``greedy``,
``heuristic``, ``search``), ``trained`` or ``trained-charlesworth`` (the shipped agents),
``NAME@YYYY-MM-DD`` (the agent NAME shipped that day: ``trained@2026-11-24``, listed by
:func:`catalog`), the path of a training checkpoint, or ``MODULE:ATTRIBUTE``, an agent of
your own
(``mypkg.agents:Cautious``);
``+search`` puts a policy inside :class:`~big2.players.search.SearchAgent` as its prior
(``trained+search``); ``:SEED`` seeds an agent that uses randomness (``random:3``,
``search:1``, ``trained+search:2``) and is refused by deterministic ones.

``MODULE:ATTRIBUTE`` imports ``MODULE`` and takes ``ATTRIBUTE`` (dots walk into it): an
agent (an object with ``act(view, legal_moves)``), or a class or function that makes one,
called with ``rules=`` and ``seed=`` where it takes them (a seed given to one that takes
none is refused).

>>> AgentSpec.parse("trained+search:2")
AgentSpec(name='trained', search=True, seed=2)
>>> load_agent("random:3")
RandomAgent()
>>> load_agent("heuristic:3")
Traceback (most recent call last):
...
ValueError: agent spec 'heuristic:3': heuristic is deterministic and takes no seed

Policies (``trained``, checkpoint paths) come from loaders registered under the
``big2.agent_loaders`` entry-point group, so this package never imports its plugins:
``training`` registers one. A loader is called as ``loader(name, rules)`` and returns
an agent, or None when ``name`` is not its kind, so the next loader may try (a loader
raises ``ValueError`` only for what is its kind but broken); an agent used with
``+search`` must also have ``scores(view, legal_moves)`` (one score per move, higher is
likelier). A loader that names agents of its own (the shipped ones) lists them from a
``catalog()`` method: one dict each with ``spec``, ``rules``, ``shipped`` and ``where``.

Search rollouts come the same way, from the ``big2.rollouts`` entry-point group:
``envs`` registers its compiled heuristic rollouts (``envs.rollouts:CompiledRollouts``),
which ``search`` uses; without it, it plays the Python heuristic
(:class:`~big2.players.search.AgentRollouts`), which chooses the same moves, slower.
``NAME+search`` plays the policy's own rollouts when its agent offers them
(``search_rollouts()``: a trained network plays the searching seat in every rollout,
the heuristic the others), else the heuristic's; the search option
``rollouts="heuristic"`` (or ``"policy"``) picks one.

>>> load_agent("big2.players.baselines:GreedyAgent")
GreedyAgent()
"""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from big2.players.base import Agent
from big2.players.baselines import GreedyAgent, RandomAgent
from big2.players.heuristic import HeuristicAgent
from big2.players.search import Prior, Rollouts, SearchAgent
from big2.rules import STANDARD, Rules

SEARCH = "+search"
ROLLOUTS = ("policy", "heuristic")  # who plays the searching seat in NAME+search's rollouts
_SEED = re.compile(r"^(?P<rest>.+):(?P<seed>\d+)$")
_OBJECT = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")  # MODULE:ATTRIBUTE

DETERMINISTIC: dict[str, Callable[[], Agent]] = {
    "greedy": GreedyAgent,
    "heuristic": HeuristicAgent,
}
BASELINES = sorted([*DETERMINISTIC, "random", "search"])  # random and search take seeds


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent spec (see the module docstring)."""

    name: str
    search: bool = False
    seed: int | None = None

    @classmethod
    def parse(cls, text: str) -> AgentSpec:
        """Read ``NAME[+search][:SEED]``; a malformed spec raises :class:`ValueError`."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"agent spec must be a non-empty string, got {text!r}")
        rest, seed = text.strip(), None
        if match := _SEED.match(rest):
            rest, seed = match["rest"], int(match["seed"])
        search = rest.endswith(SEARCH)
        name = rest.removesuffix(SEARCH) if search else rest
        if not name:
            raise ValueError(f"agent spec {text!r} names no agent; expected NAME[+search][:SEED]")
        spec = cls(name, search, seed)
        spec._check(text)
        return spec

    def _check(self, text: str) -> None:
        before, colon, after = self.name.partition(":")
        if colon and before in [*BASELINES, "trained"]:
            raise ValueError(
                f"agent spec {text!r}: the seed after ':' must be a whole number, got {after!r}"
            )
        if self.name in DETERMINISTIC and self.seed is not None:
            raise ValueError(f"agent spec {text!r}: {self.name} is deterministic and takes no seed")
        if self.search and self.name in BASELINES:
            raise ValueError(
                f"agent spec {text!r}: +search needs a policy (trained or a checkpoint) as "
                f"its prior, not the baseline {self.name}; the baseline 'search' searches "
                f"without one"
            )

    @property
    def is_baseline(self) -> bool:
        """Whether this names a baseline (no plugin needed)."""
        return self.name in BASELINES

    def __str__(self) -> str:
        seed = "" if self.seed is None else f":{self.seed}"
        return f"{self.name}{SEARCH if self.search else ''}{seed}"


def load_agent(spec: str | AgentSpec, rules: Rules = STANDARD, **search: Any) -> Agent:
    """The agent a spec names; ``search`` options (``determinizations=4``, ...) go to the
    :class:`SearchAgent` of ``search`` and ``NAME+search`` specs.

    >>> load_agent("search:5").rng.random() == SearchAgent(seed=5).rng.random()
    True
    """
    spec = spec if isinstance(spec, AgentSpec) else AgentSpec.parse(spec)
    if search and not (spec.search or spec.name == "search"):
        raise ValueError(f"search options {sorted(search)} apply to search and NAME+search only")
    if spec.name == "random":
        return RandomAgent(spec.seed)
    if spec.name == "search":  # seed 0 by default, so 'search' alone is reproducible
        seed = 0 if spec.seed is None else spec.seed
        rollouts = search_rollouts(None, search.pop("rollouts", None), spec)
        return SearchAgent(seed=seed, rollouts=rollouts, **search)
    if spec.name in DETERMINISTIC:
        return DETERMINISTIC[spec.name]()
    if _OBJECT.match(spec.name):
        policy = _from_object(spec.name, rules, None if spec.search else spec.seed)
        if not spec.search:
            return policy
    else:
        policy = _from_plugins(spec.name, rules)
    if not spec.search:
        if spec.seed is not None:
            raise ValueError(f"agent spec {spec}: a policy plays greedily and takes no seed")
        return policy
    prior: Prior | None = getattr(policy, "scores", None)
    if prior is None:
        raise ValueError(f"agent spec {spec}: {spec.name} has no scores() to guide search")
    rollouts = search_rollouts(policy, search.pop("rollouts", None), spec)
    options = {"seed": 0 if spec.seed is None else spec.seed, "rollouts": rollouts, **search}
    name = getattr(policy, "name", spec.name) + SEARCH
    return SearchAgent(prior, name=name, **options)


def search_rollouts(policy: object, choice: Any, spec: AgentSpec) -> Rollouts | None:
    """The rollouts ``spec`` searches with, ``policy`` its prior (None for ``search``):
    ``choice`` is ``"policy"`` (the policy's own, from its ``search_rollouts()``),
    ``"heuristic"`` (:func:`installed_rollouts`), a rollouts object (used as is) or None
    (the policy's own if it offers them, else the heuristic's).

    >>> search_rollouts(None, "policy", AgentSpec.parse("search"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: agent spec 'search': search offers no rollouts of its own ...
    """
    own = getattr(policy, "search_rollouts", None)
    if choice is None:
        choice = "policy" if callable(own) else "heuristic"
    if not isinstance(choice, str):
        return choice  # type: ignore[no-any-return]
    if choice not in ROLLOUTS:
        raise ValueError(f"agent spec '{spec}': rollouts must be one of {ROLLOUTS}, not {choice!r}")
    if choice == "heuristic":
        return installed_rollouts()
    if not callable(own):
        raise ValueError(
            f"agent spec '{spec}': {spec.name} offers no rollouts of its own "
            f"(search_rollouts()); expected rollouts='heuristic'"
        )
    rollouts: Rollouts = own()
    return rollouts


def installed_rollouts() -> Rollouts | None:
    """The first rollouts registered under ``big2.rollouts`` (an instance), or None."""
    for entry in entry_points(group="big2.rollouts"):
        rollouts: Rollouts = entry.load()()
        return rollouts
    return None


def _from_object(name: str, rules: Rules, seed: int | None) -> Agent:
    """The agent ``MODULE:ATTRIBUTE`` names (see the module docstring)."""
    module_name, _, attribute = name.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise ValueError(f"agent spec {name!r}: cannot import {module_name!r} ({e})") from None
    try:
        found = functools.reduce(getattr, attribute.split("."), module)
    except AttributeError:
        raise ValueError(f"agent spec {name!r}: {module_name} has no {attribute!r}") from None
    agent = found
    if isinstance(found, type) or (callable(found) and not hasattr(found, "act")):
        agent = found(**_arguments(found, name, rules, seed))
    elif seed is not None:
        raise ValueError(f"agent spec {name!r}: an agent object takes no seed")
    if not callable(getattr(agent, "act", None)):
        raise ValueError(
            f"agent spec {name!r}: {attribute} is not an agent; expected an object with "
            f"act(view, legal_moves), or a class or function that makes one"
        )
    return agent


def _arguments(factory: Any, name: str, rules: Rules, seed: int | None) -> dict[str, Any]:
    """The keywords ``factory`` takes of ``rules`` and ``seed``."""
    try:
        taken = set(inspect.signature(factory).parameters)
    except (TypeError, ValueError):
        taken = set()
    if seed is not None and "seed" not in taken:
        raise ValueError(f"agent spec {name!r}: it takes no seed")
    out: dict[str, Any] = {"rules": rules} if "rules" in taken else {}
    return out | ({"seed": seed} if seed is not None else {})


def catalog() -> list[dict[str, str]]:
    """The agents that installed loaders name (``big2 agents``): every loader's
    ``catalog()``, in the order of the loaders."""
    out: list[dict[str, str]] = []
    for entry in entry_points(group="big2.agent_loaders"):
        listed = getattr(entry.load(), "catalog", None)
        out += listed() if callable(listed) else []
    return out


def _from_plugins(name: str, rules: Rules) -> Agent:
    loaders = list(entry_points(group="big2.agent_loaders"))
    for entry in loaders:
        agent = entry.load()(name, rules)
        if agent is not None:
            return agent  # type: ignore[no-any-return]
    if os.path.isfile(name):
        raise ValueError(
            f"no agent loader recognises the file {name!r} (tried: "
            f"{', '.join(e.name for e in loaders) or 'none installed'}); a big2 checkpoint is "
            f"a file written by training or training.export"
        )
    raise ValueError(
        f"unknown agent {name!r}; expected one of {BASELINES}, 'trained', a shipped agent "
        f"by its day (NAME@YYYY-MM-DD: big2 agents lists them), the path of a trained "
        f"checkpoint or MODULE:ATTRIBUTE (an agent of your own), optionally with +search "
        f"and :SEED"
    )
