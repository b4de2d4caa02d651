"""Move features: one row per legal move of a seat's view, one ``int8`` column per feature.

An observer describes the position once; move features describe each legal move of it,
in the order of the legal moves (for the catalog codec, ascending action order): what a
network finds hard to work out on its own. In the product, *features* means these rows
only (``Decisions.features``, the vector env's ``info["features"]``, ``--plan-features``
and ``--reply-features``).

**Plan features** (:func:`plan_features`, :data:`PLAN`), what the heuristic's planner
thinks of each move:

0. ``delta``: how the play changes the cost of shedding the hand, in half turns
   (:func:`big2.players.heuristic.plan_cost`, which searches five-card hands): -2 for a play
   that follows the cheapest plan, more for a play that breaks it; 0 for a pass.
1. ``control``: the play holds a 2 or nobody can beat it with the unseen cards.
2. ``in_plan``: the play is one of the plan's combinations.
3. ``heuristic``: the play (or pass) is what :class:`big2.players.heuristic.HeuristicAgent`
   would choose.

Row 3 hands the learner the heuristic's advice as an input, not as a rule: training
decides how far to follow it. All four come from the seat's own view, so an agent
using them stays a fair player.

**Reply features** (:func:`reply_features`, :data:`REPLIES`), who could answer each move:

0. ``next``, 1. ``across``, 2. ``previous``: that opponent could beat the play: it holds
   at least as many cards and the unseen cards hold a combination that beats it (0 for
   a pass). Of three players ``across`` is 0; of two the one opponent is ``next`` and
   the other two are 0 (:func:`observers.base.seat_names`).
3. ``open``: how many combinations of the plan of what the move leaves (the whole hand
   for a pass) some opponent could beat so.

Made with ``cheat`` (:data:`CHEATING_REPLIES`) they are read off the opponents' real
hands instead: *could* becomes *can*. Only an ``oracle`` actor, a cheating upper bound,
may be given those, and called on a view they need the game too.

The functions and the objects here are the readable reference, one view at a time; any
object with the :class:`MoveFeatures` shape will do. The vector env computes the rows of
these three for many games in one compiled call, picking the kernels by the object's
exact type (:func:`envs.batch_moves.batch_move_features`; the tests check the two agree
on every position), and a user's own object at Python speed, one view at a time.
:func:`make` builds what a config asks for: one set, or both side by side (plan
columns first).

>>> from big2.game import Game
>>> game = Game(seed=5)
>>> rows = plan_features(game.view(game.turn), game.legal_moves())
>>> rows.shape, rows.dtype, int(rows[:, 3].sum())  # one legal move (3D), the choice
((1, 4), dtype('int8'), 1)
>>> make(plan=True, replies=True)
JoinedFeatures(PlanFeatures(), ReplyFeatures(cheat=False))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from big2.board import seats_from
from big2.game import Game, View
from big2.hand_ranking import HandRanking
from big2.players.heuristic import HeuristicAgent, beatable, is_control, make_plan, plan_cost
from observers.base import seat_names

__all__ = [
    "CHEATING_REPLIES",
    "PLAN",
    "PLAN_FEATURES",
    "PLAN_SCALE",
    "REPLIES",
    "REPLY_FEATURES",
    "REPLY_SCALE",
    "JoinedFeatures",
    "MoveFeatures",
    "PlanFeatures",
    "ReplyFeatures",
    "make",
    "plan_features",
    "reply_features",
]

PLAN_FEATURES = 4  # delta, control, in plan, the heuristic's choice
REPLY_FEATURES = 4  # next, across, previous could beat it; combinations left open
PLAN_SCALE = (0.25, 1.0, 1.0, 1.0)  # delta in half turns -> about [-0.5, 3]; flags as they are
REPLY_SCALE = (1.0, 1.0, 1.0, 0.25)  # flags as they are; open combinations -> about [0, 2]

_HEURISTIC = HeuristicAgent()


@runtime_checkable
class MoveFeatures(Protocol):
    """What move features are: ``width`` columns, the ``scale`` an actor multiplies each
    column by, whether they read every hand (``perfect_information``: then calling them
    needs the ``game``), and a call that gives a ``(len(legal_moves), width)`` array."""

    @property
    def width(self) -> int: ...

    @property
    def scale(self) -> tuple[float, ...]: ...

    @property
    def perfect_information(self) -> bool: ...

    def __call__(
        self, view: View, legal_moves: Sequence[HandRanking], game: Game | None = None
    ) -> np.ndarray: ...


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


def reply_features(
    view: View, legal_moves: Sequence[HandRanking], hands: Sequence[int] | None = None
) -> np.ndarray:
    """``(len(legal_moves), REPLY_FEATURES)`` int8: who could answer each legal move (see
    module). ``hands``, every seat's hand by absolute seat, makes the cheating version.

    >>> from big2.game import Game
    >>> game = Game(seed=5)
    >>> rows = reply_features(game.view(game.turn), game.legal_moves())
    >>> rows[0, :3].tolist()        # 3D alone: every opponent could beat it
    [1, 1, 1]
    """
    out = np.zeros((len(legal_moves), REPLY_FEATURES), dtype=np.int8)
    rules, unseen = view.rules, view.unseen
    opponents = seats_from(view.seat, rules.players)[1:]
    columns = _REPLY_COLUMNS[rules.players]

    def could_beat(combo: HandRanking, seat: int) -> bool:
        if hands is not None:
            return beatable(hands[seat], combo, rules)
        return view.cards_left[seat] >= combo.size and beatable(unseen, combo, rules)

    for row, move in enumerate(legal_moves):
        rest = view.hand
        if move:
            rest &= ~move.cards
            out[row, columns] = [could_beat(move, seat) for seat in opponents]
        plan = make_plan(rest, rules)
        out[row, 3] = sum(any(could_beat(part, seat) for seat in opponents) for part in plan)
    return out


# the reply columns of each opponent, by player count: next, across, previous of four
_REPLY_COLUMNS = {
    n: [("next", "across", "previous").index(name) for name in seat_names(n)[1:]] for n in (2, 3, 4)
}


class PlanFeatures:
    """:func:`plan_features` as :class:`MoveFeatures` (:data:`PLAN`)."""

    width, scale, perfect_information = PLAN_FEATURES, PLAN_SCALE, False

    def __call__(
        self, view: View, legal_moves: Sequence[HandRanking], game: Game | None = None
    ) -> np.ndarray:
        return plan_features(view, legal_moves)

    def __repr__(self) -> str:
        return "PlanFeatures()"


class ReplyFeatures:
    """:func:`reply_features` as :class:`MoveFeatures` (:data:`REPLIES`). With ``cheat``
    (:data:`CHEATING_REPLIES`) it reads the opponents' hands: called, it needs the game."""

    width, scale = REPLY_FEATURES, REPLY_SCALE

    def __init__(self, cheat: bool = False) -> None:
        self.perfect_information = cheat

    def __call__(
        self, view: View, legal_moves: Sequence[HandRanking], game: Game | None = None
    ) -> np.ndarray:
        if not self.perfect_information:
            return reply_features(view, legal_moves)
        if game is None:
            raise ValueError("cheating reply features read every hand: pass the game")
        return reply_features(view, legal_moves, game.hands)

    def __repr__(self) -> str:
        return f"ReplyFeatures(cheat={self.perfect_information})"


class JoinedFeatures:
    """Several move features side by side: their columns, in order, in one row per move."""

    def __init__(self, *parts: MoveFeatures) -> None:
        self.parts = parts
        self.width = sum(p.width for p in parts)
        self.scale = tuple(x for p in parts for x in p.scale)
        self.perfect_information = any(p.perfect_information for p in parts)

    def __call__(
        self, view: View, legal_moves: Sequence[HandRanking], game: Game | None = None
    ) -> np.ndarray:
        return np.concatenate([p(view, legal_moves, game) for p in self.parts], axis=-1)

    def __repr__(self) -> str:
        return f"JoinedFeatures{self.parts!r}"


PLAN = PlanFeatures()
REPLIES = ReplyFeatures()
CHEATING_REPLIES = ReplyFeatures(cheat=True)


def make(plan: bool, replies: bool, cheat: bool = False) -> MoveFeatures | None:
    """The move features a config asks for (None: none); ``cheat`` makes the reply
    features read every hand.

    >>> make(True, True).width, make(False, False)
    (8, None)
    >>> make(False, True, cheat=True) is CHEATING_REPLIES
    True
    """
    reply = CHEATING_REPLIES if cheat else REPLIES
    parts = [p for p, wanted in ((PLAN, plan), (reply, replies)) if wanted]
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else JoinedFeatures(*parts)
