"""Big2VectorEnv keeps gymnasium's vector contract: spaces, SAME_STEP final infos, masks,
per-seat rewards, wrappers, make_vec and misuse."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.wrappers import vector as wrappers

import envs  # noqa: F401  (registers big2/Big2-v0)
from envs.vector import Big2VectorEnv

MODES = {
    "one seat": {"num_envs": 6, "opponents": ["random", "greedy"], "critic_observer": "oracle"},
    "all seats": {"num_envs": 24, "opponents": None, "observer": "card_counting"},
    "all seats of three": {"num_envs": 24, "observer": "planes", "rules": "three-player"},
    "one seat of two": {"num_envs": 6, "opponents": ["heuristic"], "critic_observer": "oracle",
                        "observer": "history", "rules": "two-player"},
}  # fmt: skip


@pytest.mark.parametrize("mode", list(MODES))
def test_the_declared_spaces_hold_every_observation(mode):
    env = Big2VectorEnv(**MODES[mode], seed=0)
    obs, info = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    ends = 0
    for _ in range(300):
        obs, _, terminated, _, info = env.step(env.sample_legal())
        assert env.observation_space.contains(obs)
        for row in np.flatnonzero(terminated):
            assert env.single_observation_space.contains(info["final_obs"][row])
            ends += 1
        assert set(info) >= {"legal", "_legal", "seat", "_seat"}
    assert ends > 0


def test_the_finished_game_is_under_final_info_not_mixed_with_the_next():
    env = Big2VectorEnv(8, opponents=["random"], seed=0)
    _, info = env.reset(seed=3)
    wins, checked = 0, 0
    while checked < 40:
        seats_before = info["seat"].copy()
        _, rewards, terminated, _, info = env.step(env.sample_legal())
        if not terminated.any():
            assert "final_info" not in info
            continue
        final = info["final_info"]
        assert (info["_final_info"] == terminated).all()
        assert (info["_final_obs"] == terminated).all()
        for i in np.flatnonzero(terminated):
            assert final["seat"][i] == seats_before[i]  # the finished game's learner
            assert rewards[i] == final["final_rewards"][i, final["seat"][i]]
            wins += final["winner"][i] == final["seat"][i]
            checked += 1
        assert (final["winner"][~terminated] == -1).all()
        assert (info["final_obs"][~terminated] == None).all()  # noqa: E711
    assert 0 < wins < checked  # random against random: some won, some lost


@pytest.mark.parametrize(("rules", "players"), [("standard", 4), ("three-player", 3),
                                                ("two-player", 2)])  # fmt: skip
def test_every_seat_is_rewarded_its_own_final_score_and_games_are_zero_sum(rules, players):
    n = 8 * players
    env = wrappers.RecordEpisodeStatistics(Big2VectorEnv(n, reward="score", seed=0, rules=rules))
    env.reset(seed=5)
    totals, games = np.zeros(n), 0
    while games < 30:
        _, rewards, terminated, _, info = env.step(env.unwrapped.sample_legal())
        totals += rewards
        for g in np.flatnonzero(terminated[::players]):
            agents = slice(players * g, players * g + players)
            final = info["final_info"]["final_rewards"][players * g]
            assert final.shape == (players,)
            assert rewards[agents].tolist() == final.tolist()  # each seat its own score
            assert final.sum() == 0 and totals[agents].sum() == 0
            assert info["episode"]["r"][agents].tolist() == final.tolist()
            totals[agents] = 0
            games += 1


def test_reward_and_statistics_wrappers_run_on_same_step():
    env = Big2VectorEnv(4, opponents=["random"], seed=0, observer="card_counting")
    env = wrappers.NormalizeReward(wrappers.RecordEpisodeStatistics(env), gamma=0.99)
    env.reset(seed=0)
    episodes = 0
    for _ in range(200):
        _, rewards, terminated, _, info = env.step(env.unwrapped.sample_legal())
        assert np.isfinite(rewards).all()
        episodes += int(terminated.sum())
        if terminated.any():
            assert (info["_episode"] == terminated).all()
    assert episodes > 0


def test_observation_wrappers_refuse_same_step_as_gymnasium_designed():
    with pytest.raises(ValueError, match="NEXT_STEP"):
        wrappers.FlattenObservation(Big2VectorEnv(4, opponents=["random"]))


def test_next_step_autoreset_serves_gymnasiums_stateful_observation_wrappers():
    raw = Big2VectorEnv(8, opponents=["greedy"], critic_observer="oracle", seed=0,
                        autoreset_mode="NextStep")  # fmt: skip
    filtered = wrappers.FilterObservation(raw, ["observation"])
    env = wrappers.NormalizeObservation(wrappers.FlattenObservation(filtered))
    obs, info = env.reset(seed=2)
    assert obs.shape == (8, 161)
    ends, restarts = 0, 0
    waiting = np.zeros(8, bool)
    for _ in range(300):
        actions = raw.sample_legal()
        actions[waiting] = 10**6  # ignored: those games restart now
        obs, rewards, terminated, _, info = env.step(actions)
        assert (rewards[waiting] == 0).all() and not terminated[waiting].any()
        restarts += waiting.sum()
        assert obs.shape == (8, 161) and np.isfinite(obs).all()
        for row in np.flatnonzero(terminated):
            seat = info["seat"][row]  # still the finished game's
            assert rewards[row] == info["final_rewards"][row, seat]
            assert (info["legal"][row] == -1).all()
            ends += 1
        waiting = terminated.copy()
    assert ends > 0 and restarts > 0


def test_int8_masks_sample_legal_actions_in_one_call():
    env = Big2VectorEnv(8, seed=0)
    env.reset(seed=0)
    for _ in range(50):
        masks = env.action_masks()
        assert masks.dtype == np.int8
        sampled = env.sample_legal(np.random.default_rng(0))
        rows = np.flatnonzero(masks.any(axis=1))
        assert (masks[rows, sampled[rows]] == 1).all()
        env.step(sampled)
    masked = env.action_space.sample(mask=tuple(env.action_masks()))
    acting = np.flatnonzero(env.action_masks().any(axis=1))
    assert (env.action_masks()[acting, masked[acting]] == 1).all()
    env.step(masked)  # gymnasium's own masked sample is legal where it matters


def test_make_vec_closed_and_stepping_before_reset():
    env = gym.make_vec("envs:big2/Big2-v0", num_envs=4, opponents=["random"], seed=0)
    assert isinstance(env.unwrapped, Big2VectorEnv) and env.num_envs == 4
    with pytest.raises(RuntimeError, match=r"call reset\(\) before stepping"):
        env.step(np.zeros(4, np.int64))
    env.reset(seed=0)
    env.step(env.unwrapped.sample_legal())
    env.close()
    assert env.unwrapped.closed
    with pytest.raises(RuntimeError, match="closed"):
        env.step(np.zeros(4, np.int64))
