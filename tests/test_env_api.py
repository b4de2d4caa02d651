"""The PettingZoo API of the Big Two env: spaces, observations, rewards, resets, render, state."""

from __future__ import annotations

import re

import numpy as np
import pettingzoo
import pytest
from env_helpers import CODECS, OBSERVER_NAMES, PRESETS, play_out, random_action
from gymnasium import spaces
from pettingzoo.test import api_test, parallel_api_test, seed_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import envs
import observers
from big2 import cards as C
from big2.game import Game
from big2.hand_ranking import Ranking
from big2.rules import get
from envs.big2_env import env, raw_env

N_ACTIONS = {
    ("catalog", "standard"): 17859,
    ("catalog", "charlesworth"): 21076,
    ("hand", "standard"): 1695,
    ("hand", "charlesworth"): 1695,
}
CONFIGS = [(o, a, r) for r in PRESETS for a in CODECS for o in OBSERVER_NAMES]
# the other four-player presets: one configuration each (their deals and moves differ from
# standard's in suit names, flush order, wraps; the env is the same code)
VARIANTS = ["taiwan", "pusoy-dos", "western"]
# the other player counts: every observer but the 2018 code's, with the catalog codec
SEATS = ["three-player", "two-player"]
SEAT_OBSERVERS = [name for name in OBSERVER_NAMES if name != "charlesworth"]
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def test_registry_holds_every_observer_tested_here():
    assert sorted(observers.REGISTRY) == sorted(OBSERVER_NAMES)


@pytest.mark.parametrize(("observer", "actions", "rules"), CONFIGS)
def test_pettingzoo_api_test(observer, actions, rules):
    api_test(env(rules=rules, observer=observer, actions=actions), num_cycles=1000)


@pytest.mark.parametrize(("observer", "actions", "rules"), CONFIGS)
def test_pettingzoo_seed_test(observer, actions, rules):
    seed_test(lambda: env(rules=rules, observer=observer, actions=actions), num_cycles=1000)


@pytest.mark.parametrize("rules", VARIANTS)
def test_pettingzoo_api_and_seed_tests_under_the_four_player_variants(rules):
    api_test(env(rules=rules), num_cycles=200)
    seed_test(lambda: env(rules=rules), num_cycles=50)


@pytest.mark.parametrize("rules", SEATS)
@pytest.mark.parametrize("observer", SEAT_OBSERVERS)
def test_pettingzoo_api_and_seed_tests_for_two_and_three_players(observer, rules):
    api_test(env(rules=rules, observer=observer), num_cycles=1000)
    seed_test(lambda: env(rules=rules, observer=observer), num_cycles=1000)


@pytest.mark.parametrize("rules", SEATS)
def test_two_and_three_players_have_an_agent_per_seat(rules):
    players = get(rules).players
    aec = raw_env(rules=rules, observer="card_counting")
    assert aec.possible_agents == [f"player_{i}" for i in range(players)]
    assert aec.observer.shapes["played"] == (players, 52)
    # hands and played cards by seat, the table and its ranking, turn, owner and passes
    assert aec.state_space.shape == (2 * players * 52 + 52 + 10 + 3 * players - 1,)
    assert aec.state_space.shape == ({"three-player": 382, "two-player": 275}[rules],)
    aec.reset(seed=3)
    assert aec.agents == aec.possible_agents and aec.agent_selection == f"player_{aec.game.turn}"
    state = aec.observer.split(aec.observe(aec.agent_selection)["observation"])
    assert state["hand"].sum() == aec.game.hand(aec.game.turn).bit_count()
    hands = aec.state_observer.split(aec.state())["hands"]
    assert hands.sum(axis=1).tolist() == [h.bit_count() for h in aec.game.hands]
    play_out(aec, np.random.default_rng(3))
    assert sorted(aec.rewards) == aec.possible_agents
    assert [aec.rewards[a] for a in aec.possible_agents] == list(aec.game.scores())


@pytest.mark.parametrize("rules", SEATS)
def test_the_four_player_observer_and_codec_refuse_other_deals_saying_what_to_use(rules):
    with pytest.raises(ValueError, match=r"four players of 13 cards.*use observer='simple'"):
        raw_env(rules=rules, observer="charlesworth")
    with pytest.raises(ValueError, match=r"13-card hand.*use actions='catalog'"):
        raw_env(rules=rules, actions="hand")


def test_pettingzoo_make_after_import():
    assert envs.ENV_ID == "big2/BigTwo-v0"
    aec = pettingzoo.make("aec", "big2/BigTwo-v0", rules="charlesworth", observer="planes",
                          actions="hand")  # fmt: skip
    inner = aec.unwrapped
    assert isinstance(inner, raw_env) and inner is not aec
    assert (inner.rules.name, inner.observer.name, inner.codec.name) == ("charlesworth", "planes",
                                                                         "hand")  # fmt: skip
    aec.reset(seed=3)
    obs, *_ = aec.last()
    assert obs["action_mask"].any()
    api_test(pettingzoo.make("aec", "big2/BigTwo-v0"), num_cycles=1000)


@pytest.mark.parametrize("rules", [*PRESETS, *SEATS])
def test_pettingzoo_parallel_conversion_passes_parallel_api_test(rules):
    actions = "hand" if get(rules).players == 4 else "catalog"
    par = turn_based_aec_to_parallel(env(rules=rules, observer="card_counting", actions=actions))
    parallel_api_test(par, num_cycles=1000)
    observations, _ = par.reset(seed=1)
    rng = np.random.default_rng(1)
    terminations = {}
    while not any(terminations.values()):
        acting = [a for a, obs in observations.items() if obs["action_mask"].any()]
        assert len(acting) == 1  # one seat to act, the others' actions ignored
        move = random_action(observations[acting[0]], rng)
        actions = dict.fromkeys(par.agents, 0) | {acting[0]: move}
        observations, rewards, terminations, _, _ = par.step(actions)
    game = par.unwrapped.game
    assert all(terminations.values()) and game.is_over
    assert [rewards[f"player_{s}"] for s in range(game.rules.players)] == list(game.scores())


@pytest.mark.parametrize("rules", PRESETS)
@pytest.mark.parametrize("actions", CODECS)
def test_spaces_identical_across_agents_and_action_counts(actions, rules):
    aec = raw_env(rules=rules, actions=actions, observer="card_counting")
    n = N_ACTIONS[actions, rules]
    assert aec.codec.n == n and aec.possible_agents == [f"player_{i}" for i in range(4)]
    first = aec.observation_space("player_0")
    for agent in aec.possible_agents:
        assert aec.observation_space(agent) == first
        assert aec.action_space(agent) == spaces.Discrete(n)
    assert first["observation"] == spaces.Box(0, 1, (aec.observer.size,), np.float32)
    assert first["action_mask"] == spaces.Box(0, 1, (n,), np.int8)


def check_obs(aec, agent, acting):
    obs = aec.observe(agent)
    space = aec.observation_space(agent)
    assert set(obs) == {"observation", "action_mask"}
    assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
    assert obs["observation"].shape == space["observation"].shape
    assert obs["action_mask"].shape == space["action_mask"].shape
    assert space.contains(obs)
    assert obs["action_mask"].any() == acting
    game, seat = aec.game, aec.possible_agents.index(agent)  # each agent sees its own seat
    assert np.array_equal(obs["observation"], aec.observer.observe(game.view(seat), game))


@pytest.mark.parametrize("rules", PRESETS)
@pytest.mark.parametrize("actions", CODECS)
def test_observations_and_masks_for_every_agent(actions, rules):
    aec = raw_env(rules=rules, actions=actions, observer="history")
    rng = np.random.default_rng(0)
    for seed in range(3):
        aec.reset(seed=seed)
        while not aec.game.is_over:
            for agent in aec.possible_agents:
                check_obs(aec, agent, acting=agent == aec.agent_selection)
            aec.step(random_action(aec.observe(aec.agent_selection), rng))
        assert all(aec.terminations.values())
        for agent in aec.possible_agents:
            check_obs(aec, agent, acting=False)


def test_charlesworth_plays_the_opening_3d_itself():
    aec = raw_env(rules="charlesworth")
    aec.reset(seed=5)
    (entry,) = aec.game.log.moves
    assert str(entry.move) == "3D" and entry.seat == aec.game.board.first_seat
    assert aec.agent_selection == f"player_{(entry.seat + 1) % 4}"


@pytest.mark.parametrize("rules", [*PRESETS, *SEATS])
@pytest.mark.parametrize("reward", ["score", "score_normalized", "win", "shaped"])
def test_rewards(rules, reward):
    players = get(rules).players
    scale = get(rules).max_penalty if reward == "score_normalized" else 1
    assert scale in (1, 39, 13, 54, 78)  # 18 x 3 of three players, 26 x 3 of two
    aec = raw_env(rules=rules, reward=reward, actions="hand" if players == 4 else "catalog")
    rng = np.random.default_rng(1)
    for seed in range(6):
        aec.reset(seed=seed)
        totals = dict.fromkeys(aec.possible_agents, 0.0)  # the whole game
        since = dict.fromkeys(aec.possible_agents, 0.0)  # since the agent's last decision
        discarded = dict.fromkeys(aec.possible_agents, 0)
        while not aec.game.is_over:
            agent = aec.agent_selection
            assert aec.last(observe=False)[1] == pytest.approx(since[agent])
            action = random_action(aec.observe(agent), rng)
            move = aec.codec.decode(action, aec.game.hand(aec.game.turn))
            aec.step(action)
            discarded[agent] += move.size
            since[agent] = 0.0
            for a, r in aec.rewards.items():
                totals[a] += r
                since[a] += r
            if not aec.game.is_over:
                shaped = move.size / 5 if reward == "shaped" else 0.0
                assert aec.rewards == {a: shaped if a == agent else 0.0 for a in aec.agents}
        scores = aec.game.scores()
        if reward == "win":  # +1 for going out, -1/3 for the others (of four), whatever they hold
            scores = [players - 1 if seat == aec.game.winner else -1 for seat in range(players)]
            scale = players - 1
        for seat, agent in enumerate(aec.possible_agents):
            extra = discarded[agent] / 5 if reward == "shaped" else 0.0
            assert totals[agent] == pytest.approx(scores[seat] / scale + extra)
        if reward != "shaped":
            assert sum(totals.values()) == pytest.approx(0.0, abs=1e-9)
            assert [aec.rewards[a] for a in aec.possible_agents] == pytest.approx(
                [s / scale for s in scores]
            )
        for agent in aec.agent_iter():  # the dead steps: last() reports what is left
            _, r, terminated, truncated, _ = aec.last()
            assert terminated and not truncated and r == pytest.approx(since[agent])
            aec.step(None)
        assert aec.agents == []


@pytest.mark.parametrize("make", [raw_env, env])
def test_reset_between_dead_steps_starts_a_clean_game(make):
    aec = make()
    rng = np.random.default_rng(6)
    aec.reset(seed=6)
    while not aec.unwrapped.game.is_over:
        aec.step(random_action(aec.observe(aec.agent_selection), rng))
    aec.step(None)  # one of the four dead steps, then a new game
    aec.reset(seed=7)
    assert aec.agents == aec.possible_agents and not any(aec.terminations.values())
    assert aec.agent_selection == f"player_{aec.unwrapped.game.turn}"
    finished = {}
    for agent in aec.agent_iter():
        obs, reward, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            finished[agent] = reward
            aec.step(None)
        else:
            aec.step(random_action(obs, rng))
    scores = aec.unwrapped.game.scores()
    assert finished == {f"player_{s}": float(scores[s]) for s in range(4)}


@pytest.mark.parametrize("rules", PRESETS)
def test_seeded_reset_is_reproducible(rules):
    a, b, c = (raw_env(rules=rules, observer="oracle") for _ in range(3))
    a.reset(seed=7)
    play_out(a, np.random.default_rng(0))
    a.reset(seed=7)
    b.reset(seed=7)
    c.reset(seed=8)
    assert a.game.hands == b.game.hands != c.game.hands
    assert a.agent_selection == b.agent_selection
    for agent in a.possible_agents:
        oa, ob = a.observe(agent), b.observe(agent)
        assert all(np.array_equal(oa[k], ob[k]) for k in oa)
    a.reset()
    b.reset()  # unseeded resets continue the seeded generator identically
    assert a.game.hands == b.game.hands


def test_reset_with_fixed_cards_and_conflicts():
    aec = raw_env()
    aec.reset(seed=0, options={"fixed": {1: "3D 4D 5D", 2: "2S 2H"}})
    assert aec.game.hand(1) & C.parse_cards("3D 4D 5D") == C.parse_cards("3D 4D 5D")
    assert aec.game.hand(2) & C.parse_cards("2S 2H") == C.parse_cards("2S 2H")
    assert aec.agent_selection == "player_1"
    deal = [C.format_cards(h) for h in Game(seed=123).hands]
    aec.reset(options={"fixed": dict(enumerate(deal))})
    assert aec.game.hands == Game(seed=123).hands
    play_out_partly = np.random.default_rng(2)
    for _ in range(5):
        aec.step(random_action(aec.observe(aec.agent_selection), play_out_partly))
    game, selected, moves = aec.game, aec.agent_selection, len(aec.game.log.moves)
    before = aec.observe(selected)
    bad = [{0: "3D 4D", 1: "4D 5D"}, {0: " ".join(C.card_name(i) for i in range(14))}, {4: "3D"}]
    for fixed in bad:
        with pytest.raises(ValueError, match=r"4D|14 cards|seat 4"):
            aec.reset(seed=1, options={"fixed": fixed})
        assert aec.game is game and len(game.log.moves) == moves
        assert aec.agent_selection == selected and not any(aec.terminations.values())
        after = aec.observe(selected)
        assert all(np.array_equal(before[k], after[k]) for k in before)
    play_out(aec, np.random.default_rng(3))  # and the game goes on to its end
    assert aec.game is game and sum(game.scores()) == 0


@pytest.mark.parametrize("rules", ["standard", *SEATS])
def test_render_modes(capsys, rules):
    assert raw_env(rules=rules).render() is None  # render_mode None
    aec = raw_env(rules=rules, render_mode="ansi")
    aec.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(6):
        aec.step(random_action(aec.observe(aec.agent_selection), rng))
    text = aec.render()
    assert isinstance(text, str)
    for seat, hand in enumerate(aec.game.hands):
        assert re.search(rf"seat {seat}:\s*{hand.bit_count()} cards", text), text
    assert f"seat {len(aec.game.hands)}" not in text
    table = aec.game.table
    assert ("(empty)" if table is None else str(table)) in text
    human = raw_env(rules=rules, render_mode="human")
    human.reset(seed=4)
    capsys.readouterr()
    assert human.render() is None
    assert f"seat {aec.rules.players - 1}" in capsys.readouterr().out


@pytest.mark.parametrize("rules", PRESETS)
def test_state_is_the_full_information_vector(rules):
    aec = raw_env(rules=rules)
    rng = np.random.default_rng(5)
    aec.reset(seed=5)
    assert len(Ranking) - 1 == 10 and aec.state_space.shape == (489,)
    while True:
        game, state = aec.game, aec.state()
        assert state.shape == (489,) and state.dtype == np.float32
        assert aec.state_space.contains(state)
        rows = state[:468].reshape(9, 52)
        played = game.view(0).played
        table = game.table
        for row, mask in enumerate([*game.hands, *played, table.cards if table else 0]):
            assert np.flatnonzero(rows[row]).tolist() == list(C.iter_cards(mask))
        ranking, turn, owner, passes = state[468:478], state[478:482], state[482:486], state[486:]
        assert np.flatnonzero(ranking).tolist() == ([table.ranking - 1] if table else [])
        assert np.flatnonzero(turn).tolist() == ([] if game.is_over else [game.turn])
        assert np.flatnonzero(owner).tolist() == ([game.table_seat] if table else [])
        assert np.flatnonzero(passes).tolist() == ([min(game.passes, 2)] if table else [])
        if game.is_over:
            break
        aec.step(random_action(aec.observe(aec.agent_selection), rng))
