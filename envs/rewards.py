"""Rewards, shared by the AEC env and the vector env: one formula for both.

``score`` (the game's zero-sum score at the end), ``score_normalized`` (the score over
the largest possible penalty), ``win`` (+1 for going out first, -1/3 for each other seat
of four, -1/2 of three, -1 of two: zero-sum) or ``shaped`` (cards discarded / 5 on every
play, plus the score at the end). The final rewards have a column per seat of the rules'
``players``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from big2 import rules as R
from big2.hand_ranking import HandRanking

REWARDS = ("score", "score_normalized", "win", "shaped")


def final_rewards(
    scores: Sequence[int], winner: int | None, rules: R.Rules, mode: str
) -> tuple[float, ...]:
    """Each seat's reward when a game ends with ``scores`` (``Game.scores()``) and
    ``winner``, under reward ``mode`` (see Rewards above).

    >>> from big2.game import Game
    >>> from big2.players import GreedyAgent, play
    >>> game = play(Game(seed=0), GreedyAgent())
    >>> win = final_rewards(game.scores(), game.winner, game.rules, "win")
    >>> win[game.winner], sum(final_rewards(game.scores(), game.winner, game.rules, "score"))
    (1.0, 0.0)
    >>> final_rewards((4, -4, 0), 0, R.THREE_PLAYER, "win")
    (1.0, -0.5, -0.5)
    """
    seat = -1 if winner is None else winner  # -1: no one won, every seat loses
    rows = final_reward_rows(np.array([scores]), np.array([seat]), rules, mode)
    return tuple(rows[0].tolist())


def final_reward_rows(
    scores: np.ndarray, winner: np.ndarray, rules: R.Rules, mode: str
) -> np.ndarray:
    """:func:`final_rewards` of many games at once: ``scores`` (M, players) and ``winner``
    (M,) give (M, players) float64, the one formula both envs use.

    >>> final_reward_rows(np.array([[3, -1, -1, -1]]), np.array([0]), R.STANDARD, "win")
    array([[ 1.        , -0.33333333, -0.33333333, -0.33333333]])
    """
    players = rules.players
    if np.shape(scores)[-1] != players:
        raise ValueError(f"the {rules.name} rules seat {players}, got scores {np.shape(scores)}")
    if mode == "win":
        won = np.arange(players) == np.asarray(winner)[:, None]
        return np.where(won, 1.0, -1 / (players - 1))
    scale = rules.max_penalty if mode == "score_normalized" else 1
    return np.asarray(scores) / scale


def move_reward(move: HandRanking, mode: str) -> float:
    """The mover's reward for one move under reward ``mode`` (only ``shaped`` has any)."""
    return move.size / 5 if mode == "shaped" else 0.0
