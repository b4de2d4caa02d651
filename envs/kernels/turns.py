"""The turn rules of :class:`big2.game.Game`, compiled: dealing, moves, legal lists.

A move is a catalog index, or -1 for PASS. These kernels read and write the arrays of
:class:`envs.engine.Games` (see there for their meaning).
"""

from __future__ import annotations

import numba
import numpy as np

from envs.kernels.bits import popcount
from envs.kernels.combos import enumerate_combos


@numba.njit(cache=True)
def deal(
    g,
    hands,
    played,
    kinds,
    turn,
    table,
    table_seat,
    passes,
    locked,
    opening,
    winner,
    n_moves,
    log_seat,
    log_move,
    log_table,
    combos,
    n_combos,
    cards,
    size,
    ranking,
    sorted_cards,
    sorted_index,
    low_start,
    low_items,
    starts,
    four_card_plays,
    five_card_quads,
    pass_locks_out,
    opening_rule,
):
    played[g, :] = 0
    kinds[g, :] = 0
    table[g], table_seat[g], passes[g], locked[g], winner[g], n_moves[g] = -1, -1, 0, 0, -1, 0
    for seat in range(4):
        n_combos[g, seat] = enumerate_combos(
            hands[g, seat],
            cards,
            ranking,
            sorted_cards,
            sorted_index,
            low_start,
            low_items,
            starts,
            four_card_plays,
            five_card_quads,
            combos[g, seat],
        )
        if hands[g, seat] & np.uint64(1):
            turn[g] = seat
    opening[g] = opening_rule == 0
    if opening_rule == 1:  # auto_3d: the rules play the 3D (catalog index 0) for its holder
        play(
            g,
            0,
            hands,
            played,
            kinds,
            turn,
            table,
            table_seat,
            passes,
            locked,
            opening,
            winner,
            n_moves,
            log_seat,
            log_move,
            log_table,
            combos,
            n_combos,
            cards,
            ranking,
            pass_locks_out,
        )


@numba.njit(cache=True)
def apply(
    slots,
    moves,
    hands,
    played,
    kinds,
    turn,
    table,
    table_seat,
    passes,
    locked,
    opening,
    winner,
    n_moves,
    log_seat,
    log_move,
    log_table,
    combos,
    n_combos,
    cards,
    size,
    ranking,
    sorted_cards,
    sorted_index,
    low_start,
    low_items,
    starts,
    four_card_plays,
    five_card_quads,
    pass_locks_out,
    opening_rule,
):
    for i in range(slots.shape[0]):
        play(
            slots[i],
            moves[i],
            hands,
            played,
            kinds,
            turn,
            table,
            table_seat,
            passes,
            locked,
            opening,
            winner,
            n_moves,
            log_seat,
            log_move,
            log_table,
            combos,
            n_combos,
            cards,
            ranking,
            pass_locks_out,
        )


@numba.njit(cache=True)
def play(
    g,
    move,
    hands,
    played,
    kinds,
    turn,
    table,
    table_seat,
    passes,
    locked,
    opening,
    winner,
    n_moves,
    log_seat,
    log_move,
    log_table,
    combos,
    n_combos,
    cards,
    ranking,
    pass_locks_out,
):
    """One move in game ``g``, as :meth:`big2.game.Game.play` makes it (already checked)."""
    seat = turn[g]
    i = n_moves[g]
    log_seat[g, i], log_move[g, i], log_table[g, i] = seat, move, table[g]
    n_moves[g] = i + 1
    if move < 0:
        passes[g] += 1
        if pass_locks_out:
            locked[g] |= 1 << seat
        if passes[g] == 3:
            table[g], turn[g], passes[g], locked[g] = -1, table_seat[g], 0, 0
        else:
            turn[g] = (seat + 1) % 4
        return
    taken = cards[move]
    hands[g, seat] ^= taken
    played[g, seat] |= taken
    kinds[g, seat] |= 1 << ranking[move]
    kept = 0
    for j in range(n_combos[g, seat]):
        c = combos[g, seat, j]
        if not cards[c] & taken:
            combos[g, seat, kept] = c
            kept += 1
    n_combos[g, seat] = kept
    table[g], table_seat[g], passes[g], opening[g] = move, seat, 0, False
    if hands[g, seat] == 0:
        winner[g] = seat
    else:
        turn[g] = (seat + 1) % 4


@numba.njit(cache=True)
def legal_ranges(
    slots,
    turn,
    table,
    locked,
    opening,
    winner,
    combos,
    n_combos,
    cards,
    size,
    beaten_from,
    size_end,
    lo,
    hi,
    may_pass,
    count,
):
    """For game ``slots[i]``: the range of the acting seat's combos that may be played,
    whether it may pass, and the count, in row ``i`` of ``lo``, ``hi``, ``may_pass``, ``count``.

    ``lo = -1`` marks the first play of a ``contains_3d`` game: the combos in ``[0, hi)``
    that hold 3D. Game over: no moves.
    """
    for i in range(slots.shape[0]):
        g = slots[i]
        seat = turn[g]
        n = n_combos[g, seat]
        lo[i], hi[i], may_pass[i] = 0, 0, False
        if winner[g] >= 0:
            count[i] = 0
        elif table[g] < 0:
            hi[i] = n
            if opening[g]:
                lo[i] = -1
                k = 0
                for j in range(n):
                    k += cards[combos[g, seat, j]] & np.uint64(1) != 0
                count[i] = k
            else:
                count[i] = n
        elif locked[g] >> seat & 1:
            may_pass[i] = True
            count[i] = 1
        else:
            t = table[g]
            row = combos[g, seat, :n]
            lo[i] = np.searchsorted(row, beaten_from[t])
            hi[i] = max(lo[i], np.searchsorted(row, size_end[size[t]]))
            may_pass[i] = True
            count[i] = hi[i] - lo[i] + 1


@numba.njit(cache=True)
def fill_legal(
    slots,
    turn,
    hands,
    combos,
    cards,
    lo,
    hi,
    may_pass,
    hand_actions,
    pass_action,
    out_moves,
    out_actions,
):
    """Write the legal moves of game ``slots[i]`` (catalog index, -1 for PASS) and their
    actions in row ``i``, padded with -2 (moves) and -1 (actions) past its count, in the
    order of :meth:`big2.game.Game.legal_moves`.

    ``hand_actions`` is empty for the catalog codec, where the action is the catalog
    index; for the hand codec it maps a 13-bit mask of hand positions to the action.
    """
    for i in range(slots.shape[0]):
        g = slots[i]
        seat = turn[g]
        hand = hands[g, seat]
        k = 0
        for j in range(max(lo[i], 0), hi[i]):
            c = combos[g, seat, j]
            if lo[i] < 0 and not cards[c] & np.uint64(1):
                continue
            out_moves[i, k] = c
            if hand_actions.shape[0] == 0:
                out_actions[i, k] = c
            else:
                out_actions[i, k] = _hand_action(hand, cards[c], hand_actions)
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
