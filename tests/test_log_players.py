"""Game logs say who played: players, seed and date in ``big2-log/2``, written by every
writer (``big2 play``, ``big2 serve``, the arena), read by every replay (terminal, page,
``replay --html``); logs of the first format (``tests/data/big2-log-1.json``, a
search game written before players existed) still load and replay with bare seat numbers.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import pytest

from big2.app.page import replay_html
from big2.app.table import Table, frames, replay_data
from big2.app.terminal import TerminalGame, replay
from big2.evaluation.arena import evaluate
from big2.game import Game
from big2.log import GameLog
from big2.players import GreedyAgent, RandomAgent, play
from big2.rules import CHARLESWORTH, STANDARD

OLD = Path(__file__).parent / "data" / "big2-log-1.json"
SECOND = Path(__file__).parent / "data" / "big2-log-2.json"  # rules before the variants
PLAYERS = ["you", "heuristic", "random:1", "trained+search"]


def signed(seed: int = 4) -> GameLog:
    game = play(Game(seed=seed), [GreedyAgent(), RandomAgent(1), GreedyAgent(), RandomAgent(2)])
    game.log.sign(PLAYERS, seed, "2026-01-02T10:30:00+01:00")
    return game.log


def test_a_log_says_who_played_with_what_seed_and_when():
    log = signed()
    data = json.loads(log.to_json())
    assert data["format"] == "big2-log/3"
    assert (data["players"], data["seed"], data["date"]) == (
        PLAYERS,
        4,
        "2026-01-02T10:30:00+01:00",
    )
    again = GameLog.from_json(log.to_json())
    assert again == log and again.players == tuple(PLAYERS)
    assert again.seat_names() == [f"seat {s} ({p})" for s, p in enumerate(PLAYERS)]
    assert Game.replay(again).log == log  # a replayed game keeps who played


def test_a_second_format_log_loads_with_todays_rules_and_replays():
    data = json.loads(SECOND.read_text(encoding="utf-8"))
    assert data["format"] == "big2-log/2" and data["rules"]["opening"] == "auto_3d"
    assert "five_card_quads" in data["rules"] and "players" not in data["rules"]
    log = GameLog.from_dict(data)
    assert log.rules is CHARLESWORTH and log.players and log.moves
    again = Game.replay(log)
    assert again.is_over and again.log == log
    assert json.loads(log.to_json())["rules"]["opening"] == "auto"  # written as of today


def test_an_old_format_log_still_loads_and_replays_with_seat_numbers():
    text = OLD.read_text(encoding="utf-8")
    assert json.loads(text)["format"] == "big2-log/1"
    log = GameLog.from_json(text)
    assert (log.players, log.seed, log.date) == ((), None, None)
    assert log.thoughts and all(
        c.deals is None for t in log.thoughts.values() for c in t.candidates
    )
    assert Game.replay(log).is_over
    data = replay_data(log, "old.json")
    assert data["names"] == ["seat 0", "seat 1", "seat 2", "seat 3"]
    assert len(data["frames"]) == len(log.moves) + 1
    assert "seat 0" in replay_html(log)
    out: list[str] = []
    replay(log, step=False, color=False, write=out.append)
    assert out[0] == f"Replay: {len(log.moves)} moves, standard rules"
    assert re.fullmatch(r"Seat \d wins\. Scores: seat 0 [+-]\d+, seat 1 .*", out[-1])
    assert GameLog.from_json(log.to_json()) == log  # rewritten in the new format, nothing lost


@pytest.mark.parametrize(
    "field, value, words",
    [
        ("players", ["you", "heuristic"], "players must name the 4 seats"),
        ("players", "abcd", "players must be a list"),
        ("players", ["you", "", "a", "b"], "players must name the 4 seats"),
        ("seed", 1.5, "a seed is a whole number or text"),
        ("seed", True, "a seed is a whole number or text"),
        ("date", "yesterday", "is not an ISO 8601 date"),
        ("date", 20260102, "is not an ISO 8601 date"),
    ],
)
def test_bad_players_seed_or_date_make_the_log_corrupt(field, value, words):
    data = signed().to_dict()
    data[field] = value
    with pytest.raises(ValueError, match="corrupt game log") as caught:
        GameLog.from_json(json.dumps(data))
    assert words in str(caught.value)


def test_signing_with_the_wrong_players_changes_nothing():
    log = signed()
    with pytest.raises(ValueError, match="players must name the 4 seats"):
        log.sign(["you"], 1, None)
    assert log.players == tuple(PLAYERS) and log.seed == 4


def test_the_terminal_replay_names_every_seat():
    log = signed()
    out: list[str] = []
    game = replay(log, step=False, color=False, write=out.append)
    assert out[0].endswith("standard rules, seed 4, played 2026-01-02T10:30:00+01:00")
    first = log.moves[0]
    assert out[2].startswith(f"1. seat {first.seat} ({PLAYERS[first.seat]}): ")
    assert "  seat 3 (trained+search): " in out[1]
    winner = game.winner
    assert winner is not None
    scores = ", ".join(f"seat {s} ({PLAYERS[s]}) {x:+d}" for s, x in enumerate(game.scores()))
    assert out[-1] == f"Seat {winner} ({PLAYERS[winner]}) wins. Scores: {scores}"


def written_today(log: GameLog) -> bool:
    assert log.date is not None
    return datetime.fromisoformat(log.date).date() == datetime.now().astimezone().date()


def test_the_browser_table_writes_who_played(tmp_path):
    agents = [RandomAgent(s) for s in (1, 2, 3)]
    table = Table(agents, ["random:1", "random:2", "random:3"], seat=2, log_dir=tmp_path)
    table.new(seed=9)
    log = GameLog.from_json(Path(table.saved).read_text(encoding="utf-8"))
    assert log.players == ("random:1", "random:2", "you", "random:3") and log.seed == 9
    assert written_today(log)


def test_the_terminal_game_writes_who_played(tmp_path):
    out: list[str] = []
    agents = [GreedyAgent(), RandomAgent(1), GreedyAgent()]
    names = ["greedy", "random:1", "greedy"]
    session = TerminalGame(
        agents, STANDARD, 1, tmp_path, False, read=lambda _: "q", write=out.append, names=names
    )
    session.play(seed=11)
    (path,) = tmp_path.glob("*.json")
    log = GameLog.from_json(path.read_text(encoding="utf-8"))
    assert log.players == ("greedy", "you", "random:1", "greedy") and log.seed == 11
    assert written_today(log)
    unnamed = TerminalGame(agents, STANDARD, 0, tmp_path / "b", False, read=lambda _: "q")
    assert unnamed.players == ["you", "greedy", "random", "greedy"]  # the agents' own names


def test_the_arena_writes_who_sat_where_in_every_seating(tmp_path):
    specs = ["greedy", "random:1", "random:2", "heuristic"]
    evaluate(specs, 1, seed=3, log_dir=tmp_path)
    for rotation in range(4):
        log = GameLog.from_json((tmp_path / f"deal-00000-seating-{rotation}.json").read_text())
        assert log.players == tuple(specs[(s - rotation) % 4] for s in range(4))
        assert log.seed == "3:0" and written_today(log)
    frame = frames(log)[-1]
    assert frame["winner"] in range(4)
