"""big2.players.search: determinized deals agree with the view; search is legal, seeded, sane."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest

from big2.board import N_SEATS
from big2.cards import DECK
from big2.evaluation.arena import evaluate
from big2.game import Game
from big2.hand_ranking import HandRanking
from big2.players import RandomAgent, play
from big2.players.heuristic import HeuristicAgent
from big2.players.search import SearchAgent, determinize
from big2.rules import CHARLESWORTH, STANDARD
from training.twins import advance

LOCKS = replace(STANDARD, name="locks", pass_locks_out=True)


def midgame(seed: int, rules=STANDARD) -> Game:
    """A game some random number of random moves in (never over)."""
    rng = random.Random(seed)
    return advance(Game(rules, seed=seed), RandomAgent(seed), rng.randrange(0, 40))


@pytest.mark.parametrize("rules", [STANDARD, CHARLESWORTH, LOCKS], ids=lambda r: r.name)
@pytest.mark.parametrize("seed", range(12))
def test_determinized_game_agrees_with_the_view(seed, rules):
    game = midgame(seed, rules)
    for seat in range(N_SEATS):
        view = game.view(seat)
        sampled = determinize(view, random.Random(seed))
        assert sampled.view(seat) == view  # hand, table, turn, passes, counts, history
        if seat == game.turn:
            assert sampled.legal_moves() == game.legal_moves()
        hands = sampled.hands
        assert [h.bit_count() for h in hands] == list(view.cards_left)
        assert all(a & b == 0 for i, a in enumerate(hands) for b in hands[i + 1 :])
        dealt = sum(hands) | view.played[0] | view.played[1] | view.played[2] | view.played[3]
        assert dealt == DECK
        others = sum(h for s, h in enumerate(hands) if s != seat)
        assert others == view.unseen  # what the seat has not seen is all with the others


def test_determinize_is_seeded_and_samples_different_deals():
    view = midgame(3).view(0)
    deal = determinize(view, random.Random(7)).hands
    assert determinize(view, random.Random(7)).hands == deal
    deals = {determinize(view, random.Random(s)).hands for s in range(20)}
    assert len(deals) > 10


def test_determinize_rejects_an_inconsistent_view():
    view = Game(seed=0).view(1)
    bad = view._replace(cards_left=(13, 12, 13, 13))
    with pytest.raises(ValueError, match="inconsistent view"):
        determinize(bad, random.Random(0))


def test_play_finishes_a_determinized_game_and_names_the_winner():
    game = midgame(5)
    winner = play(game, HeuristicAgent()).winner
    assert game.is_over and game.winner == winner and game.hand(winner) == 0


@pytest.mark.parametrize("seed", range(6))
def test_search_agent_plays_only_legal_moves_through_whole_games(seed):
    game = Game(seed=seed)
    agents = [SearchAgent(determinizations=2, candidates=3, seed=seed), *[HeuristicAgent()] * 3]
    while not game.is_over:
        legal = game.legal_moves()
        move = agents[game.turn].act(game.view(game.turn), legal)
        assert move in legal
        game.play(move)


def test_same_seed_same_choices_and_reset_reseeds():
    views = [(g.view(g.turn), g.legal_moves()) for g in (midgame(s) for s in range(8))]

    def choices(agent):
        return [agent.act(v, legal) for v, legal in views]

    first = choices(SearchAgent(determinizations=3, seed=11))
    assert choices(SearchAgent(determinizations=3, seed=11)) == first
    agent = SearchAgent(determinizations=3, seed=99)
    choices(agent)
    agent.reset(11)
    assert choices(agent) == first


def test_a_move_that_empties_the_hand_always_wins():
    game = Game(seed=0, fixed={0: "3D 4D 5D 6D 7D 8C 8H 8S 9C 9H 9S TC TH"})
    game.play(HandRanking.from_str("3D 4D 5D 6D 7D"))
    while game.turn != 0:
        game.play(game.legal_moves()[-1])  # the others pass: seat 0 leads again
    out = HandRanking.from_str("8C 8H 8S TC TH")
    game.play(out)
    while game.turn != 0:
        game.play(game.legal_moves()[-1])
    last = HandRanking.from_str("9C 9H 9S")
    assert game.hand(0) == last.cards
    assert SearchAgent(determinizations=5, seed=0).win_rates(game.view(0), [last]) == [1.0]


def test_the_prior_picks_the_candidates_and_decides_when_weighted_heavily():
    game = Game(seed=4)
    legal = game.legal_moves()
    favourite = legal[-1]

    def prior(view, moves):
        return [5.0 if m == favourite else 0.0 for m in moves]

    assert SearchAgent(prior, candidates=1, seed=0).act(game.view(game.turn), legal) == favourite
    heavy = SearchAgent(prior, candidates=4, prior_weight=100.0, determinizations=2, seed=0)
    assert heavy.act(game.view(game.turn), legal) == favourite


def test_without_a_prior_the_rollout_agents_move_is_tried_first():
    game = midgame(2)
    view, legal = game.view(game.turn), game.legal_moves()
    agent = SearchAgent(candidates=1, seed=0)
    assert agent.act(view, legal) == HeuristicAgent().act(view, legal)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"determinizations": 0}, "determinizations must be a positive int"),
        ({"candidates": 2.5}, "candidates must be a positive int"),
        (
            {"determinizations": 8, "max_determinizations": 4},
            r"max_determinizations must be an int >= determinizations \(8\)",
        ),
        ({"prior_weight": -1.0}, "prior_weight must be a finite number >= 0"),
        ({"prior_weight": math.nan}, "prior_weight must be a finite number >= 0"),
    ],
)
def test_bad_parameters_are_clear_errors(options, message):
    with pytest.raises(ValueError, match=message):
        SearchAgent(**options)


@pytest.mark.parametrize("seed", range(8))
def test_more_deals_as_the_hands_empty_up_to_the_cap(seed):
    game, agent = Game(seed=seed), HeuristicAgent()
    search = SearchAgent(determinizations=10, max_determinizations=30)
    fixed = SearchAgent(determinizations=10, max_determinizations=10)
    counts = []
    while not game.is_over:
        view = game.view(game.turn)
        counts.append(search.deals(view))
        assert fixed.deals(view) == 10
        held = sum(view.cards_left)
        assert counts[-1] == min(30, max(10, round(10 * 52 / held)))
        game.play(agent.act(view, game.legal_moves()))
    assert counts[0] == 10 and counts == sorted(counts)  # hands only ever shrink


def test_the_late_game_cap_defaults_to_four_times_the_deals():
    assert SearchAgent(determinizations=5).max_determinizations == 20


@pytest.mark.parametrize("kind", ["too few", "not finite"])
def test_a_prior_with_the_wrong_scores_is_a_clear_error_and_samples_nothing(kind):
    game = Game(seed=1)
    legal = game.legal_moves()

    def prior(view, moves):
        return [0.0] if kind == "too few" else [math.nan] * len(moves)

    agent = SearchAgent(prior, seed=0)
    state = agent.rng.getstate()
    with pytest.raises(ValueError, match="expected one finite score per move"):
        agent.act(game.view(game.turn), legal)
    assert agent.rng.getstate() == state  # no deal was sampled


def test_arena_results_do_not_depend_on_workers():
    agents = [SearchAgent(determinizations=2, candidates=2), "heuristic", "random", "greedy"]
    one = evaluate(agents, 2, seed=5)
    two = evaluate(agents, 2, seed=5, workers=2)
    assert one.agents == two.agents


@pytest.mark.parametrize("seed", range(10))
def test_act_makes_the_choice_of_scoring_every_move_on_every_deal(seed):
    """Dropping hopeless moves early changes the cost, never the choice."""
    game = midgame(seed)
    view, legal = game.view(game.turn), game.legal_moves()

    def prior(view, moves):
        return [float((7 * i) % 5) for i in range(len(moves))]

    def agent():
        return SearchAgent(prior, determinizations=6, candidates=4, prior_weight=0.1, seed=seed)

    moves, log_probs = agent()._candidates(view, legal)
    rates = agent().win_rates(view, moves)
    scores = [r + 0.1 * lp for r, lp in zip(rates, log_probs, strict=True)]
    best = max(range(len(moves)), key=lambda i: (scores[i], -i))
    assert agent().act(view, legal) == moves[best]


def test_under_a_free_opening_the_sampled_opener_holds_the_3d():
    free = replace(STANDARD, name="free", opening="free")
    game = Game(free, seed=4)
    opener = game.turn
    lead = next(m for m in game.legal_moves() if m and not m.cards & 1)  # keeps the 3D
    game.play(lead)
    view = game.view((opener + 1) % 4)
    for seed in range(10):
        sampled = determinize(view, random.Random(seed))  # replays the opener's lead
        assert sampled.hands[opener] & 1 and sampled.view(view.seat) == view
