""":class:`~big2.players.heuristic.HeuristicAgent` over many games in one compiled call.

:class:`CompiledHeuristic` reads a :class:`envs.engine.Games`' arrays and returns, for the
acting seat of each game asked about, exactly the move the Python agent makes on that
seat's view and legal moves (a catalog index, or -1 for a pass); the kernels are in
:mod:`envs.kernels.heuristic`, and the tests check the two move for move.

>>> from big2.board import Board
>>> from big2.rules import STANDARD
>>> from envs.engine import Games, Tables
>>> games = Games(1, Tables.of(STANDARD))
>>> games.deal(0, Board(seed=5).hands)
>>> move = CompiledHeuristic().choose(games, np.array([0]))[0]
>>> bool(int(games.tables.cards[move]) & 1)   # the opening play contains 3D
True
"""

from __future__ import annotations

from functools import cache

import numpy as np

from big2.hand_ranking import Ranking
from big2.rules import Rules
from envs.engine import Games, Tables, max_combos
from envs.kernels import heuristic, replies, search
from envs.kernels.combos import enumerate_combos
from envs.kernels.heuristic import HeuristicArrays
from envs.kernels.turns import CatalogArrays, GameArrays
from observers.moves import PLAN_FEATURES, REPLY_FEATURES


class CompiledHeuristic:
    """The heuristic player, batched: see the module docstring. Deterministic."""

    name = "heuristic"

    def choose(self, games: Games, slots: np.ndarray) -> np.ndarray:
        """(len(slots),) int64: the move of the seat to act in each game of ``slots``
        (PASS, -1, for a finished game)."""
        slots = np.ascontiguousarray(slots, dtype=np.int64)
        out = np.empty(len(slots), np.int64)
        state, cat, heur = heuristic_inputs(games)
        heuristic.choose(slots, state, cat, heur, out)
        return out

    def plan_features(
        self, games: Games, slots: np.ndarray, moves: np.ndarray, counts: np.ndarray
    ) -> np.ndarray:
        """(len(slots), K, PLAN_FEATURES) int8: :func:`observers.moves.plan_features` of the
        acting seat of each game of ``slots``, row j for its legal move ``moves[i, j]`` (a
        catalog index or PASS; the first ``counts[i]`` are legal, zeros past them)."""
        slots = np.ascontiguousarray(slots, dtype=np.int64)
        out = np.zeros((*moves.shape, PLAN_FEATURES), np.int8)
        chosen = self.choose(games, slots)
        state, cat, heur = heuristic_inputs(games)
        heuristic.plan_features(slots, chosen, moves, counts, state, cat, heur, out)
        return out

    def reply_features(
        self,
        games: Games,
        slots: np.ndarray,
        moves: np.ndarray,
        counts: np.ndarray,
        cheat: bool = False,
    ) -> np.ndarray:
        """(len(slots), K, REPLY_FEATURES) int8: :func:`observers.moves.reply_features` of
        the acting seat of each game of ``slots`` (``cheat``: read off the opponents'
        hands), rows as :meth:`plan_features`'."""
        slots = np.ascontiguousarray(slots, dtype=np.int64)
        out = np.zeros((*moves.shape, REPLY_FEATURES), np.int8)
        state, cat, heur = heuristic_inputs(games)
        replies.reply_features(slots, moves, counts, cheat, state, cat, heur, out)
        return out

    def playout_winners(self, games: Games, slots: np.ndarray) -> np.ndarray:
        """(len(slots),) int64: the seat that goes out first in each game of ``slots`` if
        the heuristic played every seat from where the game stands (the games are left as
        they are; a finished game's winner is its own).

        >>> from big2.board import Board
        >>> from big2.rules import STANDARD
        >>> games = Games(1, Tables.of(STANDARD))
        >>> games.deal(0, Board(seed=5).hands)
        >>> winner = CompiledHeuristic().playout_winners(games, np.array([0]))[0]
        >>> int(winner) in range(4), int(games.n_moves[0])   # who would win; still unplayed
        (True, 0)
        """
        slots = np.ascontiguousarray(slots, dtype=np.int64)
        out = np.empty(len(slots), np.int64)
        scratch = _scratch(games.tables.rules).arrays
        state, cat, heur = heuristic_inputs(games)
        search.playout_winners(slots, state, scratch, cat, heur, out)
        return out

    def __repr__(self) -> str:
        return "CompiledHeuristic()"


@cache
def _scratch(rules: Rules) -> Games:
    """A one-game state per rules preset that playouts are copied into."""
    return Games(1, Tables.of(rules))


def heuristic_inputs(games: Games) -> tuple[GameArrays, CatalogArrays, HeuristicArrays]:
    """What the heuristic's kernels read of ``games``: its arrays, its catalog's, and
    :func:`heuristic_arrays` of its rules."""
    return games.arrays, games.tables.arrays, heuristic_arrays(games.tables.rules)


@cache
def heuristic_arrays(rules: Rules) -> HeuristicArrays:
    """The catalog facts the kernels need beyond :class:`Tables` (built once per rules)."""
    tables = Tables.of(rules)
    top = np.array([int(c).bit_length() - 1 for c in tables.cards], np.int64)
    weakest = np.full(len(Ranking), -1, np.int64)
    for ranking in Ranking:
        five = np.flatnonzero((tables.size == 5) & (tables.ranking == ranking))
        if five.size:
            weakest[ranking] = five[0]
    return HeuristicArrays(top, weakest)


def make_plan(hand: int, rules: Rules) -> list[int]:
    """The catalog indices of ``hand``'s plan, as ``big2.players.heuristic.make_plan``."""
    tables, fives = Tables.of(rules), _fives(hand, rules)
    out = np.empty(heuristic.PLAN_CAPACITY, np.int64)
    n = heuristic.plan(np.uint64(hand), fives, tables.arrays, heuristic_arrays(rules), out)
    return [int(i) for i in out[:n]]


def plan_cost(hand: int, rules: Rules) -> float:
    """What shedding ``hand`` costs, as ``big2.players.heuristic.plan_cost``."""
    arrays = Tables.of(rules).arrays
    fives = _fives(hand, rules)
    cost = heuristic.best_fives(np.uint64(hand), fives, arrays, heuristic_arrays(rules))[0]
    return float(cost)


def _fives(hand: int, rules: Rules) -> np.ndarray:
    """The catalog indices of the five-card hands in ``hand``, in catalog order."""
    tables = Tables.of(rules)
    combos = np.empty(max_combos(rules), np.int64)
    n = enumerate_combos(np.uint64(hand), tables.arrays, combos)
    start = int(tables.size_end[4])
    return combos[:n][combos[:n] >= start]
