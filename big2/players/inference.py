"""Reading the other seats' moves: deals drawn in proportion to how well they explain them.

Search samples the cards a seat has not seen. Dealt uniformly, they ignore what the
other seats' moves reveal: among uniform deals of 30 heuristic games, under 1% agree
with every move the heuristic players made after 8 moves, none after 24 (3 and 8 moves
on average would have gone otherwise). Dealt with the heuristic's true hands, the
search that plays ``trained+search`` wins 0.60 against three heuristic players where
uniform deals win 0.35 (docs/search.md). :func:`walk` draws deals from

    P(deal) proportional to exp(inference x agreements(deal))

over the deals consistent with the seat's view, where ``agreements`` counts the other
seats' moves so far that the rollout player would have made on that deal: a Metropolis
chain that starts from a uniform deal and proposes swapping two unseen cards held by
different seats. ``inference`` 0 is the uniform deal; the larger, the more a deal must
explain the moves seen, as if the others played like the rollout player.

Its randomness is drawn first, as a :class:`Chain`, so that the compiled twin
(:meth:`envs.rollouts.CompiledRollouts.walk`) walks the same chain to the same deals;
this module stays the readable reference.

>>> from big2.game import Game
>>> from big2.players.search import AgentRollouts
>>> from big2.players.heuristic import HeuristicAgent
>>> game = Game(seed=4)
>>> for _ in range(6):
...     game.play(HeuristicAgent().act(game.view(game.turn), game.legal_moves()))
>>> view = game.view(game.turn)
>>> chain = draw_chain(view, random.Random(0), deals=2, burn_in=4, thin=2)
>>> deals = walk(view, chain, 2.0, AgentRollouts(HeuristicAgent()).agreements)
>>> len(deals), all(d[view.seat] == view.hand | view.played[view.seat] for d in deals)
(2, True)
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from big2.board import N_SEATS, Board
from big2.cards import N_CARDS, THREE_OF_DIAMONDS
from big2.game import View

BURN_IN = 200  # chain steps before the first deal kept
THIN = 4  # chain steps per deal kept after that

# (view, deals) -> for each deal, the other seats' moves the rollout player would have made
Agreements = Callable[[View, Sequence[tuple[int, ...]]], list[int]]


def fixed_cards(view: View) -> list[int]:
    """The cards each seat is known to have been dealt: what it played, the seat's own
    hand, and the 3♦ for the seat that opened while it is still unseen (it held it)."""
    fixed = [view.played[seat] for seat in range(N_SEATS)]
    fixed[view.seat] |= view.hand
    if view.unseen & THREE_OF_DIAMONDS:
        fixed[view.history[0].seat if view.history else view.turn] |= THREE_OF_DIAMONDS
    return fixed


def sample_deal(view: View, rng: random.Random) -> tuple[int, ...]:
    """Four starting hands consistent with ``view``: the unseen cards dealt at random.

    Each other seat gets ``view.cards_left[seat]`` unseen cards on top of the cards it
    has played; the seat itself holds its hand and what it has played. The seat that
    opened held the 3♦ (under a ``free`` opening it need not have played it).

    >>> from big2.game import Game
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
    return Board(view.rules, rng, dict(enumerate(fixed_cards(view)))).hands


@dataclass(frozen=True)
class Chain:
    """One chain's randomness, drawn before it is walked (see the module docstring).

    ``cards`` are the cards that may move (unseen and not fixed); step ``k`` proposes
    swapping ``cards[picks[k][0]]`` and ``cards[picks[k][1]]`` (nothing, if one seat
    holds both) and accepts when ``accept[k]`` is below the proposal's odds. After
    ``burn_in`` steps, every ``thin``-th deal is kept.
    """

    start: tuple[int, ...]
    cards: tuple[int, ...]
    picks: tuple[tuple[int, int], ...]
    accept: tuple[float, ...]
    burn_in: int
    thin: int


def draw_chain(view: View, rng: random.Random, deals: int, burn_in: int = BURN_IN,
               thin: int = THIN) -> Chain:  # fmt: skip
    """The randomness of a chain that keeps ``deals`` deals for ``view``."""
    start = sample_deal(view, rng)
    movable = view.unseen & ~THREE_OF_DIAMONDS  # an unseen 3♦ stays with the opener
    cards = tuple(c for c in range(N_CARDS) if movable >> c & 1)
    steps = burn_in + deals * thin
    if len(cards) < 2:
        return Chain(start, cards, ((0, 0),) * steps, (1.0,) * steps, burn_in, thin)
    picks = tuple((rng.randrange(len(cards)), rng.randrange(len(cards))) for _ in range(steps))
    return Chain(start, cards, picks, tuple(rng.random() for _ in range(steps)), burn_in, thin)


def walk(
    view: View, chain: Chain, inference: float, agreements: Agreements
) -> list[tuple[int, ...]]:
    """The deals ``chain`` keeps, weighted by ``exp(inference x agreements)``."""
    deal, kept = list(chain.start), []
    agree = agreements(view, [chain.start])[0]
    for step, ((i, j), u) in enumerate(zip(chain.picks, chain.accept, strict=True)):
        a, b = 1 << chain.cards[i], 1 << chain.cards[j]
        holder_a = next((s for s in range(N_SEATS) if deal[s] & a), -1)
        holder_b = next((s for s in range(N_SEATS) if deal[s] & b), -1)
        if holder_a != holder_b:
            proposal = list(deal)
            proposal[holder_a] ^= a | b
            proposal[holder_b] ^= a | b
            new = agreements(view, [tuple(proposal)])[0]
            if u < math.exp(inference * (new - agree)):
                deal, agree = proposal, new
        if step >= chain.burn_in and (step - chain.burn_in) % chain.thin == chain.thin - 1:
            kept.append(tuple(deal))
    return kept
