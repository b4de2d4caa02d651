"""envs.vector.Big2VectorEnv: the batched engine against raw_env and big2.game, move by move."""

from __future__ import annotations

import random

import numpy as np
import pytest

import observers
from big2.game import Game
from big2.hand_ranking import PASS, catalog
from big2.players import GreedyAgent, HeuristicAgent
from big2.rules import Rules, get
from envs import codecs
from envs.big2_env import raw_env
from envs.vector import Big2VectorEnv

PRESETS = ("standard", "charlesworth")
FEWER = ("three-player", "two-player")  # a game of 3 and of 2 seats


def random_actions(env, rng):
    return env.sample_legal(rng)


def legal_set(info, i):
    row = info["legal"][i]
    return set(row[row >= 0].tolist())


def acting(env, info):
    """Per game, the row of its acting agent (one seat per game: the game's own row)."""
    return np.flatnonzero(info["acting"]) if env.all_seats else np.arange(env.num_games)


@pytest.mark.parametrize(
    ("rules", "observer", "actions"),
    [
        *[(rules, "simple", "catalog") for rules in PRESETS + FEWER],
        *[(rules, "card_counting", "hand") for rules in PRESETS],
        *[(rules, "card_counting", "catalog") for rules in FEWER],  # hand: 4 x 13 only
    ],
)
def test_first_game_of_every_slot_is_raw_envs(rules, observer, actions):
    n, players = 12, get(rules).players
    env = Big2VectorEnv(players * n, observer=observer, actions=actions, rules=rules)
    obs, info = env.reset(seed=40)
    raws = [raw_env(rules=rules, observer=observer, actions=actions) for _ in range(n)]
    for i, aec in enumerate(raws):
        aec.reset(seed=40 + i)
    rng, live = np.random.default_rng(1), np.ones(n, bool)
    while live.any():
        rows = acting(env, info)
        for i in np.flatnonzero(live):
            aec, row = raws[i], rows[i]
            seen = aec.observe(aec.agent_selection)
            assert info["seat"][row] == aec.game.turn == row % players
            np.testing.assert_array_equal(obs["observation"][row], seen["observation"])
            assert legal_set(info, row) == set(np.flatnonzero(seen["action_mask"]).tolist())
            assert (info["legal"][row] >= 0).sum() == len(aec.game.legal_moves())
        actions_now = random_actions(env, rng)
        for i in np.flatnonzero(live):
            raws[i].step(int(actions_now[rows[i]]))
        obs, rewards, ended, truncated, info = env.step(actions_now)
        assert not truncated.any()
        for i in np.flatnonzero(ended[::players] & live):
            game, agents = raws[i].game, slice(players * i, players * i + players)
            assert (info["final_info"]["winner"][agents] == game.winner).all()
            final = info["final_info"]["final_rewards"][players * i]
            assert final.tolist() == list(game.scores())
            assert rewards[agents].tolist() == list(game.scores())  # every seat its own
            live[i] = False


def test_legal_rows_are_in_legal_moves_order_and_masks_match():
    env = Big2VectorEnv(24, rules="charlesworth", actions="hand")
    _, info = env.reset(seed=3)
    codec = codecs.make("hand", get("charlesworth"))
    for _ in range(30):
        masks = env.action_masks()
        assert masks.shape == (24, codec.n) and masks.dtype == np.int8
        for i in range(24):
            assert set(np.flatnonzero(masks[i]).tolist()) == legal_set(info, i)
            assert bool(masks[i].any()) == bool(info["acting"][i])
            row = info["legal"][i]
            assert (row[: (row >= 0).sum()] >= 0).all()  # legal first, then padding
        assert info["legal"].shape[1] == (info["legal"] >= 0).sum(axis=1).max()
        _, _, _, _, info = env.step(random_actions(env, np.random.default_rng(0)))


def run_against_python(rules: str | Rules, n_slots: int, n_games: int, seed: int) -> int:
    """Play ``n_games`` random games in the vector env, and the same games in big2.game
    in lockstep (deals from each slot's own random.Random(seed + i)); compare every legal
    list, the `simple` observation of the seat to act, and every final score."""
    players = get(rules).players
    env = Big2VectorEnv(players * n_slots, observer="simple", rules=rules)
    observer = observers.make("simple", rules)
    cat = catalog(get(rules))
    obs, info = env.reset(seed=seed)
    deal_rngs = [random.Random(seed + i) for i in range(n_slots)]
    games = [Game(get(rules), seed=r) for r in deal_rngs]
    rng, finished, decisions = np.random.default_rng(seed), 0, 0
    while finished < n_games:
        rows = acting(env, info)
        for i, game in enumerate(games):
            legal = [m.index if m else len(cat) for m in game.legal_moves()]
            row = info["legal"][rows[i]]
            assert row[row >= 0].tolist() == legal, (i, game.log.moves)
            expected = observer.observe(game.view(game.turn))
            if not np.array_equal(obs["observation"][rows[i]], expected):  # fast path first
                np.testing.assert_array_equal(obs["observation"][rows[i]], expected)
        actions = random_actions(env, rng)
        for i, game in enumerate(games):
            move = int(actions[rows[i]])
            game.play(PASS if move == len(cat) else cat[move])
        obs, rewards, ended, _, info = env.step(actions)
        decisions += n_slots
        for i in np.flatnonzero(ended[::players]):
            first = players * i
            assert games[i].is_over and info["final_info"]["winner"][first] == games[i].winner
            assert rewards[first : first + players].tolist() == list(games[i].scores())
            games[i] = Game(get(rules), seed=deal_rngs[i])
            finished += 1
        assert not any(g.is_over for g in games)
    return decisions


@pytest.mark.parametrize("rules", PRESETS + FEWER)
def test_many_games_agree_with_the_python_engine(rules):
    games = 300 if rules in PRESETS else 100  # of fewer players: longer games
    assert run_against_python(rules, n_slots=32, n_games=games, seed=11) > 3_000


# four-player variants the compiled engine plays: other suit orders and flush orders,
# wrap straights both ways, categories left out or reordered, another opening card
VARIANTS = (
    get("taiwan"),
    get("pusoy-dos"),
    get("western"),
    Rules(name="wrap-high-no-flush", wrap_straights="high",
          five_card_hands=("straight", "full_house", "straight_flush", "four_of_a_kind")),
    Rules(name="four-card-auto-4c", four_card_plays=True, opening="auto", opening_card="4C",
          five_card_hands=("flush", "straight", "full_house", "straight_flush")),
    get("bombs"),
    Rules(name="bombs-on-pairs-and-triples", four_card_plays=True,
          bombs=("quads", "straight_flush"), bombs_beat=(1, 2, 3)),
)  # fmt: skip


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: r.name)
def test_the_compiled_engine_plays_the_four_player_variants_as_the_python_one(rules):
    # 150 games, over 5,000 positions a variant (300 cost make test 16 s summed)
    assert run_against_python(rules, n_slots=32, n_games=150, seed=12) > 5_000


@pytest.mark.parametrize(("name", "players"), [("three-player", 3), ("two-player", 2)])
def test_every_seat_of_fewer_players_is_an_agent(name, players):
    env = Big2VectorEnv(5 * players, rules=name)
    _, info = env.reset(seed=0)
    assert env.num_games == 5 and info["seat"].tolist() == list(range(players)) * 5
    turns = env.games.turn.tolist()
    assert np.flatnonzero(info["acting"]).tolist() == [players * g + t for g, t in enumerate(turns)]
    odd = 4 if players == 3 else 5
    with pytest.raises(ValueError, match=rf"a multiple of {players} \(games x seats\), got {odd}"):
        Big2VectorEnv(odd, rules=name)


@pytest.mark.slow
@pytest.mark.parametrize("rules", PRESETS)
def test_thousands_of_games_agree_with_the_python_engine(rules):
    # other deals than the many games above: 1,000 games, about 75,000 positions (2,000
    # games cost make test 11 s a preset; 10,000, 17-19 s a preset on a faster machine)
    assert run_against_python(rules, n_slots=256, n_games=1_000, seed=5) > 50_000


# ------------------------------------------------------------------ seeding


def trace(env, seed, steps=40):
    obs, _ = env.reset(seed=seed)
    rng, out = np.random.default_rng(0), [obs["observation"].copy()]
    for _ in range(steps):
        obs, rewards, *_ = env.step(random_actions(env, rng))
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
    env = Big2VectorEnv(20)
    _, info = env.reset(seed=1)
    before = state_of(env)
    with pytest.raises(ValueError, match=error):
        env.step(make_actions(info["legal"]))
    assert all(np.array_equal(x, y) for x, y in zip(before, state_of(env), strict=True))


@pytest.mark.parametrize("actions", ["catalog", "hand"])
@pytest.mark.parametrize("bad", ["illegal", "out of range", "negative"])
def test_a_bad_action_in_one_slot_advances_no_game(actions, bad):
    env = Big2VectorEnv(20, actions=actions, opponents=None)
    env.reset(seed=2)
    env.step(random_actions(env, np.random.default_rng(0)))  # past the opening
    *_, info = env.step(random_actions(env, np.random.default_rng(1)))
    chosen = random_actions(env, np.random.default_rng(2))
    agent = int(acting(env, info)[3])  # game 3's acting seat
    masks = env.action_masks()
    wrong = {"illegal": int(np.flatnonzero(masks[agent] == 0)[0]), "out of range": env.codec.n,
             "negative": -1}[bad]  # fmt: skip
    chosen[agent] = wrong
    before = state_of(env)
    why = "not legal" if bad == "illegal" else "out of range"
    count = int((info["legal"][agent] >= 0).sum())
    with pytest.raises(ValueError, match=f"agent {agent}: action {wrong} is {why}.*{count} legal"):
        env.step(chosen)
    assert all(np.array_equal(x, y) for x, y in zip(before, state_of(env), strict=True))
    chosen[agent] = info["legal"][agent, 0]
    chosen[agent + 1 if agent % 4 < 3 else agent - 1] = -5  # a seat not to act: ignored
    env.step(chosen)  # the same env goes on


def test_bad_arguments():
    with pytest.raises(ValueError, match="num_envs"):
        Big2VectorEnv(0)
    with pytest.raises(ValueError, match="a multiple of 4"):
        Big2VectorEnv(6)
    with pytest.raises(ValueError, match="unknown reward"):
        Big2VectorEnv(4, reward="money")
    with pytest.raises(ValueError, match="unknown observer"):
        Big2VectorEnv(4, observer="x-ray")
    with pytest.raises(ValueError, match="unknown action codec"):
        Big2VectorEnv(4, actions="cards")
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        Big2VectorEnv(2, opponents=["random", "nobody"])
    with pytest.raises(ValueError, match="at least one"):
        Big2VectorEnv(2, opponents=[])


# ------------------------------------------------------------------ opponents


@pytest.mark.parametrize("rules", ["standard", *FEWER])
def test_learner_seat_rotates_and_receives_the_final_reward(rules):
    players = get(rules).players
    env = Big2VectorEnv(4, opponents=["greedy", "random"], reward="score", rules=rules)
    _, info = env.reset(seed=9)
    rng, seats = np.random.default_rng(0), {i: [int(info["seat"][i])] for i in range(4)}
    ended_games = 0
    while ended_games < 16:
        assert (env.games.turn == env.opponents.learner).all() and (
            info["seat"] == env.games.turn
        ).all()
        learners = env.opponents.learner.copy()
        _, rewards, ended, _, info = env.step(random_actions(env, rng))
        assert (rewards[~ended] == 0).all()
        for i in np.flatnonzero(ended):
            assert info["final_info"]["seat"][i] == learners[i]  # the finished game's seat
            assert rewards[i] == info["final_info"]["final_rewards"][i, learners[i]]
            seats[i].append(int(info["seat"][i]))
            ended_games += 1
    for i in range(4):
        assert seats[i] == [g % players for g in range(len(seats[i]))]


@pytest.mark.parametrize("rules", ["standard", *FEWER])
def test_opponent_moves_are_their_agents_moves(rules):
    """Every opponent move (of games that go on) is what GreedyAgent or HeuristicAgent plays."""
    from envs.engine import reference_game

    env = Big2VectorEnv(3, opponents=["greedy", "heuristic"], rules=rules)
    cat = catalog(get(rules))
    env.reset(seed=4)
    agents = {"greedy": GreedyAgent(), "heuristic": HeuristicAgent()}
    rng, checked = np.random.default_rng(3), 0
    while checked < 60:
        learners, kinds = env.opponents.learner.copy(), env.opponents.kind.copy()
        before = [reference_game(env.games, i) for i in range(3)]
        actions = random_actions(env, rng)
        _, _, ended, _, _ = env.step(actions)
        for i in np.flatnonzero(~ended):
            game = before[i]
            game.play(PASS if actions[i] == env.codec.n - 1 else cat[int(actions[i])])
            after = reference_game(env.games, i)
            for entry in after.log.moves[len(game.log.moves) :]:
                assert entry.seat != learners[i]
                agent = agents[env.opponents.mix[kinds[i, entry.seat]]]
                assert agent.act(game.view(game.turn), game.legal_moves()) == entry.move
                game.play(entry.move)
                checked += 1


@pytest.mark.parametrize("rules", ["standard", "three-player"])
@pytest.mark.parametrize("draw", ["seat", "game"])
def test_opponent_draw_seats_one_kind_per_seat_or_per_game(draw, rules):
    """Over the games of many episodes, ``game`` seats one kind at every table and
    draws every kind; ``seat`` mixes kinds at some tables."""
    mix = ["random", "greedy", "heuristic"]
    env = Big2VectorEnv(16, opponents=mix, opponent_draw=draw, rules=rules)
    players = env.players
    env.reset(seed=2)
    rng, tables = np.random.default_rng(0), []
    while len(tables) < 200:
        before = env.opponents.kind.copy(), env.opponents.learner.copy()
        _, _, ended, _, _ = env.step(random_actions(env, rng))
        for i in np.flatnonzero(ended):
            kinds = before[0][i]
            tables.append(tuple(sorted(kinds[np.arange(players) != before[1][i]].tolist())))
    alike = [len(set(t)) == 1 for t in tables]
    assert all(alike) if draw == "game" else not all(alike)
    assert {k for t in tables for k in t} == {0, 1, 2}


def test_an_unknown_opponent_draw_is_refused():
    expected = r"unknown opponent draw 'table'; expected one of \('seat', 'game'\)"
    with pytest.raises(ValueError, match=expected):
        Big2VectorEnv(4, opponents=["random"], opponent_draw="table")


def test_batch_policy_opponents_answer_in_one_call():
    calls = []

    def first_legal(decisions):
        calls.append(len(decisions))
        assert decisions.observation.shape[1] == observers.make("simple").size
        return decisions.legal[:, 0]

    env = Big2VectorEnv(6, opponents=[first_legal], seed=0)
    env.reset()
    # one call per round answers for every game waiting on an opponent: at most 3 rounds
    waiting = [int((env.games.n_moves > k).sum()) for k in range(3)]
    assert calls == [w for w in waiting if w] and len(calls) <= 3
    for _ in range(20):
        env.step(random_actions(env, np.random.default_rng(0)))

    env = Big2VectorEnv(2, opponents=[lambda d: np.full(len(d), 10**6)], seed=0)
    with pytest.raises(ValueError, match="not legal"):
        env.reset()


def test_final_rewards_follow_the_reward_mode():
    modes = ("score", "score_normalized", "win")
    envs = {mode: Big2VectorEnv(16, reward=mode) for mode in modes}
    for env in envs.values():
        env.reset(seed=0)
    rng, seen = np.random.default_rng(0), 0
    while seen < 8:
        actions = random_actions(envs["score"], rng)
        out = {mode: env.step(actions) for mode, env in envs.items()}
        score, normalized, win = (out[m][1].reshape(-1, 4) for m in modes)
        for i in np.flatnonzero(out["score"][2][::4]):
            winner = out["score"][4]["final_info"]["winner"][4 * i]
            assert score[i].sum() == 0 and score[i].argmax() == winner
            np.testing.assert_allclose(normalized[i], score[i] / get("standard").max_penalty)
            expected = np.full(4, -1 / 3, np.float32)
            expected[winner] = 1.0
            np.testing.assert_array_equal(win[i], expected)
            seen += 1
