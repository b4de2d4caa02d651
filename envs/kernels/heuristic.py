"""The rule-based player of :mod:`big2.players.heuristic`, compiled: one call decides for
many games.

The Python module stays the readable reference; each kernel below carries the name of
the function it mirrors, so one maps to the other line by line:

====================================  ==========================================
:mod:`big2.players.heuristic`         here
====================================  ==========================================
``HeuristicAgent.act``                :func:`act` (and :func:`choose`, batched)
``_plan`` / ``make_plan``             :func:`plan`
``plan_cost``, ``_best_fives``        :func:`best_fives`
``_rank_cost``, ``_by_rank``          :func:`rank_cost`, :func:`by_rank`
``is_control``, ``beatable``          :func:`is_control`, :func:`beatable`
``_stronger_category``                :func:`stronger_category`
``_weakest_of``                       ``HeuristicArrays.weakest`` (built once)
``_opening``, ``_lead``               :func:`opening`, :func:`lead`
``_follow``                           :func:`follow`
``_fewest_opponent_cards``            :func:`fewest_opponent_cards`
``observers.moves.plan_features``     :func:`plan_features`
====================================  ==========================================

A hand's five-card hands are read from the engine's per-seat combo list (catalog order,
so they are its last entries); those of a rest of the hand are the ones it still holds,
which is what ``combinations_in(rest, 5)`` lists. Costs are computed with the same
float operations in the same order as the Python, so ties break the same way.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from big2.cards import DECK, N_RANKS
from big2.hand_ranking import Ranking
from big2.players.heuristic import DANGER, KEEP_CONTROL_PLAN, LOW_RANK, MAX_FIVES, SPLIT_TOLERANCE
from envs.kernels.bits import lookup, popcount
from envs.kernels.turns import (
    MUST_HOLD_3D,
    NO_TABLE,
    PASS,
    after,
    filtered,
    legal_ranges,
    opening_bit,
)

TWO_RANK = N_RANKS - 1  # a combination holding a 2 is a control one
PLAN_CAPACITY = 26  # a plan holds at most one combination per card of the largest hand
NO_FIVE = -1  # best_fives: no five-card hand taken out
ALL_CARDS = np.uint64(DECK)
NIBBLE = np.uint64(15)  # the four suits of one rank
RANK_BITS = np.uint64(sum(1 << 4 * rank for rank in range(N_RANKS)))  # the lowest bit of each
LOW_RANK_BITS = np.uint64(sum(1 << 4 * rank for rank in range(LOW_RANK)))  # ranks below T
PAIR_LOW_BITS = np.uint64(0x5555555555555)  # the low bit of every two bits of 52
QUAD_LOW_BITS = np.uint64(0x3333333333333)  # the low two bits of every four
_STRAIGHT_FLUSH = int(Ranking.STRAIGHT_FLUSH)
_FOUR_OF_A_KIND = int(Ranking.FOUR_OF_A_KIND)
_FULL_HOUSE = int(Ranking.FULL_HOUSE)


class HeuristicArrays(NamedTuple):
    """What the player needs of a catalog beyond :class:`envs.kernels.turns.CatalogArrays`
    (built by :func:`envs.compiled_heuristic.heuristic_arrays`)."""

    top: np.ndarray  # int64 (C,): the highest card of catalog entry i
    weakest: np.ndarray  # int64 (len(Ranking),): the weakest five-card entry of each; -1 none


@numba.njit(cache=True)
def choose(slots, state, cat, heur, out):
    """The move of the acting seat of game ``slots[i]`` in ``out[i]``: what
    ``HeuristicAgent().act(view, legal_moves)`` plays (a catalog index, or PASS)."""
    n = slots.shape[0]
    lo, hi = np.zeros(n, np.int64), np.zeros(n, np.int64)
    may_pass, count = np.zeros(n, np.bool_), np.zeros(n, np.int64)
    legal_ranges(slots, state, cat, lo, hi, may_pass, count)
    plays = np.empty(state.combos.shape[2], np.int64)
    for i in range(n):
        k = _legal_plays(slots[i], lo[i], hi[i], state, cat, plays)
        out[i] = act(slots[i], plays[:k], may_pass[i], state, cat, heur)


@numba.njit(cache=True)
def _legal_plays(game, lo, hi, state, cat, plays):
    """Write the legal plays (not PASS) of ``legal_ranges``' row to ``plays``; their count."""
    seat, t = state.turn[game], state.table[game]
    size, first = cat.size[t] if t != NO_TABLE else 0, opening_bit(cat.opening_card)
    k, check = 0, filtered(lo, size, cat.bombs_beat)
    for j in range(max(lo, 0), hi):
        combo = state.combos[game, seat, j]
        if check:  # listed(), written out: a call per combination is slow
            if lo == MUST_HOLD_3D:
                if not cat.cards[combo] & first:
                    continue
            elif cat.size[combo] != size and not (cat.bomb_kinds >> cat.ranking[combo]) & 1:
                continue
        plays[k] = combo
        k += 1
    return k


@numba.njit(cache=True)
def act(game, plays, may_pass, state, cat, heur):
    """``HeuristicAgent.act``: go out, else open, lead or follow by the plan."""
    if plays.shape[0] == 0:
        return PASS
    seat = state.turn[game]
    hand = state.hands[game, seat]
    for m in plays:
        if cat.cards[m] == hand:
            return m
    fives = _fives_in_hand(game, seat, state, cat)
    parts = np.empty(PLAN_CAPACITY, np.int64)
    parts = parts[: plan(hand, fives, cat, heur, parts)]
    if state.n_moves[game] == 0:  # the first play (it holds the opening card)
        return opening(parts, plays, cat)
    if state.table[game] == NO_TABLE:
        return lead(parts, plays, game, seat, state, cat, heur)
    return follow(parts, plays, may_pass, hand, fives, game, seat, state, cat, heur)


@numba.njit(cache=True)
def _fives_in_hand(game, seat, state, cat):
    """The five-card hands of the seat's hand: the tail of its combo list (catalog order)."""
    row = state.combos[game, seat, : state.n_combos[game, seat]]
    return row[np.searchsorted(row, cat.size_end[4]) :]


# ---------------------------------------------------------------------------- the plan


@numba.njit(cache=True)
def plan(hand, fives, cat, heur, out):
    """``_plan``: write the cheapest partition of ``hand`` to ``out``, ordered by lowest
    card; the number of combinations. ``fives``: five-card hands of a superset of ``hand``."""
    _, f, g = best_fives(hand, fives, cat, heur)
    n, rest = 0, hand
    for chosen in (f, g):
        if chosen != NO_FIVE:
            out[n] = chosen
            rest &= ~cat.cards[chosen]
            n += 1
    n = by_rank(rest, cat, out, n)
    _sort_by_lowest_card(out[:n], cat)
    return n


@numba.njit(cache=True)
def _sort_by_lowest_card(parts, cat):
    """Insertion sort: the parts are disjoint, so their lowest cards differ."""
    for i in range(1, parts.shape[0]):
        j, item = i, parts[i]
        while j > 0 and _lowest_bit(cat.cards[parts[j - 1]]) > _lowest_bit(cat.cards[item]):
            parts[j] = parts[j - 1]
            j -= 1
        parts[j] = item


@numba.njit(cache=True)
def _lowest_bit(mask):
    return mask & (~mask + np.uint64(1))


@numba.njit(cache=True)
def best_fives(hand, fives, cat, heur):
    """``_best_fives``: the cheapest choice of up to two five-card hands to take out of
    ``hand`` (among its first MAX_FIVES), as ``(cost, f, g)``; ``plan_cost`` is the cost.

    ``fives`` lists the five-card hands of a superset of ``hand`` in catalog order; those
    inside ``hand`` are ``combinations_in(hand, 5)``.
    """
    masks = np.empty(MAX_FIVES, np.uint64)
    index = np.empty(MAX_FIVES, np.int64)
    n = 0
    for f in fives:
        if n == MAX_FIVES:
            break
        if cat.cards[f] & ~hand == 0:
            masks[n], index[n] = cat.cards[f], f
            n += 1
    best, best_f, best_g = rank_cost(hand, cat), NO_FIVE, NO_FIVE
    for i in range(n):
        rest = hand & ~masks[i]
        cost = 1 + rank_cost(rest, cat) + 0.001 * heur.top[index[i]]
        if cost < best:
            best, best_f, best_g = cost, index[i], NO_FIVE
        for j in range(i + 1, n):
            if masks[i] & masks[j]:
                continue
            top = max(heur.top[index[i]], heur.top[index[j]])
            both = 2 + rank_cost(rest & ~masks[j], cat) + 0.001 * top
            if both < best:
                best, best_f, best_g = both, index[i], index[j]
    return best, best_f, best_g


@numba.njit(cache=True)
def rank_cost(hand, cat):
    """``_rank_cost``: turns to shed ``hand`` grouped by rank, half a turn more per low
    single (quads: two pairs unless 4-card plays exist).

    Counted for all ranks at once: every term is a multiple of a half, so the sum is exact
    in any order and equals the Python's rank-by-rank sum."""
    counts = _rank_counts(hand)
    one = counts & RANK_BITS
    two = (counts >> np.uint64(1)) & RANK_BITS
    four = (counts >> np.uint64(2)) & RANK_BITS
    singles, groups = one & ~two & ~four, two | four  # a count of 1; of 2, 3 or 4
    cost = 1.5 * popcount(singles & LOW_RANK_BITS) + popcount(singles & ~LOW_RANK_BITS)
    cost += popcount(groups)
    if not cat.four_card_plays:
        cost += popcount(four)  # quads are shed as two pairs
    return cost


@numba.njit(cache=True)
def _rank_counts(hand):
    """The number of cards of each rank of ``hand``, in that rank's four bits."""
    pairs = hand - ((hand >> np.uint64(1)) & PAIR_LOW_BITS)
    return (pairs & QUAD_LOW_BITS) + ((pairs >> np.uint64(2)) & QUAD_LOW_BITS)


@numba.njit(cache=True)
def by_rank(hand, cat, out, n):
    """``_by_rank``: append the cards of each rank of ``hand`` to ``out`` from ``n`` as
    one combination (quads as two pairs unless 4-card plays exist); the new count."""
    for rank in range(N_RANKS):
        held = _suits(hand, rank) << np.uint64(4 * rank)
        count = popcount(held)
        if count == 4 and not cat.four_card_plays:
            low_two = _lowest_bit(held)
            low_two |= _lowest_bit(held ^ low_two)
            out[n] = lookup(low_two, cat.sorted_cards, cat.sorted_index)
            out[n + 1] = lookup(held ^ low_two, cat.sorted_cards, cat.sorted_index)
            n += 2
        elif count:
            out[n] = lookup(held, cat.sorted_cards, cat.sorted_index)
            n += 1
    return n


@numba.njit(cache=True)
def _suits(hand, rank):
    """The 4-bit suit mask of ``rank`` in ``hand``, as a uint64."""
    return (hand >> np.uint64(4 * rank)) & NIBBLE


# ---------------------------------------------------------------------------- control


@numba.njit(cache=True)
def is_control(combo, unseen, cat, heur):
    """``is_control``: holds a 2, or nobody could beat it with the ``unseen`` cards."""
    has_two = heur.top[combo] >> 2 == TWO_RANK
    return has_two or not beatable(unseen, combo, cat, heur)


@numba.njit(cache=True)
def beatable(cards, combo, cat, heur):
    """``beatable``: whether some combination in ``cards`` beats ``combo`` (whether
    ``stronger_than(cards, combo)`` is not empty): a catalog entry of its size from
    ``beaten_from`` on that ``cards`` hold. The shortcut only answers True when such an
    entry exists, so the answer is the Python's with or without it."""
    if cat.size[combo] == 5 and stronger_category(cards, combo, cat, heur):
        return True  # the common case, without scanning the five-card hands
    for i in range(cat.size_end[cat.size[combo]] - 1, cat.beaten_from[combo] - 1, -1):
        if cat.cards[i] & ~cards == 0:  # the strongest first: found early when it exists
            return True
    if (cat.bombs_beat >> cat.size[combo]) & 1:  # a bomb beats it
        for i in cat.bombs:
            if cat.cards[i] & ~cards == 0:
                return True
    return False


@numba.njit(cache=True)
def stronger_category(cards, combo, cat, heur):
    """``_stronger_category``: whether ``cards`` hold a full house, four of a kind or
    straight flush of a category whose every hand beats the five-card ``combo``."""
    first = cat.beaten_from[combo]
    if heur.weakest[_STRAIGHT_FLUSH] >= first:
        for row in range(cat.straights.shape[0]):
            run = NIBBLE  # the suits held at every rank of the straight
            for rank in cat.straights[row]:
                run &= _suits(cards, rank)
            if run:
                return True
    triples, pairs, quads = 0, 0, 0
    for rank in range(N_RANKS):
        n = popcount(_suits(cards, rank))
        triples += n >= 3
        pairs += n >= 2
        quads += n == 4
    if heur.weakest[_FOUR_OF_A_KIND] >= first and quads and popcount(cards) > 4:
        return True
    if heur.weakest[_FULL_HOUSE] >= first:
        return triples >= 2 or (triples == 1 and pairs >= 2)
    return False


# ---------------------------------------------------------------------------- the rules


@numba.njit(cache=True)
def opening(parts, plays, cat):
    """``_opening``: the plan's combination with 3D, else the longest play with 3D."""
    for combo in parts:
        if _is_play(combo, plays):
            return combo
    return _longest(plays, cat)


@numba.njit(cache=True)
def lead(parts, plays, game, seat, state, cat, heur):
    """``_lead``: with two combinations left, a control one; with an opponent on one
    card, the first multi-card one (else the strongest single); else the first one that is
    not control (plan order: by lowest card)."""
    playable = np.empty(parts.shape[0], np.int64)
    n = 0
    for combo in parts:
        if _is_play(combo, plays):
            playable[n] = combo
            n += 1
    if n == 0:
        return _longest(plays, cat)
    playable = playable[:n]
    unseen = _unseen(game, seat, state)
    if parts.shape[0] == 2:  # keep the lead with a control combination, then go out
        for combo in playable:
            if is_control(combo, unseen, cat, heur):
                return combo
    if fewest_opponent_cards(game, seat, state) == 1:
        for combo in playable:
            if cat.size[combo] > 1:
                return combo
        return playable.max()  # only singles: the strongest key is the highest index
    for combo in playable:
        if not is_control(combo, unseen, cat, heur):
            return combo
    return playable[0]


@numba.njit(cache=True)
def follow(parts, plays, may_pass, hand, fives, game, seat, state, cat, heur):
    """``_follow``: the play leaving the cheapest rest, or PASS to keep the plan."""
    danger = fewest_opponent_cards(game, seat, state)
    if danger == 1 and cat.size[state.table[game]] == 1:
        return plays[-1]  # the strongest single keeps control
    now = best_fives(hand, fives, cat, heur)[0]
    choice, cost = plays[0], np.inf
    for m in plays:  # ties: the weakest play (first)
        rest_cost = best_fives(hand & ~cat.cards[m], fives, cat, heur)[0]
        if rest_cost < cost:
            choice, cost = m, rest_cost
    if danger <= DANGER or not may_pass:
        return choice
    if cost > now - 1 + SPLIT_TOLERANCE:
        return PASS  # it would break the plan
    keep = parts.shape[0] >= KEEP_CONTROL_PLAN
    if keep and is_control(choice, _unseen(game, seat, state), cat, heur):
        return PASS  # keep control for later
    return choice


@numba.njit(cache=True)
def fewest_opponent_cards(game, seat, state):
    """``_fewest_opponent_cards``: the smallest hand among the other seats."""
    players = state.hands.shape[1]
    fewest = popcount(state.hands[game, after(seat, 1, players)])
    for step in range(2, players):
        fewest = min(fewest, popcount(state.hands[game, after(seat, step, players)]))
    return fewest


@numba.njit(cache=True)
def acting_seat(game, state, cat):
    """The seat to act in ``game``: (seat, its hand, its five-card hands, its unseen cards)."""
    seat = state.turn[game]
    fives = _fives_in_hand(game, seat, state, cat)
    return seat, state.hands[game, seat], fives, _unseen(game, seat, state)


@numba.njit(cache=True)
def _unseen(game, seat, state):
    """``View.unseen``: cards not in the seat's hand and not played."""
    played = np.uint64(0)
    for other in range(state.played.shape[1]):
        played |= state.played[game, other]
    return ALL_CARDS & ~state.hands[game, seat] & ~played


@numba.njit(cache=True)
def _is_play(combo, plays):
    """``combo in plays``: plays are in catalog order, so a binary search."""
    i = np.searchsorted(plays, combo)
    return i < plays.shape[0] and plays[i] == combo


@numba.njit(cache=True)
def _longest(plays, cat):
    """The first (weakest) of the longest plays."""
    best = plays[0]
    for m in plays:
        if cat.size[m] > cat.size[best]:
            best = m
    return best


# ---------------------------------------------------------------------------- features


@numba.njit(cache=True)
def plan_features(slots, choice, moves, counts, state, cat, heur, out):
    """``observers.moves.plan_features`` for the acting seat of game ``slots[i]``: row
    ``out[i, j]`` describes legal move ``moves[i, j]`` (PASS or a catalog index; the first
    ``counts[i]`` are legal) as (delta, control, in plan, the heuristic's ``choice[i]``)."""
    parts = np.empty(PLAN_CAPACITY, np.int64)
    for i in range(slots.shape[0]):
        _, hand, fives, unseen = acting_seat(slots[i], state, cat)
        now = best_fives(hand, fives, cat, heur)[0]
        n_parts = plan(hand, fives, cat, heur, parts)
        for j in range(counts[i]):
            m = moves[i, j]
            out[i, j, 3] = m == choice[i]
            if m == PASS:
                continue
            rest = best_fives(hand & ~cat.cards[m], fives, cat, heur)[0]
            out[i, j, 0] = max(-127, min(127, round(2 * (rest - now))))
            out[i, j, 1] = is_control(m, unseen, cat, heur)
            out[i, j, 2] = (parts[:n_parts] == m).any()  # ``move in plan``
