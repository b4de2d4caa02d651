"""``observers.moves.reply_features``, compiled: who could answer each legal move.

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
from envs.kernels.turns import PASS, after


@numba.njit(cache=True)
def beaters(combo, game, seat, unseen, cheat, state, cat, heur):
    """The opponents of ``seat`` that could beat ``combo``, as bits (1: next, 2: across, 4:
    previous; see :func:`_column` for fewer players): with ``cheat``, those whose hand holds
    a combination that does; without, those holding enough cards, when the ``unseen`` ones
    do (asked once, not per seat)."""
    if not cheat and not beatable(unseen, combo, cat, heur):
        return 0
    bits, players = 0, cat.players
    for step in range(1, players):
        hand = state.hands[game, after(seat, step, players)]
        if beatable(hand, combo, cat, heur) if cheat else popcount(hand) >= cat.size[combo]:
            bits |= 1 << _column(step, players)
    return bits


@numba.njit(cache=True)
def _column(step, players):
    """The column of the opponent ``step`` seats on: 0 next, 1 across, 2 previous (of three
    players the second opponent is previous; of two the one opponent is next), as
    ``observers.moves``' reply columns."""
    if step == players - 1 and players > 2:
        return 2
    return step - 1


@numba.njit(cache=True)
def reply_features(slots, moves, counts, cheat, state, cat, heur, out):
    """For the acting seat of game ``slots[i]``: row ``out[i, j]`` describes legal move
    ``moves[i, j]`` (PASS or a catalog index; the first ``counts[i]`` are legal) as
    (next could beat it, across could, previous could, how many combinations of the plan
    of what it leaves some opponent could beat).

    The plans of what the moves leave share most of their combinations, and within one
    game :func:`beaters` depends on the combination alone, so each part's answer is
    worked out once per game (``asked[c] == i``: ``known[c]`` holds it for game i). Asked
    for every part, beaters took half of this kernel's time."""
    parts = np.empty(PLAN_CAPACITY, np.int64)
    asked = np.full(cat.size.shape[0], -1, np.int64)
    known = np.empty(cat.size.shape[0], np.int64)
    for i in range(slots.shape[0]):
        game = slots[i]
        seat, hand, fives, unseen = acting_seat(game, state, cat)
        for j in range(counts[i]):
            m = moves[i, j]
            rest = hand
            if m != PASS:
                rest = hand & ~cat.cards[m]
                bits = beaters(m, game, seat, unseen, cheat, state, cat, heur)
                for k in range(3):
                    out[i, j, k] = bits >> k & 1
            n_parts = plan(rest, fives, cat, heur, parts)
            open_parts = 0
            for k in range(n_parts):
                c = parts[k]
                if asked[c] != i:
                    asked[c] = i
                    known[c] = beaters(c, game, seat, unseen, cheat, state, cat, heur)
                open_parts += known[c] != 0
            out[i, j, 3] = open_parts
