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

import math
from collections.abc import Sequence

import numpy as np

from big2.game import View
from big2.hand_ranking import HandRanking
from big2.players.inference import Chain
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
        games = self._state(view.rules)
        candidates = np.array([_index(m) for m in moves], np.int64)
        wins = np.zeros(len(moves), np.int64)
        search.rollout_wins(_deals(deals), _history(view), candidates, view.seat, games.arrays,
                            games.tables.arrays, heuristic_arrays(view.rules), wins)  # fmt: skip
        return [int(w) for w in wins]

    def agreements(self, view: View, deals: Sequence[tuple[int, ...]]) -> list[int]:
        """For each of ``deals``, how many of the other seats' moves so far the heuristic
        would have made on it (:meth:`big2.players.search.AgentRollouts.agreements`)."""
        games = self._state(view.rules)
        agree = np.zeros(len(deals), np.int64)
        search.agreements(_deals(deals), _history(view), view.seat, games.arrays,
                          games.tables.arrays, heuristic_arrays(view.rules), agree)  # fmt: skip
        return [int(a) for a in agree]

    def walk(self, view: View, chain: Chain, inference: float) -> list[tuple[int, ...]]:
        """:func:`big2.players.inference.walk` with the heuristic's agreements, compiled:
        the same deals from the same chain."""
        games = self._state(view.rules)
        history = _history(view)
        n = len(history)
        odds = np.array([math.exp(inference * k) for k in range(-n, n + 1)], np.float64)
        kept = (len(chain.picks) - chain.burn_in) // chain.thin
        out = np.zeros((kept, 4), np.uint64)
        search.walk(np.array(chain.start, np.uint64), np.array(chain.cards, np.int64),
                    np.array(chain.picks, np.int64).reshape(-1, 2),
                    np.array(chain.accept, np.float64), odds, chain.burn_in, chain.thin,
                    history, view.seat, games.arrays, games.tables.arrays,
                    heuristic_arrays(view.rules), out)  # fmt: skip
        return [tuple(int(h) for h in row) for row in out]

    def _state(self, rules: Rules) -> Games:
        """The two games the kernels work in, for ``rules`` (made once)."""
        return self._games.get(rules) or self._games.setdefault(rules, Games(2, Tables.of(rules)))

    def __repr__(self) -> str:
        return "CompiledRollouts()"


def _deals(deals: Sequence[tuple[int, ...]]) -> np.ndarray:
    """Deals as the kernels take them: one row of four hands each."""
    return np.array(deals, np.uint64).reshape(-1, 4)


def _history(view: View) -> np.ndarray:
    """The moves so far, as the engine writes them."""
    return np.array([_index(e.move) for e in view.history], np.int64)


def _index(move: HandRanking) -> int:
    """A move as the engine writes it: its catalog index, or PASS."""
    return move.index if move else PASS
