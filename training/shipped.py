"""Every agent that shipped, by name and the day it shipped: ``NAME@YYYY-MM-DD``.

``trained`` and ``trained-charlesworth`` name the current agents (package data:
``training/agents/NAME.pt``); ``NAME@YYYY-MM-DD`` names the one shipped that day (when
several shipped the same day, the day's last: the one that stood at the end of it), the
current one by its own day too (``trained@2026-11-28`` is ``trained``). The agents they
replaced are kept in the repository, ``training/agents/past/NAME@YYYY-MM-DD.pt`` (taken
from git history, each at the commit named in :data:`HISTORY`), outside the wheel: an
installation from a wheel has the current agents only, and a past one asked for there
raises :class:`LookupError` saying where it is kept.

>>> find("trained@2026-11-24").commit
'5715d8e'
>>> find("trained@2026-11-28") == find("trained")
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

PAST = "past"  # the folder of training/agents that holds the replaced agents
_DATED = re.compile(r"^(?P<name>[\w-]+)@(?P<date>\d{4}-\d{2}-\d{2})$")


@dataclass(frozen=True)
class Shipped:
    """One shipped agent: its name, the day it shipped, its rules, the commit that
    shipped it and what it was."""

    name: str
    date: str
    rules: str
    commit: str
    about: str

    @property
    def spec(self) -> str:
        """Its dated name: ``NAME@YYYY-MM-DD``."""
        return f"{self.name}@{self.date}"


RULES = {"trained": "standard", "trained-charlesworth": "charlesworth"}  # by name
FILES = {name: f"{name}.pt" for name in RULES}  # the current agents' package data, by name


def _shipped(spec: str, commit: str, about: str) -> Shipped:
    name, _, date = spec.partition("@")
    return Shipped(name, date, RULES[name], commit, about)


# oldest first; the last of each name is the current agent (its file: FILES)
HISTORY = tuple(
    _shipped(*row)
    for row in [
        ("trained@2026-11-21", "e4552c0", "one PPO network, plan features, win-reward fine-tune"),
        ("trained@2026-11-24", "5715d8e", "one network, two stages at fixed tables"),
        ("trained@2026-11-27", "0c509ae", "ensemble of two, self-play only"),
        ("trained@2026-11-28", "f0c6872", "ensemble of two, self-play then fixed tables"),
        ("trained-charlesworth@2026-11-24", "5715d8e", "one network, two stages at fixed tables"),
        ("trained-charlesworth@2026-11-27", "0c509ae", "ensemble of two, self-play only"),
        ("trained-charlesworth@2026-11-28", "e1c6744", "ensemble of two, 5M self-play + 5M fixed"),
        ("trained-charlesworth@2026-12-03", "a31e808", "ensemble of two, 32M population decisions"),
    ]
)


def current(name: str) -> Shipped:
    """The current agent called ``name``."""
    return [s for s in HISTORY if s.name == name][-1]


def is_dated(name: str) -> bool:
    """Whether ``name`` reads ``NAME@YYYY-MM-DD`` for a shipped NAME.

    >>> is_dated("trained@2026-11-21"), is_dated("trained"), is_dated("mine@2026-11-21")
    (True, False, False)
    """
    match = _DATED.match(name)
    return match is not None and match["name"] in RULES


def claims(name: str) -> bool:
    """Whether ``name`` can only be a big2 checkpoint, so that its loader (the
    ``big2.agent_loaders`` plugin, :mod:`training.loader`) raises for it rather than pass
    it on: a shipped agent (``trained``, ``trained@2026-11-24``) or a ``.pt`` file's name.

    >>> claims("trained"), claims("mine.pt"), claims("heuristic")
    (True, True, False)
    """
    return name in FILES or is_dated(name) or name.endswith(".pt")


def find(name: str) -> Shipped:
    """The shipped agent ``name`` (``NAME`` or ``NAME@YYYY-MM-DD``); an unknown day
    raises :class:`LookupError` listing the days there are."""
    match = _DATED.match(name)
    if not match:
        return current(name)
    base, date = match["name"], match["date"]
    days = [s for s in HISTORY if s.name == base]
    for s in days:
        if s.date == date:
            return s
    raise LookupError(
        f"no {base} shipped on {date}; expected one of {[s.spec for s in days]} "
        f"(big2 agents lists them)"
    )


def is_current(agent: Shipped) -> bool:
    """Whether ``agent`` is the current one of its name."""
    return current(agent.name) == agent


def current_file(name: str) -> Path:
    """Where the current agent ``name`` is installed (package data of ``training``)."""
    return Path(str(resources.files("training").joinpath("agents", FILES[name])))


def past_file(agent: Shipped) -> Path:
    """Where a replaced agent is kept (it may be absent: a wheel has none)."""
    return Path(str(resources.files("training").joinpath("agents", PAST, f"{agent.spec}.pt")))


def kept_file(agent: Shipped) -> Path:
    """The file of a replaced agent; :class:`LookupError` if this installation lacks it."""
    path = past_file(agent)
    if not path.is_file():
        raise LookupError(
            f"{agent.spec} is a past agent, kept in the big2 repository "
            f"(training/agents/{PAST}/{agent.spec}.pt), not in the wheel: clone the "
            f"repository and install it (pip install -e .), or name that file's path"
        )
    return path
