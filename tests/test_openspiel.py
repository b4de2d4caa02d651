"""The OpenSpiel game ``python_big2`` (envs.openspiel) and OpenSpiel's ISMCTS in the arena."""

from __future__ import annotations

import pickle
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="the openspiel extra is not installed: pip install -e '.[openspiel]'"
)

import observers  # noqa: E402
from big2.board import Board  # noqa: E402
from big2.evaluation import deal_results  # noqa: E402
from big2.game import Game  # noqa: E402
from big2.rules import PRESETS  # noqa: E402
from envs.openspiel import (  # noqa: E402
    MAX_HISTORY,
    NAME,
    max_decisions,
    max_history,
    state_from_view,
)
from envs.openspiel_agent import ISMCTSAgent  # noqa: E402
from observers.encoders import HistoryObserver  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def random_states(game, seed, every=7):
    """Decision states of one game of random play (every ``every``-th, and the end)."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(rng.choice(state.legal_actions()))
    number = 0
    while not state.is_terminal():
        if number % every == 0:
            yield state.clone()
        state.apply_action(rng.choice(state.legal_actions()))
        number += 1
    yield state


FOUR_SEATS = sorted(name for name, rules in PRESETS.items() if rules.players == 4)


@pytest.mark.parametrize("rules", FOUR_SEATS)
def test_openspiel_random_simulation_test_passes(rules):
    game = pyspiel.load_game(NAME, {"rules": rules})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("rules", ["three-player", "two-player"])
def test_two_and_three_players_pass_the_random_simulation_test(rules):
    game = pyspiel.load_game(NAME, {"rules": rules})
    players = PRESETS[rules].players
    assert game.num_players() == players and game.get_type().min_num_players == 2
    assert game.max_game_length() == max_decisions(players)
    assert game.max_utility() == (players - 1) * PRESETS[rules].max_penalty
    assert game.observation_tensor_size() == observers.make("simple", rules).size
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("rules", ["three-player", "two-player"])
def test_two_and_three_players_deal_resample_and_observe_by_their_seats(rules):
    game, rng = pyspiel.load_game(NAME, {"rules": rules}), random.Random(4)
    states = list(random_states(game, seed=4))
    dealt = states[0].game
    assert [h.bit_count() for h in dealt.hands] == [h.bit_count() for h in dealt.board.hands]
    assert dealt.board == Board.from_hands(list(dealt.hands), PRESETS[rules])
    recall = HistoryObserver(game.rules, k=max_history(game.num_players()))
    for state in states[:: max(1, len(states) // 6)]:
        if state.is_terminal():
            assert sum(state.returns()) == 0 and len(state.returns()) == game.num_players()
            continue
        seat = state.current_player()
        again = state.resample_from_infostate(seat, rng)
        assert again.view(seat) == state.view(seat)
        assert np.array_equal(
            state.information_state_tensor(seat), recall.observe(state.view(seat))
        )


@pytest.mark.parametrize("rules", FOUR_SEATS)
def test_legal_actions_are_the_engines_moves_in_catalog_order(rules):
    game = pyspiel.load_game(NAME, {"rules": rules})
    for state in random_states(game, seed=1):
        if state.is_terminal():
            assert state.legal_actions() == []
            continue
        moves = state.game.legal_moves()
        assert [game.codec.decode(a) for a in state.legal_actions()] == list(moves)


@pytest.mark.parametrize(
    ("rules", "observer"), [("standard", "simple"), ("charlesworth", "card_counting")]
)
def test_tensors_are_our_observers_vectors(rules, observer):
    game = pyspiel.load_game(NAME, {"rules": rules, "observer": observer})
    ours = observers.make(observer, rules)
    recall = HistoryObserver(game.rules, k=MAX_HISTORY)
    for state in random_states(game, seed=2):
        for seat in range(4):
            view = state.view(seat)
            assert np.array_equal(state.observation_tensor(seat), ours.observe(view))
            assert np.array_equal(state.information_state_tensor(seat), recall.observe(view))


def test_observation_pieces_are_named_as_our_observers_pieces():
    game = pyspiel.load_game(NAME, {"observer": "card_counting"})
    from open_spiel.python.observation import make_observation

    observation = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False))
    state = next(random_states(game, seed=3))
    observation.set_from(state, 1)
    ours = observers.make("card_counting")
    assert list(observation.dict) == [p.name for p in ours.pieces]
    assert np.array_equal(observation.dict["hand"], ours.split(ours.observe(state.view(1)))["hand"])


def test_resampling_keeps_the_information_state_and_deals_the_rest_anew():
    game = pyspiel.load_game(NAME)
    *_, state, _ = random_states(game, seed=4, every=5)
    rng = random.Random(0)
    for seat in range(4):
        other = state.resample_from_infostate(seat, rng)
        assert other.information_state_string(seat) == state.information_state_string(seat)
        assert other.information_state_tensor(seat) == state.information_state_tensor(seat)
        assert other.current_player() == state.current_player()
        assert other.game.hand(seat) == state.game.hand(seat)
    assert other.game.hands != state.game.hands  # the hidden cards moved


def test_a_state_from_a_view_replays_the_public_moves():
    game = pyspiel.load_game(NAME, {"rules": "charlesworth"})
    played = Game(PRESETS["charlesworth"], seed=8)
    for _ in range(9):
        played.play(played.legal_moves()[-1])
    state = state_from_view(game, played.view(played.turn), random.Random(1))
    assert state.view(played.turn) == played.view(played.turn)
    standard = pyspiel.load_game(NAME)
    with pytest.raises(
        ValueError, match="the view is of the charlesworth rules, the game standard"
    ):
        state_from_view(standard, played.view(0), random.Random(1))


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"reward": "shaped"}, "unknown reward 'shaped'"),
        ({"rules": "house"}, "unknown rules 'house'"),
        ({"observer": "oracle"}, "observer 'oracle' sees every hand"),
    ],
)
def test_bad_parameters_are_refused_with_what_was_expected(params, message):
    with pytest.raises(ValueError, match=message):
        pyspiel.load_game(NAME, params)


def test_games_and_agents_pickle_with_their_parameters():
    game = pyspiel.load_game(NAME, {"rules": "charlesworth", "reward": "win"})
    again = pickle.loads(pickle.dumps(game))
    assert again.rules == game.rules and again.reward == "win"
    assert str(again) == str(game)
    agent = ISMCTSAgent("charlesworth", seed=3, simulations=5)
    copy = pickle.loads(pickle.dumps(agent))  # as the arena's worker processes get it
    played = Game(game.rules, seed=1)
    view, legal = played.view(played.turn), played.legal_moves()
    assert len(legal) > 1
    assert copy.act(view, legal) == agent.act(view, legal)


def test_ismcts_plays_whole_games_in_the_arena_the_same_twice():
    agents = [ISMCTSAgent(simulations=4, seed=0), "heuristic", "random:1", "greedy"]
    first = deal_results(agents, 1, seed=5)
    assert sum(wins for wins, _ in first[0]) == 4  # one winner in each of the four games
    assert sum(score for _, score in first[0]) == 0
    assert deal_results(agents, 1, seed=5) == first


def test_ismcts_agent_refuses_bad_settings():
    with pytest.raises(ValueError, match="unknown rollouts 'smart'; expected one of"):
        ISMCTSAgent(rollouts="smart")
    with pytest.raises(ValueError, match="simulations must be at least 1, got 0"):
        ISMCTSAgent(simulations=0)


@pytest.mark.slow
def test_the_example_runs_and_reports_the_win_share():
    script = ROOT / "examples" / "openspiel_ismcts.py"
    done = subprocess.run(
        [sys.executable, str(script), "--deals", "1", "--simulations", "3"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("ISMCTS win share vs three heuristic players: ")
