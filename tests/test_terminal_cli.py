"""``big2 replay`` and ``big2 arena`` run as subprocesses, and big2.app.terminal.replay directly."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys

import pytest

from big2 import rules as R
from big2.app.cli import main as big2_main
from big2.app.terminal import cards_text, move_text, replay
from big2.evaluation.arena import evaluate
from big2.game import Game
from big2.players import GreedyAgent, RandomAgent, play
from big2.rules import CHARLESWORTH, STANDARD

ENV = {**os.environ, "PYTHONUTF8": "1"}
MOVE_LINE = re.compile(r"^(\d+)\. seat (\d): (.+)$", re.M)
PROMPT = "[Enter] next, a: to the end, q: quit> "


def cli(*args, stdin="", cwd=None):
    command = [sys.executable, "-m", "big2.app.cli", *args]
    return subprocess.run(
        command, input=stdin, env=ENV, cwd=cwd, capture_output=True, encoding="utf-8", timeout=120
    )


def finished(rules=STANDARD, seed=4):
    agents = [GreedyAgent(), RandomAgent(seed), GreedyAgent(), RandomAgent(seed + 1)]
    return play(Game(rules, seed=seed), agents)


@pytest.fixture
def log_file(tmp_path):
    game = finished()
    path = tmp_path / "game.json"
    path.write_text(game.log.to_json(indent=1), encoding="utf-8")
    return game, path


def expected_lines(game, start=0):
    return [(str(n), str(e.seat), move_text(e.move, False))
            for n, e in enumerate(game.log.moves[start:], start + 1)]  # fmt: skip


def test_replay_all_prints_every_move_and_the_scores(log_file):
    game, path = log_file
    result = cli("replay", str(path), "--all", "--no-color")
    out = result.stdout
    assert result.returncode == 0, result.stderr
    assert out.startswith(f"Replay: {len(game.log.moves)} moves, standard rules\n")
    assert MOVE_LINE.findall(out) == expected_lines(game)
    scores = ", ".join(f"seat {s} {x:+d}" for s, x in enumerate(game.scores()))
    assert out.rstrip().endswith(f"Seat {game.winner} wins. Scores: {scores}")
    for seat, hand in enumerate(game.log.deal):  # the deal is shown first, all hands visible
        assert f"  seat {seat}: {cards_text(hand, False)}\n" in out.split("1. seat")[0]
    assert PROMPT not in out and "\033[" not in out


def test_replay_steps_with_enter_then_runs_to_the_end(log_file):
    game, path = log_file
    result = cli("replay", str(path), "--no-color", stdin="\n\na\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count(PROMPT) == 3
    parts = [MOVE_LINE.findall(part) for part in result.stdout.split(PROMPT)]
    assert [[m[0] for m in p] for p in parts[:3]] == [[], ["1"], ["2"]]  # one move per Enter
    assert [line for part in parts for line in part] == expected_lines(game)
    assert f"Seat {game.winner} wins." in result.stdout


def test_replay_step_quit(log_file):
    game, path = log_file
    result = cli("replay", str(path), "--no-color", stdin="\nq\n")
    assert result.returncode == 0, result.stderr
    assert MOVE_LINE.findall(result.stdout.replace(PROMPT, "\n")) == expected_lines(game)[:1]
    assert result.stdout.count(PROMPT) == 2 and "wins" not in result.stdout


def test_replay_function_with_injected_input(log_file):
    game, _ = log_file
    answers, out = iter(["", "", "", "q"]), []
    shown = replay(game.log, color=False, read=lambda prompt: next(answers), write=out.append)
    assert shown.log.moves == game.log.moves[:3] and not shown.is_over
    whole = replay(game.log, step=False, color=True, write=out.append)
    assert whole.log == game.log and whole.scores() == game.scores()
    assert any("\033[31m" in line for line in out)


def test_replay_prints_the_automatic_opening():
    game, out = finished(CHARLESWORTH, seed=2), []
    replay(game.log, step=False, color=False, write=out.append)
    printed = MOVE_LINE.findall("\n".join(out))
    assert printed == expected_lines(game)


def test_replay_charlesworth_plays_through():
    game, out = finished(CHARLESWORTH, seed=2), []
    shown = replay(game.log, step=False, color=False, write=out.append)
    assert shown.log == game.log and out[0].endswith("charlesworth rules")
    assert MOVE_LINE.findall("\n".join(out)) == expected_lines(game)  # the automatic 3D too


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read {path}: No such file or directory"),
        ("not json", "big2 replay: corrupt game log: not JSON"),
        ('{"format": "big2-log/1"}', "big2 replay: corrupt game log: missing field 'rules'"),
        ("illegal", "big2 replay: illegal move"),
    ],
)
def test_replay_refuses_bad_files(tmp_path, content, message):
    path = tmp_path / "bad.json"
    if content == "illegal":
        data = json.loads(finished().log.to_json())
        data["moves"][0]["move"] = "2S"  # the first play must contain 3D (and be held)
        content = json.dumps(data)
    if content is not None:
        path.write_text(content, encoding="utf-8")
    result = cli("replay", str(path), "--all", "--no-color")
    assert result.returncode != 0 and message.format(path=path) in result.stderr
    assert result.stdout == ""  # nothing is shown before the log is checked


def test_arena_command_prints_and_writes(tmp_path):
    agents = ["heuristic", "greedy", "random", "random"]
    json_path, csv_path = tmp_path / "r.json", tmp_path / "r.csv"
    args = ["arena", "--agents", *agents, "--deals", "20", "--seed", "0"]
    result = cli(*args, "--json", str(json_path), "--csv", str(csv_path))
    assert result.returncode == 0, result.stderr
    expected = evaluate(agents, 20, seed=0)
    assert result.stdout == expected.table() + "\n"
    for name in ("heuristic", "greedy", "random#1", "random#2"):
        assert name in result.stdout
    data = json.loads(json_path.read_text(encoding="utf-8"))
    assert data == json.loads(expected.to_json()) and data["games"] == 80
    rows = list(csv.reader(io.StringIO(csv_path.read_text(encoding="utf-8"))))
    assert rows[0][:3] == ["agent", "games", "wins"] and len(rows) == 5
    assert [r[0] for r in rows[1:]] == ["heuristic", "greedy", "random#1", "random#2"]


def test_arena_command_with_workers_and_other_rules():
    args = ["arena", "--agents", "greedy", "random", "random", "random", "--deals", "8"]
    result = cli(*args, "--workers", "2", "--rules", "charlesworth", "--seed", "3")
    assert result.returncode == 0, result.stderr
    expected = evaluate(["greedy", "random", "random", "random"], 8, 3, CHARLESWORTH)
    assert result.stdout == expected.table() + "\n" and "charlesworth rules" in result.stdout


UNKNOWN = (
    r"unknown (agent|opponent) 'bogus'; "
    r"expected one of \['greedy', 'heuristic', 'random', 'search'\]"
)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["arena", "--agents", "random", "random", "random", "random", "--deals", "0"],
         r"big2 arena: n_deals must be at least 1"),
        (["arena", "--agents", "random", "random", "random"],
         r"big2 arena: --agents names 3 agents; the standard rules seat 4, one agent each"),
        (["arena", "--agents", "random", "random", "--rules", "hearts"],
         r"argument --rules: unknown rules 'hearts'; expected one of \['bombs', "),
        (["arena", "--agents", "random", "random", "--rules", "house.toml"],
         r"argument --rules: cannot read rules file house.toml"),
        (["serve", "--rules", "three-player", "--seat", "3", "--port", "0"],
         r"big2 serve: --seat 3: the three-player rules seat 0..2"),
        (["serve", "--rules", "two-player", "--opponents", "random", "random", "--port", "0"],
         r"big2 serve: --opponents takes one agent spec or 1 \(one per other seat"),
        (["play", "--rules", "two-player", "--seat", "2", "--seed", "1"],
         r"big2 play: --seat 2: the two-player rules seat 0..1"),
        (["play", "--rules", "three-player", "--opponents", "random", "random", "random"],
         r"big2 play: --opponents takes one agent spec or 2 \(one per other seat"),
    ],
    ids=["arena-no-deals", "arena-three-agents", "arena-unknown-rules",
         "arena-missing-rules-file", "serve-seat-three-of-three", "serve-two-opponents-of-two",
         "play-seat-two-of-two",
         "play-three-opponents-of-three-players"],
)  # fmt: skip
def test_cli_errors_name_the_choices(tmp_path, args, message):
    result = cli(*args, cwd=tmp_path)  # play would save logs under ./big2_logs
    assert result.returncode != 0
    assert re.search(message, result.stderr) and result.stdout == ""
    assert "Traceback" not in result.stderr
    assert not list(tmp_path.iterdir())


UNKNOWN_AGENT = {
    "arena": ["arena", "--agents", "heuristic", "bogus", "random", "random", "--deals", "2"],
    "play": ["play", "--opponents", "bogus", "--seed", "1"],
}


@pytest.mark.parametrize("command", list(UNKNOWN_AGENT))
def test_an_unknown_agent_is_refused_naming_the_choices(tmp_path, monkeypatch, capsys, command):
    """As test_cli_errors_name_the_choices, in this process: an unknown name is offered to
    the checkpoint loader, whose imports (torch, Tianshou) take a new process seconds."""
    monkeypatch.chdir(tmp_path)  # play would save logs under ./big2_logs
    with pytest.raises(SystemExit) as refused:  # not a traceback: a message, exit status 1
        big2_main(UNKNOWN_AGENT[command])
    assert re.search(f"big2 {command}: {UNKNOWN}", str(refused.value.code))
    assert capsys.readouterr().out == "" and not list(tmp_path.iterdir())


def test_arena_plays_a_rules_file_with_one_agent_per_seat(tmp_path):
    (tmp_path / "trio.toml").write_text('base = "taiwan"\nplayers = 3\n', encoding="utf-8")
    result = cli("arena", "--agents", "greedy", "random", "random", "--deals", "2",
                 "--rules", "trio.toml", cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    trio = R.get(str(tmp_path / "trio.toml"))
    expected = evaluate(["greedy", "random", "random"], 2, 0, trio)
    assert result.stdout == expected.table() + "\n" and "trio rules" in result.stdout
