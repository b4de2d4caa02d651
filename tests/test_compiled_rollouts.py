"""envs.rollouts.CompiledRollouts against big2.players.search.AgentRollouts (the reference).

On the same sampled deals of the same views, the compiled rollouts must count the same
wins for every candidate move; a SearchAgent with either makes the same choices from the
same seed. Views come from random and heuristic games under both presets and a variant.

``python -m bench.heuristic`` times both.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

import observers
from big2.players import HeuristicAgent, load_agent
from big2.players.search import AgentRollouts, SearchAgent, sample_deal
from big2.rules import CHARLESWORTH, FIVE_CARD_HANDS, STANDARD, THREE_PLAYER, TWO_PLAYER, Rules
from envs.rollouts import CompiledRollouts, PolicyRollouts
from training.checkpoint import NetworkAgent
from training.config import Config
from training.ensemble import Ensemble
from training.loop import learner_agent
from training.nets import make_actor
from training.rollout import GreedyPolicy
from training.spec import resolve
from training.twins import sample_views

VARIANT = replace(CHARLESWORTH, name="variant", five_card_hands=FIVE_CARD_HANDS, flush_order="suit",
                  opening="free", pass_locks_out=True)  # fmt: skip
PRESETS = pytest.mark.parametrize("rules", [STANDARD, CHARLESWORTH, VARIANT], ids=lambda r: r.name)
# one torch thread: the networks below are tiny, and more threads contend with the other
# pytest-xdist worker (ten times slower on two busy cores)
pytestmark = pytest.mark.usefixtures("one_thread")


# 15 views of 36 rollouts each, 540 Python games a preset (40 views cost make test 20 s
# summed, nearly all of it the Python heuristic playing the reference games)
@PRESETS
def test_compiled_rollouts_count_the_python_wins(rules: Rules, views: int = 15):
    python, compiled, rng = AgentRollouts(HeuristicAgent()), CompiledRollouts(), random.Random(1)
    games = 0
    for view, legal in sample_views(rules, views, seed=2):
        moves = legal[:6]
        deals = [sample_deal(view, rng) for _ in range(6)]
        want = python.wins(view, deals, moves)
        assert compiled.wins(view, deals, moves) == want, (view, moves, deals)
        games += len(deals) * len(moves)
    assert games > views * 6


@pytest.mark.parametrize("rules", [THREE_PLAYER, TWO_PLAYER], ids=lambda r: r.name)
def test_compiled_rollouts_count_the_python_wins_of_fewer_players(rules: Rules):
    test_compiled_rollouts_count_the_python_wins(rules, views=10)


def test_search_with_either_rollouts_chooses_the_same_moves():
    for seed, (view, legal) in enumerate(sample_views(STANDARD, 12, seed=3)):
        options = {"determinizations": 8, "candidates": 4, "seed": seed}
        slow = SearchAgent(rollouts=AgentRollouts(HeuristicAgent()), **options)
        fast = SearchAgent(rollouts=CompiledRollouts(), **options)
        assert fast.act(view, legal) == slow.act(view, legal)
        assert fast.rng.random() == slow.rng.random()  # the same deals were drawn


def test_agent_specs_search_with_the_compiled_rollouts():
    assert isinstance(load_agent("search:1").rollouts, CompiledRollouts)
    assert isinstance(load_agent("search").rollouts, CompiledRollouts)
    assert isinstance(load_agent("search", rollouts="heuristic").rollouts, CompiledRollouts)
    with pytest.raises(ValueError, match="offers no rollouts of its own"):
        load_agent("search", rollouts="policy")


@pytest.mark.parametrize("name, rules", [("trained", STANDARD),
                                         ("trained-charlesworth", CHARLESWORTH)])  # fmt: skip
def test_a_trained_network_plays_its_own_seat_in_its_search_rollouts(name: str, rules: Rules):
    agent = load_agent(f"{name}+search", rules)
    assert isinstance(agent.rollouts, PolicyRollouts)
    assert agent.rollouts.observer.rules == rules
    heuristic = load_agent(f"{name}+search", rules, rollouts="heuristic")
    assert isinstance(heuristic.rollouts, CompiledRollouts)
    with pytest.raises(ValueError, match="rollouts must be one of"):
        load_agent(f"{name}+search", rules, rollouts="greedy")
    # the policy's rollouts are AgentRollouts with the network in the searching seat:
    # the shipped agents are ensembles, whose first member plays the rollouts alone
    policy, rng = load_agent(name, rules), random.Random(6)
    assert isinstance(policy, NetworkAgent) and isinstance(policy.net, Ensemble)
    first = NetworkAgent(policy.net.nets[0], policy.cfg, "member 0")
    slow = AgentRollouts(HeuristicAgent(), own=first)
    for view, legal in sample_views(rules, 6, seed=7):
        moves, deals = legal[:3], [sample_deal(view, rng) for _ in range(3)]
        assert agent.rollouts.wins(view, deals, moves) == slow.wins(view, deals, moves)


@pytest.mark.parametrize(
    "rules", [STANDARD, CHARLESWORTH, THREE_PLAYER, TWO_PLAYER], ids=lambda r: r.name
)
def test_policy_rollouts_count_the_python_wins(rules: Rules):
    # the searching seat plays a small untrained network, the others the heuristic
    cfg = Config(observer="card_counting", rules=rules.name, hidden=(32, 16), action_head="mlp",
                 action_context=True, plan_features=True, reply_features=True)  # fmt: skip
    net = make_actor(resolve(cfg).network)
    observer = observers.make(cfg.observer, rules)
    fast = PolicyRollouts(GreedyPolicy(net), observer, cfg.actions, cfg.features())
    slow = AgentRollouts(HeuristicAgent(), own=learner_agent(cfg, net))
    rng, games, views = random.Random(4), 0, 12 if rules.players == 4 else 4
    for view, legal in sample_views(rules, views, seed=5):
        moves, deals = legal[:4], [sample_deal(view, rng) for _ in range(4)]
        assert fast.wins(view, deals, moves) == slow.wins(view, deals, moves), (view, moves)
        games += len(moves) * len(deals)
    assert games > views * 4
    with pytest.raises(ValueError, match="built for"):
        other = CHARLESWORTH if rules is STANDARD else STANDARD
        fast.wins(sample_views(other, 1, seed=1)[0][0], [], [])
