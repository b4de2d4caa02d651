"""The vector env's scripted opponents moving in rounds, compiled: :meth:`Opponents.advance`
in one call when every opponent is ``random``, ``greedy`` or ``heuristic``.

:func:`advance` plays exactly the rounds that :class:`envs.opponents.Opponents` plays in
Python: in each round every game waiting on an opponent gets one move; the kinds of the
mix answer in the mix's order, and ``random`` players draw their positions from the
shared numpy generator in game order (numba's ``Generator.integers`` draws what numpy's
does, from the same state), so a seed gives the same games either way. The tests run
both side by side.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from envs.kernels.heuristic import choose as heuristic_choose
from envs.kernels.turns import (
    NO_TABLE,
    PASS,
    apply,
    filtered,
    legal_ranges,
    listed,
    opening_bit,
)

RANDOM, GREEDY, HEURISTIC = 0, 1, 2  # the compiled kinds, as :func:`advance` takes them
CODES = {"random": RANDOM, "greedy": GREEDY, "heuristic": HEURISTIC}


@numba.njit(cache=True)
def advance(kind, codes, rng, state, cat, heur):
    """Let the opponents move until every game is at one of the caller's seats or over.

    ``kind[g, s]``: the mix entry seated at s in game g (-1: the caller's seat);
    ``codes[k]``: mix entry k's :data:`CODES` value; ``rng``: the opponents' generator.
    """
    n = state.turn.shape[0]
    slots, chosen = np.empty(n, np.int64), np.empty(n, np.int64)
    lo, hi = np.empty(n, np.int64), np.empty(n, np.int64)
    may_pass, count = np.empty(n, np.bool_), np.empty(n, np.int64)
    asked, answers = np.empty(n, np.int64), np.empty(n, np.int64)
    rules = _listing(cat)
    while True:
        m = 0
        for game in range(n):
            if state.winner[game] < 0 and kind[game, state.turn[game]] >= 0:
                slots[m] = game
                m += 1
        if m == 0:
            return
        legal_ranges(slots[:m], state, cat, lo, hi, may_pass, count)
        for k in range(codes.shape[0]):  # the mix's order: random draws in this order
            asking = 0
            for i in range(m):
                game = slots[i]
                if kind[game, state.turn[game]] != k:
                    continue
                seat = state.turn[game]
                combos, low, high = state.combos[game, seat], lo[i], hi[i]
                size = _table_size(state.table[game], cat.size)
                # every combination of the range legal: the move by position, written out
                # here (a call passing the catalog's listing per game cost 8% of a step)
                plain = not filtered(low, size, cat.bombs_beat)
                if codes[k] == RANDOM:
                    position = rng.integers(0, count[i])
                    if plain:
                        chosen[i] = combos[low + position] if low + position < high else PASS
                    else:
                        chosen[i] = _nth(combos, low, high, position, size, rules)
                elif codes[k] == GREEDY:
                    if plain and size:  # following: the weakest play
                        chosen[i] = combos[low] if low < high else PASS
                    else:
                        chosen[i] = _greedy(combos, low, high, size, rules)
                else:
                    asked[asking] = i
                    asking += 1
            if asking:
                heuristic_choose(slots[asked[:asking]], state, cat, heur, answers)
                for j in range(asking):
                    chosen[asked[j]] = answers[j]
        apply(slots[:m], chosen[:m], state, cat)


@numba.njit(cache=True)
def greedy_choose(slots, state, cat, out):
    """:class:`big2.players.GreedyAgent`'s move for the seat to act in each game of
    ``slots``, in ``out[i]`` (the rounds :class:`envs.opponents.Opponents` plays in Python
    ask this, as they ask ``heuristic.choose``)."""
    n = slots.shape[0]
    lo, hi = np.empty(n, np.int64), np.empty(n, np.int64)
    may_pass, count = np.empty(n, np.bool_), np.empty(n, np.int64)
    legal_ranges(slots, state, cat, lo, hi, may_pass, count)
    rules = _listing(cat)
    for i in range(n):
        game = slots[i]
        combos = state.combos[game, state.turn[game]]
        size = _table_size(state.table[game], cat.size)
        out[i] = _greedy(combos, lo[i], hi[i], size, rules)


class _Listing(NamedTuple):
    """What :func:`envs.kernels.turns.listed` reads of the catalog: a small tuple, passed
    to the per-game helpers below instead of the whole catalog."""

    cards: np.ndarray
    sizes: np.ndarray
    rankings: np.ndarray
    first: np.uint64  # the opening card's mask
    bomb_kinds: int
    bombs_beat: int


@numba.njit(cache=True)
def _listing(cat):
    """The :class:`_Listing` of catalog ``cat`` (made once a call, not per game)."""
    first = opening_bit(cat.opening_card)
    return _Listing(cat.cards, cat.size, cat.ranking, first, cat.bomb_kinds, cat.bombs_beat)


@numba.njit(cache=True)
def _table_size(table, sizes):
    """The size of the play on the table (0 when it is empty)."""
    return sizes[table] if table != NO_TABLE else 0


@numba.njit(cache=True)
def _holds(low, combo, table_size, rules):
    """Whether ``combo`` in a seat's range starting at ``low`` may be played (the opening
    card's combinations on the opening, bombs past the table's size)."""
    return listed(
        combo, low, table_size, rules.cards, rules.sizes, rules.rankings, rules.first,
        rules.bomb_kinds,
    )  # fmt: skip


@numba.njit(cache=True)
def _nth(combos, low, high, position, table_size, rules):
    """The legal move at ``position`` of a seat's list (its plays in ``[low, high)`` of
    ``combos`` that :func:`envs.kernels.turns.listed` keeps, in order, then the pass): for
    the ranges that hold moves not legal (:func:`advance` takes the others by position)."""
    for j in range(max(low, 0), high):
        if _holds(low, combos[j], table_size, rules):
            if position == 0:
                return combos[j]
            position -= 1
    return PASS


@numba.njit(cache=True)
def _greedy(combos, low, high, table_size, rules):
    """:class:`big2.players.GreedyAgent`'s move from a seat's list: the first play, or the
    first of the longest when leading (an empty table); the pass when there is no play."""
    chosen, longest = PASS, 0
    check = filtered(low, table_size, rules.bombs_beat)
    if table_size and not check:  # following, every combination legal: the weakest
        return combos[low] if low < high else PASS
    for j in range(max(low, 0), high):
        combo = combos[j]
        if check and not _holds(low, combo, table_size, rules):
            continue
        if table_size:
            return combo
        if rules.sizes[combo] > longest:
            chosen, longest = combo, rules.sizes[combo]
    return chosen
