"""The turn rules of :class:`big2.game.Game`, compiled: dealing, moves, legal lists.

A move is a catalog index, or :data:`PASS`. The kernels read and write the arrays of
:class:`envs.engine.Games`, handed over as a :class:`GameArrays`, and read the catalog of
its :class:`envs.engine.Tables` as a :class:`CatalogArrays` (numba takes named tuples).
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from envs.kernels.bits import popcount
from envs.kernels.combos import enumerate_combos

PASS = -1  # the move that passes (any other move is a catalog index)
NO_MOVE = -2  # a row of legal moves past its count
PAD = -1  # a row of legal actions past its count
MUST_HOLD_3D = -1  # legal_ranges' low end on a "contains" opening: the opening card's combos
NO_TABLE = -1  # the table of a game whose table is empty


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
    straights: np.ndarray
    players: int  # the seats of a game (2, 3 or 4)
    four_card_plays: bool
    five_card_quads: bool
    flushes: bool
    full_houses: bool
    pass_locks_out: bool
    opening: int
    opening_card: int
    bomb_kinds: int  # bit r: a combination of Ranking r is a bomb
    bombs_beat: int  # bit s: bombs beat a play of s cards
    bombs: np.ndarray  # int64: the catalog indices of the bombs


@numba.njit(cache=True, inline="always")
def after(seat: int, k: int, players: int) -> int:
    """The seat ``k`` places after ``seat`` (``0 <= k < players``): ``(seat + k) %
    players`` without the division: numba's ``%`` by a divisor known only at run time
    made the ``simple`` kernel 28 times slower than ``% 4`` (1,024 rows: 0.67 ms, not
    0.024 ms)."""
    other = seat + k
    return other - players if other >= players else other


@numba.njit(cache=True, inline="always")
def relative(seat: int, me: int, players: int) -> int:
    """``seat`` counted from ``me``: ``(seat - me) % players`` without the division."""
    d = seat - me
    return d + players if d < 0 else d


@numba.njit(cache=True)
def opening_bit(card):
    """The mask of opening card ``card`` (``CatalogArrays.opening_card``; the 3D, 0,
    under the standard rules)."""
    return np.uint64(1) << np.uint64(card)


@numba.njit(cache=True)
def listed(combo, low, table_size, cards, sizes, rankings, first, bomb_kinds):
    """Whether ``combo``, in a seat's range of ``legal_ranges`` starting at ``low``, may be
    played on a table of ``table_size`` cards (0: empty): on the opening
    (``MUST_HOLD_3D``) only what holds the opening card (mask ``first``); past the
    table's size only bombs (``bomb_kinds``: a bit per Ranking)."""
    if low == MUST_HOLD_3D:
        return cards[combo] & first != 0
    if table_size and sizes[combo] != table_size:
        return (bomb_kinds >> rankings[combo]) & 1 != 0
    return True


@numba.njit(cache=True)
def filtered(low, table_size, bombs_beat):
    """Whether a seat's range from ``legal_ranges`` holds moves that are not legal, which
    :func:`listed` tells apart: on the opening, and where bombs beat the table. Elsewhere
    every combination in the range is legal (the fast path: no check per combination)."""
    return low == MUST_HOLD_3D or (table_size != 0 and (bombs_beat >> table_size) & 1 != 0)


@numba.njit(cache=True)
def deal(game, state, cat):
    """Start game ``game`` from the hands already in ``state.hands[game]``."""
    state.played[game, :] = 0
    state.kinds[game, :] = 0
    state.table[game], state.table_seat[game], state.passes[game] = NO_TABLE, -1, 0
    state.locked[game], state.winner[game], state.n_moves[game] = 0, -1, 0
    for seat in range(cat.players):
        hand, combos = state.hands[game, seat], state.combos[game, seat]
        state.n_combos[game, seat] = enumerate_combos(hand, cat, combos)
        if state.hands[game, seat] & opening_bit(cat.opening_card):
            state.turn[game] = seat
    state.opening[game] = cat.opening == 0
    if cat.opening == 1:  # "auto": the rules play the opening card (a single: catalog
        play(game, cat.opening_card, state, cat)  # index = card index) for its holder


@numba.njit(cache=True)
def apply(slots, moves, state, cat):
    """Play ``moves[i]`` in game ``slots[i]``, as :meth:`big2.game.Game.play` makes it
    (already checked).

    The move is written out here, in the loop, not in a function it calls: a call that
    takes the games' and the catalog's arrays costs more than the move (numba passes the
    two tuples of arrays by value), so a loop of calls ran ten times slower.
    """
    for i in range(slots.shape[0]):
        game, move = slots[i], moves[i]
        seat = state.turn[game]
        k = state.n_moves[game]
        state.log_seat[game, k] = seat
        state.log_move[game, k] = move
        state.log_table[game, k] = state.table[game]
        state.n_moves[game] = k + 1
        if move == PASS:
            state.passes[game] += 1
            if cat.pass_locks_out:
                state.locked[game] |= 1 << seat
            if state.passes[game] == cat.players - 1:  # everyone else passed: the table
                state.table[game] = NO_TABLE  # clears for its owner
                state.turn[game] = state.table_seat[game]
                state.passes[game], state.locked[game] = 0, 0
            else:
                state.turn[game] = seat + 1 if seat + 1 < cat.players else 0  # no division
            continue
        taken = cat.cards[move]
        state.hands[game, seat] ^= taken
        state.played[game, seat] |= taken
        state.kinds[game, seat] |= 1 << cat.ranking[move]
        n = state.n_combos[game, seat]
        state.n_combos[game, seat] = _keep_apart(state.combos[game, seat], n, cat.cards, taken)
        state.table[game], state.table_seat[game] = move, seat
        state.passes[game], state.opening[game] = 0, False
        if state.hands[game, seat] == 0:
            state.winner[game] = seat
        else:
            state.turn[game] = seat + 1 if seat + 1 < cat.players else 0


@numba.njit(cache=True)
def play(game, move, state, cat):
    """One move in game ``game``: :func:`apply` of that move alone."""
    apply(np.array([game]), np.array([move]), state, cat)


@numba.njit(cache=True)
def _keep_apart(combos, n, cards, taken):
    """Keep, in order, the first ``n`` ``combos`` that hold none of ``taken``; their count."""
    kept = 0
    for j in range(n):
        combo = combos[j]
        if not cards[combo] & taken:
            combos[kept] = combo
            kept += 1
    return kept


@numba.njit(cache=True)
def legal_ranges(slots, state, cat, lo, hi, may_pass, count):
    """For game ``slots[i]``: the range of the acting seat's combos that may be played,
    whether it may pass, and the count, in row ``i`` of ``lo``, ``hi``, ``may_pass``, ``count``.

    ``lo = MUST_HOLD_3D`` marks the first play of a ``"contains"`` game: the combos in
    ``[0, hi)`` that hold the opening card. Where bombs beat the table, ``hi`` runs to the
    end of the seat's combos and only the bombs past the table's size are legal
    (:func:`listed` says which). Game over: no moves.
    """
    for i in range(slots.shape[0]):
        game = slots[i]
        seat = state.turn[game]
        n = state.n_combos[game, seat]
        lo[i], hi[i], may_pass[i] = 0, 0, False
        if state.winner[game] >= 0:
            count[i] = 0
        elif state.table[game] == NO_TABLE:
            hi[i] = n
            if state.opening[game]:
                lo[i] = MUST_HOLD_3D
                k, first = 0, opening_bit(cat.opening_card)
                for j in range(n):
                    k += cat.cards[state.combos[game, seat, j]] & first != 0
                count[i] = k
            else:
                count[i] = n
        elif state.locked[game] >> seat & 1:
            may_pass[i] = True
            count[i] = 1
        else:
            t = state.table[game]
            row = state.combos[game, seat, :n]
            lo[i] = np.searchsorted(row, cat.beaten_from[t])
            hi[i] = max(lo[i], np.searchsorted(row, cat.size_end[cat.size[t]]))
            may_pass[i] = True
            count[i] = hi[i] - lo[i] + 1
            if cat.bombs_beat and (cat.bombs_beat >> cat.size[t]) & 1:  # bombs: after the range
                bombs = 0
                for j in range(hi[i], n):
                    bombs += (cat.bomb_kinds >> cat.ranking[row[j]]) & 1
                if bombs:
                    hi[i], count[i] = n, count[i] + bombs


@numba.njit(cache=True)
def fill_legal(
    slots, state, cat, lo, hi, may_pass, hand_actions, pass_action, out_moves, out_actions
):
    """Write the legal moves of game ``slots[i]`` (catalog index, -1 for PASS) and their
    actions in row ``i``, padded with NO_MOVE (moves) and PAD (actions) past its count, in the
    order of :meth:`big2.game.Game.legal_moves`.

    ``hand_actions`` is empty for the catalog codec, where the action is the catalog
    index; for the hand codec it maps a 13-bit mask of hand positions to the action.
    """
    for i in range(slots.shape[0]):
        game = slots[i]
        seat = state.turn[game]
        hand = state.hands[game, seat]
        k, first = 0, opening_bit(cat.opening_card)
        t = state.table[game]
        table_size = cat.size[t] if t != NO_TABLE else 0
        check = filtered(lo[i], table_size, cat.bombs_beat)
        for j in range(max(lo[i], 0), hi[i]):
            combo = state.combos[game, seat, j]
            # listed(), written out: a call per combination cost 10x on the openings' lists,
            # inlined by numba (inline="always") still 4-5x
            if check:
                if lo[i] == MUST_HOLD_3D:
                    if not cat.cards[combo] & first:
                        continue
                elif cat.size[combo] != table_size and not (
                    (cat.bomb_kinds >> cat.ranking[combo]) & 1
                ):
                    continue
            out_moves[i, k] = combo
            if hand_actions.shape[0] == 0:
                out_actions[i, k] = combo
            else:
                out_actions[i, k] = _hand_action(hand, cat.cards[combo], hand_actions)
            k += 1
        if may_pass[i]:
            out_moves[i, k] = PASS
            out_actions[i, k] = pass_action
            k += 1
        for j in range(k, out_moves.shape[1]):
            out_moves[i, j] = NO_MOVE
            out_actions[i, j] = PAD


@numba.njit(cache=True)
def _hand_action(hand, move_cards, hand_actions):
    """The hand codec's action for ``move_cards``: positions in the sorted hand, as a mask."""
    positions = 0
    for card in range(52):
        if (move_cards >> np.uint64(card)) & np.uint64(1):
            below = hand & ((np.uint64(1) << np.uint64(card)) - np.uint64(1))
            positions |= 1 << popcount(below)
    return hand_actions[positions]


@numba.njit(cache=True)
def find_actions(actions, legal_actions, counts, positions):
    """For each game, the position of ``actions[game]`` among its legal actions; the first
    game whose action is not legal (-1 when every action is)."""
    for game in range(actions.shape[0]):
        positions[game] = -1
        for j in range(counts[game]):
            if legal_actions[game, j] == actions[game]:
                positions[game] = j
                break
        if positions[game] < 0:
            return game
    return -1
