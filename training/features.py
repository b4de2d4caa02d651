"""Moved: the per-move features are :mod:`observers.moves` (what a seat sees, beside the
observers), their compiled rows :mod:`envs.batch_moves`. Each name this module held
raises ``ImportError`` saying where it went.

>>> from training.features import PLAN
Traceback (most recent call last):
...
ImportError: training.features.PLAN has moved: the move features are observers.moves ...
"""

from __future__ import annotations

from typing import NoReturn

KEPT = (
    "CHEATING_REPLIES",
    "PLAN",
    "PLAN_FEATURES",
    "REPLIES",
    "REPLY_FEATURES",
    "REPLY_SCALE",
    "JoinedFeatures",
    "PlanFeatures",
    "ReplyFeatures",
    "plan_features",
    "reply_features",
)
# the names this module held -> their names in observers.moves
MOVED = {"legal_features": "make", "SCALE": "PLAN_SCALE", "Features": "MoveFeatures"} | {
    name: name for name in KEPT
}


def __getattr__(name: str) -> NoReturn:
    if name not in MOVED:
        raise AttributeError(f"module 'training.features' has no attribute {name!r}")
    raise ImportError(
        f"training.features.{name} has moved: the move features are observers.moves "
        f"(observers.moves.{MOVED[name]}); their compiled rows, for many games at once, "
        "envs.batch_moves.batch_move_features"
    )
