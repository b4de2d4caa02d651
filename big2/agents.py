"""Baseline players. An agent has ``act(view, legal_moves) -> move``.

>>> from big2.game import Game
>>> game = Game(seed=1)
>>> agents = [GreedyAgent(), RandomAgent(seed=0), GreedyAgent(), RandomAgent(seed=1)]
>>> while not game.is_over:
...     seat = game.turn
...     game.play(agents[seat].act(game.view(seat), game.legal_moves()))
>>> sum(game.scores())
0
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from typing import Protocol

from big2.board import Seed, make_rng
from big2.game import View
from big2.hand_ranking import HandRanking
from big2.rules import STANDARD, Rules


class Agent(Protocol):
    """Anything that picks one of the legal moves from a seat's view."""

    def act(self, view: View, legal_moves: Sequence[HandRanking]) -> HandRanking: ...


class RandomAgent:
    """Picks uniformly among the legal moves (PASS included when allowed)."""

    name = "random"

    def __init__(self, seed: Seed = None) -> None:
        self.rng = make_rng(seed)

    def reset(self, seed: int) -> None:
        """Reseed (the arena calls this before every game, for reproducibility)."""
        self.rng = random.Random(seed)

    def act(self, view: View, legal_moves: Sequence[HandRanking]) -> HandRanking:
        return self.rng.choice(legal_moves)

    def __repr__(self) -> str:
        return "RandomAgent()"


class GreedyAgent:
    """Plays the weakest legal combination; when leading, the weakest of the longest size.

    Passes only when it has no combination to play.
    """

    name = "greedy"

    def act(self, view: View, legal_moves: Sequence[HandRanking]) -> HandRanking:
        plays = [m for m in legal_moves if m]
        if not plays:
            return legal_moves[0]
        if view.table is None:
            longest = max(m.size for m in plays)
            return next(m for m in plays if m.size == longest)
        return plays[0]

    def __repr__(self) -> str:
        return "GreedyAgent()"


def _heuristic() -> Agent:
    from big2.heuristic import HeuristicAgent

    return HeuristicAgent()


def _search() -> Agent:
    from big2.search import SearchAgent

    return SearchAgent(seed=0)


AGENTS: dict[str, Callable[[], Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "heuristic": _heuristic,
    "search": _search,  # heuristic rollouts, no learned prior (slow: ~0.3 s a game)
}


def load_agent(spec: str, rules: Rules = STANDARD) -> Agent:
    """A baseline by name, or an agent from a plugin loader (e.g. a trained checkpoint).

    Loaders are found through the ``big2.agent_loaders`` entry-point group, so this
    package never imports its plugins; ``training`` registers one for checkpoints
    (paths and the name ``trained``).
    """
    if spec in AGENTS:
        return make_agent(spec)
    for entry in entry_points(group="big2.agent_loaders"):
        agent = entry.load()(spec, rules)
        if agent is not None:
            return agent  # type: ignore[no-any-return]
    raise ValueError(
        f"unknown agent {spec!r}; expected one of {sorted(AGENTS)}, 'trained' "
        f"or the path of a trained checkpoint"
    )


def make_agent(name: str) -> Agent:
    """A baseline agent by name: ``"random"``, ``"greedy"``, ``"heuristic"`` or ``"search"``.

    >>> make_agent("greedy")
    GreedyAgent()
    """
    factory = AGENTS.get(name)
    if factory is None:
        raise ValueError(f"unknown agent {name!r}; expected one of {sorted(AGENTS)}")
    return factory()
