"""training.features (plan features) and their plumbing: env observation, actor, config."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch
from training_helpers import former_config

from big2.game import Game
from big2.hand_ranking import PASS
from big2.players import RandomAgent
from big2.players.heuristic import HeuristicAgent, is_control, make_plan, plan_cost
from envs import codecs
from envs.policy_agent import PolicyAgent
from envs.vector import Big2VectorEnv
from training.features import PLAN_FEATURES, SCALE, plan_features
from training.nets import MaskedActor, NumpyLogits, action_features

CODEC = codecs.make("catalog")


def positions(n_games: int = 12, seed: int = 0):
    """(view, legal moves) of every decision of random games, leading and following."""
    for g in range(n_games):
        game, agent = Game(seed=seed + g), RandomAgent(seed=g)
        while not game.is_over:
            view, legal = game.view(game.turn), game.legal_moves()
            yield view, legal
            game.play(agent.act(view, legal))


def test_rows_follow_the_planner_on_every_legal_move():
    heuristic, checked = HeuristicAgent(), 0
    for view, legal in positions():
        rows = plan_features(view, legal)
        assert rows.shape == (len(legal), PLAN_FEATURES) and rows.dtype == np.int8
        now, plan = plan_cost(view.hand, view.rules), make_plan(view.hand, view.rules)
        for row, move in zip(rows, legal, strict=True):
            if move == PASS:
                assert row[:3].tolist() == [0, 0, 0]
                continue
            rest = plan_cost(view.hand & ~move.cards, view.rules)
            assert row[0] == round(2 * (rest - now))
            assert row[1] == is_control(move, view)
            assert row[2] == (move in plan)
        choice = heuristic.act(view, legal)
        assert rows[:, 3].sum() == 1 and rows[legal.index(choice), 3] == 1
        checked += 1
    assert checked > 300


def test_a_plan_play_lowers_the_cost_and_breaking_the_plan_raises_it():
    leads = [(v, lg) for v, lg in positions() if v.table is None and len(v.history) > 0]
    assert leads
    for view, legal in leads:
        rows = plan_features(view, legal)
        for row, move in zip(rows, legal, strict=True):
            if row[2] and move.size < 5:  # a plan combination grouped by rank
                assert row[0] <= -2  # a turn fewer (a low single: half a turn more)


def test_no_legal_moves_gives_no_rows():
    view = Game(seed=1).view(0)
    assert plan_features(view, ()).shape == (0, PLAN_FEATURES)


def test_env_observation_carries_the_learners_plan_features():
    from envs.batch_observers import view_of

    env = Big2VectorEnv(3, observer="card_counting", opponents=["heuristic"],
                        legal_features=plan_features, seed=3)  # fmt: skip
    _, info = env.reset()
    rng, checked = np.random.default_rng(0), 0
    for _ in range(40):
        for i in range(3):
            view = view_of(env.games, i, int(env.games.turn[i]))
            count = int((info["legal"][i] >= 0).sum())
            expected = plan_features(view, [CODEC.decode(int(a)) for a in info["legal"][i]
                                            if a >= 0])  # fmt: skip
            assert info["features"].shape[:2] == info["legal"].shape
            np.testing.assert_array_equal(info["features"][i, :count], expected)
            assert not info["features"][i, count:].any()
            checked += 1
        *_, info = env.step(env.sample_legal(rng))
    assert checked == 120


def test_plan_features_need_the_catalog_codec():
    with pytest.raises(ValueError, match="catalog"):
        MaskedActor(10, 1695, (16,), None, plan=SCALE)
    with pytest.raises(ValueError, match="catalog"):
        former_config(actions="hand", plan_features=True).check()
    former_config(algo="dqn", plan_features=True).check()  # per legal action: fine for DQN too


def actor(plan: bool) -> MaskedActor:
    torch.manual_seed(0)
    scale = SCALE if plan else ()
    return MaskedActor(161, CODEC.n, (32,), action_features(CODEC), "mlp", plan=scale)


def test_actor_scores_depend_on_plan_features_and_require_them():
    view, legal = next(positions(1))
    obs = np.zeros((1, 161), np.float32)
    ids = np.array([[CODEC.encode(m, view.hand) for m in legal]])
    rows = plan_features(view, legal)[None]
    net = actor(plan=True)
    assert net.uses_plan and not actor(plan=False).uses_plan
    base = net.scores(obs, ids, rows)
    changed = rows.copy()
    changed[0, :, 3] = 1 - changed[0, :, 3]  # flip the heuristic's advice
    assert not torch.equal(base, net.scores(obs, ids, changed))
    assert (base > -1e8).all()
    with pytest.raises(ValueError, match="legal features"):
        net.scores(obs, ids)


def test_greedy_and_sampling_policy_agents_pass_plan_features():
    view, legal = next(positions(1))
    net = actor(plan=True).eval()
    import observers

    observer = observers.make("simple")
    rows = plan_features(view, legal)
    obs = observer.observe(view)
    ids = np.array([[CODEC.encode(m, view.hand) for m in legal]])
    expected = int(ids[0, int(net.scores(obs[None], ids, rows[None])[0].argmax())])
    greedy = PolicyAgent(NumpyLogits(net), observer, CODEC, features=plan_features)
    assert CODEC.encode(greedy.act(view, legal), view.hand) == expected
    snapshot = PolicyAgent(NumpyLogits(net), observer, CODEC, features=plan_features,
                           sample=True, seed=random.Random(0))  # fmt: skip
    assert snapshot.act(view, legal) in legal
