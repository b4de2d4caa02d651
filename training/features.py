"""Per-move features: what the heuristic's planner thinks of each legal action (plan
features), and who could answer it (reply features).

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

**Reply features** (:func:`reply_features`, :data:`REPLIES`) say who could answer each
move, one column each:

0. ``next``, 1. ``across``, 2. ``previous``: that opponent could beat the play: it holds
   at least as many cards and the unseen cards hold a combination that beats it (0 for
   a pass).
3. ``open``: how many combinations of the plan of what the move leaves (the whole hand
   for a pass) some opponent could beat so.

Made with ``cheat`` (:data:`CHEATING_REPLIES`) they are read off the opponents' real
hands instead: *could* becomes *can*. Only an ``oracle`` actor, a cheating upper bound,
may be given those; they are the part of what it sees that a network finds hard to work
out of four hands of bits. :func:`legal_features` makes what a config asks for: one
set, or both side by side (plan columns first).

>>> from big2.game import Game
>>> game = Game(seed=5)
>>> rows = plan_features(game.view(game.turn), game.legal_moves())
>>> rows.shape, rows.dtype, int(rows[:, 3].sum())  # one legal move (3D), the choice
((1, 4), dtype('int8'), 1)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from big2.board import seats_from
from big2.game import Game, View
from big2.hand_ranking import HandRanking
from big2.players.heuristic import HeuristicAgent, beatable, is_control, make_plan, plan_cost
from envs.compiled_heuristic import CompiledHeuristic
from envs.decisions import Legal
from envs.engine import Games
from envs.kernels.heuristic import PLAN_FEATURES
from envs.kernels.replies import REPLY_FEATURES

__all__ = [
    "CHEATING_REPLIES",
    "PLAN",
    "PLAN_FEATURES",
    "REPLIES",
    "REPLY_FEATURES",
    "SCALE",
    "Features",
    "JoinedFeatures",
    "PlanFeatures",
    "ReplyFeatures",
    "legal_features",
    "plan_features",
    "reply_features",
]

SCALE = (0.25, 1.0, 1.0, 1.0)  # delta in half turns -> about [-0.5, 3]; flags as they are
REPLY_SCALE = (1.0, 1.0, 1.0, 0.25)  # flags as they are; open combinations -> about [0, 2]

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
    rules, unseen, opponents = view.rules, view.unseen, seats_from(view.seat)[1:]

    def could_beat(combo: HandRanking, seat: int) -> bool:
        if hands is not None:
            return beatable(hands[seat], combo, rules)
        return view.cards_left[seat] >= combo.size and beatable(unseen, combo, rules)

    for row, move in enumerate(legal_moves):
        rest = view.hand
        if move:
            rest &= ~move.cards
            out[row, :3] = [could_beat(move, seat) for seat in opponents]
        plan = make_plan(rest, rules)
        out[row, 3] = sum(any(could_beat(part, seat) for seat in opponents) for part in plan)
    return out


class PlanFeatures:
    """:func:`plan_features` as an object: called per view (the reference), and ``batch``
    for many games of the compiled engine at once (the env's fast path)."""

    width, scale, perfect_information = PLAN_FEATURES, SCALE, False

    def __init__(self) -> None:
        self.compiled = CompiledHeuristic()

    def __call__(
        self, view: View, legal_moves: Sequence[HandRanking], game: Game | None = None
    ) -> np.ndarray:
        return plan_features(view, legal_moves)

    def batch(self, games: Games, slots: np.ndarray, legal: Legal) -> np.ndarray:
        """(len(slots), K, PLAN_FEATURES) int8, row j of game i for ``legal``'s move j."""
        return self.compiled.plan_features(games, slots, legal)

    def __repr__(self) -> str:
        return "PlanFeatures()"


class ReplyFeatures:
    """:func:`reply_features` as an object, as :class:`PlanFeatures`. With ``cheat`` it
    reads the opponents' hands: called per view it needs the ``game`` too."""

    width, scale = REPLY_FEATURES, REPLY_SCALE

    def __init__(self, cheat: bool = False) -> None:
        self.perfect_information = cheat
        self.compiled = CompiledHeuristic()

    def __call__(
        self, view: View, legal_moves: Sequence[HandRanking], game: Game | None = None
    ) -> np.ndarray:
        if not self.perfect_information:
            return reply_features(view, legal_moves)
        if game is None:
            raise ValueError("cheating reply features read every hand: pass the game")
        return reply_features(view, legal_moves, game.hands)

    def batch(self, games: Games, slots: np.ndarray, legal: Legal) -> np.ndarray:
        """(len(slots), K, REPLY_FEATURES) int8, row j of game i for ``legal``'s move j."""
        return self.compiled.reply_features(games, slots, legal, self.perfect_information)

    def __repr__(self) -> str:
        return f"ReplyFeatures(cheat={self.perfect_information})"


class JoinedFeatures:
    """Several feature sets side by side: their columns, in order, in one row per move."""

    def __init__(self, *parts: PlanFeatures | ReplyFeatures) -> None:
        self.parts = parts
        self.width = sum(p.width for p in parts)
        self.scale = tuple(x for p in parts for x in p.scale)
        self.perfect_information = any(p.perfect_information for p in parts)

    def __call__(
        self, view: View, legal_moves: Sequence[HandRanking], game: Game | None = None
    ) -> np.ndarray:
        return np.concatenate([p(view, legal_moves, game) for p in self.parts], axis=-1)

    def batch(self, games: Games, slots: np.ndarray, legal: Legal) -> np.ndarray:
        """(len(slots), K, width): each part's ``batch``, side by side."""
        return np.concatenate([p.batch(games, slots, legal) for p in self.parts], axis=-1)

    def __repr__(self) -> str:
        return f"JoinedFeatures{self.parts!r}"


PLAN = PlanFeatures()
REPLIES = ReplyFeatures()
CHEATING_REPLIES = ReplyFeatures(cheat=True)

Features = PlanFeatures | ReplyFeatures | JoinedFeatures


def legal_features(plan: bool, replies: bool, cheat: bool = False) -> Features | None:
    """The legal features a config asks for (None: none); ``cheat`` makes the reply
    features read every hand.

    >>> legal_features(True, True).width, legal_features(False, False)
    (8, None)
    """
    reply = CHEATING_REPLIES if cheat else REPLIES
    parts = [p for p, wanted in ((PLAN, plan), (reply, replies)) if wanted]
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else JoinedFeatures(*parts)
