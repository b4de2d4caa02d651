"""Shared helpers for the environment, codec and observer tests (not a test module).

Imported as a top-level module (tests/ has no ``__init__.py``), like ``reference``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from big2.board import Board
from big2.game import Game
from big2.log import LogEntry
from big2.players import RandomAgent, play
from big2.rules import Rules

OBSERVER_NAMES = ("simple", "card_counting", "history", "planes", "charlesworth", "oracle")
CODECS = ("catalog", "hand")
PRESETS = ("standard", "charlesworth")


def random_game(rules: Rules, seed: int, stop: int | None = None) -> Game:
    """A game dealt from ``seed`` and played with random legal moves.

    It stops after ``stop`` logged moves (automatic ones included) or at the end.
    """
    rng = random.Random(seed)
    game = Game(rules, seed=rng)
    return play(
        game, RandomAgent(rng), until=lambda g: stop is not None and len(g.log.moves) >= stop
    )


def game_from(deal: Sequence[int], rules: Rules, moves: Sequence[LogEntry]) -> Game:
    """A game on ``deal`` after replaying the (non-automatic) ``moves`` with ``play``."""
    game = Game.from_board(Board.from_hands(list(deal), rules))
    for entry in moves[len(game.log.moves) :]:
        game.play(entry.move)
    return game


def random_action(obs: dict[str, np.ndarray], rng: np.random.Generator) -> int:
    """A uniformly random legal action of a masked observation."""
    mask = obs["action_mask"]
    assert mask.dtype == np.int8 and mask.max() <= 1
    return int(rng.choice(np.flatnonzero(mask.view(np.bool_))))  # much faster than on int8


def play_out(aec, rng: np.random.Generator) -> list[int]:
    """Step a raw env to the end of its game with random legal actions; the actions."""
    actions = []
    while not aec.game.is_over:
        action = random_action(aec.observe(aec.agent_selection), rng)
        aec.step(action)
        actions.append(action)
    return actions
