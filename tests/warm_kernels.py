"""numba's kernels compiled once, before pytest-xdist starts its workers (``conftest.py``).

On a fresh clone no kernel is in numba's cache yet, and every worker (and every process a
test starts) compiled the same kernels side by side: on 2 cores (AMD EPYC, 2026-12-02) the
vector env's alone took 19 s of one core, and a clean clone's suite ran 507 s against 399 s
once the cache was written. Compiled here first, they are loaded from the cache everywhere.
"""

from __future__ import annotations


def warm() -> None:
    """Step the vector env with the commonest observers and play a compiled heuristic
    playout: the kernels most tests call, compiled (or loaded from the cache)."""
    import numpy as np

    from big2.board import Board
    from big2.rules import STANDARD
    from envs.compiled_heuristic import CompiledHeuristic
    from envs.engine import Games, Tables
    from envs.vector import Big2VectorEnv

    rng = np.random.default_rng(0)
    for observer in ("simple", "card_counting"):
        env = Big2VectorEnv(8, observer=observer, critic_observer="oracle")
        env.reset(seed=0)
        for _ in range(30):
            env.step(env.sample_legal(rng))
    games = Games(1, Tables.of(STANDARD))
    games.deal(0, Board(seed=5).hands)
    CompiledHeuristic().playout_winners(games, np.array([0]))
