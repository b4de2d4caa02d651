"""training.env (the learner's single-agent view, OpponentPool and its snapshots) and the
training Config, seeding and argument parsing (no Tianshou algorithm: no numba JIT)."""

from __future__ import annotations

import random

import gymnasium as gym
import numpy as np
import pytest
import torch
from gymnasium.utils import env_checker, passive_env_checker

import observers
from big2.board import Board
from big2.game import Game
from big2.players import GreedyAgent, RandomAgent, play
from big2.rules import STANDARD
from envs.policy_agent import PolicyAgent
from training.env import Big2SingleAgentEnv, OpponentPool
from training.nets import MaskedActor, NumpyLogits
from training.train import Config, main, parse_args, scoped_seed, train


def random_policy(rng: random.Random):
    return lambda obs: rng.choice(np.flatnonzero(obs["mask"]).tolist())


def play_episode(env: Big2SingleAgentEnv, choose, check=None) -> tuple[list[float], dict]:
    """One game with ``choose(obs) -> action``; ``check(env, obs)`` before every learner move."""
    obs, _ = env.reset()
    rewards, done, info = [], False, {}
    while not done:
        if check:
            check(env, obs)
        obs, reward, done, truncated, info = env.step(choose(obs))
        assert not truncated and isinstance(reward, float)
        rewards.append(reward)
    assert not obs["mask"].any()  # nothing to do after the end
    return rewards, info


@pytest.mark.parametrize("reward", ["score_normalized", "score"])
def test_reward_is_the_learners_final_score(reward):
    env = Big2SingleAgentEnv(OpponentPool(["random", "greedy"]), reward=reward, seed=3)
    rng, ends = random.Random(0), set()
    for _ in range(16):
        rewards, info = play_episode(env, random_policy(rng))
        game, seat = env.game, env.seat
        scale = STANDARD.max_penalty if reward == "score_normalized" else 1
        assert rewards[-1] == pytest.approx(game.scores()[seat] / scale)
        assert all(r == 0 for r in rewards[:-1])
        assert info["won"] == (game.winner == seat) and info["seat"] == seat
        ends.add(info["won"])
    assert ends == {True, False}  # covers games ending on the learner's and an opponent's move


def test_learner_seat_rotates_and_observation_is_its_own():
    env = Big2SingleAgentEnv(OpponentPool(["random"]), observer="card_counting", seed=0)
    observer, seats = observers.make("card_counting"), []
    for _ in range(8):
        obs, info = env.reset()
        game = env.game
        seats.append(info["seat"])
        assert env.seat == info["seat"] == game.turn
        np.testing.assert_array_equal(obs["obs"], observer.observe(game.view(env.seat)))
        assert obs in env.observation_space
    assert seats == [0, 1, 2, 3, 0, 1, 2, 3]


def test_critic_observation_is_the_oracles_and_the_actors_stays_fair():
    env = Big2SingleAgentEnv(OpponentPool(["random"]), critic_observer="oracle", seed=0)
    oracle, simple = observers.make("oracle"), observers.make("simple")
    for _ in range(4):  # the learner in every seat
        obs, _ = env.reset()
        for _ in range(3):
            game = env.game
            assert sorted(obs) == ["critic", "mask", "obs"] and obs in env.observation_space
            view = game.view(env.seat)
            np.testing.assert_array_equal(obs["critic"], oracle.observe(view, game))
            np.testing.assert_array_equal(obs["obs"], simple.observe(view))
            obs, *_ = env.step(int(np.flatnonzero(obs["mask"])[0]))
    assert "critic" not in Big2SingleAgentEnv(OpponentPool(["random"])).reset()[0]


@pytest.mark.parametrize("actions", ["catalog", "hand"])
def test_mask_marks_exactly_the_learners_legal_actions(actions):
    env = Big2SingleAgentEnv(OpponentPool(["greedy"]), actions=actions, seed=1)
    codec, checked = env.codec, []

    def check(env, obs):
        game = env.game
        assert game.turn == env.seat
        hand = game.hand(env.seat)
        expected = {codec.encode(m, hand) for m in game.legal_moves()}
        assert set(np.flatnonzero(obs["mask"]).tolist()) == expected
        checked.append(len(expected))

    rng = random.Random(1)
    for _ in range(4):
        play_episode(env, random_policy(rng), check)
    assert len(checked) > 20 and max(checked) > 2


def test_opponents_play_the_pools_agents():
    """Every non-learner move in the log is what GreedyAgent would play there."""
    env = Big2SingleAgentEnv(OpponentPool(["greedy"]), seed=2)
    rng = random.Random(2)
    for _ in range(3):
        play_episode(env, random_policy(rng))
        log, seat = env.game.log, env.seat
        game = Game.from_board(Board.from_hands(list(log.deal), log.rules))
        opponent_moves = 0
        for entry in log.moves[len(game.log.moves) :]:
            if entry.seat != seat:
                assert GreedyAgent().act(game.view(game.turn), game.legal_moves()) == entry.move
                opponent_moves += 1
            game.play(entry.move)
        assert opponent_moves > 0


def test_same_seed_same_games_and_illegal_action_raises():
    def trace(seed):
        env = Big2SingleAgentEnv(OpponentPool(["random", "greedy"]), seed=seed)
        rng = random.Random(0)
        return [play_episode(env, random_policy(rng))[0] for _ in range(3)], env

    (a, env), (b, _), (c, _) = trace(5), trace(5), trace(6)
    assert a == b and a != c
    obs, _ = env.reset()
    illegal = int(np.flatnonzero(obs["mask"] == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        env.step(illegal)


def test_gymnasium_checks():
    """check_env itself cannot pass: it steps with unmasked ``action_space.sample()`` and the
    env raises ValueError on illegal actions. The checks that apply pass."""
    env = Big2SingleAgentEnv(OpponentPool(["random"]), seed=0)
    with pytest.raises(ValueError, match="not legal"):
        env_checker.check_env(env, skip_render_check=True)
    env = Big2SingleAgentEnv(OpponentPool(["random"]), seed=0)
    env_checker.check_observation_space(env.observation_space)
    env_checker.check_action_space(env.action_space)
    env_checker.check_reset_return_type(env)
    env_checker.check_reset_options(env)
    obs, _ = passive_env_checker.env_reset_passive_checker(env, seed=0)
    for _ in range(10):
        action = int(np.flatnonzero(obs["mask"])[0])
        new, *_ = passive_env_checker.env_step_passive_checker(env, action)
        assert not any(np.shares_memory(new[k], obs[k]) for k in obs)  # fresh arrays each step
        obs = new


def test_seeded_reset_is_reproducible():
    env = Big2SingleAgentEnv(OpponentPool(["random"]), seed=0)
    env.spec = gym.envs.registration.EnvSpec("Big2Single-v0")  # deterministic by default
    env_checker.check_reset_seed_determinism(env)


# ------------------------------------------------------------------ opponents


def test_pool_rejects_unknown_names():
    with pytest.raises(
        ValueError, match=r"nosuch.*\['greedy', 'heuristic', 'random', 'search', 'self'\]"
    ):
        OpponentPool(["random", "nosuch"])
    with pytest.raises(ValueError, match="expected some of"):
        OpponentPool([])


def tiny_logits(seed: int = 0):
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        return NumpyLogits(MaskedActor(observers.make("simple").size, 17_859, (16,)).eval())


def test_self_is_random_until_a_snapshot_exists():
    env = Big2SingleAgentEnv(OpponentPool(["self"]), seed=0)
    pool, rng = env.pool, random.Random(0)
    drawn = pool.draw(rng, env.observer, env.codec)
    assert len(drawn) == 3 and all(isinstance(a, RandomAgent) for a in drawn)
    first = tiny_logits()
    pool.add_snapshot(first)
    drawn = pool.draw(rng, env.observer, env.codec)
    assert all(isinstance(a, PolicyAgent) and a.policy is first and a.sample for a in drawn)
    for i in range(1, 7):
        pool.add_snapshot(tiny_logits(i))
    assert len(pool.snapshots) == 5 and first not in pool.snapshots
    mixed = OpponentPool(["random", "self"])
    mixed.add_snapshot(first)
    kinds = {type(a) for _ in range(10) for a in mixed.draw(rng, env.observer, env.codec)}
    assert kinds == {RandomAgent, PolicyAgent}


def test_snapshot_agents_play_legal_moves_and_follow_their_logits():
    observer, env = observers.make("simple"), Big2SingleAgentEnv(OpponentPool(["random"]))
    codec, rng = env.codec, random.Random(0)
    favour_illegal = lambda obs, mask: np.where(mask == 1, 0.0, 1e9)  # noqa: E731
    agents = [PolicyAgent(f, observer, codec, sample=True, seed=rng)
              for f in (tiny_logits(), favour_illegal)]  # fmt: skip
    for seed in range(4):  # Game.play raises IllegalMove on anything illegal
        assert play(Game(seed=seed), agents * 2).is_over
    game = Game(seed=9)
    game.play(game.legal_moves()[0])  # the opening move; then a seat leads freely or answers
    view, legal = game.view(game.turn), game.legal_moves()
    assert len(legal) > 3
    target = codec.encode(legal[-1], view.hand)

    def peaked(obs, mask):
        out = np.where(mask == 1, 0.0, -1e9)
        out[target] = 50.0
        return out

    peak = PolicyAgent(peaked, observer, codec, sample=True, seed=rng)
    assert {peak.act(view, legal) for _ in range(20)} == {legal[-1]}
    flat = PolicyAgent(lambda o, m: np.zeros(len(m)), observer, codec, sample=True, seed=rng)
    assert len({flat.act(view, legal) for _ in range(60)}) > 1  # samples, not argmax


# ------------------------------------------------------------------ config and seeding


@pytest.mark.parametrize(
    ("overrides", "error"),
    [
        ({"algo": "sac"}, "algo must be 'ppo' or 'dqn'"),
        ({"steps": 0}, "must be positive"),
        ({"opponents": ["nosuch"]}, "unknown opponents"),
        ({"eval_opponents": ["self", "nosuch"]}, "unknown opponents"),
    ],
)
def test_bad_configs_fail_before_anything_is_written(tmp_path, overrides, error):
    with pytest.raises(ValueError, match=error):
        small = {"steps": 8, "epoch_steps": 8, "envs": 1, "eval_deals": 1, "hidden": [8]}
        train(Config(**{**small, "run_dir": str(tmp_path / "run"), **overrides}))  # no long run
    assert not (tmp_path / "run").exists()


def test_main_reports_bad_configs(tmp_path):
    threads = torch.get_num_threads()
    with pytest.raises(SystemExit, match="training: algo must be"):
        main(["--algo", "sac", "--steps", "8", "--run-dir", str(tmp_path / "run")])
    torch.set_num_threads(threads)


def test_check_rejects_perfect_information_observers():
    with pytest.raises(ValueError, match="oracle"):
        Config(observer="oracle").check()


def test_parse_args():
    argv = "--hidden 8 4 --opponents random self --lr 0.001 --eval-deals 7"
    given, resume = parse_args(argv.split())
    cfg = Config(**given)
    assert (cfg.hidden, cfg.opponents, cfg.eval_deals) == ([8, 4], ["random", "self"], 7)
    assert cfg.lr == 1e-3 and resume is None
    assert parse_args([]) == ({}, None)
    assert parse_args(["--resume", "runs/x", "--steps", "10"]) == ({"steps": 10}, "runs/x")
    with pytest.raises(SystemExit):  # a resumed run keeps its configuration
        parse_args(["--resume", "runs/x", "--lr", "0.1"])


def test_scoped_seed_is_reproducible_and_restores_global_states():
    def draw():
        return random.random(), np.random.rand(), torch.rand(1).item()

    random.seed(7), np.random.seed(7), torch.manual_seed(7)
    expected_after = draw()
    random.seed(7), np.random.seed(7), torch.manual_seed(7)
    with scoped_seed(3):
        inside = draw()
    with pytest.raises(RuntimeError), scoped_seed(3):
        assert draw() == inside
        raise RuntimeError
    assert draw() == expected_after
    with scoped_seed(4):
        assert draw() != inside
