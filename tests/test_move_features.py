"""observers.moves' plan features and the plumbing of move features: the env's rows
(compiled by type, or one view at a time for a user's own), the actor, the config, the
arena agent, and the old names that now name their replacements."""

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
from envs import codecs, duplicate
from envs.batch_moves import batch_move_features
from envs.policy_agent import PolicyAgent
from envs.rollouts import PolicyRollouts
from envs.vector import Big2VectorEnv
from observers.moves import (
    CHEATING_REPLIES,
    PLAN,
    PLAN_FEATURES,
    PLAN_SCALE,
    REPLIES,
    JoinedFeatures,
    PlanFeatures,
    plan_features,
)
from training.nets import MaskedActor, NumpyLogits, action_table

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
                        move_features=PLAN, seed=3)  # fmt: skip
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
        MaskedActor(10, 1695, (16,), None, plan=PLAN_SCALE)
    with pytest.raises(ValueError, match="catalog"):
        former_config(actions="hand", plan_features=True).check()
    former_config(algo="dqn", plan_features=True).check()  # per legal action: fine for DQN too


def actor(plan: bool) -> MaskedActor:
    torch.manual_seed(0)
    scale = PLAN_SCALE if plan else ()
    return MaskedActor(161, CODEC.n, (32,), action_table(CODEC), "mlp", plan=scale)


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
    with pytest.raises(ValueError, match="move features"):
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
    greedy = PolicyAgent(NumpyLogits(net), observer, CODEC, features=PLAN)
    assert CODEC.encode(greedy.act(view, legal), view.hand) == expected
    snapshot = PolicyAgent(NumpyLogits(net), observer, CODEC, features=PLAN,
                           sample=True, seed=random.Random(0))  # fmt: skip
    assert snapshot.act(view, legal) in legal


class Own:
    """A user's own move features: another object's rows, one view at a time, counted."""

    def __init__(self, inner) -> None:
        self.inner, self.calls = inner, 0
        self.width, self.scale = inner.width, inner.scale
        self.perfect_information = inner.perfect_information

    def __call__(self, view, legal_moves, game=None):
        self.calls += 1
        return self.inner(view, legal_moves, game)


class Subclass(PlanFeatures):
    """Plan features by a subclass: it may compute something else, so it is not compiled."""


def test_the_compiled_rows_are_picked_by_exact_type():
    joined = JoinedFeatures(PLAN, CHEATING_REPLIES)
    for features in (PLAN, REPLIES, CHEATING_REPLIES, joined):
        assert batch_move_features(features)[1], features
    for features in (Subclass(), Own(PLAN), JoinedFeatures(PLAN, Own(REPLIES))):
        assert not batch_move_features(features)[1], features
    with pytest.raises(TypeError, match="MoveFeatures"):
        batch_move_features(plan_features)  # a function has no width: say what is expected


def playing(features, steps: int = 12, rules: str = "standard") -> list[np.ndarray]:
    """``info["features"]`` of a few steps of a small env with ``features``."""
    env = Big2VectorEnv(
        3,
        observer="card_counting",
        opponents=["heuristic"],
        move_features=features,
        seed=11,
        rules=rules,
    )
    _, info = env.reset()
    rng, seen = np.random.default_rng(1), [info["features"]]
    for _ in range(steps):
        *_, info = env.step(env.sample_legal(rng))
        seen.append(info["features"])
    return seen


def test_the_env_computes_its_own_rows_compiled_and_a_users_one_view_at_a_time(monkeypatch):
    joined = JoinedFeatures(PLAN, CHEATING_REPLIES)
    own = Own(joined)
    compiled, fallback = playing(joined), playing(own)
    assert own.calls == 3 * 13  # a view per game per step (the cheating ones: and the game)
    for a, b in zip(compiled, fallback, strict=True):
        assert a.shape[2] == 8 and a.dtype == b.dtype == np.int8
        np.testing.assert_array_equal(a, b)
    assert any(rows[:, :, 4:7].any() for rows in compiled)  # the replies are not all zeros

    def refuse(*args):
        raise AssertionError("the compiled rows are not to call the reference")

    monkeypatch.setattr(PlanFeatures, "__call__", refuse)
    playing(PLAN, steps=2)
    with pytest.raises(AssertionError, match="not to call"):
        playing(Subclass(), steps=2)


@pytest.mark.parametrize("rules", ["three-player", "two-player"])
def test_the_compiled_rows_are_the_python_rows_at_fewer_seats(rules):
    joined = JoinedFeatures(PLAN, REPLIES, CHEATING_REPLIES)
    compiled, fallback = playing(joined, 30, rules), playing(Own(joined), 30, rules)
    for a, b in zip(compiled, fallback, strict=True):
        np.testing.assert_array_equal(a, b)
    assert any(rows[:, :, 4:7].any() for rows in compiled)


def test_a_users_rows_of_the_wrong_shape_are_refused():
    narrow = Own(PLAN)
    narrow.width = 3  # says 3 columns, gives 4
    with pytest.raises(ValueError, match=r"shape \(\d+, 4\).*expected \(\d+, 3\)"):
        Big2VectorEnv(2, opponents=["random"], move_features=narrow).reset(seed=0)


def test_the_old_keyword_and_module_name_their_replacements():
    with pytest.raises(TypeError, match="'legal_features' any more: it is 'move_features'"):
        Big2VectorEnv(2, opponents=["random"], legal_features=PLAN)
    with pytest.raises(TypeError, match=r"PolicyRollouts.*move_features"):
        PolicyRollouts(lambda d: np.zeros(len(d), np.int64), None, legal_features=PLAN)
    with pytest.raises(TypeError, match=r"deal_results.*move_features"):
        duplicate.deal_results(lambda d: None, "random", 1, legal_features=PLAN)
    with pytest.raises(ImportError, match=r"observers\.moves\.make"):
        from training.features import legal_features  # noqa: F401
    with pytest.raises(ImportError, match=r"observers\.moves\.PLAN\b"):
        from training.features import PLAN as _  # noqa: F401
