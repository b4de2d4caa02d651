"""envs.vector.Big2VectorEnv: the batched engine against raw_env and big2.game, move by move."""

from __future__ import annotations

import random

import numpy as np
import pytest

import observers
from big2.game import Game
from big2.hand_ranking import PASS, catalog
from big2.players import GreedyAgent, HeuristicAgent
from big2.rules import get
from envs import codecs
from envs.big2_env import raw_env
from envs.vector import Big2VectorEnv

PRESETS = ("standard", "charlesworth")


def random_actions(obs, rng):
    legal = obs["legal"]
    counts = (legal >= 0).sum(axis=1)
    return legal[np.arange(len(legal)), rng.integers(counts)]


def legal_set(obs, i):
    row = obs["legal"][i]
    return set(row[row >= 0].tolist())


@pytest.mark.parametrize("rules", PRESETS)
@pytest.mark.parametrize(
    ("observer", "actions"), [("simple", "catalog"), ("card_counting", "hand")]
)
def test_first_game_of_every_slot_is_raw_envs(rules, observer, actions):
    n = 12
    env = Big2VectorEnv(n, observer=observer, actions=actions, rules=rules, reward="score")
    obs, info = env.reset(seed=40)
    raws = [raw_env(rules=rules, observer=observer, actions=actions) for _ in range(n)]
    for i, aec in enumerate(raws):
        aec.reset(seed=40 + i)
    rng, live = np.random.default_rng(1), np.ones(n, bool)
    while live.any():
        for i in np.flatnonzero(live):
            aec = raws[i]
            seen = aec.observe(aec.agent_selection)
            assert info["seat"][i] == aec.game.turn
            np.testing.assert_array_equal(obs["observation"][i], seen["observation"])
            assert legal_set(obs, i) == set(np.flatnonzero(seen["action_mask"]).tolist())
            assert (obs["legal"][i] >= 0).sum() == len(aec.game.legal_moves())
        actions_now = random_actions(obs, rng)
        for i in np.flatnonzero(live):
            raws[i].step(int(actions_now[i]))
        obs, _, ended, truncated, info = env.step(actions_now)
        assert not truncated.any()
        for i in np.flatnonzero(ended & live):
            game = raws[i].game
            assert info["winner"][i] == game.winner
            assert info["final_rewards"][i].tolist() == list(game.scores())
            live[i] = False


def test_legal_rows_are_in_legal_moves_order_and_masks_match():
    env = Big2VectorEnv(6, rules="charlesworth", actions="hand")
    obs, _ = env.reset(seed=3)
    codec = codecs.make("hand", get("charlesworth"))
    for _ in range(30):
        masks = env.action_masks()
        assert masks.shape == (6, codec.n) and masks.dtype == np.bool_
        for i in range(6):
            assert set(np.flatnonzero(masks[i]).tolist()) == legal_set(obs, i)
            row = obs["legal"][i]
            assert (row[: (row >= 0).sum()] >= 0).all()  # legal first, then padding
        assert obs["legal"].shape[1] == (obs["legal"] >= 0).sum(axis=1).max()
        obs, *_ = env.step(random_actions(obs, np.random.default_rng(0)))


def run_against_python(rules: str, n_slots: int, n_games: int, seed: int) -> int:
    """Play ``n_games`` random games in the vector env, and the same games in big2.game
    in lockstep (deals from each slot's own random.Random(seed + i)); compare every legal
    list, the `simple` observation of the seat to act, and every final score."""
    env = Big2VectorEnv(n_slots, observer="simple", rules=rules)
    observer = observers.make("simple", rules)
    cat = catalog(get(rules))
    obs, _ = env.reset(seed=seed)
    deal_rngs = [random.Random(seed + i) for i in range(n_slots)]
    games = [Game(get(rules), seed=r) for r in deal_rngs]
    rng, finished, decisions = np.random.default_rng(seed), 0, 0
    while finished < n_games:
        for i, game in enumerate(games):
            legal = [m.index if m else -1 for m in game.legal_moves()]
            row = env._legal_moves[i, : env._counts[i]].tolist()
            assert row == legal, (i, game.log.moves)
            expected = observer.observe(game.view(game.turn))
            np.testing.assert_array_equal(obs["observation"][i], expected)
        actions = random_actions(obs, rng)
        for i, game in enumerate(games):
            move = int(actions[i])
            game.play(PASS if move == len(cat) else cat[move])
        obs, rewards, ended, _, info = env.step(actions)
        decisions += n_slots
        for i in np.flatnonzero(ended):
            assert games[i].is_over and info["winner"][i] == games[i].winner
            assert info["final_rewards"][i].tolist() == list(games[i].scores())
            assert rewards[i] == games[i].scores()[games[i].log.moves[-1].seat]
            games[i] = Game(get(rules), seed=deal_rngs[i])
            finished += 1
        assert not any(g.is_over for g in games)
    return decisions


@pytest.mark.parametrize("rules", PRESETS)
def test_many_games_agree_with_the_python_engine(rules):
    assert run_against_python(rules, n_slots=32, n_games=300, seed=11) > 10_000


@pytest.mark.slow
@pytest.mark.parametrize("rules", PRESETS)
def test_ten_thousand_games_agree_with_the_python_engine(rules):
    assert run_against_python(rules, n_slots=256, n_games=10_000, seed=5) > 500_000


# ------------------------------------------------------------------ seeding


def trace(env, seed, steps=40):
    obs, _ = env.reset(seed=seed)
    rng, out = np.random.default_rng(0), [obs["observation"].copy()]
    for _ in range(steps):
        obs, rewards, *_ = env.step(random_actions(obs, rng))
        out += [obs["observation"].copy(), rewards.copy()]
    return out


def test_same_seed_same_games_and_unseeded_reset_continues():
    env = Big2VectorEnv(8, opponents=["random", "greedy"])
    a, b, c = trace(env, 5), trace(env, 5), trace(env, 6)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))
    env.reset(seed=5)
    first = env.games.hands.copy()
    env.reset()  # continues each slot's deal generator: the raw env's second reset()
    aec = raw_env()
    aec.reset(seed=5 + 3)
    aec.reset()
    assert tuple(int(h) for h in env.games.hands[3]) == aec.game.hands
    assert not np.array_equal(first, env.games.hands)


# ------------------------------------------------------------------ bad input


def state_of(env):
    g = env.games
    return [a.copy() for a in (g.hands, g.played, g.turn, g.table, g.n_moves, g.log_move)]


@pytest.mark.parametrize(
    ("make_actions", "error"),
    [
        (lambda legal: legal[:, 0][:-1], "shape"),
        (lambda legal: legal[:, 0].astype(np.float64), "integer array"),
        (lambda legal: legal[:, 0].reshape(-1, 1), "shape"),
    ],
)
def test_malformed_action_arrays_change_nothing(make_actions, error):
    env = Big2VectorEnv(5)
    obs, _ = env.reset(seed=1)
    before = state_of(env)
    with pytest.raises(ValueError, match=error):
        env.step(make_actions(obs["legal"]))
    assert all(np.array_equal(x, y) for x, y in zip(before, state_of(env), strict=True))


@pytest.mark.parametrize("actions", ["catalog", "hand"])
@pytest.mark.parametrize("bad", ["illegal", "out of range", "negative"])
def test_a_bad_action_in_one_slot_advances_no_game(actions, bad):
    env = Big2VectorEnv(5, actions=actions, opponents=None)
    obs, _ = env.reset(seed=2)
    env.step(random_actions(obs, np.random.default_rng(0)))  # past the opening
    obs, *_ = env.step(random_actions(env._observe(), np.random.default_rng(1)))
    chosen = random_actions(obs, np.random.default_rng(2))
    masks = env.action_masks()
    wrong = {"illegal": int(np.flatnonzero(~masks[3])[0]), "out of range": env.codec.n,
             "negative": -1}[bad]  # fmt: skip
    chosen[3] = wrong
    before = state_of(env)
    why = "not legal" if bad == "illegal" else "out of range"
    count = int((obs["legal"][3] >= 0).sum())
    with pytest.raises(ValueError, match=f"slot 3: action {wrong} is {why}.*{count} legal actions"):
        env.step(chosen)
    assert all(np.array_equal(x, y) for x, y in zip(before, state_of(env), strict=True))
    chosen[3] = obs["legal"][3, 0]
    env.step(chosen)  # the same env goes on


def test_bad_arguments():
    with pytest.raises(ValueError, match="num_envs"):
        Big2VectorEnv(0)
    with pytest.raises(ValueError, match="unknown reward"):
        Big2VectorEnv(2, reward="money")
    with pytest.raises(ValueError, match="unknown observer"):
        Big2VectorEnv(2, observer="x-ray")
    with pytest.raises(ValueError, match="unknown action codec"):
        Big2VectorEnv(2, actions="cards")
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        Big2VectorEnv(2, opponents=["random", "nobody"])
    with pytest.raises(ValueError, match="at least one"):
        Big2VectorEnv(2, opponents=[])


# ------------------------------------------------------------------ opponents


def test_learner_seat_rotates_and_receives_the_final_reward():
    env = Big2VectorEnv(4, opponents=["greedy", "random"], reward="score")
    obs, info = env.reset(seed=9)
    rng, seats = np.random.default_rng(0), {i: [int(info["seat"][i])] for i in range(4)}
    ended_games = 0
    while ended_games < 16:
        assert (env.games.turn == env.opponents.learner).all() and (
            info["seat"] == env.games.turn
        ).all()
        learners = env.opponents.learner.copy()
        obs, rewards, ended, _, info = env.step(random_actions(obs, rng))
        assert (rewards[~ended] == 0).all()
        for i in np.flatnonzero(ended):
            assert rewards[i] == info["final_rewards"][i, learners[i]]
            seats[i].append(int(info["seat"][i]))
            ended_games += 1
    for i in range(4):
        assert seats[i] == [g % 4 for g in range(len(seats[i]))]


def test_opponent_moves_are_their_agents_moves():
    """Every opponent move (of games that go on) is what GreedyAgent or HeuristicAgent plays."""
    from envs.engine import reference_game

    env = Big2VectorEnv(3, opponents=["greedy", "heuristic"])
    obs, _ = env.reset(seed=4)
    agents = {"greedy": GreedyAgent(), "heuristic": HeuristicAgent()}
    rng, checked = np.random.default_rng(3), 0
    while checked < 60:
        learners, kinds = env.opponents.learner.copy(), env.opponents.kind.copy()
        before = [reference_game(env.games, i) for i in range(3)]
        actions = random_actions(obs, rng)
        obs, _, ended, _, _ = env.step(actions)
        for i in np.flatnonzero(~ended):
            game = before[i]
            game.play(PASS if actions[i] == env.codec.n - 1 else catalog()[int(actions[i])])
            after = reference_game(env.games, i)
            for entry in after.log.moves[len(game.log.moves) :]:
                assert entry.seat != learners[i]
                agent = agents[env.opponents.mix[kinds[i, entry.seat]]]
                assert agent.act(game.view(game.turn), game.legal_moves()) == entry.move
                game.play(entry.move)
                checked += 1


def test_batch_policy_opponents_answer_in_one_call():
    calls = []

    def first_legal(observations):
        calls.append(len(observations["legal"]))
        assert observations["observation"].shape[1] == observers.make("simple").size
        return observations["legal"][:, 0]

    env = Big2VectorEnv(6, opponents=[first_legal], seed=0)
    obs, _ = env.reset()
    # one call per round answers for every game waiting on an opponent: at most 3 rounds
    waiting = [int((env.games.n_moves > k).sum()) for k in range(3)]
    assert calls == [w for w in waiting if w] and len(calls) <= 3
    for _ in range(20):
        obs, *_ = env.step(random_actions(obs, np.random.default_rng(0)))

    env = Big2VectorEnv(2, opponents=[lambda o: np.full(len(o["legal"]), 10**6)], seed=0)
    with pytest.raises(ValueError, match="not legal"):
        env.reset()


def test_final_rewards_follow_the_reward_mode():
    envs = {mode: Big2VectorEnv(4, reward=mode) for mode in ("score", "score_normalized", "win")}
    obs = {mode: env.reset(seed=0)[0] for mode, env in envs.items()}
    rng, seen = np.random.default_rng(0), 0
    while seen < 8:
        actions = random_actions(obs["score"], rng)
        out = {mode: env.step(actions) for mode, env in envs.items()}
        obs = {mode: o[0] for mode, o in out.items()}
        score, normalized, win = (out[m][4]["final_rewards"] for m in envs)
        for i in np.flatnonzero(out["score"][2]):
            winner = out["score"][4]["winner"][i]
            assert score[i].sum() == 0 and score[i].argmax() == winner
            np.testing.assert_allclose(normalized[i], score[i] / get("standard").max_penalty)
            expected = np.full(4, -1 / 3, np.float32)
            expected[winner] = 1.0
            np.testing.assert_array_equal(win[i], expected)
            seen += 1
