"""big2.players.heuristic: the rule-based player on hand-built positions, its plan, strength."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from big2.cards import THREE_OF_DIAMONDS, parse_cards
from big2.evaluation.arena import evaluate
from big2.game import Game
from big2.hand_ranking import PASS, HandRanking, classify
from big2.players import GreedyAgent, RandomAgent
from big2.players.heuristic import HeuristicAgent, make_plan, plan_cost
from big2.rules import CHARLESWORTH, STANDARD

PASSES = ["pass"] * 3
LOCKS = replace(STANDARD, name="locks", pass_locks_out=True)


def reach(fixed, moves, rules=STANDARD):
    """A game with ``fixed`` cards (the rest dealt from seed 0) after the scripted ``moves``."""
    game = Game(rules, seed=0, fixed=fixed)
    for text in moves:
        game.play(HandRanking.from_str(text, rules))
    return game


def decide(game):
    return HeuristicAgent().act(game.view(game.turn), game.legal_moves())


def names(moves):
    return [str(m) for m in moves]


# Seat 1 sheds a straight flush, a full house and a pair, leaving 3C; seat 2 then leads 5D.
ENDGAME = {
    0: "3D 4C 5H 6S 7D",
    1: "8C 9C TC JC QC KD KH KS 4D 4H 6D 6H 3C",
    2: "9D 9H 5D",
    3: "7H 7S JH JS 2S",
}
ENDGAME_MOVES = ["3D 4C 5H 6S 7D", "8C 9C TC JC QC", *PASSES, "KD KH KS 4D 4H", *PASSES,
                 "6D 6H", "9D 9H", *PASSES, "5D"]  # fmt: skip


def test_plays_the_strongest_single_when_an_opponent_has_one_card():
    game = reach(ENDGAME, ENDGAME_MOVES)
    assert game.turn == 3 and game.view(3).cards_left[1] == 1 and str(game.table) == "5D"
    singles = [m for m in game.legal_moves() if m]
    assert len(singles) > 5
    assert str(decide(game)) == "2S" == str(singles[-1])


def test_leads_a_pair_not_a_single_when_an_opponent_has_one_card():
    game = reach(ENDGAME, [*ENDGAME_MOVES, "2S", *PASSES])
    assert game.turn == 3 and game.table is None and game.view(3).cards_left[1] == 1
    plan = make_plan(game.hand(3), STANDARD)
    assert plan[0].size == 1  # the ordinary lead (weakest card first) would be a single
    move = decide(game)
    assert move.size > 1 and move is next(c for c in plan if c.size > 1)


def test_passes_rather_than_split_a_pair_on_a_low_single():
    hand = "4D 4C 6H 6S 8D 8C TH TS QD QC KD KC KH"  # pairs and a triple, no loose single
    game = reach({0: "3D", 1: hand}, ["3D"])
    assert len(game.legal_moves()) == 14 and min(game.view(1).cards_left) == 12
    assert decide(game) is PASS
    loose = reach({0: "3D", 1: hand.replace("4C", "5C")}, ["3D"])  # 4D and 5C are loose singles
    assert str(decide(loose)) == "4D"


def test_keeps_a_two_early():
    hand = "2D 4D 4C 6H 6S 8D 8C TH TS QH QC JS JC"  # six pairs and the 2D
    game = reach({0: "3D", 1: hand}, ["3D"])
    plan = make_plan(game.hand(1), STANDARD)
    assert len(plan) == 7 and HandRanking.from_str("2D") in plan
    assert HandRanking.from_str("2D") in game.legal_moves()
    assert decide(game) is PASS


def test_goes_out_when_one_play_empties_the_hand():
    # CHARLESWORTH has two pair: 5D 5C 9H 9S is one play, though the plan holds two pairs
    hand = "2S 8C 9C TC JC QC AD AC AH 5D 5C 9H 9S"
    moves = ["2S", *PASSES, "8C 9C TC JC QC", *PASSES, "AD AC AH", *PASSES]
    game = reach({0: "3D", 1: hand}, moves, CHARLESWORTH)
    assert game.turn == 1 and game.table is None
    plan = make_plan(game.hand(1), CHARLESWORTH)
    assert names(plan) == ["5D 5C", "9H 9S"]
    assert str(decide(game)) == "5D 5C 9H 9S"


def test_two_combinations_left_leads_the_control_one_first():
    # The documented rule: with two combinations left, a control combination (one holding
    # a 2, even a beatable one) is led first to keep the lead, then the other.
    moves = ["3D 4C 5H 6S 7D", *PASSES, "8C 9C TC JC QC", *PASSES, "AS", *PASSES]
    game = reach({0: "3D 4C 5H 6S 7D 8C 9C TC JC QC AS 5D 2D"}, moves)
    view = game.view(0)
    assert view.leading and game.hand(0) == parse_cards("5D 2D")
    assert view.unseen & parse_cards("2S") and min(view.cards_left[1:]) == 13  # 2D is beatable
    assert str(decide(game)) == "2D"


@pytest.mark.parametrize("seed", range(40))
def test_opening_is_the_plan_combination_with_3d(seed):
    game = Game(seed=seed)
    view = game.view(game.turn)
    combo = next(c for c in make_plan(view.hand, STANDARD) if c.cards & THREE_OF_DIAMONDS)
    move = decide(game)
    assert move.cards & THREE_OF_DIAMONDS and move in game.legal_moves()
    assert move is combo


@pytest.mark.parametrize(
    ("hand", "size"),
    [
        ("3D 4C 5H 6S 7D 9C 9H JD QS KH AC 2D 2S", 5),  # a low straight sheds five low cards
        ("3D 3S 8C 8H 9D TS JS QC KD KH AS 2C 2H", 2),
        ("3D 3C 3H 5S 5H 7C 9D JH QD KS AC AD 2S", 5),  # full house 333 55
        ("3D 6C 8H 9S JD QC KH AS AC AH 2C 2H 2S", 1),
    ],
)
def test_opening_hand_built(hand, size):
    game = reach({0: hand}, [])
    move = decide(game)
    assert move.size == size and move.cards & THREE_OF_DIAMONDS
    assert move in make_plan(game.hand(0), STANDARD)


@pytest.mark.parametrize("rules", [STANDARD, CHARLESWORTH])
def test_plan_partitions_the_hand(rules):
    rng = random.Random(3)
    deck = list(range(52))
    for size in (*range(1, 14), *[13] * 40):
        hand = sum(1 << c for c in rng.sample(deck, size))
        plan = make_plan(hand, rules)
        union = 0
        for combo in plan:
            assert combo.cards & union == 0  # disjoint
            assert classify(combo.cards, rules) is combo and combo  # a real combination
            union |= combo.cards
        assert union == hand
        low_singles = sum(c.size == 1 and c.cards < 1 << 28 for c in plan)  # below T
        assert plan_cost(hand, rules) == pytest.approx(len(plan) + 0.5 * low_singles, abs=0.06)


def test_plan_of_quads_and_fives():
    quads = parse_cards("9D 9C 9H 9S")
    assert names(make_plan(quads, STANDARD)) == ["9D 9C", "9H 9S"]  # no four-card plays
    assert names(make_plan(quads, CHARLESWORTH)) == ["9D 9C 9H 9S"]
    hand = parse_cards("3D 4C 5H 6S 7D 8D 8C 8H KS KH")
    assert sorted(c.size for c in make_plan(hand, STANDARD)) == [5, 5]
    assert make_plan(parse_cards("2S"), STANDARD) == [HandRanking.from_str("2S")]


@pytest.mark.parametrize("rules", [STANDARD, CHARLESWORTH, LOCKS])
def test_deterministic_and_always_legal(rules):
    agent, decisions, outs = HeuristicAgent(), 0, 0
    for seed in range(25):
        rng = random.Random(seed)
        game = Game(rules, seed=rng)
        others = [RandomAgent(rng), GreedyAgent(), agent]
        while not game.is_over:
            view, legal = game.view(game.turn), game.legal_moves()
            move = agent.act(view, legal)
            assert move in legal
            assert agent.act(view, legal) is move and HeuristicAgent().act(view, legal) is move
            assert game.view(game.turn) == view  # the view is not changed
            decisions += 1
            if any(m.cards == view.hand for m in legal):
                outs += 1
                assert move.cards == view.hand
            mover = others[(game.turn + seed) % 3]
            game.play(move if mover is agent else mover.act(view, legal))
    assert decisions > 1000 and outs > 10


@pytest.mark.slow
def test_strength_against_baselines():
    vs_random = evaluate([HeuristicAgent(), "random", "random", "random"], 150, seed=11)
    vs_greedy = evaluate([HeuristicAgent(), "greedy", "greedy", "greedy"], 150, seed=11)
    me, greedy = vs_random.agents[0], vs_greedy.agents[0]
    # measured on 150 deals (600 games): 0.817 vs random; 0.415 [0.378, 0.453] vs greedy
    # (300 deals: 0.802 [0.781, 0.823] and 0.409 [0.382, 0.436], at twice the cost)
    assert me.win_share >= 0.60 and me.mean_score > 0
    assert greedy.win_share >= 0.35 and greedy.win_share_ci[0] > 0.30


@pytest.mark.parametrize(
    "rules",
    [
        STANDARD,
        CHARLESWORTH,
        replace(STANDARD, name="two", straights_to_two=True),
        replace(STANDARD, name="noquads", five_card_hands=CHARLESWORTH.five_card_hands),
    ],
    ids=lambda r: r.name,
)
def test_beatable_shortcut_agrees_with_listing_every_stronger_hand(rules):
    """beatable answers five-card tables from categories when it can: same answers."""
    from big2.hand_ranking import catalog, stronger_than
    from big2.players.heuristic import beatable

    rng = random.Random(rules.name)
    fives = [e for e in catalog(rules).entries if e.size == 5]
    answers = set()
    for _ in range(1000):  # 3,000 cost make test 12 s summed
        cards = sum(1 << i for i in rng.sample(range(52), rng.randrange(5, 40)))
        combo = rng.choice(fives)
        answer = beatable.__wrapped__(cards, combo, rules)
        assert answer == bool(stronger_than(cards, combo, rules)), (cards, str(combo))
        answers.add(answer)
    assert answers == {True, False}
