"""Shared helpers for the training tests (not a test module).

Imported as a top-level module (tests/ has no ``__init__.py``), like ``env_helpers``.
The tests train on the defaults ``training.train`` had until 2026-12-02
(:data:`training.config.FORMER_DEFAULTS`: small networks, no per-move features,
evaluations in the arena), which keep them quick; today's defaults are the shipped
agent's first stage, and ``test_training_config`` checks them.

>>> former_config(hidden=(8,)).hidden, former_config().plan_features
((8,), False)
>>> flags({"hidden": (8, 4), "plan_features": False, "lr": 0.1})
['--hidden', '8', '4', '--no-plan-features', '--lr', '0.1']
>>> study_sets({"opponents": ("random", "greedy"), "plan_features": False})
['--set', 'opponents=random greedy', '--set', 'plan_features=False']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from training.ablation.study import OWN
from training.config import FORMER_DEFAULTS, Config


def former_config(**settings: Any) -> Config:
    """A config of ``settings`` over the former defaults (not today's)."""
    return Config(**{**FORMER_DEFAULTS, **settings})


def flags(settings: Mapping[str, Any]) -> list[str]:
    """``settings`` as ``python -m training.train`` flags."""
    out: list[str] = []
    for key, value in settings.items():
        flag = key.replace("_", "-")
        if isinstance(value, bool):
            out.append(f"--{flag}" if value else f"--no-{flag}")
        elif isinstance(value, tuple):
            out += [f"--{flag}", *map(str, value)]
        else:
            out += [f"--{flag}", str(value)]
    return out


def study_sets(settings: Mapping[str, Any]) -> list[str]:
    """``settings`` as ``python -m training.ablation --set`` options."""
    out: list[str] = []
    for key, value in settings.items():
        text = " ".join(map(str, value)) if isinstance(value, tuple) else str(value)
        out += ["--set", f"{key}={text}"]
    return out


# the former defaults as flags: a run's, and a study's (but what a study sets itself)
FORMER_FLAGS = flags(FORMER_DEFAULTS)
FORMER_SETS = study_sets({k: v for k, v in FORMER_DEFAULTS.items() if k not in OWN})
