"""Compiled search rollouts: what :class:`big2.players.search.AgentRollouts` computes with
:class:`~big2.players.heuristic.HeuristicAgent` in every seat, in one numba call per batch.

:class:`big2.players.search.SearchAgent` asks its rollouts how many of some sampled deals
each candidate move goes on to win; the Python rollouts replay the game and play it out
move by move, :class:`CompiledRollouts` does the same in the compiled engine
(:mod:`envs.kernels.search`) with the compiled heuristic, which plays the Python one's
moves. Agent specs with search (``search``, ``trained+search``) use it.

>>> from big2.game import Game
>>> from big2.players.search import sample_deal
>>> import random
>>> game = Game(seed=3)
>>> game.play(game.legal_moves()[0])
>>> view, rng = game.view(game.turn), random.Random(0)
>>> deals = [sample_deal(view, rng) for _ in range(4)]
>>> wins = CompiledRollouts().wins(view, deals, game.legal_moves()[:2])
>>> len(wins), all(0 <= w <= 4 for w in wins)
(2, True)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from big2.game import View
from big2.hand_ranking import HandRanking
from big2.rules import Rules
from envs.compiled_heuristic import heuristic_arrays
from envs.engine import Games, Tables
from envs.kernels import search
from envs.kernels.turns import PASS


class CompiledRollouts:
    """Heuristic rollouts in the compiled engine (see the module docstring). Deterministic."""

    name = "compiled"

    def __init__(self) -> None:
        self._games: dict[Rules, Games] = {}  # two games per rules preset, reused

    def wins(
        self, view: View, deals: Sequence[tuple[int, ...]], moves: Sequence[HandRanking]
    ) -> list[int]:
        """How many of ``deals`` (starting hands agreeing with ``view``) ``view.seat`` wins
        after each of ``moves`` (legal at ``view``), the heuristic playing every seat after."""
        rules = view.rules
        games = self._games.get(rules) or self._games.setdefault(rules, Games(2, Tables.of(rules)))
        history = np.array([_index(e.move) for e in view.history], np.int64)
        candidates = np.array([_index(m) for m in moves], np.int64)
        wins = np.zeros(len(moves), np.int64)
        search.rollout_wins(np.array(deals, np.uint64).reshape(-1, 4), history, candidates,
                            view.seat, games.arrays, games.tables.arrays,
                            heuristic_arrays(rules), wins)  # fmt: skip
        return [int(w) for w in wins]

    def __repr__(self) -> str:
        return "CompiledRollouts()"


def _index(move: HandRanking) -> int:
    """A move as the engine writes it: its catalog index, or PASS."""
    return move.index if move else PASS
