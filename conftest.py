"""Collection settings for the whole tree (doctests included)."""

from __future__ import annotations

try:  # the openspiel extra: without it, its modules' doctests cannot be collected
    import pyspiel  # noqa: F401
except ImportError:
    collect_ignore = ["envs/openspiel.py", "envs/openspiel_agent.py", "docs/openspiel.md"]


def pytest_configure(config) -> None:  # type: ignore[no-untyped-def]
    """Under pytest-xdist, compile numba's kernels in the controller before the workers
    start, so that they load them rather than each compile them (tests/warm_kernels.py)."""
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        from tests.warm_kernels import warm

        warm()
