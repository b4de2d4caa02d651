"""Move features over many games at once: the compiled rows of :mod:`observers.moves`.

:func:`batch_move_features` returns, for a :class:`observers.moves.MoveFeatures` object,
a function ``rows(games, slots, moves, counts)`` giving the ``(len(slots), K, width)``
rows of the acting seat of each game ``slots[i]`` of a :class:`envs.engine.Games`: row j
for its legal move ``moves[i, j]`` (a catalog index or PASS; the first ``counts[i]`` are
legal, zeros past them), as the object computes them from that seat's view. As
:func:`envs.batch_observers.batch_encoder` does for observers, it picks by the object's
exact type: :class:`~observers.moves.PlanFeatures` and
:class:`~observers.moves.ReplyFeatures` (fair or cheating) are the kernels of
:class:`envs.compiled_heuristic.CompiledHeuristic`, one compiled call for every game,
and :class:`~observers.moves.JoinedFeatures` is its parts' rows side by side. Any other
object (a user's own) falls back to building each seat's :class:`big2.game.View` from
the arrays and calling the object: exact, but Python-speed (with
``perfect_information`` it is handed the game, replayed). The tests check the kernels
against :mod:`observers.moves` on every position of lockstep games, and the fallback
against the kernels.

>>> from observers.moves import PLAN, JoinedFeatures
>>> batch_move_features(PLAN)[1], batch_move_features(JoinedFeatures(PLAN))[1]
(True, True)
>>> batch_move_features(len)
Traceback (most recent call last):
...
TypeError: move features must have width, ... got <built-in function len>
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from big2.hand_ranking import PASS, catalog
from envs.batch_observers import view_of
from envs.compiled_heuristic import CompiledHeuristic
from envs.engine import Games, reference_game
from observers.moves import JoinedFeatures, MoveFeatures, PlanFeatures, ReplyFeatures

# (games, slots, moves, counts) -> (len(slots), K, width): see the module docstring
MoveRows = Callable[[Games, np.ndarray, np.ndarray, np.ndarray], np.ndarray]

_HEURISTIC = CompiledHeuristic()


def batch_move_features(features: MoveFeatures) -> tuple[MoveRows, bool]:
    """``(rows, vectorised)`` for ``features`` (see the module docstring); anything that
    is not :class:`~observers.moves.MoveFeatures` raises ``TypeError``."""
    if not isinstance(features, MoveFeatures):
        raise TypeError(
            "move features must have width, scale, perfect_information and a call "
            "(view, legal_moves, game=None) (observers.moves.MoveFeatures, e.g. "
            f"observers.moves.PLAN); got {features!r}"
        )
    if type(features) is PlanFeatures:
        return _HEURISTIC.plan_features, True
    if type(features) is ReplyFeatures:
        return _replies(features.perfect_information), True
    if type(features) is JoinedFeatures:
        parts = [batch_move_features(p) for p in features.parts]
        return _joined([rows for rows, _ in parts]), all(fast for _, fast in parts)
    return _fallback(features), False


def _replies(cheat: bool) -> MoveRows:
    def rows(games: Games, slots: np.ndarray, moves: np.ndarray, counts: np.ndarray) -> np.ndarray:
        return _HEURISTIC.reply_features(games, slots, moves, counts, cheat)

    return rows


def _joined(parts: list[MoveRows]) -> MoveRows:
    def rows(games: Games, slots: np.ndarray, moves: np.ndarray, counts: np.ndarray) -> np.ndarray:
        return np.concatenate([part(games, slots, moves, counts) for part in parts], axis=-1)

    return rows


def _fallback(features: MoveFeatures) -> MoveRows:
    def rows(games: Games, slots: np.ndarray, moves: np.ndarray, counts: np.ndarray) -> np.ndarray:
        cat = catalog(games.tables.rules)
        found = []
        for i, slot in enumerate(slots.tolist()):
            listed = tuple(cat[m] if m >= 0 else PASS for m in moves[i, : counts[i]].tolist())
            view = view_of(games, slot, int(games.turn[slot]))
            game = reference_game(games, slot) if features.perfect_information else None
            found.append(_checked(features, features(view, listed, game), len(listed)))
        dtype = np.result_type(*found) if found else np.int8
        out = np.zeros((len(slots), moves.shape[1], features.width), dtype)
        for i, row in enumerate(found):
            out[i, : len(row)] = row
        return out

    return rows


def _checked(features: MoveFeatures, rows: np.ndarray, n_moves: int) -> np.ndarray:
    """``rows`` as an array, if it has one row per legal move and ``features.width``
    columns; else ``ValueError`` saying what came back and what was expected."""
    rows = np.asarray(rows)
    if rows.shape != (n_moves, features.width):
        raise ValueError(
            f"move features {features!r} gave rows of shape {rows.shape} for "
            f"{n_moves} legal moves; expected ({n_moves}, {features.width})"
        )
    return rows
