"""training.features (plan features) and their plumbing: env observation, actor, config."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

from big2.game import Game
from big2.hand_ranking import PASS
from big2.players import RandomAgent
from big2.players.heuristic import HeuristicAgent, is_control, make_plan, plan_cost
from envs import codecs
from envs.policy_agent import PolicyAgent
from training.env import Big2SingleAgentEnv, OpponentPool
from training.features import PLAN_FEATURES, plan_features
from training.nets import MaskedActor, NumpyLogits, action_features
from training.train import Config

CODEC = codecs.make("catalog")


def positions(n_games: int = 12, seed: int = 0):
    """(view, legal moves) of every decision of random games, leading and following."""
    for g in range(n_games):
        game, agent = Game(seed=seed + g), RandomAgent(seed=g)
        while not game.is_over:
            view, legal = game.view(game.turn), game.legal_moves()
            yield view, legal
            game.play(agent.act(view, legal))


def test_rows_follow_the_planner_on_every_legal_action():
    heuristic, checked = HeuristicAgent(), 0
    for view, legal in positions():
        rows = plan_features(view, legal, CODEC)
        assert rows.shape == (PLAN_FEATURES, CODEC.n) and rows.dtype == np.int8
        columns = {CODEC.encode(m, view.hand): m for m in legal}
        outside = np.ones(CODEC.n, bool)
        outside[list(columns)] = False
        assert not rows[:, outside].any()  # illegal actions carry nothing
        now, plan = plan_cost(view.hand, view.rules), make_plan(view.hand, view.rules)
        for action, move in columns.items():
            if move == PASS:
                assert rows[:3, action].tolist() == [0, 0, 0]
                continue
            rest = plan_cost(view.hand & ~move.cards, view.rules)
            assert rows[0, action] == round(2 * (rest - now))
            assert rows[1, action] == is_control(move, view)
            assert rows[2, action] == (move in plan)
        choice = heuristic.act(view, legal)
        assert rows[3].sum() == 1 and rows[3, CODEC.encode(choice, view.hand)] == 1
        checked += 1
    assert checked > 300


def test_a_plan_play_lowers_the_cost_and_breaking_the_plan_raises_it():
    leads = [(v, lg) for v, lg in positions() if v.table is None and len(v.history) > 0]
    assert leads
    for view, legal in leads:
        rows = plan_features(view, legal, CODEC)
        for move in legal:
            a = CODEC.encode(move, view.hand)
            if rows[2, a] and move.size < 5:  # a plan combination grouped by rank
                assert rows[0, a] <= -2  # a turn fewer (a low single: half a turn more)


def test_no_legal_moves_gives_zeros():
    view = Game(seed=1).view(0)
    assert not plan_features(view, (), CODEC).any()


def test_env_observation_carries_the_learners_plan_features():
    env = Big2SingleAgentEnv(OpponentPool(["heuristic"]), observer="card_counting", seed=3,
                             plan=True)  # fmt: skip
    obs, _ = env.reset()
    rng = random.Random(0)
    done = False
    while not done:
        assert env.observation_space.contains(obs)
        game = env.game
        expected = plan_features(game.view(env.seat), game.legal_moves(), env.codec)
        np.testing.assert_array_equal(obs["plan"], expected)
        assert set(np.flatnonzero(obs["plan"].any(0))) <= set(np.flatnonzero(obs["mask"]))
        obs, _, done, _, _ = env.step(rng.choice(np.flatnonzero(obs["mask"]).tolist()))
    assert not obs["plan"].any()


def test_plan_features_need_the_catalog_codec():
    with pytest.raises(ValueError, match="catalog"):
        Big2SingleAgentEnv(OpponentPool(["random"]), actions="hand", plan=True)
    with pytest.raises(ValueError, match="catalog"):
        MaskedActor(10, 1695, (16,), None, plan=True)
    with pytest.raises(ValueError, match="catalog"):
        Config(actions="hand", plan_features=True).check()
    with pytest.raises(ValueError, match="ppo"):
        Config(algo="dqn", plan_features=True).check()


def actor(plan: bool) -> MaskedActor:
    torch.manual_seed(0)
    return MaskedActor(161, CODEC.n, (32,), action_features(CODEC), "mlp", plan=plan)


def test_actor_scores_depend_on_plan_features_and_require_them():
    view, legal = next(positions(1))
    obs = np.zeros((1, 161), np.float32)
    mask = CODEC.mask(legal, view.hand)[None]
    rows = plan_features(view, legal, CODEC)[None]
    net = actor(plan=True)
    assert net.uses_plan and not actor(plan=False).uses_plan
    base = net.logits(obs, mask, rows)
    changed = rows.copy()
    changed[0, 3] = 1 - changed[0, 3]  # flip the heuristic's advice
    assert not torch.equal(base, net.logits(obs, mask, changed))
    legal_ids = np.flatnonzero(mask[0])
    assert (base[0, legal_ids] > -1e8).all() and (np.delete(base[0].detach().numpy(),
                                                            legal_ids) == -1e9).all()  # fmt: skip
    with pytest.raises(ValueError, match="plan"):
        net.logits(obs, mask)


def test_greedy_and_sampling_policy_agents_pass_plan_features():
    view, legal = next(positions(1))
    net = actor(plan=True).eval()
    import observers

    observer = observers.make("simple")
    mask, rows = CODEC.mask(legal, view.hand), plan_features(view, legal, CODEC)
    obs = observer.observe(view)
    expected = int(net.logits(obs[None], mask[None], rows[None])[0].argmax())
    greedy = PolicyAgent(NumpyLogits(net), observer, CODEC, features=plan_features)
    assert CODEC.encode(greedy.act(view, legal), view.hand) == expected
    snapshot = PolicyAgent(NumpyLogits(net), observer, CODEC, features=plan_features,
                           sample=True, seed=random.Random(0))  # fmt: skip
    assert snapshot.act(view, legal) in legal
