"""big2.players: the play loop and the agent-spec grammar; envs.policy_agent: the adapter."""

from __future__ import annotations

import random

import numpy as np
import pytest

from big2.game import Game, IllegalMove
from big2.hand_ranking import PASS
from big2.players import (
    AgentSpec,
    GreedyAgent,
    HeuristicAgent,
    RandomAgent,
    SearchAgent,
    load_agent,
    play,
)
from big2.rules import CHARLESWORTH
from envs.policy_agent import PolicyAgent

# ------------------------------------------------------------------ play


def manual(game: Game, agents) -> Game:
    while not game.is_over:
        seat = game.turn
        game.play(agents[seat].act(game.view(seat), game.legal_moves()))
    return game


@pytest.mark.parametrize("seed", range(5))
def test_play_is_the_manual_loop(seed):
    def agents():
        return [GreedyAgent(), RandomAgent(seed), HeuristicAgent(), RandomAgent(seed + 1)]

    assert play(Game(seed=seed), agents()).log == manual(Game(seed=seed), agents()).log


def test_one_agent_plays_every_seat_and_until_stops_before_a_move():
    game = play(Game(CHARLESWORTH, seed=2), GreedyAgent(), until=lambda g: g.turn == 3)
    assert not game.is_over and game.turn == 3
    assert play(game, GreedyAgent(), until=lambda g: g.turn == 3) is game  # nothing to do
    assert play(game, GreedyAgent()).is_over and sum(game.scores()) == 0


def test_play_refuses_bad_agents_and_illegal_moves_change_nothing():
    with pytest.raises(ValueError, match="one agent or 4 agents"):
        play(Game(seed=0), [GreedyAgent()] * 3)
    with pytest.raises(ValueError, match="one agent or 4 agents"):
        play(Game(seed=0), [GreedyAgent(), GreedyAgent(), GreedyAgent(), "greedy"])

    class Passer:
        def act(self, view, legal_moves):
            return PASS

    game = Game(seed=0)
    with pytest.raises(IllegalMove, match="the leader must play"):
        play(game, Passer())
    assert game.log.moves == [] and game.turn == game.board.first_seat


# ------------------------------------------------------------------ specs


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("random", AgentSpec("random")),
        ("random:3", AgentSpec("random", seed=3)),
        ("search:0", AgentSpec("search", seed=0)),
        ("trained+search", AgentSpec("trained", search=True)),
        ("trained+search:12", AgentSpec("trained", search=True, seed=12)),
        ("runs/a:b/best.pt", AgentSpec("runs/a:b/best.pt")),
        ("runs/x/best.pt+search:1", AgentSpec("runs/x/best.pt", search=True, seed=1)),
    ],
)
def test_specs_parse_and_print_back(text, spec):
    assert AgentSpec.parse(text) == spec and str(spec) == text


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", "non-empty string"),
        ("+search", "names no agent"),
        ("greedy:1", "greedy is deterministic and takes no seed"),
        ("heuristic+search", r"\+search needs a policy"),
        ("smart", "unknown agent 'smart'"),
        ("random:x", "the seed after ':' must be a whole number, got 'x'"),
    ],
)
def test_bad_specs_say_what_was_expected(text, error):
    with pytest.raises(ValueError, match=error):
        load_agent(text)


def test_specs_build_seeded_agents():
    assert isinstance(load_agent("greedy"), GreedyAgent)
    assert isinstance(load_agent("heuristic"), HeuristicAgent)
    draws = [load_agent("random:5").rng.random() for _ in range(2)]
    assert draws[0] == draws[1] == random.Random(5).random()
    search = load_agent("search:4", determinizations=2, candidates=2)
    assert isinstance(search, SearchAgent) and (search.determinizations, search.candidates) == (
        2,
        2,
    )
    assert load_agent("search").rng.random() == random.Random(0).random()  # seed 0 by default
    with pytest.raises(ValueError, match="apply to search and NAME\\+search only"):
        load_agent("random", determinizations=2)


# ------------------------------------------------------------------ the policy adapter


def uniform_logits(obs, mask):
    return np.zeros(len(mask))


def position():
    """A view with several legal moves, PASS among them (after the opening play)."""
    game = Game(seed=9)
    game.play(game.legal_moves()[0])
    view, legal = game.view(game.turn), game.legal_moves()
    assert len(legal) > 3 and legal[-1] is PASS
    return view, legal


def test_policy_agent_takes_actions_or_logits():
    view, legal = position()
    by_action = PolicyAgent(lambda obs, mask: int(np.flatnonzero(mask)[-1]))
    by_logits = PolicyAgent(lambda obs, mask: np.where(mask == 1, np.arange(len(mask)), -1e9))
    assert by_action.act(view, legal) == by_logits.act(view, legal) == legal[-1] == PASS
    first = PolicyAgent(uniform_logits)  # ties: the first legal action
    assert first.act(view, legal) == legal[0]
    assert first.scores(view, legal) == [0.0] * len(legal)


def test_sampling_policy_agent_is_seeded_and_reset_reseeds_it():
    view, legal = position()

    def picks(agent):
        return [agent.act(view, legal) for _ in range(30)]

    a, b = (
        PolicyAgent(uniform_logits, sample=True, seed=1),
        PolicyAgent(uniform_logits, sample=True, seed=1),
    )
    first = picks(a)
    assert first == picks(b) and len(set(first)) > 1
    a.reset(9)
    b.rng = random.Random(9)
    assert picks(a) == picks(b)


def test_policy_agent_errors():
    view, legal = position()
    illegal = PolicyAgent(lambda obs, mask: int(np.flatnonzero(mask == 0)[0]), name="bad")
    with pytest.raises(ValueError, match=r"policy 'bad' chose action 0 .*not legal"):
        illegal.act(view, legal)
    with pytest.raises(ValueError, match="sampling needs logits"):
        PolicyAgent(lambda obs, mask: 0, sample=True).act(view, legal)
    with pytest.raises(ValueError, match=r"returned shape \(3,\)"):
        PolicyAgent(lambda obs, mask: np.zeros(3)).act(view, legal)
    with pytest.raises(ValueError, match="needs the full game"):
        PolicyAgent(uniform_logits, observer="oracle")
