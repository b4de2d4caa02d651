"""Let any policy play in the arena: a callable from (observation, mask) to an action.

>>> import numpy as np
>>> from big2.arena import evaluate
>>> first_legal = PolicyAgent(lambda obs, mask: int(np.flatnonzero(mask)[0]), name="first")
>>> evaluate([first_legal, "random", "random", "random"], 5, seed=0).agents[0].name
'first'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import observers
from big2.game import View
from big2.hand_ranking import HandRanking
from big2.rules import STANDARD, Rules
from envs import codecs
from observers.base import Observer

Policy = Callable[..., int]
# extra per-action input for the policy, from what the seat sees: (view, legal moves, codec)
ActionFeatures = Callable[[View, Sequence[HandRanking], Any], np.ndarray]


class PolicyAgent:
    """An :class:`big2.agents.Agent` that asks ``policy(observation, mask)`` for an action.

    The observation and mask are what the env would give that seat (the observer and
    codec named here); the action is decoded and must be legal, or ``ValueError``.
    With ``features``, the policy is called as ``policy(obs, mask, features(view,
    legal_moves, codec))`` (e.g. :func:`training.features.plan_features`).
    """

    def __init__(
        self,
        policy: Policy,
        observer: Observer | str = "simple",
        actions: str = "catalog",
        rules: Rules = STANDARD,
        name: str = "policy",
        features: ActionFeatures | None = None,
    ) -> None:
        self.observer = observers.make(observer, rules) if isinstance(observer, str) else observer
        if self.observer.perfect_information:
            raise ValueError(
                f"observer {self.observer.name!r} needs the full game; agents see views"
            )
        self.codec = codecs.make(actions, rules)
        self.policy, self.name, self.features = policy, name, features

    def inputs(self, view: View, legal_moves: Sequence[HandRanking]) -> tuple[np.ndarray, ...]:
        """What the policy is called with: (observation, mask[, features])."""
        obs = self.observer.observe(view)
        mask = self.codec.mask(legal_moves, view.hand)
        if self.features is None:
            return obs, mask
        return obs, mask, self.features(view, legal_moves, self.codec)

    def act(self, view: View, legal_moves: Sequence[HandRanking]) -> HandRanking:
        action = int(self.policy(*self.inputs(view, legal_moves)))
        move = self.codec.decode(action, view.hand)
        if move not in legal_moves:
            raise ValueError(f"policy {self.name!r} chose action {action} ({move}), not legal now")
        return move

    def __repr__(self) -> str:
        return f"PolicyAgent(name={self.name!r}, observer={self.observer.name!r})"
