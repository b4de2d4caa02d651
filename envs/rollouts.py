"""Compiled search rollouts: what :class:`big2.players.search.AgentRollouts` computes with
:class:`~big2.players.heuristic.HeuristicAgent` in every seat, in one numba call per batch.

:class:`big2.players.search.SearchAgent` asks its rollouts how many of some sampled deals
each candidate move goes on to win; the Python rollouts replay the game and play it out
move by move, :class:`CompiledRollouts` does the same in the compiled engine
(:mod:`envs.kernels.search`) with the compiled heuristic, which plays the Python one's
moves; the ``search`` agent spec uses it. :class:`PolicyRollouts` lets a batch policy (a
network) play the searching seat and the compiled heuristic the others:
``AgentRollouts(HeuristicAgent(), own=agent)``'s counts, all the deals and candidates of
a decision at once. ``NAME+search`` with a trained network uses those, or the heuristic's
with the search option ``rollouts="heuristic"`` (:mod:`big2.players.specs`).

>>> from big2.game import Game
>>> from big2.players.search import sample_deal
>>> import random
>>> game = Game(seed=3)
>>> game.play(game.legal_moves()[0])
>>> view, rng = game.view(game.turn), random.Random(0)
>>> deals = [sample_deal(view, rng) for _ in range(4)]
>>> wins = CompiledRollouts().wins(view, deals, game.legal_moves()[:2])
>>> len(wins), all(0 <= w <= 4 for w in wins)
(2, True)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from big2.game import View
from big2.hand_ranking import HandRanking
from big2.rules import Rules
from envs import codecs
from envs.codecs import ActionCodec
from envs.compiled_heuristic import heuristic_arrays
from envs.decisions import BatchPolicy, DecisionMaker
from envs.engine import Games, Tables
from envs.kernels import search
from envs.kernels.turns import PASS
from envs.opponents import Opponents
from envs.renamed import renamed
from observers.base import Observer
from observers.moves import MoveFeatures


class CompiledRollouts:
    """Heuristic rollouts in the compiled engine (see the module docstring). Deterministic."""

    name = "compiled"

    def __init__(self) -> None:
        self._games: dict[Rules, Games] = {}  # two games per rules preset, reused

    def wins(
        self, view: View, deals: Sequence[tuple[int, ...]], moves: Sequence[HandRanking]
    ) -> list[int]:
        """How many of ``deals`` (starting hands agreeing with ``view``) ``view.seat`` wins
        after each of ``moves`` (legal at ``view``), the heuristic playing every seat after."""
        rules = view.rules
        games = self._games.get(rules) or self._games.setdefault(rules, Games(2, Tables.of(rules)))
        history = np.array([_index(e.move) for e in view.history], np.int64)
        candidates = np.array([_index(m) for m in moves], np.int64)
        wins = np.zeros(len(moves), np.int64)
        hands = np.array(deals, np.uint64).reshape(-1, rules.players)
        state, cat, heur = games.arrays, games.tables.arrays, heuristic_arrays(rules)
        search.rollout_wins(hands, history, candidates, view.seat, state, cat, heur, wins)
        return [int(w) for w in wins]

    def __repr__(self) -> str:
        return "CompiledRollouts()"


class PolicyRollouts:
    """Rollouts in which the searching seat plays a batch policy and the compiled heuristic
    every other seat: what ``AgentRollouts(HeuristicAgent(), own=agent)`` computes with
    the policy as ``agent``, for all the deals and candidate moves of a decision at once.

    Every (deal, candidate) pair is a game of one :class:`~envs.engine.Games`, dealt, the
    public history replayed, the candidate played; :class:`~envs.opponents.Opponents`
    then plays them all to their end, asking ``policy`` once per round for every game
    where the searching seat is to move (it sees what the vector env shows a seat:
    ``observer``'s vector, codec ``actions``' legal actions, ``move_features``' rows).
    Deterministic when the policy is.
    """

    name = "policy"
    # deals per call of SearchAgent's rounds: a call's cost is mostly its rounds of moves,
    # each a forward pass, so larger calls amortise them (ROUND is 8 for the others)
    round = 64

    @renamed(legal_features="move_features")
    def __init__(
        self,
        policy: BatchPolicy,
        observer: Observer,
        actions: ActionCodec | str = "catalog",
        move_features: MoveFeatures | None = None,
    ) -> None:
        self.policy, self.observer, self.move_features = policy, observer, move_features
        self.codec = codecs.make(actions, observer.rules) if isinstance(actions, str) else actions

    def wins(
        self, view: View, deals: Sequence[tuple[int, ...]], moves: Sequence[HandRanking]
    ) -> list[int]:
        """How many of ``deals`` ``view.seat`` wins after each of ``moves``."""
        if view.rules != self.observer.rules:
            raise ValueError(
                f"the policy's observer was built for {self.observer.rules.name}, "
                f"not {view.rules.name}"
            )
        k, n = len(moves), len(deals) * len(moves)
        games = Games(n, Tables.of(view.rules))
        firsts = np.arange(0, n, k)  # each deal is dealt and replayed once, then copied
        for d, slot in enumerate(firsts.tolist()):
            games.deal(slot, deals[d])
        for entry in view.history[int(games.n_moves[0]) :]:  # the rules' own moves are made
            games.apply(firsts, np.full(len(firsts), _index(entry.move), np.int64))
        state = games.arrays
        for slot in range(n):
            if slot % k:
                search.copy_game(state, slot - slot % k, state, slot)
        slots = np.arange(n)
        games.apply(slots, np.tile(np.array([_index(m) for m in moves], np.int64), len(deals)))
        maker = DecisionMaker(games, self.observer, self.codec, None, self.move_features)
        seats = Opponents(maker, ["heuristic", self.policy], np.random.default_rng(0))
        kinds = np.zeros((n, view.rules.players), np.int64)
        kinds[:, view.seat] = 1
        seats.seat(slots, kinds)
        seats.advance()
        won = (games.winner == view.seat).reshape(len(deals), k)
        return [int(w) for w in won.sum(axis=0)]

    def __repr__(self) -> str:
        return f"PolicyRollouts({self.policy!r}, observer={self.observer.name!r})"


def _index(move: HandRanking) -> int:
    """A move as the engine writes it: its catalog index, or PASS."""
    return move.index if move else PASS
