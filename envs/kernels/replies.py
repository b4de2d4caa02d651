"""``training.features.reply_features``, compiled: who could answer each legal move.

The Python function is the readable reference; :func:`reply_features` computes the same
rows for the acting seat of many games of the engine in one call (the tests check the
two agree). With ``cheat`` the rows are read off the opponents' real hands, which only
a perfect-information (``oracle``) actor may be given.
"""

from __future__ import annotations

import numba
import numpy as np

from envs.kernels.bits import popcount
from envs.kernels.heuristic import PLAN_CAPACITY, acting_seat, beatable, plan
from envs.kernels.turns import PASS

REPLY_FEATURES = 4  # next, across, previous could beat it; combinations left open


@numba.njit(cache=True)
def could_beat(combo, game, opponent, unseen, cheat, state, cat, heur):
    """Whether seat ``opponent`` could beat ``combo``: with ``cheat``, its hand holds a
    combination that does; without, it holds enough cards and the ``unseen`` ones do."""
    hand = state.hands[game, opponent]
    if cheat:
        return beatable(hand, combo, cat, heur)
    return popcount(hand) >= cat.size[combo] and beatable(unseen, combo, cat, heur)


@numba.njit(cache=True)
def reply_features(slots, moves, counts, cheat, state, cat, heur, out):
    """For the acting seat of game ``slots[i]``: row ``out[i, j]`` describes legal move
    ``moves[i, j]`` (PASS or a catalog index; the first ``counts[i]`` are legal) as
    (next could beat it, across could, previous could, how many combinations of the plan
    of what it leaves some opponent could beat)."""
    parts = np.empty(PLAN_CAPACITY, np.int64)
    for i in range(slots.shape[0]):
        game = slots[i]
        seat, hand, fives, unseen = acting_seat(game, state, cat)
        for j in range(counts[i]):
            m = moves[i, j]
            rest = hand
            if m != PASS:
                rest = hand & ~cat.cards[m]
                for step in range(1, 4):
                    opponent = (seat + step) % 4
                    out[i, j, step - 1] = could_beat(m, game, opponent, unseen, cheat, state,
                                                     cat, heur)  # fmt: skip
            n_parts = plan(rest, fives, cat, heur, parts)
            open_parts = 0
            for k in range(n_parts):
                for step in range(1, 4):
                    opponent = (seat + step) % 4
                    if could_beat(parts[k], game, opponent, unseen, cheat, state, cat, heur):
                        open_parts += 1
                        break
            out[i, j, 3] = open_parts
