"""Renamed keywords: an old name raises ``TypeError`` naming the new one.

>>> @renamed(legal_features="move_features")
... def make(n, move_features=None):
...     return n, move_features
>>> make(2, move_features="plan")
(2, 'plan')
>>> make(2, legal_features="plan")
Traceback (most recent call last):
...
TypeError: make() takes no keyword 'legal_features' any more: it is 'move_features' now
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def renamed(**new_names: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """A decorator: calling the function with an old keyword (a key of ``new_names``)
    raises ``TypeError`` naming its new name (the value), before anything is done."""

    def wrap(function: Callable[P, R]) -> Callable[P, R]:
        name = function.__qualname__.removesuffix(".__init__")  # a class: its name

        @functools.wraps(function)
        def checked(*args: P.args, **kwargs: P.kwargs) -> R:
            for old in sorted(new_names.keys() & kwargs.keys()):
                raise TypeError(
                    f"{name}() takes no keyword {old!r} any more: it is {new_names[old]!r} now"
                )
            return function(*args, **kwargs)

        return checked

    return wrap
