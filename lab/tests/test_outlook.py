"""The critic's outlook (lab/outlook.py): compiled playouts equal the Python heuristic's and
leave the game alone, and the rows are seat-relative with each opponent's kind."""

from __future__ import annotations

import random

import numpy as np
import pytest

from big2.board import Board
from big2.players.heuristic import HeuristicAgent
from big2.rules import CHARLESWORTH, STANDARD, Rules
from envs.compiled_heuristic import CompiledHeuristic
from envs.engine import Games, Tables, reference_game
from lab.outlook import Outlook, kind_names


def python_playout(games: Games, slot: int) -> int:
    """Who goes out first when the Python heuristic plays every seat of ``slot`` on."""
    game, agent = reference_game(games, slot), HeuristicAgent()
    while not game.is_over:
        game.play(agent.act(game.view(game.turn), game.legal_moves()))
    assert game.winner is not None
    return game.winner


@pytest.mark.parametrize("rules", [STANDARD, CHARLESWORTH], ids=lambda r: r.name)
def test_playouts_are_the_python_heuristics_and_leave_the_games_alone(rules: Rules):
    n, rng = 24, random.Random(7)
    games = Games(n, Tables.of(rules))
    for g in range(n):
        games.deal(g, Board(rules, seed=100 + g).hands)
    compiled, checked = CompiledHeuristic(), 0
    for _ in range(40):  # random moves, checking every position on the way
        live = np.flatnonzero(games.winner < 0)
        before = (games.hands.copy(), games.n_moves.copy(), games.turn.copy())
        winners = compiled.playout_winners(games, np.arange(n))
        assert (games.hands == before[0]).all() and (games.n_moves == before[1]).all()
        assert (games.turn == before[2]).all()
        for g in range(n):
            want = python_playout(games, g) if games.winner[g] < 0 else games.winner[g]
            assert winners[g] == want, f"slot {g} after {games.n_moves[g]} moves"
            checked += 1
        if not live.size:
            break
        moves = []
        for g in live.tolist():
            legal = reference_game(games, g).legal_moves()
            move = rng.choice(legal)
            moves.append(move.index if move else -1)
        games.apply(live, np.array(moves, np.int64))
    assert checked >= 500


def test_kinds_are_named_once_in_the_order_first_named():
    assert kind_names(["heuristic", "greedy", "heuristic", "random"]) == (
        "heuristic", "greedy", "random")  # fmt: skip
    assert kind_names([[], "heuristic"]) == ("self", "heuristic")


def test_rows_are_seat_relative():
    games = Games(1, Tables.of(STANDARD))
    games.deal(0, Board(seed=5).hands)
    outlook = Outlook(games, ("heuristic", "greedy", "random"))
    winner = int(CompiledHeuristic().playout_winners(games, np.array([0]))[0])
    kind = np.array([[0, -1, 1, 2]])  # the learner in seat 1
    rows = outlook.rows(np.array([0, 0]), np.array([1, 3]), np.vstack([kind, kind]))
    assert rows.shape == (2, 4 + 3 * 3) and rows.dtype == np.float32
    for row, seat in zip(rows, (1, 3), strict=True):
        assert row[:4].tolist() == [float(k == (winner - seat) % 4) for k in range(4)]
    # seat 1 sees seats 2, 3, 0 next: greedy, random, heuristic
    assert rows[0, 4:].reshape(3, 3).argmax(axis=1).tolist() == [1, 2, 0]
    # seat 3 sees seats 0, 1 (the learner: no kind), 2
    assert rows[1, 4:].reshape(3, 3).sum(axis=1).tolist() == [1.0, 0.0, 1.0]
