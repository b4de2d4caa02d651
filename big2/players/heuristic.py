"""A rule-based player that plays the way a decent human does.

:class:`HeuristicAgent` decides from a **plan**: the partition of its hand into
combinations that is cheapest to shed. The cost of a hand is the number of turns it
needs (up to two five-card hands taken out, the rest grouped by rank into triples,
pairs and singles) plus half a turn per single below T, because low singles are hard
to get rid of. Then, in order:

1. **Go out** when one legal play empties the hand.
2. **Opening** (first play must contain 3♦): the plan's combination with 3♦, else the
   longest legal play with 3♦.
3. **Leading**: with two combinations left and a control one (holding a 2, or one
   nobody can beat judging from the unseen cards), lead the control one first to keep
   the lead, then the other. If an opponent holds one
   card, do not lead a single unless nothing else is left (then lead the highest).
   Otherwise lead the plan's combination holding its weakest card, keeping control
   combinations (those with a 2, or unbeatable ones) for last; a longer combination
   wins ties, so many low cards are shed at once.
4. **Following**: when an opponent holds a single card and the table is a single,
   beat it with the strongest single to keep control. Otherwise pick the play that
   leaves the cheapest rest of the hand (ties: the weakest play). When an opponent is
   close to going out (3 cards or fewer) play it whatever it costs. Otherwise pass if
   it would break the plan (the rest costs more than a plan play would leave, with
   half a turn of slack) or if it spends a control combination (one with a 2, or one
   nobody can beat) while the plan still has three or more combinations.

How well it plays is measured in ``docs/results.md``.

>>> from big2.game import Game
>>> game = Game(seed=5)
>>> agent = HeuristicAgent()
>>> move = agent.act(game.view(game.turn), game.legal_moves())
>>> bool(move.cards & 1)   # the opening play contains 3D
True
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache

from big2 import cards as C
from big2.board import seats_from
from big2.game import View
from big2.hand_ranking import (
    PASS,
    HandRanking,
    Ranking,
    catalog,
    classify,
    combinations_in,
    stronger_than,
)
from big2.rules import Rules

LOW_RANK = C.RANKS.index("T")  # singles below T are hard to shed
DANGER = 3  # an opponent this close to going out: play whatever beats the table
KEEP_CONTROL_PLAN = 3  # keep control combinations while the plan has this many or more
MAX_FIVES = 24  # five-card hands considered when planning (lowest first)
SPLIT_TOLERANCE = 0.5  # a follow may leave the rest this much costlier than a plan play


class HeuristicAgent:
    """Rule-based player; see the module docstring for its rules. Deterministic."""

    name = "heuristic"

    def act(self, view: View, legal_moves: Sequence[HandRanking]) -> HandRanking:
        plays = [m for m in legal_moves if m]
        if not plays:
            return PASS
        for m in plays:
            if m.cards == view.hand:
                return m
        plan = _plan(view.hand, view.rules)
        if not view.history:  # the first play of the game (it must hold 3D)
            return _opening(plan, plays)
        if view.table is None:
            return _lead(plan, plays, view)
        return _follow(plan, plays, view, PASS in legal_moves)

    def __repr__(self) -> str:
        return "HeuristicAgent()"


def make_plan(hand: int, rules: Rules) -> list[HandRanking]:
    """The partition of ``hand`` into combinations that is cheapest to shed (see module)."""
    return list(_plan(hand, rules))


@lru_cache(maxsize=1 << 16)
def _plan(hand: int, rules: Rules) -> tuple[HandRanking, ...]:
    """:func:`make_plan`, cached: search rollouts meet the same hands again and again."""
    _, chosen = _best_fives(hand, rules)
    rest = hand & ~sum(f.cards for f in chosen)
    parts = [*chosen, *_by_rank(rest, rules)]
    return tuple(sorted(parts, key=lambda p: (p.cards & -p.cards, -p.size)))


def plan_cost(hand: int, rules: Rules) -> float:
    """What shedding ``hand`` costs: turns needed, plus half a turn per low single."""
    return _best_fives(hand, rules)[0]


@lru_cache(maxsize=1 << 18)
def _best_fives(hand: int, rules: Rules) -> tuple[float, tuple[HandRanking, ...]]:
    """The cheapest choice of up to two five-card hands to take out, and its cost.

    Cached (the result is immutable): a hand and its rests recur on each of its
    decisions, and :func:`make_plan` and :func:`plan_cost` share the search.
    """
    fives = combinations_in(hand, 5, rules)[:MAX_FIVES]
    best: tuple[float, tuple[HandRanking, ...]] = (_rank_cost(hand, rules), ())
    for i, f in enumerate(fives):
        rest = hand & ~f.cards
        cost = 1 + _rank_cost(rest, rules) + 0.001 * C.highest(f.cards)
        if cost < best[0]:
            best = (cost, (f,))
        for g in fives[i + 1 :]:
            if f.cards & g.cards:
                continue
            both = 2 + _rank_cost(rest & ~g.cards, rules) + 0.001 * C.highest(f.cards | g.cards)
            if both < best[0]:
                best = (both, (f, g))
    return best


def _rank_cost(hand: int, rules: Rules) -> float:
    """Turns to shed ``hand`` grouped by rank (quads: two pairs unless 4-card plays exist)."""
    cost = 0.0
    for rank, n in enumerate(C.rank_counts(hand)):
        if n == 1:
            cost += 1.5 if rank < LOW_RANK else 1.0
        elif n:
            cost += 2 if n == 4 and not rules.four_card_plays else 1
    return cost


def _by_rank(hand: int, rules: Rules) -> list[HandRanking]:
    """Group cards of each rank: quads as two pairs (or quads where 4-card plays exist)."""
    out = []
    for rank in range(C.N_RANKS):
        held = C.rank_mask(hand, rank) << (4 * rank)
        n = held.bit_count()
        if n == 4 and not rules.four_card_plays:
            low_two = held & -held
            low_two |= (held ^ low_two) & -(held ^ low_two)
            groups = [low_two, held ^ low_two]
        else:
            groups = [held] if n else []
        for g in groups:
            combo = classify(g, rules)
            assert combo is not None
            out.append(combo)
    return out


def is_control(combo: HandRanking, view: View) -> bool:
    """Holds a 2, or nobody could beat it with the cards this seat has not seen.

    >>> from big2.game import Game
    >>> game = Game(seed=5)
    >>> is_control(HandRanking.from_str("2S"), game.view(game.turn))
    True
    """
    has_two = C.rank_of(C.highest(combo.cards)) == C.N_RANKS - 1
    return has_two or not beatable(view.unseen, combo, view.rules)


@lru_cache(maxsize=1 << 18)
def beatable(cards: int, combo: HandRanking, rules: Rules) -> bool:
    """Whether some combination in ``cards`` beats ``combo``. Cached: a seat's planner,
    its plan features and the heuristic ask it of the same unseen cards in one turn."""
    if combo.size == 5 and _stronger_category(cards, combo, rules):
        return True  # the common case, without listing every five-card hand in ``cards``
    return bool(stronger_than(cards, combo, rules))


def _stronger_category(cards: int, combo: HandRanking, rules: Rules) -> bool:
    """Whether ``cards`` hold a full house, four of a kind or straight flush of a category
    whose every hand beats the five-card ``combo`` (False says nothing)."""
    weakest, cat = _weakest_of(rules), catalog(rules)
    first = cat.beaten_from(combo)
    counts = C.rank_counts(cards)
    if weakest.get(Ranking.STRAIGHT_FLUSH, -1) >= first:
        for ranks in cat.straights:
            run = 15  # the suits held at every rank of the straight
            for rank in ranks:
                run &= cards >> (4 * rank)
            if run:
                return True
    if weakest.get(Ranking.FOUR_OF_A_KIND, -1) >= first and 4 in counts and cards.bit_count() > 4:
        return True
    if weakest.get(Ranking.FULL_HOUSE, -1) >= first:
        triples = sum(n >= 3 for n in counts)
        return triples >= 2 or (triples == 1 and sum(n >= 2 for n in counts) >= 2)
    return False


@cache
def _weakest_of(rules: Rules) -> dict[Ranking, int]:
    """The catalog index of the weakest five-card hand of each category."""
    weakest: dict[Ranking, int] = {}
    for entry in catalog(rules).entries:
        if entry.size == 5:
            weakest.setdefault(entry.ranking, entry.index)
    return weakest


def _opening(plan: Sequence[HandRanking], plays: list[HandRanking]) -> HandRanking:
    for combo in plan:
        if combo in plays:
            return combo
    longest = max(m.size for m in plays)
    return next(m for m in plays if m.size == longest)


def _lead(plan: Sequence[HandRanking], plays: list[HandRanking], view: View) -> HandRanking:
    playable = [c for c in plan if c in plays]
    if not playable:
        return max(plays, key=lambda m: (m.size, -m.index))
    controls = [c for c in playable if is_control(c, view)]
    if len(plan) == 2 and controls:
        return controls[0]
    if _fewest_opponent_cards(view) == 1:
        multi = [c for c in playable if c.size > 1]
        if multi:
            return multi[0]
        return max(playable, key=lambda m: m.key)
    ordinary = [c for c in playable if c not in controls]
    return (ordinary or playable)[0]


def _follow(
    plan: Sequence[HandRanking], plays: list[HandRanking], view: View, may_pass: bool
) -> HandRanking:
    table = view.table
    assert table is not None
    danger = _fewest_opponent_cards(view)
    if danger == 1 and table.size == 1:
        return plays[-1]  # the strongest single keeps control
    now = plan_cost(view.hand, view.rules)
    scored = [(plan_cost(view.hand & ~m.cards, view.rules), m) for m in plays]
    cost, choice = min(scored, key=lambda cm: cm[0])  # ties: the weakest play (first)
    if danger <= DANGER or not may_pass:
        return choice
    if cost > now - 1 + SPLIT_TOLERANCE:
        return PASS  # it would break the plan
    if is_control(choice, view) and len(plan) >= KEEP_CONTROL_PLAN:
        return PASS  # keep control for later
    return choice


def _fewest_opponent_cards(view: View) -> int:
    return min(view.cards_left[s] for s in seats_from(view.seat, view.rules.players)[1:])
