"""Scripted players on the engine's legal-move rows, compiled (the opponents of the vector
env; :mod:`envs.kernels.heuristic` holds the heuristic player).

>>> import numpy as np
>>> from envs.engine import Tables
>>> from big2.rules import STANDARD
>>> sizes = Tables.of(STANDARD).size
>>> moves = np.array([[0, 60, -1]])  # a single 3D, a pair, then the pass
>>> out = np.empty(1, np.int64)
>>> greedy_moves(moves, np.array([3]), np.array([False]), sizes, out)
>>> int(out[0])
0
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def greedy_moves(
    moves: np.ndarray,
    counts: np.ndarray,
    leading: np.ndarray,
    sizes: np.ndarray,
    out: np.ndarray,
) -> None:
    """:class:`big2.players.GreedyAgent` on each row of legal moves (catalog order, the
    pass, -1, last): the first play, or when leading the first of the longest; the pass
    when there is no play. Writes ``out[i]``."""
    for i in range(moves.shape[0]):
        chosen, longest = -1, 0
        for j in range(counts[i]):
            move = moves[i, j]
            if move < 0:
                continue
            if not leading[i]:
                chosen = move
                break
            if sizes[move] > longest:
                chosen, longest = move, sizes[move]
        out[i] = chosen
