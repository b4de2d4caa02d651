"""Golden games (tests/data/golden, written by ``python -m tests.make_golden``).

Each stored game is replayed move by move and must reach the stored result; playing the
same agents with the same seeds again must produce the identical log.
"""

from __future__ import annotations

import json

import make_golden
import pytest

from big2.game import Game
from big2.log import GameLog
from big2.players import GreedyAgent, HeuristicAgent, RandomAgent, SearchAgent
from big2.rules import PRESETS, get

NAMES = [spec[0] for spec in make_golden.GAMES]


def load(name: str) -> dict:
    return json.loads(make_golden.path_of(name).read_text(encoding="utf-8"))


def test_one_file_per_game_and_every_kind_of_player():
    on_disk = sorted(p.stem for p in make_golden.DIR.glob("*.json"))
    assert on_disk == sorted(NAMES) and len(NAMES) == 13
    presets = [spec[1] for spec in make_golden.GAMES]
    assert presets.count("standard") == 4 and presets.count("charlesworth") == 3
    assert set(presets) == set(PRESETS)  # a golden game under every preset
    kinds = {
        type(make_golden.make_agent(a, spec[1])) for spec in make_golden.GAMES for a in spec[3]
    }
    assert kinds == {GreedyAgent, RandomAgent, HeuristicAgent, SearchAgent}
    for spec in make_golden.GAMES[:4]:  # the first four: greedy and random players only
        assert {type(make_golden.make_agent(a)) for a in spec[3]} == {GreedyAgent, RandomAgent}


@pytest.mark.parametrize("name", NAMES)
def test_golden_game_replays_to_its_result(name):
    data = load(name)
    expected = data["expected"]
    log = GameLog.from_dict(data["log"])
    assert log.rules == get(data["rules"])
    assert GameLog.from_json(json.dumps(data["log"])) == log
    game = Game.replay(log)
    assert game.is_over and game.winner == expected["winner"]
    assert list(game.scores()) == expected["scores"] and sum(expected["scores"]) == 0
    assert len(game.log.moves) == expected["moves"] == len(data["log"]["moves"])
    assert game.log == log and json.loads(game.log.to_json()) == data["log"]
    assert game.hands[game.winner] == 0


@pytest.mark.parametrize("spec", make_golden.GAMES, ids=NAMES)
def test_same_agents_same_seeds_same_log(spec):
    name, rules, deal_seed, agents = spec
    data = load(name)
    assert (data["rules"], data["deal_seed"], data["agents"]) == (rules, deal_seed, list(agents))
    game = make_golden.play_golden(rules, deal_seed, agents)
    assert json.loads(game.log.to_json()) == data["log"]
    assert make_golden.render(spec) == make_golden.path_of(name).read_text(encoding="utf-8")


def test_make_agent_rejects_unknown_names():
    with pytest.raises(ValueError, match="unknown agent 'smart'"):
        make_golden.make_agent("smart")
    with pytest.raises(ValueError, match=r"the seed after .:. must be a whole number"):
        make_golden.make_agent("random:x")
