"""Big2VectorEnv's table draw: ``"self-all"`` in ``opponents`` mixes self-play tables (the
caller in every seat) with opponent tables (the caller in one seat) in one env, each game
drawing its table; pools draw their members by weights (envs.pools)."""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest

from envs.decisions import PAD
from envs.engine import reference_game
from envs.vector import SELF_ALL, Big2VectorEnv, Pool
from tests.test_vector_buffers import assert_same, snapshot

MIX = [SELF_ALL, SELF_ALL, "heuristic", "random"]  # half self-play, a quarter each other


def tables_env(num_envs=64, opponents=MIX, **options):
    return Big2VectorEnv(num_envs, opponents=opponents, opponent_draw="game", **options)


def first_legal(decisions):
    return decisions.legal[:, 0]


class Member:
    """A batch policy that plays the first legal action and counts the rows it answers."""

    def __init__(self) -> None:
        self.rows = 0

    def __call__(self, decisions):
        self.rows += len(decisions)
        return decisions.legal[:, 0]


def game_starts(env, n_games, seed=0):
    """The first ``n_games`` games dealt under random legal play, in the order they
    start: (slot, table, member, the first acting seat: the caller's at an opponent table)."""
    _, info = env.reset(seed=seed)
    rng, games, slots = np.random.default_rng(seed), [], np.arange(env.num_games)
    while len(games) < n_games:
        acting = info["acting"].reshape(-1, 4)
        for g in slots.tolist():
            table, member = int(info["table"][4 * g]), int(info["member"][4 * g])
            games.append((g, table, member, int(np.flatnonzero(acting[g])[0])))
        _, _, ended, _, info = env.step(env.sample_legal(rng))
        slots = np.flatnonzero(ended[::4])
    return games[:n_games]


def within_binomial(count, n, p, sigmas=4.0):
    return abs(count - n * p) <= sigmas * math.sqrt(n * p * (1 - p))


def test_each_table_kind_appears_at_its_rate():
    n, env = 2000, tables_env(256)
    assert env.opponents._codes is not None  # every opponent scripted: compiled rounds
    counts = np.bincount([table for _, table, _, _ in game_starts(env, n)], minlength=4)
    assert counts.sum() == n
    assert all(within_binomial(c, n, 1 / 4) for c in counts), counts  # each entry alike
    assert within_binomial(counts[0] + counts[1], n, 1 / 2), counts  # self-play tables


def test_the_callers_seat_at_opponent_tables_rotates_over_the_slots_games():
    env, played, seen = tables_env(32), np.zeros(8, np.int64), set()
    for g, table, _, seat in game_starts(env, 300):
        if MIX[table] != SELF_ALL:
            assert seat == played[g] % 4, (g, played[g], table)
            seen.add(seat)
        played[g] += 1
    assert seen == {0, 1, 2, 3}


def test_self_play_tables_credit_every_seat_and_opponent_tables_only_the_callers():
    env = tables_env(64, reward="score")
    _, info = env.reset(seed=5)
    rng, finished = np.random.default_rng(5), {True: 0, False: 0}
    while min(finished.values()) < 60:
        tables, acting = info["table"][::4].copy(), info["acting"].reshape(-1, 4).copy()
        _, rewards, ended, _, info = env.step(env.sample_legal(rng))
        over = ended[::4]
        assert (ended.reshape(-1, 4) == over[:, None]).all()  # every row follows its game
        assert (rewards.reshape(-1, 4)[~over] == 0).all()
        for g in np.flatnonzero(over).tolist():
            rows, final = slice(4 * g, 4 * g + 4), info["final_info"]
            self_play = MIX[tables[g]] == SELF_ALL
            seats = np.arange(4) if self_play else np.flatnonzero(acting[g])
            assert np.flatnonzero(info["_final_info"][rows]).tolist() == seats.tolist()
            credited = 4 * g + seats
            assert (final["table"][credited] == tables[g]).all()
            assert (final["seat"][credited] == seats).all()
            expected = np.zeros(4, np.float32)
            expected[seats] = final["final_rewards"][credited[0], seats]
            assert rewards[rows].tolist() == expected.tolist()  # each its own, others none
            if self_play:
                assert rewards[rows].sum() == 0 and (final["final_rewards"][rows] != 0).any()
            finished[bool(self_play)] += 1
        assert not (info.get("_final_info", ended) & ~ended).any()
        opponents_turn = ~info["acting"] & (info["table"] >= 2)
        assert (info["legal"][opponents_turn] == PAD).all()


def test_same_seed_same_tables_members_and_rewards():
    def run(seed):
        pool = Pool([first_legal, first_legal, first_legal], weights=[1, 2, 3])
        env = tables_env(32, [SELF_ALL, pool, "greedy"], seed=seed)
        out, rng = [snapshot(env.reset())], np.random.default_rng(0)
        for _ in range(120):
            out.append(snapshot(env.step(env.sample_legal(rng))))
        return out

    a, b, c = run(7), run(7), run(8)
    assert_same(a, b)
    assert any(
        not np.array_equal(x[-1]["table"], y[-1]["table"]) for x, y in zip(a, c, strict=True)
    )


def test_pool_weights_set_the_draw_rates_and_the_drawn_member_plays():
    members = [Member(), Member(), Member()]
    pool = Pool(members, weights=[0, 1, 3])
    env = tables_env(64, [SELF_ALL, pool])
    assert env.opponents._codes is None  # a pool: the rounds in Python
    games = [(table, member) for _, table, member, _ in game_starts(env, 400) if table == 1]
    drawn = np.bincount([member for _, member in games], minlength=3)
    assert drawn[0] == 0 and within_binomial(drawn[2], drawn.sum(), 3 / 4), drawn
    assert members[0].rows == 0 and members[1].rows > 0 and members[2].rows > 0
    for seated in env.opponents.member.tolist():  # a pool table: one member, three seats
        assert seated.count(-1) in (1, 4) and len(set(seated) - {-1}) <= 1, seated
    pool.weights = [1, 0, 0]  # between steps, as a trainer would
    rng, before = np.random.default_rng(1), members[0].rows
    for _ in range(100):
        _, _, ended, _, info = env.step(env.sample_legal(rng))
        new = np.flatnonzero(ended[::4] & (info["table"][::4] == 1))
        assert (info["member"][4 * new] == 0).all()
    assert members[0].rows > before


def test_the_games_stay_legal_and_end_as_big2_game_ends_them():
    pool = Pool([first_legal, Member()], weights=[1, 1])
    env = tables_env(
        96,
        [SELF_ALL, "heuristic", "greedy", "random", pool],
        reward="score",
        autoreset_mode="NextStep",
    )
    _, info = env.reset(seed=2)
    rng, checked = np.random.default_rng(2), 0
    while checked < 300:
        _, _, ended, _, info = env.step(env.sample_legal(rng))
        for g in np.flatnonzero(ended[::4]).tolist():  # the finished game is still there
            game = reference_game(env.games, g)  # replays every move through big2.game
            row = 4 * g + int(np.flatnonzero(info["_winner"][4 * g : 4 * g + 4])[0])
            assert game.is_over and game.winner == info["winner"][row]
            assert info["final_rewards"][row].tolist() == list(game.scores())
            checked += 1


@pytest.mark.parametrize(
    ("make", "error"),
    [
        (lambda: tables_env(6), "a multiple of 4"),
        (lambda: Big2VectorEnv(8, opponents=[SELF_ALL, "random"]), "opponent_draw='game'"),
        (lambda: Big2VectorEnv(8, opponents=SELF_ALL), "opponents must be a list"),
        (lambda: Big2VectorEnv(8, opponents=[SELF_ALL, None]), r"opponents\[1\] is None"),
        (lambda: Pool(["heuristic"]), "batch policies"),
        (lambda: Pool([first_legal], weights=[1, 2]), "1 numbers"),
    ],
)
def test_bad_tables_are_refused_at_construction(make, error):
    with pytest.raises(ValueError, match=error):
        make()


@pytest.mark.parametrize(
    ("weights", "error"),
    [
        ([1, 2], "weights must be 3 numbers"),
        ([[1, 2, 3]], "weights must be 3 numbers"),
        (["a", "b", "c"], "weights must be 3 numbers"),
        ([1, -1, 2], "non-negative"),
        ([0, 0, 0], "not all zero"),
        ([1, float("nan"), 1], "finite"),
    ],
)
def test_bad_weights_are_refused_and_the_draws_go_on_as_before(weights, error):
    pool = Pool([first_legal] * 3, weights=[1, 2, 3])
    refused, untouched = (
        tables_env(32, [SELF_ALL, p], seed=1) for p in (pool, Pool(pool, [1, 2, 3]))
    )
    rng = np.random.default_rng(0)
    refused.reset()
    untouched.reset()
    with pytest.raises(ValueError, match=error):
        pool.weights = weights
    assert pool.weights.tolist() == [1, 2, 3]
    for _ in range(60):
        actions = refused.sample_legal(rng)
        assert_same(snapshot(refused.step(actions)), snapshot(untouched.step(actions)))


def test_a_pool_grows_with_its_weights_in_step():
    uniform, weighted = Pool([first_legal]), Pool([first_legal], weights=[2])
    uniform.append(first_legal)
    weighted.append(first_legal, weight=6)
    assert len(uniform) == 2 and uniform.weights is None
    assert weighted.weights.tolist() == [2, 6]
    with pytest.raises(ValueError, match="needs a weight"):
        weighted.append(first_legal)
    with pytest.raises(ValueError, match="is uniform"):
        uniform.append(first_legal, weight=1)
    with pytest.raises(ValueError, match="non-negative"):
        weighted.append(first_legal, weight=-1)
    assert len(weighted) == 2 and weighted.weights.tolist() == [2, 6]  # nothing changed


# Seeded streams of the layouts without "self-all", recorded before the table draw was
# added: they must not change.
STREAMS = {
    "every seat": ({}, "47c99f3734e30b91"),
    "learner, seat draw": ({"opponents": ["random", "greedy", "heuristic"]}, "bb8dcea5aa277773"),
    "learner, pools, game draw": (
        {"opponents": [[first_legal, first_legal], "random"], "opponent_draw": "game"},
        "ce0e7a648c3b9119",
    ),
    "learner, pools and an empty one, seat draw": (
        {"opponents": [[first_legal, first_legal], "greedy", []]},
        "bca06ed688d5b829",
    ),
}


@pytest.mark.parametrize("name", list(STREAMS))
def test_layouts_without_self_all_keep_their_seeded_streams(name):
    options, expected = STREAMS[name]
    env = Big2VectorEnv(32, seed=3, **options)
    digest, rng = hashlib.sha256(), np.random.default_rng(0)
    env.reset()
    for _ in range(150):
        _, rewards, ended, _, info = env.step(env.sample_legal(rng))
        for array in (rewards, ended, info["seat"], info["legal"]):
            digest.update(np.ascontiguousarray(array).tobytes())
    assert digest.hexdigest()[:16] == expected
