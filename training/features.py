"""Plan features: what the heuristic's planner thinks of each legal action.

The catalog actor already describes an action by its cards, its category and what it
leaves in the hand grouped by rank (see :func:`training.nets.rest_features`). These
features add what a network finds hard to compute on its own: one row per legal move,
in the order of the legal moves (for the catalog codec, ascending action order), one
column per feature, as ``int8``:

0. ``delta``: how the play changes the cost of shedding the hand, in half turns
   (:func:`big2.players.heuristic.plan_cost`, which searches five-card hands): -2 for a play
   that follows the cheapest plan, more for a play that breaks it; 0 for a pass.
1. ``control``: the play holds a 2 or nobody can beat it with the unseen cards.
2. ``in_plan``: the play is one of the plan's combinations.
3. ``heuristic``: the play (or pass) is what :class:`big2.players.heuristic.HeuristicAgent`
   would choose.

:func:`plan_features` is the readable reference, one view at a time; :data:`PLAN` is the
object envs and agents take: called on a view it is :func:`plan_features`, and its
``batch`` computes the same rows for many games of the compiled engine in one call
(:meth:`envs.compiled_heuristic.CompiledHeuristic.plan_features`; the tests check the two
agree on every position).

Row 3 hands the learner the heuristic's advice as an input, not as a rule: training
decides how far to follow it. All four come from the seat's own view, so an agent
using them stays a fair player.

>>> from big2.game import Game
>>> game = Game(seed=5)
>>> rows = plan_features(game.view(game.turn), game.legal_moves())
>>> rows.shape, rows.dtype, int(rows[:, 3].sum())  # one legal move (3D), the choice
((1, 4), dtype('int8'), 1)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from big2.game import View
from big2.hand_ranking import HandRanking
from big2.players.heuristic import HeuristicAgent, is_control, make_plan, plan_cost
from envs.compiled_heuristic import CompiledHeuristic
from envs.decisions import Legal
from envs.engine import Games
from envs.kernels.heuristic import PLAN_FEATURES

__all__ = ["PLAN", "PLAN_FEATURES", "SCALE", "PlanFeatures", "plan_features"]

SCALE = (0.25, 1.0, 1.0, 1.0)  # delta in half turns -> about [-0.5, 3]; flags as they are

_HEURISTIC = HeuristicAgent()


def plan_features(view: View, legal_moves: Sequence[HandRanking]) -> np.ndarray:
    """``(len(legal_moves), PLAN_FEATURES)`` int8 features of each legal move (see module)."""
    out = np.zeros((len(legal_moves), PLAN_FEATURES), dtype=np.int8)
    if not legal_moves:
        return out
    rules, hand = view.rules, view.hand
    now = plan_cost(hand, rules)
    plan = set(make_plan(hand, rules))
    choice = _HEURISTIC.act(view, legal_moves)
    for row, move in enumerate(legal_moves):
        if move:
            delta = round(2 * (plan_cost(hand & ~move.cards, rules) - now))
            out[row, 0] = max(-127, min(127, delta))
            out[row, 1] = is_control(move, view)
            out[row, 2] = move in plan
        out[row, 3] = move == choice
    return out


class PlanFeatures:
    """:func:`plan_features` as an object: called per view (the reference), and ``batch``
    for many games of the compiled engine at once (the env's fast path)."""

    def __init__(self) -> None:
        self.compiled = CompiledHeuristic()

    def __call__(self, view: View, legal_moves: Sequence[HandRanking]) -> np.ndarray:
        return plan_features(view, legal_moves)

    def batch(self, games: Games, slots: np.ndarray, legal: Legal) -> np.ndarray:
        """(len(slots), K, PLAN_FEATURES) int8, row j of game i for ``legal``'s move j."""
        return self.compiled.plan_features(games, slots, legal)

    def __repr__(self) -> str:
        return "PlanFeatures()"


PLAN = PlanFeatures()
