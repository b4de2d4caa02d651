"""Observation encoders: what one seat may see, as named pieces of a flat float32 array.

Pieces may be cut into named fields (``"history.cards"``). The registry holds the
observers of a seat; :class:`FullStateObserver` (every hand, absolute seats: the layout of
``raw_env.state()``) is no seat's observation and is not registered. :mod:`observers.moves`
holds the move features: what a seat's view says of each of its legal moves, a row each.

>>> import observers
>>> sorted(observers.REGISTRY)
['card_counting', 'charlesworth', 'history', 'oracle', 'planes', 'simple']
>>> observers.make("history", k=4).pieces[-1].shape
(4, 57)
>>> [f.name for f in observers.make("history").pieces[-1].fields]
['seat', 'pass', 'cards']
>>> observers.make("x-ray")
Traceback (most recent call last):
...
ValueError: unknown observer 'x-ray'; expected one of ['card_counting', 'charlesworth', ...]
"""

from __future__ import annotations

from typing import Any

from big2.rules import STANDARD, Rules
from big2.rules import get as get_rules
from observers.base import Field, Observer, Piece, Pieces, card_rows
from observers.charlesworth import CharlesworthObserver
from observers.encoders import (
    CardCountingObserver,
    HistoryObserver,
    OracleObserver,
    PlanesObserver,
    SimpleObserver,
)
from observers.state import FullStateObserver

__all__ = [
    "REGISTRY",
    "Field",
    "FullStateObserver",
    "Observer",
    "Piece",
    "Pieces",
    "card_rows",
    "for_rules",
    "make",
    "register",
]

REGISTRY: dict[str, type[Observer]] = {}


def register(cls: type[Observer]) -> type[Observer]:
    """Add an Observer class to the registry under its ``name`` (usable as a decorator)."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no name to register under")
    REGISTRY[cls.name] = cls
    return cls


for _cls in (
    SimpleObserver,
    CardCountingObserver,
    HistoryObserver,
    PlanesObserver,
    CharlesworthObserver,
    OracleObserver,
):
    register(_cls)


def for_rules(observer: Observer | str, rules: Rules) -> Observer:
    """``observer`` (a registered name, or an instance) built for ``rules``; an instance
    built for other rules raises ``ValueError``.

    >>> for_rules("simple", STANDARD).rules == STANDARD
    True
    """
    made = make(observer, rules) if isinstance(observer, str) else observer
    if made.rules != rules:
        raise ValueError(f"observer was built for {made.rules.name}, not {rules.name}")
    return made


def make(name: str, rules: Rules | str = STANDARD, **params: Any) -> Observer:
    """A registered observer by name, built for ``rules`` (a Rules or preset name).

    Every observer but ``charlesworth`` (the 2018 code's, for four players of 13 cards)
    sizes its pieces by the rules' ``players``.

    >>> make("card_counting", "three-player").shapes["played"]
    (3, 52)
    """
    cls = REGISTRY.get(name)
    if cls is None:
        raise ValueError(f"unknown observer {name!r}; expected one of {sorted(REGISTRY)}")
    try:
        return cls(get_rules(rules), **params)
    except TypeError as e:
        raise ValueError(f"bad parameters {params} for observer {name!r}: {e}") from None
