"""Determinized search: try each candidate move on sampled deals, keep the one that wins most.

A seat cannot see the other hands, so :func:`sample_deal` deals the cards it has not
seen at random to the other seats (each gets as many as it holds now, plus what it has
played), and :func:`determinize` replays the public history on that deal: a whole
:class:`Game` that agrees with everything the seat has seen. :class:`SearchAgent`
(perfect-information Monte Carlo, as in GIB for bridge) plays every candidate move on
the same sampled deals, finishes each game with a rollout agent in all four seats, and
picks the candidate that won most often. The rollouts are an object with
``wins(view, deals, moves)``: :class:`AgentRollouts` plays them here, one game at a time
(the readable reference); ``envs.rollouts.CompiledRollouts`` plays the heuristic's
rollouts in the compiled engine, and agent specs use it.

Rollouts get shorter as the hands empty, so it samples more deals late in the game
(where the choice decides most games) at about the same cost per decision:
``determinizations`` deals at a full table, scaled by 52 / cards still held, at most
``max_determinizations``. With a ``prior`` (a trained policy's logits, say) the
candidates are the prior's most likely moves and the score adds ``prior_weight`` times
each candidate's log-probability among them, so the prior decides near-ties.

Deals are sampled uniformly: the search does not infer from passes what opponents hold,
and it assumes everyone plays like the rollout agent afterwards.

>>> from big2.game import Game
>>> game = Game(seed=3)
>>> agent = SearchAgent(determinizations=4, candidates=3, seed=0)
>>> agent.act(game.view(game.turn), game.legal_moves()) in game.legal_moves()
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Protocol

from big2.board import Board, Seed, make_rng
from big2.cards import N_CARDS
from big2.game import Game, View
from big2.hand_ranking import HandRanking
from big2.log import Candidate, Thought
from big2.players.base import Agent, play
from big2.players.heuristic import HeuristicAgent

# defaults, chosen with the shipped agent against heuristic players (docs/search.md)
DETERMINIZATIONS = 32
LATE_FACTOR = 4  # max_determinizations defaults to this many times determinizations
CANDIDATES = 6
PRIOR_WEIGHT = 0.0375
ROUND = 8  # deals sampled and rolled out together before hopeless candidates are dropped

# (view, legal moves) -> one score per move, higher is likelier (logits or log-probabilities)
Prior = Callable[[View, Sequence[HandRanking]], Sequence[float]]


def sample_deal(view: View, rng: random.Random) -> tuple[int, ...]:
    """Four starting hands consistent with ``view``: the unseen cards dealt at random.

    Each other seat gets ``view.cards_left[seat]`` unseen cards on top of the cards it
    has played; the seat itself holds its hand and what it has played. The seat that
    opened held the opening card (under a ``free`` opening it need not have played it).

    >>> game = Game(seed=1)
    >>> view = game.view(0)
    >>> sample_deal(view, random.Random(0))[0] == game.hand(0)
    True
    """
    others = sum(n for seat, n in enumerate(view.cards_left) if seat != view.seat)
    if others != view.unseen.bit_count() or view.cards_left[view.seat] != view.hand.bit_count():
        raise ValueError(
            f"inconsistent view: seat {view.seat} holds {view.hand.bit_count()} cards and "
            f"has not seen {view.unseen.bit_count()}, but cards_left is {view.cards_left}"
        )
    fixed = {seat: view.played[seat] for seat in range(view.rules.players)}
    fixed[view.seat] |= view.hand
    opening = 1 << view.rules.opening_index
    if view.unseen & opening:
        fixed[view.history[0].seat if view.history else view.turn] |= opening
    return Board(view.rules, rng, fixed).hands


def replay(view: View, deal: tuple[int, ...]) -> Game:
    """The game dealt ``deal`` with ``view``'s public history replayed on it."""
    game = Game.from_board(Board.from_hands(deal, view.rules))
    for entry in view.history[len(game.log.moves) :]:  # past the moves the rules make
        game.play(entry.move)
    return game


def determinize(view: View, rng: random.Random) -> Game:
    """A game consistent with ``view``: :func:`sample_deal`, then the history replayed.

    The returned game is at the same point as ``view`` (same hands for the seat, table,
    turn and history).

    >>> game = Game(seed=1)
    >>> for _ in range(6):
    ...     game.play(game.legal_moves()[0])
    >>> view = game.view(2)
    >>> sampled = determinize(view, random.Random(0))
    >>> sampled.hand(2) == game.hand(2), sampled.view(2).history == view.history
    (True, True)
    """
    return replay(view, sample_deal(view, rng))


class Rollouts(Protocol):
    """Plays sampled deals out after each candidate move (what search is built on)."""

    def wins(
        self, view: View, deals: Sequence[tuple[int, ...]], moves: Sequence[HandRanking]
    ) -> list[int]:
        """How many of ``deals`` (from :func:`sample_deal`) ``view.seat`` wins after each of
        ``moves``, the game replayed to ``view`` and finished by the rollout players."""
        ...


class AgentRollouts:
    """Rollouts with ``agent`` in all four seats, or ``own`` in the searching seat and
    ``agent`` in the others, one game at a time (the reference).

    >>> game = Game(seed=3)
    >>> game.play(game.legal_moves()[0])
    >>> view, rng = game.view(game.turn), random.Random(0)
    >>> deals = [sample_deal(view, rng) for _ in range(3)]
    >>> wins = AgentRollouts(HeuristicAgent()).wins(view, deals, game.legal_moves()[:2])
    >>> len(wins), all(0 <= w <= 3 for w in wins)
    (2, True)
    """

    def __init__(self, agent: Agent, own: Agent | None = None) -> None:
        self.agent, self.own = agent, own

    def wins(
        self, view: View, deals: Sequence[tuple[int, ...]], moves: Sequence[HandRanking]
    ) -> list[int]:
        out = [0] * len(moves)
        seats = [self.agent] * view.rules.players
        if self.own is not None:
            seats[view.seat] = self.own
        for deal in deals:
            sampled = replay(view, deal)
            for i, move in enumerate(moves):
                game = sampled.copy()
                game.play(move)
                out[i] += play(game, seats).winner == view.seat
        return out

    def __repr__(self) -> str:
        own = "" if self.own is None else f", own={self.own!r}"
        return f"AgentRollouts({self.agent!r}{own})"


class SearchAgent:
    """Picks the candidate move that wins most often on sampled deals (see module).

    Args:
        prior: scores the legal moves (higher is likelier); without one the candidates
            are the rollout agent's own move and then the legal moves in catalog order.
        rollout: plays every seat after the candidate move; deterministic agents make
            the comparison fairest (all candidates see the same deals and replies).
            Default :class:`~big2.players.heuristic.HeuristicAgent`.
        rollouts: what plays the deals out; default ``AgentRollouts(rollout)``. Give
            ``envs.rollouts.CompiledRollouts()`` (the heuristic's rollouts, compiled) for
            speed: the same wins, so the same choices.
        determinizations: deals sampled per decision at a full table (52 cards held).
        max_determinizations: the most deals per decision, late in the game (default
            4 x ``determinizations``); equal to ``determinizations``, every decision
            samples that many.
        candidates: moves tried per decision (the prior's most likely).
        prior_weight: weight of a candidate's log-probability (softmax of the prior's
            scores over the candidates) added to its win rate.
        seed: an int, a ``random.Random`` or None; :meth:`reset` reseeds.
        name: the name the arena reports.
    """

    def __init__(
        self,
        prior: Prior | None = None,
        *,
        rollout: Agent | None = None,
        rollouts: Rollouts | None = None,
        determinizations: int = DETERMINIZATIONS,
        max_determinizations: int | None = None,
        candidates: int = CANDIDATES,
        prior_weight: float = PRIOR_WEIGHT,
        seed: Seed = None,
        name: str = "search",
    ) -> None:
        for label, value in (("determinizations", determinizations), ("candidates", candidates)):
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{label} must be a positive int, got {value!r}")
        if max_determinizations is None:
            max_determinizations = LATE_FACTOR * determinizations
        if not isinstance(max_determinizations, int) or max_determinizations < determinizations:
            raise ValueError(
                f"max_determinizations must be an int >= determinizations ({determinizations}), "
                f"got {max_determinizations!r}"
            )
        if not (isinstance(prior_weight, (int, float)) and 0 <= prior_weight < math.inf):
            raise ValueError(f"prior_weight must be a finite number >= 0, got {prior_weight!r}")
        self.prior, self.rollout = prior, rollout or HeuristicAgent()
        self.rollouts = rollouts or AgentRollouts(self.rollout)
        self.determinizations, self.candidates = determinizations, candidates
        self.max_determinizations = max_determinizations
        self.prior_weight, self.name = float(prior_weight), name
        self.rng = make_rng(seed)
        self.last_thought: Thought | None = None  # what the last act weighed (big2.log)

    def reset(self, seed: int) -> None:
        """Reseed (the arena calls this before every game); a rollout agent's too."""
        self.rng = random.Random(seed)
        reset = getattr(self.rollout, "reset", None)
        if callable(reset):
            reset(seed)

    def act(self, view: View, legal_moves: Sequence[HandRanking]) -> HandRanking:
        self.last_thought = None
        if len(legal_moves) == 1:
            return legal_moves[0]
        moves, log_probs = self._candidates(view, legal_moves)
        if len(moves) == 1:
            return moves[0]
        best, wins, tried = self._pick(view, moves, log_probs)
        order = [best, *(i for i in range(len(moves)) if i != best)]
        candidates = tuple(
            Candidate(moves[i], math.exp(log_probs[i]), wins[i] / max(1, tried[i]), tried[i])
            for i in order
        )
        rule = self.rule(self.deals(view))
        self.last_thought = Thought(candidates, candidates[0].win_rate, rule)
        return moves[best]

    def rule(self, deals: int) -> str:
        """How a decision on ``deals`` sampled deals picks its move, in words (the
        ``rule`` of the thoughts it leaves in logs).

        >>> SearchAgent().rule(16).split(";")[0]
        'most deals won of up to 16 sampled'
        """
        prior = ""
        if self.prior is not None:
            prior = f", plus {self.prior_weight:g} x {deals} x its prior log-probability"
        return (
            f"most deals won of up to {deals} sampled{prior}; a move stops being sampled "
            f"once it cannot catch the leader"
        )

    def _pick(
        self, view: View, moves: Sequence[HandRanking], log_probs: Sequence[float]
    ) -> tuple[int, list[int], list[int]]:
        """The index of the best score (win rate + prior term; ties: the likeliest move),
        and each move's deals won and deals tried.

        The same choice as scoring every move on every deal, but after each round of
        ``ROUND`` deals (or the rollouts' own ``round``, for rollouts whose calls cost more
        than their games) a move is dropped once it could not catch the leader even by
        winning all the remaining deals.
        """
        n, size = self.deals(view), getattr(self.rollouts, "round", ROUND)
        bonus = [n * self.prior_weight * lp for lp in log_probs]  # the prior, in deals won
        wins, tried = [0] * len(moves), [0] * len(moves)
        alive, done = list(range(len(moves))), 0
        while done < n and len(alive) > 1:
            deals = self.sample(view, min(size, n - done))
            won = self.rollouts.wins(view, deals, [moves[i] for i in alive])
            for i, w in zip(alive, won, strict=True):
                wins[i] += w
                tried[i] += len(deals)
            done += len(deals)
            lead = max(wins[i] + bonus[i] for i in alive)
            alive = [i for i in alive if wins[i] + bonus[i] + (n - done) >= lead - 1e-9]
        best = max(alive, key=lambda i: (wins[i] + bonus[i], -i))
        return best, wins, tried

    def deals(self, view: View) -> int:
        """How many deals a decision at ``view`` samples (more as the hands empty).

        >>> agent = SearchAgent(determinizations=16, max_determinizations=64)
        >>> view = Game(seed=0).view(0)
        >>> agent.deals(view), agent.deals(view._replace(cards_left=(13, 5, 4, 4)))
        (16, 32)
        """
        scaled = round(self.determinizations * N_CARDS / max(1, sum(view.cards_left)))
        return max(self.determinizations, min(self.max_determinizations, scaled))

    def win_rates(self, view: View, moves: Sequence[HandRanking]) -> list[float]:
        """The share of sampled deals each of ``moves`` (legal now) goes on to win."""
        n = self.deals(view)
        return [w / n for w in self.rollouts.wins(view, self.sample(view, n), moves)]

    def sample(self, view: View, n: int) -> list[tuple[int, ...]]:
        """``n`` deals consistent with ``view``, drawn uniformly (:func:`sample_deal`).

        The one place deals are made: a subclass may deal otherwise (``lab.true_deals``
        deals the true hands, as an upper bound).
        """
        return [sample_deal(view, self.rng) for _ in range(n)]

    def _candidates(
        self, view: View, legal_moves: Sequence[HandRanking]
    ) -> tuple[list[HandRanking], list[float]]:
        """The moves to try and their log-probabilities among themselves."""
        if self.prior is None:
            first = self.rollout.act(view, legal_moves)
            moves = [first, *(m for m in legal_moves if m != first)][: self.candidates]
            return moves, [-math.log(len(moves))] * len(moves)  # no preference among them
        scores = list(self.prior(view, legal_moves))
        if len(scores) != len(legal_moves) or not all(map(math.isfinite, scores)):
            raise ValueError(
                f"prior gave {len(scores)} scores for {len(legal_moves)} legal moves; "
                f"expected one finite score per move"
            )
        order = sorted(range(len(scores)), key=lambda i: -scores[i])[: self.candidates]
        top = max(scores[i] for i in order)
        log_total = top + math.log(sum(math.exp(scores[i] - top) for i in order))
        return [legal_moves[i] for i in order], [scores[i] - log_total for i in order]

    def __repr__(self) -> str:
        return (
            f"SearchAgent(name={self.name!r}, determinizations={self.determinizations}, "
            f"max_determinizations={self.max_determinizations}, candidates={self.candidates}, "
            f"prior_weight={self.prior_weight}, rollouts={self.rollouts!r})"
        )
