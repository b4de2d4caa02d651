"""observers.moves' reply features (who could answer each move): their meaning on
hand-made deals and on random positions, fair and cheating, and their plumbing: the
config, the actor's width, the arena agent. The compiled rows equal these move for move
in tests/test_compiled_heuristic.py."""

from __future__ import annotations

import numpy as np
import pytest
from training_helpers import former_config

from big2.board import Board, seats_from
from big2.cards import parse_cards
from big2.game import Game
from big2.hand_ranking import HandRanking, stronger_than
from big2.players import RandomAgent, play
from big2.players.heuristic import make_plan
from big2.rules import get
from envs.policy_agent import PolicyAgent
from observers.moves import (
    CHEATING_REPLIES,
    PLAN,
    REPLIES,
    REPLY_FEATURES,
    JoinedFeatures,
    make,
    reply_features,
)
from tests.test_move_features import CODEC, positions
from training.nets import feature_scale, make_actor
from training.spec import resolve

# seat 0 opens holding 3D 3C; seat 1 (next) holds one card of every rank: no pair at all
OPENER = "3D 3C 4C 4H 5C 6C 7C 8C 9C TC JC QC KC"
NO_PAIRS = "3H 4D 5D 6D 7D 8D 9D TD JD QD KD AD 2D"


def deal() -> Game:
    held = parse_cards(OPENER) | parse_cards(NO_PAIRS)
    rest = [c for c in range(52) if not held >> c & 1]
    across, previous = rest[:13], rest[13:]
    hands = [OPENER, NO_PAIRS, sum(1 << c for c in across), sum(1 << c for c in previous)]
    return Game.from_board(Board.from_hands(hands))


def row_of(game: Game, move: str, cheat: bool) -> list[int]:
    legal = game.legal_moves()
    rows = reply_features(game.view(game.turn), legal, game.hands if cheat else None)
    return rows[legal.index(HandRanking.from_str(move))].tolist()


def test_a_seat_without_pairs_can_answer_singles_but_not_pairs():
    game = deal()
    assert game.turn == 0
    # fair: every opponent holds 13 cards and the unseen cards hold higher singles, pairs
    assert row_of(game, "3D", cheat=False)[:3] == [1, 1, 1]
    assert row_of(game, "3D 3C", cheat=False)[:3] == [1, 1, 1]
    # cheating: the next seat holds no pair, so only the pair changes
    assert row_of(game, "3D", cheat=True)[:3] == [1, 1, 1]
    assert row_of(game, "3D 3C", cheat=True)[:3] == [0, 1, 1]


def test_a_seat_with_too_few_cards_cannot_answer_in_the_fair_rows():
    game = deal()
    view = game.view(0)
    short = view._replace(cards_left=(13, 1, 13, 13))  # the next seat down to one card
    legal = game.legal_moves()
    rows = reply_features(short, legal)
    pair = legal.index(HandRanking.from_str("3D 3C"))
    single = legal.index(HandRanking.from_str("3D"))
    assert rows[pair, :3].tolist() == [0, 1, 1] and rows[single, :3].tolist() == [1, 1, 1]


def brute_force(view, legal, hands=None) -> np.ndarray:
    """The rows by listing every stronger combination (not the cached shortcut)."""
    rules, unseen = view.rules, view.unseen

    def could(combo: HandRanking, seat: int) -> bool:
        if hands is not None:
            return bool(stronger_than(hands[seat], combo, rules))
        return view.cards_left[seat] >= combo.size and bool(stronger_than(unseen, combo, rules))

    out = np.zeros((len(legal), REPLY_FEATURES), np.int8)
    opponents = seats_from(view.seat)[1:]
    for row, move in enumerate(legal):
        rest = view.hand & ~move.cards if move else view.hand
        if move:
            out[row, :3] = [could(move, s) for s in opponents]
        out[row, 3] = sum(any(could(p, s) for s in opponents) for p in make_plan(rest, rules))
    return out


def test_rows_on_random_positions_match_their_definition():
    checked = 0
    for n, (view, legal) in enumerate(positions(6, seed=40)):
        if n % 3:
            continue
        assert (reply_features(view, legal) == brute_force(view, legal)).all()
        # a deal consistent with the view: the unseen cards split by cards left
        unseen = [c for c in range(52) if view.unseen >> c & 1]
        hands, start = [0, 0, 0, 0], 0
        for seat in seats_from(view.seat)[1:]:
            hands[seat] = sum(1 << c for c in unseen[start : start + view.cards_left[seat]])
            start += view.cards_left[seat]
        hands[view.seat] = view.hand
        cheat = reply_features(view, legal, hands)
        assert (cheat == brute_force(view, legal, hands)).all()
        # what a seat can do, it could: the cheating flags imply the fair ones
        assert (cheat[:, :3] <= reply_features(view, legal)[:, :3]).all()
        checked += 1
    assert checked > 40


def test_the_config_picks_fair_or_cheating_replies_and_the_actor_is_as_wide():
    fair = former_config(plan_features=True, reply_features=True, action_head="mlp")
    features = fair.features()
    assert isinstance(features, JoinedFeatures) and features.parts == (PLAN, REPLIES)
    assert not features.perfect_information and len(feature_scale(features)) == 8
    assert former_config(reply_features=True).features() is REPLIES
    oracle = former_config(observer="oracle", upper_bound=True, reply_features=True)
    assert oracle.features() is CHEATING_REPLIES
    assert make(False, False) is None and former_config().features() is None
    net = make_actor(resolve(fair).network)
    assert net.uses_plan and net.scorer is not None
    assert net.scorer.action[0].in_features == net.scorer.bias.in_features
    assert net.scorer.plan_scale.shape == (8,)
    with pytest.raises(ValueError, match="catalog"):
        former_config(actions="hand", reply_features=True).check()


def test_cheating_replies_need_a_cheating_agent_and_the_game():
    game = deal()
    with pytest.raises(ValueError, match="read every hand"):
        PolicyAgent(lambda obs, mask, f: 0, "card_counting", CODEC, features=CHEATING_REPLIES)
    with pytest.raises(ValueError, match="pass the game"):
        CHEATING_REPLIES(game.view(0), game.legal_moves())
    seen = []

    def policy(obs, mask, rows):
        seen.append(rows)
        return np.where(mask, 0.0, -1e9)

    agent = PolicyAgent(policy, "card_counting", CODEC, features=CHEATING_REPLIES, cheat=True)
    agent.show(game)
    agent.act(game.view(0), game.legal_moves())
    legal = game.legal_moves()
    assert (seen[0] == reply_features(game.view(0), legal, game.hands)).all()


@pytest.mark.parametrize("rules", ["three-player", "two-player"])
def test_two_and_three_players_fill_the_columns_of_their_opponents(rules):
    """Of three players ``across`` stays 0, of two only ``next`` is filled; the cheating
    version reads each opponent's real hand into its column."""
    made = get(rules)
    absent = {3: [1], 2: [1, 2]}[made.players]
    for seed in range(4):
        game = play(Game(made, seed=seed), RandomAgent(seed), until=lambda g: len(g.log.moves) > 9)
        view, legal = game.view(game.turn), game.legal_moves()
        for rows in (reply_features(view, legal), reply_features(view, legal, game.hands)):
            assert rows.shape == (len(legal), REPLY_FEATURES) and not rows[:, absent].any()
        nxt = seats_from(game.turn, made.players)[1]
        cheat = reply_features(view, legal, game.hands)
        for move, row in zip(legal, cheat, strict=True):
            assert row[0] == bool(move and stronger_than(game.hands[nxt], move, made))
