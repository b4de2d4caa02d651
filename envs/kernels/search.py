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
    """``wins[k]`` += the deals of ``deals`` (rows of four starting hands) that ``seat``
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
            copy_game(BASE, SCRATCH, state)
            play(SCRATCH, candidates[k], state, cat)
            while state.winner[SCRATCH] < 0:
                choose(scratch, state, cat, heur, move)
                play(SCRATCH, move[0], state, cat)
            wins[k] += state.winner[SCRATCH] == seat


@numba.njit(cache=True)
def copy_game(source, target, state):
    """Make game ``target`` a copy of game ``source`` (the live parts of its lists)."""
    state.hands[target] = state.hands[source]
    state.played[target] = state.played[source]
    state.kinds[target] = state.kinds[source]
    for a in (state.turn, state.table, state.table_seat, state.passes, state.locked,
              state.winner, state.n_moves):  # fmt: skip
        a[target] = a[source]
    state.opening[target] = state.opening[source]
    n = state.n_moves[source]
    state.log_seat[target, :n] = state.log_seat[source, :n]
    state.log_move[target, :n] = state.log_move[source, :n]
    state.log_table[target, :n] = state.log_table[source, :n]
    for s in range(4):
        k = state.n_combos[source, s]
        state.combos[target, s, :k] = state.combos[source, s, :k]
        state.n_combos[target, s] = k
