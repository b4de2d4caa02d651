"""envs.policy_agent.PolicyAgent: any (observation, mask) -> action policy as an arena agent."""

from __future__ import annotations

import numpy as np
import pytest

import observers
from big2.board import Board
from big2.evaluation.arena import evaluate, play_game
from big2.game import Game
from big2.players import GreedyAgent, RandomAgent
from big2.rules import CHARLESWORTH, STANDARD
from envs import codecs
from envs.policy_agent import PolicyAgent

OBSERVERS = ["simple", "card_counting", "history", "planes", "charlesworth"]


def first_legal(obs, mask):
    return int(np.flatnonzero(mask)[0])


class Capture:
    """A policy that records what it is given and picks a legal action with ``choose``."""

    def __init__(self, choose=first_legal):
        self.choose, self.calls = choose, []

    def __call__(self, obs, mask):
        self.calls.append((obs.copy(), mask.copy()))
        return self.choose(obs, mask)


class Spy:
    """Wraps an agent and records the views and legal moves it was asked about."""

    def __init__(self, inner):
        self.inner, self.name, self.seen = inner, inner.name, []

    def act(self, view, legal_moves):
        self.seen.append((view, legal_moves))
        return self.inner.act(view, legal_moves)


@pytest.mark.parametrize("rules", [STANDARD, CHARLESWORTH])
@pytest.mark.parametrize("actions", ["catalog", "hand"])
def test_first_legal_policy_plays_complete_arena_games(rules, actions):
    agent = PolicyAgent(first_legal, actions=actions, rules=rules, name="first")
    result = evaluate([agent, "random", "greedy", "random"], 6, seed=1, rules=rules)
    assert result.games == 24 and result.agents[0].name == "first"
    assert sum(a.wins for a in result.agents) == 24
    again = evaluate([agent, "random", "greedy", "random"], 6, seed=1, rules=rules)
    assert again == result


def test_first_legal_policy_is_the_first_legal_move_in_catalog_order():
    # with the catalog codec, the lowest legal action is the first legal move (PASS is last)
    policy = PolicyAgent(first_legal)
    game, greedy = Game(seed=3), GreedyAgent()
    while not game.is_over:
        view, legal = game.view(game.turn), game.legal_moves()
        move = policy.act(view, legal)
        assert move is legal[0]
        game.play(move if game.turn == 0 else greedy.act(view, legal))


@pytest.mark.parametrize("observer", OBSERVERS)
@pytest.mark.parametrize(("rules", "actions"), [(STANDARD, "catalog"), (CHARLESWORTH, "hand")])
def test_observation_and_mask_are_what_the_env_would_give(observer, rules, actions):
    capture = Capture()
    agent = PolicyAgent(capture, observer=observer, actions=actions, rules=rules)
    spy = Spy(agent)
    board = Board(rules, seed=5)
    play_game(board, [spy, RandomAgent(), GreedyAgent(), RandomAgent()], [0, 1, 2, 3])
    assert len(spy.seen) == len(capture.calls) > 5
    obs_maker = observers.make(observer, rules)
    codec = codecs.make(actions, rules)
    assert agent.observer.size == obs_maker.size and agent.codec.n == codec.n
    for (view, legal), (obs, mask) in zip(spy.seen, capture.calls, strict=True):
        assert obs.shape == (obs_maker.size,) and obs.dtype == np.float32
        np.testing.assert_array_equal(obs, obs_maker.observe(view))
        assert mask.shape == (codec.n,)
        np.testing.assert_array_equal(mask, codec.mask(legal, view.hand))
        assert mask.sum() == len(legal)
        assert {codec.decode(int(a), view.hand) for a in np.flatnonzero(mask)} == set(legal)


def test_observer_object_and_name():
    observer = observers.make("history", STANDARD, k=3)
    agent = PolicyAgent(first_legal, observer=observer, name="h3")
    assert agent.observer is observer
    assert repr(agent) == "PolicyAgent(name='h3', observer='history')"
    game = Game(seed=0)
    seen = Capture()
    PolicyAgent(seen, observer=observer).act(game.view(game.turn), game.legal_moves())
    assert seen.calls[0][0].shape == (observer.size,)


@pytest.mark.parametrize("observer", ["oracle", observers.make("oracle")])
def test_oracle_observer_is_refused(observer):
    with pytest.raises(ValueError, match="'oracle' needs the full game"):
        PolicyAgent(first_legal, observer=observer)


def test_unknown_observer_and_codec():
    with pytest.raises(ValueError, match="unknown observer 'x-ray'"):
        PolicyAgent(first_legal, observer="x-ray")
    with pytest.raises(ValueError, match="unknown action codec 'words'"):
        PolicyAgent(first_legal, actions="words")


def opening():
    game = Game(seed=0)
    return game.view(game.turn), game.legal_moves()


@pytest.mark.parametrize("actions", ["catalog", "hand"])
def test_illegal_action_is_an_error_naming_it(actions):
    view, legal = opening()
    codec = codecs.make(actions)
    mask = codec.mask(legal, view.hand)
    illegal = int(np.flatnonzero(mask == 0)[0])  # a decodable action that is not legal now
    if actions == "catalog":
        assert codec.decode(illegal) not in legal
    agent = PolicyAgent(lambda obs, m: illegal, actions=actions, name="bad")
    with pytest.raises(ValueError, match=rf"\b{illegal}\b"):
        agent.act(view, legal)
    with pytest.raises(
        ValueError, match=rf"policy 'bad' chose action {codec.pass_action} \(pass\)"
    ):
        PolicyAgent(lambda o, m: codec.pass_action, actions=actions, name="bad").act(view, legal)


@pytest.mark.parametrize("actions", ["catalog", "hand"])
@pytest.mark.parametrize("offset", [0, 1, 1000])
def test_out_of_range_action_is_an_error_naming_it(actions, offset):
    view, legal = opening()
    n = codecs.make(actions).n
    for action in (n + offset, -1 - offset):
        agent = PolicyAgent(lambda obs, mask, a=action: a, actions=actions)
        with pytest.raises(ValueError, match=rf"action {action} is out of range"):
            agent.act(view, legal)


def test_numpy_integer_actions_are_accepted():
    view, legal = opening()
    agent = PolicyAgent(lambda obs, mask: np.int64(np.flatnonzero(mask)[-1]))
    assert agent.act(view, legal) is legal[-1]


def test_illegal_policy_fails_an_arena_run():
    bad = PolicyAgent(lambda obs, mask: codecs.make("catalog").pass_action, name="always-pass")
    with pytest.raises(ValueError, match="always-pass"):
        evaluate([bad, "random", "random", "random"], 2)


def test_a_cheating_agent_is_shown_every_hand_and_plays_arena_games():
    oracle = observers.make("oracle")
    capture = Capture()
    agent = PolicyAgent(capture, oracle, name="upper bound", cheat=True)
    assert agent.sees_every_hand
    game = Game(seed=5)
    seat = game.turn
    with pytest.raises(ValueError, match="show it the game first"):
        agent.act(game.view(seat), game.legal_moves())
    agent.show(game)
    agent.act(game.view(seat), game.legal_moves())
    seen = oracle.view_of(capture.calls[-1][0], "opponent_hands")
    for row, step in enumerate((1, 2, 3)):  # next, across, previous
        hand = game.hand((seat + step) % 4)
        assert [int(b) for b in seen[row]] == [hand >> c & 1 for c in range(52)]
    result = evaluate([agent, "random", "random", "random"], 2, seed=0)
    assert result.agents[0].games == 8
