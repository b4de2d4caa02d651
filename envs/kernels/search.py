"""Search rollouts, compiled: :class:`big2.players.search.AgentRollouts` with the heuristic
in every seat, for all the sampled deals and candidate moves of one decision in one call.

Game 0 of ``state`` holds each sampled deal with the public history replayed; game 1 is
scratch, a copy of game 0 that one candidate move is played on and the heuristic then
finishes. :class:`envs.rollouts.CompiledRollouts` wraps it, and the tests check its win
counts against the Python rollouts on the same deals.
"""

from __future__ import annotations

import numba
import numpy as np

from envs.kernels.heuristic import choose
from envs.kernels.turns import deal, play

BASE, SCRATCH = 0, 1  # the two games the kernel uses


@numba.njit(cache=True)
def rollout_wins(deals, history, candidates, seat, state, cat, heur, wins):
    """``wins[k]`` += the deals of ``deals`` (rows of starting hands, one per seat) that ``seat``
    wins after candidate ``candidates[k]`` (catalog index or PASS), once ``history`` (the
    moves so far, the rules' automatic ones included) is replayed and the heuristic plays
    every seat from there."""
    scratch = np.full(1, SCRATCH, np.int64)
    move = np.empty(1, np.int64)
    for d in range(deals.shape[0]):
        state.hands[BASE] = deals[d]
        deal(BASE, state, cat)
        for i in range(state.n_moves[BASE], history.shape[0]):
            play(BASE, history[i], state, cat)
        for k in range(candidates.shape[0]):
            copy_game(state, BASE, state, SCRATCH)
            play(SCRATCH, candidates[k], state, cat)
            while state.winner[SCRATCH] < 0:
                choose(scratch, state, cat, heur, move)
                play(SCRATCH, move[0], state, cat)
            wins[k] += state.winner[SCRATCH] == seat


@numba.njit(cache=True)
def playout_winners(slots, source, scratch, cat, heur, winners):
    """``winners[i]``: the seat that goes out first when the heuristic plays every seat of
    game ``slots[i]`` of ``source`` from where it stands (``source`` is left as it is;
    ``scratch`` is a one-game state that each playout is copied into)."""
    first = np.zeros(1, np.int64)
    move = np.empty(1, np.int64)
    for i in range(slots.shape[0]):
        copy_game(source, slots[i], scratch, 0)
        while scratch.winner[0] < 0:
            choose(first, scratch, cat, heur, move)
            play(0, move[0], scratch, cat)
        winners[i] = scratch.winner[0]


@numba.njit(cache=True)
def copy_game(source, i, target, j):
    """Make game ``j`` of ``target`` a copy of game ``i`` of ``source`` (the live parts of
    its lists; ``source`` and ``target`` may be the same state)."""
    target.hands[j] = source.hands[i]
    target.played[j] = source.played[i]
    target.kinds[j] = source.kinds[i]
    target.turn[j] = source.turn[i]
    target.table[j] = source.table[i]
    target.table_seat[j] = source.table_seat[i]
    target.passes[j] = source.passes[i]
    target.locked[j] = source.locked[i]
    target.winner[j] = source.winner[i]
    target.n_moves[j] = source.n_moves[i]
    target.opening[j] = source.opening[i]
    n = source.n_moves[i]
    target.log_seat[j, :n] = source.log_seat[i, :n]
    target.log_move[j, :n] = source.log_move[i, :n]
    target.log_table[j, :n] = source.log_table[i, :n]
    for s in range(source.n_combos.shape[1]):
        k = source.n_combos[i, s]
        target.combos[j, s, :k] = source.combos[i, s, :k]
        target.n_combos[j, s] = k
