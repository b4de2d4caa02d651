"""The arena's duplicate deals in the compiled engine, for a policy that answers in batches.

:func:`deal_results` plays what :func:`big2.evaluation.deal_results` plays for
``[policy, opponent, ...]``: each deal of ``seed`` (the same cards:
:func:`big2.evaluation.duplicate_board`) once for each of the rules' seats, the policy in
seat 0, 1, ... in turn, against copies of one opponent at the other seats, and returns
the policy's (wins, total score) over each deal's games (four of four players). Every
game of a batch of deals runs at once in :class:`envs.engine.Games`, seated and moved by
:class:`envs.opponents.Opponents`: the policy is asked once per round for every game
where it is to move (one forward pass instead of one per decision), and ``random``,
``greedy`` and ``heuristic`` opponents are the compiled ones (``heuristic`` checked move
by move against :class:`~big2.players.heuristic.HeuristicAgent`).

Against ``greedy`` and ``heuristic`` players, which are deterministic, a policy that is
deterministic too (the greedy choice of a network) plays the arena's games with that
policy as an agent, so the results are the same deal for deal (``tests/test_duplicate.py``
finds them equal; a batched forward pass could in principle round a near-tie between
two moves the other way). ``random`` players draw from each game's own stream, seeded by
(``seed``, deal, seating) as the arena seeds its random players, so a deal's games do not
depend on the deals played beside it or how many there are, and every policy meets the
same draws; the streams are not the arena's generator, so those games differ from the
arena's, deal for deal, though not in distribution. Other agent specs are asked game by
game at Python speed, one instance for every seat and game, reseeded at each game's
start: deterministic ones play the arena's games, others draw differently, and an agent
that must be shown the whole game (a cheating upper bound) cannot sit here.

>>> import numpy as np
>>> from envs.decisions import Decisions
>>> def first(decisions: Decisions) -> np.ndarray:  # the first legal action
...     return decisions.legal[:, 0]
>>> results = deal_results(first, "greedy", 3, seed=0)
>>> len(results), all(0 <= wins <= 4 for wins, _ in results)
(3, True)
>>> from big2.rules import THREE_PLAYER
>>> max(wins for wins, _ in deal_results(first, "greedy", 3, 0, THREE_PLAYER)) <= 3
True
"""

from __future__ import annotations

import numpy as np

import observers
from big2.evaluation import duplicate_board
from big2.rules import STANDARD, Rules
from envs import codecs
from envs.decisions import BatchPolicy, DecisionMaker
from envs.engine import MAX_MOVES, Games, Tables
from envs.opponents import Opponents
from envs.renamed import renamed
from observers.base import Observer
from observers.moves import MoveFeatures

BATCH_DEALS = 250  # deals played at once (1,000 games of four): memory, not results, sets it
POLICY, OPPONENT = 1, 0  # the two kinds seated (indices into the Opponents' mix)


@renamed(legal_features="move_features")
def deal_results(
    policy: BatchPolicy,
    opponent: str | BatchPolicy,
    n_deals: int,
    seed: int = 0,
    rules: Rules = STANDARD,
    observer: Observer | str = "simple",
    actions: codecs.CatalogCodec | codecs.HandCodec | str = "catalog",
    move_features: MoveFeatures | None = None,
) -> list[tuple[int, int]]:
    """Per deal, the policy's (wins, total score) over its games, one a seat (see the module).

    ``policy`` sees what the vector env shows a seat: ``observer``'s vector, the legal
    actions of codec ``actions`` and, with ``move_features``, their rows. An observer
    that sees every hand (a study's upper bound) sees them here too.
    """
    if n_deals < 1:
        raise ValueError(f"n_deals must be at least 1, got {n_deals}")
    seen = observers.for_rules(observer, rules)
    codec = codecs.for_rules(actions, rules)
    out: list[tuple[int, int]] = []
    for first in range(0, n_deals, BATCH_DEALS):
        deals = range(first, min(first + BATCH_DEALS, n_deals))
        out += _play(policy, opponent, deals, seed, rules, seen, codec, move_features)
    return out


def _entropy(seed: int, *keys: int) -> list[int]:
    """A SeedSequence entropy for ``seed`` (negative too) and ``keys``."""
    return [abs(seed), int(seed < 0), *keys]


def _play(
    policy: BatchPolicy,
    opponent: str | BatchPolicy,
    deals: range,
    seed: int,
    rules: Rules,
    observer: Observer,
    codec: codecs.ActionCodec,
    move_features: MoveFeatures | None,
) -> list[tuple[int, int]]:
    """Play ``deals`` to the end, all games at once: game P i + s (P players) seats the
    policy in seat s on deal ``deals[i]``."""
    seats_of = rules.players
    n = len(deals) * seats_of
    games = Games(n, Tables.of(rules))
    maker = DecisionMaker(games, observer, codec, None, move_features)
    rng = np.random.default_rng(_entropy(seed, deals[0]))  # reseeds agent specs
    seats = Opponents(maker, [opponent, policy], rng)
    streams = np.empty((n, MAX_MOVES))
    for i, deal in enumerate(deals):
        hands = duplicate_board(rules, seed, deal).hands
        for s in range(seats_of):
            games.deal(i * seats_of + s, hands)
            streams[i * seats_of + s] = np.random.default_rng(_entropy(seed, deal, s)).random(
                MAX_MOVES
            )
    mine = np.arange(n) % seats_of  # the policy's seat in each game
    kinds = np.full((n, seats_of), OPPONENT, np.int64)
    kinds[np.arange(n), mine] = POLICY
    seats.seat(np.arange(n), kinds, streams)
    seats.advance()  # every game to its end
    won = games.winner == mine
    scores = games.final_scores(np.arange(n))[np.arange(n), mine]
    wins = won.reshape(-1, seats_of).sum(axis=1)
    totals = scores.reshape(-1, seats_of).sum(axis=1)
    return [(int(w), int(total)) for w, total in zip(wins, totals, strict=True)]
