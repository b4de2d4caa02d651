"""The turn rules of :class:`big2.game.Game`, compiled: dealing, moves, legal lists.

A move is a catalog index, or -1 for PASS. The kernels read and write the arrays of
:class:`envs.engine.Games`, handed over as a :class:`GameArrays`, and read the catalog of
its :class:`envs.engine.Tables` as a :class:`CatalogArrays` (numba takes named tuples).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from envs.kernels.bits import popcount
from envs.kernels.combos import enumerate_combos


class GameArrays(NamedTuple):
    """N games (see :class:`envs.engine.Games` for each array's meaning)."""

    hands: np.ndarray
    played: np.ndarray
    kinds: np.ndarray
    turn: np.ndarray
    table: np.ndarray
    table_seat: np.ndarray
    passes: np.ndarray
    locked: np.ndarray
    opening: np.ndarray
    winner: np.ndarray
    n_moves: np.ndarray
    log_seat: np.ndarray
    log_move: np.ndarray
    log_table: np.ndarray
    combos: np.ndarray
    n_combos: np.ndarray


class CatalogArrays(NamedTuple):
    """One rules preset's catalog and rules (see :class:`envs.engine.Tables`)."""

    cards: np.ndarray
    size: np.ndarray
    ranking: np.ndarray
    beaten_from: np.ndarray
    size_end: np.ndarray
    sorted_cards: np.ndarray
    sorted_index: np.ndarray
    low_start: np.ndarray
    low_items: np.ndarray
    starts: np.ndarray
    four_card_plays: bool
    five_card_quads: bool
    pass_locks_out: bool
    opening: int


@numba.njit(cache=True)
def deal(g, s, c):
    """Start game ``g`` from the hands already in ``s.hands[g]``."""
    s.played[g, :] = 0
    s.kinds[g, :] = 0
    s.table[g], s.table_seat[g], s.passes[g] = -1, -1, 0
    s.locked[g], s.winner[g], s.n_moves[g] = 0, -1, 0
    for seat in range(4):
        s.n_combos[g, seat] = enumerate_combos(s.hands[g, seat], c, s.combos[g, seat])
        if s.hands[g, seat] & np.uint64(1):
            s.turn[g] = seat
    s.opening[g] = c.opening == 0
    if c.opening == 1:  # auto_3d: the rules play the 3D (catalog index 0) for its holder
        play(g, 0, s, c)


@numba.njit(cache=True)
def apply(slots, moves, s, c):
    """Play ``moves[i]`` in game ``slots[i]``."""
    for i in range(slots.shape[0]):
        play(slots[i], moves[i], s, c)


@numba.njit(cache=True)
def play(g, move, s, c):
    """One move in game ``g``, as :meth:`big2.game.Game.play` makes it (already checked)."""
    seat = s.turn[g]
    i = s.n_moves[g]
    s.log_seat[g, i], s.log_move[g, i], s.log_table[g, i] = seat, move, s.table[g]
    s.n_moves[g] = i + 1
    if move < 0:
        s.passes[g] += 1
        if c.pass_locks_out:
            s.locked[g] |= 1 << seat
        if s.passes[g] == 3:
            s.table[g], s.turn[g], s.passes[g], s.locked[g] = -1, s.table_seat[g], 0, 0
        else:
            s.turn[g] = (seat + 1) % 4
        return
    taken = c.cards[move]
    s.hands[g, seat] ^= taken
    s.played[g, seat] |= taken
    s.kinds[g, seat] |= 1 << c.ranking[move]
    kept = 0
    for j in range(s.n_combos[g, seat]):
        combo = s.combos[g, seat, j]
        if not c.cards[combo] & taken:
            s.combos[g, seat, kept] = combo
            kept += 1
    s.n_combos[g, seat] = kept
    s.table[g], s.table_seat[g], s.passes[g], s.opening[g] = move, seat, 0, False
    if s.hands[g, seat] == 0:
        s.winner[g] = seat
    else:
        s.turn[g] = (seat + 1) % 4


@numba.njit(cache=True)
def legal_ranges(slots, s, c, lo, hi, may_pass, count):
    """For game ``slots[i]``: the range of the acting seat's combos that may be played,
    whether it may pass, and the count, in row ``i`` of ``lo``, ``hi``, ``may_pass``, ``count``.

    ``lo = -1`` marks the first play of a ``contains_3d`` game: the combos in ``[0, hi)``
    that hold 3D. Game over: no moves.
    """
    for i in range(slots.shape[0]):
        g = slots[i]
        seat = s.turn[g]
        n = s.n_combos[g, seat]
        lo[i], hi[i], may_pass[i] = 0, 0, False
        if s.winner[g] >= 0:
            count[i] = 0
        elif s.table[g] < 0:
            hi[i] = n
            if s.opening[g]:
                lo[i] = -1
                k = 0
                for j in range(n):
                    k += c.cards[s.combos[g, seat, j]] & np.uint64(1) != 0
                count[i] = k
            else:
                count[i] = n
        elif s.locked[g] >> seat & 1:
            may_pass[i] = True
            count[i] = 1
        else:
            t = s.table[g]
            row = s.combos[g, seat, :n]
            lo[i] = np.searchsorted(row, c.beaten_from[t])
            hi[i] = max(lo[i], np.searchsorted(row, c.size_end[c.size[t]]))
            may_pass[i] = True
            count[i] = hi[i] - lo[i] + 1


@numba.njit(cache=True)
def fill_legal(slots, s, c, lo, hi, may_pass, hand_actions, pass_action, out_moves, out_actions):
    """Write the legal moves of game ``slots[i]`` (catalog index, -1 for PASS) and their
    actions in row ``i``, padded with -2 (moves) and -1 (actions) past its count, in the
    order of :meth:`big2.game.Game.legal_moves`.

    ``hand_actions`` is empty for the catalog codec, where the action is the catalog
    index; for the hand codec it maps a 13-bit mask of hand positions to the action.
    """
    for i in range(slots.shape[0]):
        g = slots[i]
        seat = s.turn[g]
        hand = s.hands[g, seat]
        k = 0
        for j in range(max(lo[i], 0), hi[i]):
            combo = s.combos[g, seat, j]
            if lo[i] < 0 and not c.cards[combo] & np.uint64(1):
                continue
            out_moves[i, k] = combo
            if hand_actions.shape[0] == 0:
                out_actions[i, k] = combo
            else:
                out_actions[i, k] = _hand_action(hand, c.cards[combo], hand_actions)
            k += 1
        if may_pass[i]:
            out_moves[i, k] = -1
            out_actions[i, k] = pass_action
            k += 1
        for j in range(k, out_moves.shape[1]):
            out_moves[i, j] = -2
            out_actions[i, j] = -1


@numba.njit(cache=True)
def _hand_action(hand, move_cards, hand_actions):
    """The hand codec's action for ``move_cards``: positions in the sorted hand, as a mask."""
    positions = 0
    for c in range(52):
        if (move_cards >> np.uint64(c)) & np.uint64(1):
            below = hand & ((np.uint64(1) << np.uint64(c)) - np.uint64(1))
            positions |= 1 << popcount(below)
    return hand_actions[positions]


@numba.njit(cache=True)
def find_actions(actions, legal_actions, counts, positions):
    """For each game, the position of ``actions[g]`` among its legal actions; the first
    game whose action is not legal (-1 when every action is)."""
    for g in range(actions.shape[0]):
        positions[g] = -1
        for j in range(counts[g]):
            if legal_actions[g, j] == actions[g]:
                positions[g] = j
                break
        if positions[g] < 0:
            return g
    return -1
