"""Collection settings for the whole tree (doctests included)."""

from __future__ import annotations

try:  # the openspiel extra: without it, its modules' doctests cannot be collected
    import pyspiel  # noqa: F401
except ImportError:
    collect_ignore = ["envs/openspiel.py", "envs/openspiel_agent.py", "docs/openspiel.md"]
