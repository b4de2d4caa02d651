"""The ``big2.agent_loaders`` plugin (see :mod:`big2.players.specs`) that serves big2's
checkpoints and shipped agents by name.

It imports torch (through :mod:`training.checkpoint`) only for a name that is its own,
so that any other name (a baseline, a typo, another loader's agent) is passed on at once
and ``big2 agents`` lists the shipped agents without loading one.

>>> from big2.rules import STANDARD
>>> agent_loader("no-such-agent", STANDARD) is None
True
>>> is_ours("trained@2026-11-21"), is_ours("mine.pt"), is_ours("heuristic")
(True, True, False)
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from big2.rules import Rules
from training import shipped

if TYPE_CHECKING:
    from envs.policy_agent import PolicyAgent


def is_ours(name: str) -> bool:
    """Whether ``name`` is this loader's to try: one that :func:`training.shipped.claims`,
    or a file that may be a checkpoint."""
    return shipped.claims(name) or Path(name).is_file()


class CheckpointLoader:
    """Called with a shipped agent's name or a checkpoint file, an agent; None for anything
    else, so another loader may serve it. A file is this loader's if it is a big2
    checkpoint, or if its name ends in ``.pt`` (then a missing or unreadable file raises
    :class:`training.checkpoint.CheckpointError` saying why). :meth:`catalog` lists the
    shipped agents (``big2 agents``)."""

    def __call__(self, name: str, rules: Rules) -> PolicyAgent | None:
        if not is_ours(name):
            return None
        from training.checkpoint import agent_named  # torch, for a name that is ours only

        return agent_named(name, rules)

    def catalog(self) -> list[dict[str, str]]:
        """Every shipped agent, current and past: its spec, rules, the day it shipped,
        and where its file is (or why it is not here)."""
        return [_entry(agent) for agent in shipped.HISTORY]


def _entry(agent: shipped.Shipped) -> dict[str, str]:
    now = shipped.is_current(agent)
    path = shipped.current_file(agent.name) if now else shipped.past_file(agent)
    if path.is_file():
        where = str(path)
    elif now:
        where = "missing from this installation: reinstall big2 with its package data"
    else:
        where = "kept in the repository, not installed here"
    spec = agent.name if now else agent.spec
    return {"spec": spec, "rules": agent.rules, "shipped": agent.date, "where": where}


agent_loader = CheckpointLoader()
