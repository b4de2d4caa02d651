"""The compiled twins against their Python originals, for the tests and ``make bench``.

- :func:`play_lockstep` plays games in the compiled engine and, move for move, in
  :class:`big2.game.Game` (the reference): at every position the compiled heuristic's
  choice (:class:`envs.compiled_heuristic.CompiledHeuristic`) must be the move
  :class:`~big2.players.heuristic.HeuristicAgent` makes on that seat's view, and the
  compiled plan and reply features of the legal moves (fair and cheating,
  :func:`envs.batch_moves.batch_move_features`) the rows :mod:`observers.moves` computes
  from that view; a difference raises
  :class:`LockstepMismatch` saying where. ``tests/test_compiled_heuristic.py`` runs it,
  and ``python -m bench.heuristic`` times both players on its positions (:class:`Timer`).
- :func:`sample_views` gives positions of random and heuristic games, where the compiled
  search rollouts must count the Python ones' wins (``tests/test_compiled_rollouts.py``).
"""

from __future__ import annotations

import random
import time

import numpy as np

import observers
from big2.board import Board
from big2.cards import format_cards
from big2.game import Game, View
from big2.hand_ranking import PASS, HandRanking, catalog
from big2.players import Agent, HeuristicAgent, RandomAgent
from big2.rules import Rules
from envs import codecs
from envs.batch_moves import batch_move_features
from envs.compiled_heuristic import CompiledHeuristic
from envs.decisions import DecisionMaker
from envs.engine import Games, Tables, reference_game
from observers.moves import CHEATING_REPLIES, PLAN, REPLIES, plan_features, reply_features

NAMES = ("plan features", "reply features", "cheating reply features")
HEURISTIC, MIXED, RANDOM = 0.0, 0.25, 1.0  # the share of random moves in a lockstep game


class LockstepMismatch(AssertionError):
    """The compiled twin and the Python original differ at a position (named in the message)."""


def describe(game: Game, legal: tuple[HandRanking, ...], got: int, want: HandRanking) -> str:
    """A mismatch, with what it takes to find it again."""
    cat, view = catalog(game.rules), game.view(game.turn)
    return (
        f"{game.rules.name}: seat {game.turn} holds "
        f"{format_cards(view.hand, suits=view.rules.suit_order)}, "
        f"table {game.table} (by seat {game.table_seat}, {game.passes} passes), "
        f"cards left {view.cards_left}; legal {[str(m) for m in legal]}; "
        f"compiled {cat[got] if got >= 0 else PASS}, Python {want}; "
        f"deal {game.log.deal} after {len(game.log.moves)} moves"
    )


class Timer:
    """Seconds spent and decisions made by each player (for the benchmark)."""

    def __init__(self) -> None:
        self.compiled = self.python = 0.0
        self.decisions = 0

    def add(self, compiled: float, python: float, decisions: int) -> None:
        self.compiled += compiled
        self.python += python
        self.decisions += decisions


def play_lockstep(
    rules: Rules,
    n_games: int,
    seed: int,
    explore: float,
    timer: Timer | None = None,
    replies_every: int = 1,
) -> int:
    """Play ``n_games`` deals to the end, comparing both players at every position; the
    number of positions. ``explore`` is the chance of a random move instead of the
    heuristic's. The reply features, whose Python reference costs most, are compared at
    every position of every ``replies_every``-th game (of every game by default)."""
    games = Games(n_games, Tables.of(rules))
    for g in range(n_games):
        games.deal(g, Board(rules, seed=seed * 1_000_003 + g).hands)
    refs = [reference_game(games, g) for g in range(n_games)]
    agent, compiled, rng = HeuristicAgent(), CompiledHeuristic(), random.Random(seed)
    maker = DecisionMaker(games, observers.make("simple", rules), codecs.make("catalog", rules))
    features = [batch_move_features(f)[0] for f in (PLAN, REPLIES, CHEATING_REPLIES)]
    live, checked = np.arange(n_games), 0
    while live.size:
        start = time.perf_counter()
        got = compiled.choose(games, live)
        compiled_seconds, python_seconds = time.perf_counter() - start, 0.0
        listed = maker.legal(live)
        compiled_rows = [rows(games, live, listed.moves, listed.counts) for rows in features]
        moves = np.empty_like(got)
        for i, g in enumerate(live.tolist()):
            game = refs[g]
            legal, view = game.legal_moves(), game.view(game.turn)
            before = time.perf_counter()
            want = agent.act(view, legal)
            python_seconds += time.perf_counter() - before  # act() only, not the view
            if got[i] != want.index:
                raise LockstepMismatch(describe(game, legal, int(got[i]), want))
            expected = [plan_features(view, legal)]
            if g % replies_every == 0:
                expected += [reply_features(view, legal), reply_features(view, legal, game.hands)]
            for name, batch, rows in zip(NAMES, compiled_rows, expected, strict=False):
                if not (batch[i, : len(legal)] == rows).all() or batch[i, len(legal) :].any():
                    where = describe(game, legal, int(got[i]), want)
                    raise LockstepMismatch(
                        f"{name} {batch[i, : len(legal)].tolist()} differ: {where}"
                    )
            move = rng.choice(legal) if rng.random() < explore else want
            game.play(move)
            moves[i] = move.index
        if timer is not None:
            timer.add(compiled_seconds, python_seconds, live.size)
        checked += live.size
        games.apply(live, moves)
        live = live[games.winner[live] < 0]
    assert all(
        game.is_over and game.hands == tuple(games.hands[g].tolist()) for g, game in enumerate(refs)
    )
    return checked


def advance(game: Game, agent: Agent, moves: int) -> Game:
    """``game`` after up to ``moves`` moves by ``agent``, stopping before one that ends it."""
    for _ in range(moves):
        move = agent.act(game.view(game.turn), game.legal_moves())
        trial = game.copy()
        trial.play(move)
        if trial.is_over:
            break
        game = trial
    return game


def sample_views(rules: Rules, n: int, seed: int) -> list[tuple[View, tuple[HandRanking, ...]]]:
    """(view, legal moves) of the acting seat, some moves into random or heuristic games."""
    rng, out = random.Random(seed), list[tuple[View, tuple[HandRanking, ...]]]()
    while len(out) < n:
        game = Game(rules, seed=rng.randrange(1 << 30))
        agent = RandomAgent(rng.randrange(1000)) if len(out) % 2 else HeuristicAgent()
        game = advance(game, agent, rng.randrange(0, 45))
        out.append((game.view(game.turn), game.legal_moves()))
    return out
