"""envs.duplicate against the arena (big2.evaluation), the reference: the same deals and,
against deterministic players, the same games, deal for deal; and the training
evaluations and study reports that play there (``--eval-engine compiled``)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

import observers
from big2.evaluation import deal_results as arena_results
from big2.game import View
from big2.hand_ranking import HandRanking
from big2.rules import CHARLESWORTH, STANDARD, THREE_PLAYER, TWO_PLAYER, Rules
from envs import codecs, duplicate
from envs.decisions import DecisionMaker, Decisions
from envs.engine import Games, Tables
from envs.opponents import Opponents
from training.config import Config
from training.loop import evaluate_policy, learner_results
from training.nets import make_actor
from training.rollout import GreedyPolicy
from training.spec import resolve

RULES = pytest.mark.parametrize(
    "rules", [STANDARD, CHARLESWORTH, THREE_PLAYER, TWO_PLAYER], ids=lambda r: r.name
)
DETERMINISTIC = pytest.mark.parametrize("opponent", ["greedy", "heuristic"])
# one torch thread: the networks below are tiny, and more threads contend with the other
# pytest-xdist worker (a network's compiled games ran ten times slower on two busy cores)
pytestmark = pytest.mark.usefixtures("one_thread")


class Last:
    """An agent that plays its last legal move (in :meth:`Game.legal_moves` order)."""

    name = "last"

    def act(self, view: View, legal: tuple[HandRanking, ...]) -> HandRanking:
        return legal[-1]


def last(decisions: Decisions) -> np.ndarray:
    """:class:`Last` as a batch policy: each row's last legal action."""
    rows = np.arange(len(decisions))
    chosen: np.ndarray = decisions.legal[rows, decisions.counts - 1]
    return chosen


@RULES
@DETERMINISTIC
def test_a_scripted_policy_plays_the_arena_games(rules: Rules, opponent: str):
    mine = duplicate.deal_results(last, opponent, 12, seed=5, rules=rules)
    agents = [Last(), *[opponent] * (rules.players - 1)]
    arena = [d[0] for d in arena_results(agents, 12, 5, rules)]
    assert mine == arena
    assert all(0 <= wins <= rules.players for wins, _ in mine)


def tiny(observer: str = "card_counting", **options: object) -> Config:
    """A small untrained actor's config with the recipes' inputs, evaluated in the arena
    (the engine the compiled one is checked against)."""
    return replace(Config(observer=observer, hidden=(32, 16), action_head="mlp",
                          action_context=True, plan_features=True, reply_features=True,
                          threads=1, eval_engine="arena"), **options)  # fmt: skip


# every pairing under four players; of fewer, each observer against one opponent
NETWORK_CASES = [
    *[(r, o, v) for r in (STANDARD, CHARLESWORTH) for o in ("greedy", "heuristic")
      for v in ("card_counting", "oracle")],
    *[(r, o, v) for r in (THREE_PLAYER, TWO_PLAYER)
      for o, v in (("greedy", "card_counting"), ("heuristic", "oracle"))],
]  # fmt: skip


@pytest.mark.parametrize(("rules", "opponent", "observer"), NETWORK_CASES,
                         ids=lambda x: getattr(x, "name", x))  # fmt: skip
def test_a_network_plays_the_arena_games(rules: Rules, opponent: str, observer: str):
    # the oracle actor (a study's upper bound) reads every hand and the cheating replies
    cfg = tiny(observer, rules=rules.name, upper_bound=observer == "oracle")
    net = make_actor(resolve(cfg).network)
    # 4 deals, one game a seat each (8 cost make test 25 s summed)
    arena = learner_results(cfg, net, opponent, 4, 3)
    compiled = learner_results(replace(cfg, eval_engine="compiled"), net, opponent, 4, 3)
    assert compiled == arena


def test_random_players_draw_from_each_games_own_stream(monkeypatch):
    first = duplicate.deal_results(last, "random", 6, seed=1)
    assert all(0 <= wins <= 4 for wins, _ in first)
    assert duplicate.deal_results(last, "random", 6, seed=1) == first
    assert duplicate.deal_results(last, "random", 3, seed=1) == first[:3]  # alone or not
    assert duplicate.deal_results(last, "random", 6, seed=2) != first
    assert len(duplicate.deal_results(last, "random", 2, seed=-5)) == 2  # negative seeds too
    whole = duplicate.deal_results(last, "heuristic", 6, seed=1)
    monkeypatch.setattr(duplicate, "BATCH_DEALS", 4)  # deals 0-3, then 4-5
    assert duplicate.deal_results(last, "random", 6, seed=1) == first
    assert duplicate.deal_results(last, "heuristic", 6, seed=1) == whole


def test_the_greedy_policy_breaks_ties_by_the_lowest_action():
    class Flat:  # every position scores the same, padding included
        uses_plan = False

        def scores(self, obs: object, legal: np.ndarray, plan: object) -> torch.Tensor:
            return torch.zeros(legal.shape)

    legal = np.array([[9, 4, 7], [3, -1, -1]], np.int32)
    decisions = Decisions(np.zeros((2, 1), np.float32), legal)
    assert GreedyPolicy(Flat())(decisions).tolist() == [4, 3]


def test_nan_scores_are_a_clear_error():
    class Broken:
        uses_plan = False

        def scores(self, obs: object, legal: np.ndarray, plan: object) -> torch.Tensor:
            return torch.full(legal.shape, float("nan"))

    decisions = Decisions(np.zeros((1, 1), np.float32), np.array([[3, 5]], np.int32))
    with pytest.raises(ValueError, match="scored NaN for decisions \\[0\\]"):
        GreedyPolicy(Broken())(decisions)


def test_evaluations_report_the_same_rows_either_way():
    cfg = tiny(eval_opponents=("heuristic",), eval_deals=5)
    net = make_actor(resolve(cfg).network)
    assert evaluate_policy(replace(cfg, eval_engine="compiled"), net, 7) == evaluate_policy(
        cfg, net, 7
    )


def test_bad_requests_are_refused():
    with pytest.raises(ValueError, match="n_deals must be at least 1"):
        duplicate.deal_results(last, "greedy", 0)
    with pytest.raises(ValueError, match="built for charlesworth"):
        duplicate.deal_results(last, "greedy", 1, observer=observers.make("simple", CHARLESWORTH))
    with pytest.raises(ValueError, match="eval_engine"):
        replace(Config(), eval_engine="gpu").check()


def test_a_seating_names_a_kind_for_every_seat():
    games = Games(2, Tables.of(STANDARD))
    seats = Opponents(DecisionMaker(games, observers.make("simple"), codecs.make("catalog")),
                      ["random", "greedy"], np.random.default_rng(0))  # fmt: skip
    with pytest.raises(ValueError, match="kinds must be"):
        seats.seat(np.arange(2), np.zeros((2, 3), np.int64))
    with pytest.raises(ValueError, match="indices into the mix of 2"):
        seats.seat(np.arange(2), np.full((2, 4), 2))
    with pytest.raises(ValueError, match="streams must be"):
        seats.seat(np.arange(2), np.zeros((2, 4), np.int64), np.zeros((2, 5)))
