"""The two simplest baselines: :class:`RandomAgent` and :class:`GreedyAgent`.

>>> from big2.game import Game
>>> game = Game(seed=1)
>>> GreedyAgent().act(game.view(game.turn), game.legal_moves())  # the weakest of the longest
HandRanking.from_str('3D 3C 3S 7C 7H')
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from big2.board import Seed, make_rng
from big2.game import View
from big2.hand_ranking import HandRanking


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
