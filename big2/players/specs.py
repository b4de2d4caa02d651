"""Agent specs: one grammar that names every agent, parsed in one place.

``NAME[+search][:SEED]``, where NAME is a baseline (``random``, ``greedy``,
``heuristic``, ``search``), ``trained`` (the shipped agent) or the path of a training
checkpoint; ``+search`` puts a policy inside :class:`~big2.players.search.SearchAgent`
as its prior (``trained+search``); ``:SEED`` seeds an agent that uses randomness
(``random:3``, ``search:1``, ``trained+search:2``) and is refused by deterministic ones.

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
an agent, or None when ``name`` is not its kind; an agent used with ``+search`` must
also have ``scores(view, legal_moves)`` (one score per move, higher is likelier).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from big2.players.base import Agent
from big2.players.baselines import GreedyAgent, RandomAgent
from big2.players.heuristic import HeuristicAgent
from big2.players.search import Prior, SearchAgent
from big2.rules import STANDARD, Rules

SEARCH = "+search"
_SEED = re.compile(r"^(?P<rest>.+):(?P<seed>\d+)$")

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
        return SearchAgent(seed=0 if spec.seed is None else spec.seed, **search)
    if spec.name in DETERMINISTIC:
        return DETERMINISTIC[spec.name]()
    policy = _from_plugins(spec.name, rules)
    if not spec.search:
        if spec.seed is not None:
            raise ValueError(f"agent spec {spec}: a policy plays greedily and takes no seed")
        return policy
    prior: Prior | None = getattr(policy, "scores", None)
    if prior is None:
        raise ValueError(f"agent spec {spec}: {spec.name} has no scores() to guide search")
    options = {"seed": 0 if spec.seed is None else spec.seed, **search}
    name = getattr(policy, "name", spec.name) + SEARCH
    return SearchAgent(prior, name=name, **options)


def _from_plugins(name: str, rules: Rules) -> Agent:
    for entry in entry_points(group="big2.agent_loaders"):
        agent = entry.load()(name, rules)
        if agent is not None:
            return agent  # type: ignore[no-any-return]
    raise ValueError(
        f"unknown agent {name!r}; expected one of {BASELINES}, 'trained' or the path of a "
        f"trained checkpoint, optionally with +search and :SEED"
    )
