"""The one-seat gymnasium env (envs.single): the API, the draws, the opponents, the rewards."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from env_helpers import PRESETS, game_from
from gymnasium.utils.env_checker import check_env

import envs
from big2.players import GreedyAgent, RandomAgent
from big2.rules import get
from envs.rewards import final_rewards
from envs.single import Big2SingleEnv

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # check_env's render notes


def play_game(env, rng: np.random.Generator, seed: int | None = None):
    """Reset ``env`` (with ``seed``) and play its learner's seat with random legal actions
    to the end; the first info, the rewards and the last info."""
    _, first = env.reset(seed=seed)
    rewards, terminated, info = [], False, first
    while not terminated:
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, reward, terminated, truncated, info = env.step(action)
        assert not truncated
        rewards.append(reward)
    return first, rewards, info


@pytest.mark.parametrize("rules", PRESETS)
def test_gymnasium_check_env_passes(rules):
    env = gymnasium.make(
        "envs:big2/Big2Single-v0",
        rules=rules,
        illegal="lose",
        opponents=["random", "greedy", "heuristic"],
    )
    check_env(env.unwrapped)


def test_made_by_its_id_with_the_arguments_given():
    assert envs.SINGLE_ID == "big2/Big2Single-v0"
    env = gymnasium.make(
        "envs:big2/Big2Single-v0",
        opponents=["greedy"],
        rules="charlesworth",
        observer="card_counting",
        actions="hand",
        reward="win",
    )
    inner = env.unwrapped
    assert isinstance(inner, Big2SingleEnv)
    assert (inner.aec.rules.name, inner.aec.observer.name, inner.aec.codec.name) == (
        "charlesworth",
        "card_counting",
        "hand",
    )
    assert inner.observation_space == inner.aec.observer.space
    assert inner.action_space == gymnasium.spaces.Discrete(1695)


def test_a_seed_gives_the_same_games_and_the_generator_continues():
    env = Big2SingleEnv(opponents=["random", "heuristic"])
    games = []
    for seed in (3, None, 3):
        first, rewards, _ = play_game(env, np.random.default_rng(0), seed)
        games.append((first["seat"], env.game.log.deal, env.game.log.moves, rewards))
    assert games[0] == games[2]
    assert games[0][1] != games[1][1]


def test_the_learner_seat_is_drawn_for_each_game():
    env = Big2SingleEnv()
    seats = [env.reset(seed=s)[1]["seat"] for s in range(40)]
    assert sorted(set(seats)) == [0, 1, 2, 3]
    for seed in range(5):
        env.reset(seed=seed)
        assert env.game.turn == env.seat and env.seated[env.seat] is None


def test_opponents_are_drawn_from_the_list_and_play_every_other_seat():
    env = Big2SingleEnv(opponents=["greedy"])
    play_game(env, np.random.default_rng(1), seed=5)
    log, greedy = env.game.log, GreedyAgent()
    assert all(isinstance(env.seated[s], GreedyAgent) for s in range(4) if s != env.seat)
    for number, entry in enumerate(log.moves):
        if entry.seat != env.seat:
            game = game_from(log.deal, log.rules, log.moves[:number])
            assert greedy.act(game.view(entry.seat), game.legal_moves()) == entry.move
    kinds = set()
    mixed = Big2SingleEnv(opponents=["greedy", "heuristic"])
    for seed in range(10):
        mixed.reset(seed=seed)
        kinds |= {type(a).__name__ for a in mixed.seated if a is not None}
    assert kinds == {"GreedyAgent", "HeuristicAgent"}


@pytest.mark.parametrize("rules", PRESETS)
@pytest.mark.parametrize("reward", ["score", "shaped"])
def test_the_learner_receives_its_own_rewards(rules, reward):
    env = Big2SingleEnv(rules=rules, reward=reward, opponents=["random"])
    _, rewards, last = play_game(env, np.random.default_rng(2), seed=7)
    scores, seat = env.game.scores(), env.seat
    assert (last["winner"], last["scores"], last["seat"]) == (env.game.winner, scores, seat)
    final = final_rewards(scores, env.game.winner, get(rules), reward)[seat]
    if reward == "score":
        assert rewards[-1] == final == scores[seat] and not any(rewards[:-1])
    else:
        played = sum(e.move.size for e in env.game.log.moves if e.seat == seat) / 5
        assert sum(rewards) == pytest.approx(played + final)


def test_action_masks_mark_the_legal_moves_and_are_copies():
    env = Big2SingleEnv()
    _, info = env.reset(seed=0)
    mask = env.action_masks()
    legal = env.game.legal_moves()
    hand = env.game.hand(env.seat)
    assert mask.dtype == np.int8 and mask.sum() == len(legal)
    assert sorted(np.flatnonzero(mask)) == sorted(env.aec.codec.encode(m, hand) for m in legal)
    assert np.array_equal(info["action_mask"], mask)
    mask[:] = 1
    info["action_mask"][:] = 1
    assert env.action_masks().sum() == len(legal)


def test_an_illegal_action_raises_and_changes_nothing():
    env = Big2SingleEnv()
    obs, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(env.action_masks() == 0)[0])
    moves = list(env.game.log.moves)
    with pytest.raises(ValueError, match=rf"action {illegal} .* is not legal .* legal actions"):
        env.step(illegal)
    assert env.game.log.moves == moves
    assert np.array_equal(env.aec.observe(env.aec.agent_selection)["observation"], obs)
    env.step(int(np.flatnonzero(env.action_masks())[0]))  # the game goes on
    assert len(env.game.log.moves) > len(moves)


@pytest.mark.parametrize("illegal", ["raise", "lose"])
@pytest.mark.parametrize("action", [-1, 17859, 2.5, "3D", None])
def test_an_action_outside_the_space_raises_whatever_illegal_says(illegal, action):
    env = Big2SingleEnv(illegal=illegal)
    env.reset(seed=0)
    moves = list(env.game.log.moves)
    with pytest.raises(ValueError, match=r"not in the action space Discrete\(17859\)"):
        env.step(action)
    assert env.game.log.moves == moves


@pytest.mark.parametrize(
    ("reward", "worst"), [("score", -39.0), ("score_normalized", -1.0), ("win", -1 / 3)]
)
def test_lose_ends_the_game_unchanged_with_the_worst_reward(reward, worst):
    env = Big2SingleEnv(illegal="lose", reward=reward)
    env.reset(seed=0)
    moves = list(env.game.log.moves)
    illegal = int(np.flatnonzero(env.action_masks() == 0)[0])
    _, got, terminated, truncated, info = env.step(illegal)
    assert (got, terminated, truncated) == (pytest.approx(worst), True, False)
    assert info["illegal"].startswith(f"action {illegal} (") and "forfeits" in info["illegal"]
    assert env.game.log.moves == moves and not env.action_masks().any()
    with pytest.raises(ValueError, match="call reset"):
        env.step(int(np.flatnonzero(env.aec.observe(env.aec.agent_selection)["action_mask"])[0]))


def test_stepping_without_a_game_raises():
    env = Big2SingleEnv()
    with pytest.raises(ValueError, match="call reset"):
        env.step(0)
    with pytest.raises(ValueError, match="call reset"):
        env.action_masks()
    play_game(env, np.random.default_rng(0), seed=1)
    with pytest.raises(ValueError, match="call reset"):
        env.step(0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"opponents": "random"}, r"a list .* got 'random' \(\['random'\]\?\)"),
        ({"opponents": []}, "non-empty list"),
        ({"opponents": ["random", 3]}, r"opponents\[1\] is 3; expected an agent spec"),
        ({"opponents": ["nobody"]}, "unknown agent 'nobody'"),
        ({"opponents": ["trained-charlesworth"]}, "charlesworth rules, not standard"),
        ({"illegal": "ignore"}, r"unknown illegal 'ignore'; expected one of \('raise', 'lose'\)"),
        ({"reward": "points"}, "unknown reward 'points'"),
    ],
)
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Big2SingleEnv(**kwargs)


def test_a_bad_fixed_deal_leaves_the_generator_as_it_was():
    env = Big2SingleEnv()
    env.reset(seed=4)
    state = env.np_random.bit_generator.state
    with pytest.raises(ValueError, match="unknown seat 7"):
        env.reset(options={"fixed": {7: 1}})
    assert env.np_random.bit_generator.state == state


def test_an_agent_object_is_an_opponent_and_is_reseeded_for_each_game():
    env = Big2SingleEnv(opponents=[RandomAgent(0)])
    play_game(env, np.random.default_rng(0), seed=9)
    first = list(env.game.log.moves)
    play_game(env, np.random.default_rng(0), seed=9)
    assert env.game.log.moves == first


def test_sb3_finds_the_masks_through_gymnasium_make():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    env = gymnasium.make("envs:big2/Big2Single-v0", actions="hand")
    env.reset(seed=0)
    assert is_masking_supported(env)
    assert np.array_equal(get_action_masks(env), env.unwrapped.action_masks())


@pytest.mark.parametrize("rules", ["three-player", "two-player"])
def test_two_and_three_players_seat_the_learner_and_opponents_by_the_rules(rules):
    players = get(rules).players
    env = Big2SingleEnv(["random", "heuristic"], rules=rules, reward="win", illegal="lose")
    check_env(env)
    rng, seats = np.random.default_rng(2), set()
    for seed in range(12):
        first, rewards, info = play_game(env, rng, seed)
        seats.add(first["seat"])
        assert len(env.seated) == players and env.seated[first["seat"]] is None
        assert len(info["scores"]) == players and sum(info["scores"]) == 0
        won = info["winner"] == first["seat"]
        assert rewards[-1] == pytest.approx(1.0 if won else -1 / (players - 1))
    assert seats == set(range(players))
    env.reset(seed=0)
    mask = env.action_masks()
    _, reward, terminated, _, info = env.step(int(np.flatnonzero(mask == 0)[0]))
    assert terminated and reward == pytest.approx(-1 / (players - 1)) and "illegal" in info
