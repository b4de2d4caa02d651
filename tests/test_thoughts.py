"""What agents weighed, kept in game logs: thoughts round-trip, old logs load, bad ones fail."""

from __future__ import annotations

import json

import numpy as np
import pytest

from big2.game import Game
from big2.hand_ranking import HandRanking
from big2.log import Candidate, GameLog, Thought
from big2.players import GreedyAgent, HeuristicAgent, play
from big2.players.search import SearchAgent
from envs.policy_agent import THOUGHT_SIZE, PolicyAgent


def uniform_logits(obs, mask):
    return np.where(mask > 0, 0.0, -1e9)


def test_policy_and_search_agents_leave_their_thoughts_in_the_log():
    search = SearchAgent(determinizations=2, candidates=3, seed=0)
    policy = PolicyAgent(uniform_logits, "simple", "catalog")
    game = play(Game(seed=4), [policy, search, GreedyAgent(), HeuristicAgent()])
    thoughts = game.log.thoughts
    assert thoughts and all(game.log.moves[n].seat in (0, 1) for n in thoughts)
    for number, thought in thoughts.items():
        move = game.log.moves[number].move
        assert thought.candidates[0].move == move  # the move made comes first
        if game.log.moves[number].seat == 0:
            assert len(thought.candidates) <= THOUGHT_SIZE and thought.value is None
            assert all(0 < c.probability <= 1 for c in thought.candidates)
        else:
            assert thought.value == thought.candidates[0].win_rate
            assert sum(c.probability for c in thought.candidates) == pytest.approx(1.0)
    again = GameLog.from_json(game.log.to_json())
    assert again == game.log and again.thoughts == thoughts


def test_logs_without_thoughts_still_load():
    game = play(Game(seed=2), GreedyAgent())
    data = game.log.to_dict()
    assert all("thought" not in m for m in data["moves"])
    assert GameLog.from_dict(data).thoughts == {}


@pytest.mark.parametrize(
    "thought, error",
    [
        ({"candidates": "3D"}, "must be a list"),
        ({"candidates": [{"move": "3D 4S", "probability": 0.5}]}, "3D 4S"),
        ({"candidates": [{"move": "3D", "probability": "high"}]}, "expected a number"),
        ({"candidates": [{"move": "3D"}]}, "probability"),
        ({"candidates": [], "value": True}, "expected a number"),
    ],
)
def test_a_malformed_thought_makes_the_log_corrupt(thought, error):
    data = play(Game(seed=2), GreedyAgent()).log.to_dict()
    data["moves"][0]["thought"] = thought
    with pytest.raises(ValueError, match="corrupt game log") as caught:
        GameLog.from_json(json.dumps(data))
    assert error in str(caught.value)


def test_a_thought_is_written_as_plain_json():
    thought = Thought((Candidate(HandRanking.from_str("3D"), 0.75, 0.5),), 0.5)
    assert thought.to_dict() == {
        "candidates": [{"move": "3D", "probability": 0.75, "win_rate": 0.5}],
        "value": 0.5,
    }
