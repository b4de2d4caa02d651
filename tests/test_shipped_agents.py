"""training.shipped: every agent that shipped plays by NAME@YYYY-MM-DD; big2 agents lists them."""

from __future__ import annotations

import pytest

from big2.app.cli import main as big2_main
from big2.game import Game
from big2.players import load_agent, play
from big2.rules import get as get_rules
from training import checkpoint, shipped

PAST = [s for s in shipped.HISTORY if not shipped.is_current(s)]


@pytest.mark.parametrize("agent", PAST, ids=[s.spec for s in PAST])
def test_a_past_agent_loads_by_its_day_and_plays(agent):
    rules = get_rules(agent.rules)
    player = load_agent(agent.spec, rules)
    assert player.name == agent.spec
    game = play(Game(rules, seed=0), [player, *(load_agent("heuristic") for _ in range(3))])
    assert game.is_over


def test_the_current_agents_answer_to_their_day_too():
    for name in checkpoint.SHIPPED:
        day = shipped.current(name).spec
        assert checkpoint.resolve(day) == checkpoint.resolve(name)
    assert load_agent("trained@2026-11-28+search").name == "trained@2026-11-28+search"


def test_a_day_nothing_shipped_on_is_refused_naming_the_days():
    with pytest.raises(ValueError, match=r"no trained shipped on 2026-11-22; expected one of \["):
        load_agent("trained@2026-11-22")


def test_a_past_agent_missing_here_says_it_is_kept_in_the_repository(monkeypatch, tmp_path):
    monkeypatch.setattr(shipped, "past_file", lambda agent: tmp_path / f"{agent.spec}.pt")
    with pytest.raises(
        ValueError, match="trained@2026-11-21 is a past agent, kept in the big2 rep"
    ):
        load_agent("trained@2026-11-21")


def test_big2_agents_lists_current_and_past_agents(capsys):
    big2_main(["agents"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["spec", "rules", "shipped", "where"]
    listed = {line.split()[0]: line.split()[1:3] for line in lines[1:]}
    assert listed["trained"] == ["standard", "2026-11-28"]
    assert listed["trained-charlesworth@2026-11-24"] == ["charlesworth", "2026-11-24"]
    assert {s.spec for s in PAST} <= set(listed)
    assert all(line.endswith(".pt") for line in lines[1:])  # all here, in a checkout
