"""Any policy as a player: the one adapter from policies to :class:`~big2.players.Agent`.

A policy is a callable ``policy(observation, mask[, features]) -> action or logits``:
given what the env would give the seat (the observer's vector and the codec's
legal-action mask), it returns an action index, or a vector of logits over every action
(illegal ones are ignored). With logits, :class:`PolicyAgent` plays the most likely legal
action, or samples among the legal actions (``sample=True``, with its own RNG), and its
:meth:`~PolicyAgent.scores` serve as a search prior (:mod:`big2.players.search`).

>>> import numpy as np
>>> from big2.evaluation import evaluate
>>> first_legal = PolicyAgent(lambda obs, mask: int(np.flatnonzero(mask)[0]), name="first")
>>> evaluate([first_legal, "random", "random", "random"], 5, seed=0).agents[0].name
'first'
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import observers
from big2.board import Seed, make_rng
from big2.game import Game, View
from big2.hand_ranking import HandRanking
from big2.log import Candidate, Thought
from big2.rules import STANDARD, Rules
from envs import codecs
from envs.codecs import ActionCodec
from observers.base import Observer
from observers.moves import MoveFeatures

Policy = Callable[..., Any]  # (observation, mask[, features]) -> action index or logits
THOUGHT_SIZE = 5  # candidates kept in a move's thought (big2.log.Thought)


class PolicyAgent:
    """An agent that asks ``policy(observation, mask[, features])`` what to play.

    Args:
        policy: returns an action index, or logits over all actions (see module).
        observer, actions: the observer (name or instance) and codec (name or instance)
            that make the policy's inputs, as the env would for that seat.
        rules: the rules the codec and observer are built for (when given by name).
        name: the name the arena reports.
        features: move features (:mod:`observers.moves`); with them, the policy is called
            as ``policy(obs, mask, features(view, legal_moves))``, one row per legal move;
            features with ``perfect_information`` set are also handed the game (``cheat``).
        sample: sample among the legal actions by softmax of the logits instead of
            playing the most likely one (needs a logits policy).
        seed: the sampling RNG: an int, a ``random.Random`` (shared as is) or None.
        cheat: allow an observer that sees every hand (``oracle``): the agent is then
            shown the whole game before each move (:func:`big2.players.play`). For
            upper bounds in studies only; without it such an observer is refused.

    A decoded action that is not legal raises :class:`ValueError` naming it.
    """

    def __init__(
        self,
        policy: Policy,
        observer: Observer | str = "simple",
        actions: ActionCodec | str = "catalog",
        rules: Rules = STANDARD,
        name: str = "policy",
        features: MoveFeatures | None = None,
        *,
        sample: bool = False,
        seed: Seed = None,
        cheat: bool = False,
    ) -> None:
        self.observer = observers.make(observer, rules) if isinstance(observer, str) else observer
        self.cheating_features = bool(getattr(features, "perfect_information", False))
        if self.cheating_features and not cheat:
            raise ValueError(
                f"features {features!r} read every hand; agents see views "
                "(cheat=True makes a labelled upper bound)"
            )
        if self.observer.perfect_information and not cheat:
            raise ValueError(
                f"observer {self.observer.name!r} needs the full game; agents see views "
                f"(cheat=True makes a labelled upper bound that is shown the game)"
            )
        self.sees_every_hand = self.observer.perfect_information or self.cheating_features
        self.game: Game | None = None  # the game being played, shown to a cheating agent
        self.codec = codecs.make(actions, rules) if isinstance(actions, str) else actions
        self.policy, self.name, self.features = policy, name, features
        self.sample, self.rng = sample, make_rng(seed)
        self.last_thought: Thought | None = None  # what the last act weighed (big2.log)

    def show(self, game: Game) -> None:
        """Let a cheating agent (``cheat=True``) see ``game`` for its next move."""
        self.game = game

    def reset(self, seed: int) -> None:
        """Reseed the sampling RNG (the arena calls this before every game)."""
        self.rng = random.Random(seed)

    def inputs(self, view: View, legal_moves: Sequence[HandRanking]) -> tuple[np.ndarray, ...]:
        """What the policy is called with: (observation, mask[, features])."""
        if self.sees_every_hand and (self.game is None or self.game.turn != view.seat):
            raise ValueError(f"agent {self.name!r} sees every hand; show it the game first")
        obs = self.observer.observe(view, self.game if self.observer.perfect_information else None)
        mask = self.codec.mask(legal_moves, view.hand)
        if self.features is None:
            return obs, mask
        if self.cheating_features:  # they read every hand too: hand them the game
            return obs, mask, self.features(view, legal_moves, self.game)
        return obs, mask, self.features(view, legal_moves)

    def act(self, view: View, legal_moves: Sequence[HandRanking]) -> HandRanking:
        self.last_thought = None
        inputs = self.inputs(view, legal_moves)
        out = np.asarray(self.policy(*inputs))
        if not out.ndim and self.sample:
            raise ValueError(f"policy {self.name!r} returned an action; sampling needs logits")
        action = self._choose(out, inputs[1]) if out.ndim else int(out)
        move = self.codec.decode(action, view.hand)
        if move not in legal_moves:
            raise ValueError(f"policy {self.name!r} chose action {action} ({move}), not legal now")
        if out.ndim:
            self.last_thought = self._thought(out, inputs[1], view.hand)
        return move

    def _thought(self, logits: np.ndarray, mask: np.ndarray, hand: int) -> Thought:
        """The likeliest legal moves under the policy's softmax (:data:`THOUGHT_SIZE`),
        read off the legal actions' logits; only those kept are decoded."""
        legal = mask.view(np.bool_).nonzero()[0]
        weights = np.exp(logits[legal] - logits[legal].max())
        probabilities = weights / weights.sum()
        top = np.argsort(-probabilities, kind="stable")[:THOUGHT_SIZE]
        moves = [self.codec.decode(int(legal[i]), hand) for i in top]
        chances = [float(probabilities[i]) for i in top]
        return Thought(tuple(map(Candidate, moves, chances)))

    def scores(self, view: View, legal_moves: Sequence[HandRanking]) -> list[float]:
        """The policy's logit of each legal move, in order (a prior for search)."""
        logits = self._logits(self.inputs(view, legal_moves))
        encode = self.codec.encode
        return [float(logits[encode(m, view.hand)]) for m in legal_moves]

    def _logits(self, inputs: tuple[np.ndarray, ...]) -> np.ndarray:
        out = np.asarray(self.policy(*inputs))
        if out.shape != (self.codec.n,):
            raise ValueError(
                f"policy {self.name!r} returned shape {out.shape}; scores and sampling need "
                f"logits of shape ({self.codec.n},)"
            )
        return out

    def _choose(self, logits: np.ndarray, mask: np.ndarray) -> int:
        """The most likely legal action, or one sampled by softmax over the legal ones."""
        if logits.shape != mask.shape:
            raise ValueError(
                f"policy {self.name!r} returned shape {logits.shape}; expected an action "
                f"index or logits of shape {mask.shape}"
            )
        legal = mask.view(np.bool_).nonzero()[0]
        scores = logits[legal]
        if not self.sample:
            return int(legal[int(scores.argmax())])
        weights = np.exp(scores - scores.max())
        return int(self.rng.choices(legal.tolist(), weights=weights.tolist())[0])

    def __repr__(self) -> str:
        return f"PolicyAgent(name={self.name!r}, observer={self.observer.name!r})"
