"""The apps lose no game: ``big2 play`` saves after every move and on SIGTERM and SIGHUP,
the fallback log folder is private and never written through a link, and ``big2 arena``
refuses an output file it could not write before playing any game."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from big2.app import logs
from big2.app.logs import fallback_folder, save_log, write_replacing
from big2.app.terminal import TerminalGame
from big2.game import Game
from big2.hand_ranking import HandRanking
from big2.log import GameLog
from big2.players import GreedyAgent
from big2.rules import STANDARD
from tests.test_terminal import read_until

ENV = {**os.environ, "PYTHONUTF8": "1", "NO_COLOR": "1"}
POSIX = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="signals and ptys: Linux")


def only_log(folder: Path) -> GameLog:
    (path,) = folder.glob("*.json")
    return GameLog.from_json(path.read_text(encoding="utf-8"))


@POSIX
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_to_big2_play_saves_the_game(tmp_path, signum):
    master, slave = os.openpty()
    cmd = [sys.executable, "-m", "big2.app.cli", "play", "--seed", "0", "--opponents", "greedy"]
    cmd += ["--log-dir", str(tmp_path)]
    proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, env=ENV)
    os.close(slave)
    try:
        buf = read_until(master, "your move> ")
        os.write(master, b"1\n")  # seat 0 leads with its first legal move
        read_until(master, "your move> ", buf)  # the agents have answered
        if signum == signal.SIGHUP:  # the terminal window closed: nothing can be written
            os.close(master)
            master = -1
        proc.send_signal(signum)
        ended = {128 + signum}  # the game's own exit, as the signal would have ended it
        if signum == signal.SIGHUP:
            # the closed terminal may end the game first (end of input: it saves and exits,
            # its handlers restored), so the signal itself may be what ends the process
            ended.add(-signum)
        assert proc.wait(timeout=30) in ended
    finally:
        if proc.poll() is None:
            proc.kill()
        if master >= 0:
            os.close(master)
    log = only_log(tmp_path)
    assert log.moves[0].seat == 0 and log.moves[0].move  # the person's move is in it
    assert len(log.moves) >= 4  # and the agents' answers up to the person's next turn
    Game.replay(log)  # whole and legal


@POSIX
def test_a_terminal_that_hangs_up_before_its_signal_saves_the_game(tmp_path):
    """The window closed and no SIGHUP came (yet): reading fails with EIO, which ends the
    game as the signal would (saved, exit 129), not with a traceback."""
    master, slave = os.openpty()
    cmd = [sys.executable, "-m", "big2.app.cli", "play", "--seed", "0", "--opponents", "greedy"]
    cmd += ["--log-dir", str(tmp_path)]
    proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=subprocess.PIPE, env=ENV)
    os.close(slave)
    try:
        buf = read_until(master, "your move> ")
        os.write(master, b"1\n")
        read_until(master, "your move> ", buf)
        os.close(master)  # no signal is sent
        assert proc.wait(timeout=30) == 128 + signal.SIGHUP
        assert b"Traceback" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stderr.close()
    log = only_log(tmp_path)
    assert log.moves[0].seat == 0 and len(log.moves) >= 4
    Game.replay(log)


class Watched(TerminalGame):
    """A terminal game that, at each of the person's turns, notes the moves on disk and
    in the game."""

    def __init__(self, folder: Path) -> None:
        opponents = [GreedyAgent()] * 3
        super().__init__(opponents, STANDARD, 0, folder, False, self.answer, lambda text: None)
        self.seen: list[tuple[int, int]] = []

    def ask(self, game: Game) -> HandRanking:
        self.seen.append((len(only_log(self.log_dir).moves), len(game.log.moves)))
        return super().ask(game)

    def answer(self, prompt: str) -> str:
        if len(self.seen) == 3:
            raise EOFError  # quit at the third turn
        return "1"


def test_the_log_on_disk_follows_every_move(tmp_path):
    session = Watched(tmp_path)
    game = session.play(seed=0)
    assert [disk for disk, _ in session.seen] == [played for _, played in session.seen]
    assert session.seen[-1][0] > session.seen[0][0]  # moves were made between the turns
    assert only_log(tmp_path).moves == game.log.moves


def test_a_save_replaces_a_planted_link_instead_of_writing_through_it(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "game.json").symlink_to(victim)
    path, problem = save_log(Game(seed=1).log, folder, "game.json")
    assert problem is None and path == folder / "game.json"
    assert victim.read_text(encoding="utf-8") == "precious"
    assert not path.is_symlink() and GameLog.from_json(path.read_text(encoding="utf-8"))
    assert sorted(p.name for p in folder.iterdir()) == ["game.json"]  # no temporary left


def test_a_failed_save_leaves_the_last_one_and_no_temporary_file(tmp_path, monkeypatch):
    target = write_replacing(tmp_path / "game.json", "first")

    def full(source: object, destination: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(OSError):
        write_replacing(target, "second" * 10_000)
    monkeypatch.undo()
    assert target.read_text() == "first" and [p.name for p in tmp_path.iterdir()] == ["game.json"]


@pytest.fixture
def shared_tmp(tmp_path, monkeypatch):
    """A stand-in for the machine's shared temporary folder."""
    shared = tmp_path / "tmp"
    shared.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    return shared


def broken_folder(tmp_path: Path) -> Path:
    """A log folder that cannot be made: its parent is a file."""
    (tmp_path / "file").write_text("", encoding="utf-8")
    return tmp_path / "file" / "logs"


@POSIX
def test_the_fallback_folder_is_private(tmp_path, shared_tmp):
    path, problem = save_log(Game(seed=1).log, broken_folder(tmp_path), "game.json")
    assert problem is not None and "could not save the log in" in problem
    assert path.parent == shared_tmp / f"big2_logs-{os.getuid()}"
    assert path.parent.stat().st_mode & 0o777 == 0o700
    assert GameLog.from_json(path.read_text(encoding="utf-8"))


@POSIX
@pytest.mark.parametrize("planted", ["link", "open to all", "someone else's"])
def test_a_planted_fallback_folder_is_not_used(tmp_path, shared_tmp, planted):
    victim_folder = tmp_path / "victim"
    victim_folder.mkdir()
    victim = victim_folder / "game.json"
    victim.write_text("precious", encoding="utf-8")
    name = shared_tmp / f"big2_logs-{os.getuid()}"
    if planted == "link":
        name.symlink_to(victim_folder)
    else:
        name.mkdir()
        (name / "game.json").symlink_to(victim)
        os.chmod(name, 0o777)
        if planted == "someone else's":
            if os.getuid() != 0:
                pytest.skip("only root can give a folder to another user")
            os.chmod(name, 0o700)
            os.chown(name, 12345, 12345)
    path, problem = save_log(Game(seed=1).log, broken_folder(tmp_path), "game.json")
    assert problem is not None
    assert victim.read_text(encoding="utf-8") == "precious"
    assert path.parent != name and path.parent.parent == shared_tmp
    assert path.parent.stat().st_mode & 0o777 == 0o700 and not path.parent.is_symlink()
    assert fallback_folder() != name


def test_the_fallback_module_uses_the_temporary_folder_it_is_given(shared_tmp):
    assert logs.fallback_folder().parent == shared_tmp


@pytest.mark.parametrize("kind", ["under a file", "a folder"])
def test_arena_refuses_an_output_file_before_playing(tmp_path, kind):
    (tmp_path / "file").write_text("", encoding="utf-8")
    out = tmp_path / "file" / "out.json" if kind == "under a file" else tmp_path
    games = tmp_path / "games"
    args = ["arena", "--agents", "greedy", "random", "random", "random", "--deals", "4"]
    args += ["--json", str(out), "--log-dir", str(games)]
    command = [sys.executable, "-m", "big2.app.cli", *args]
    result = subprocess.run(command, env=ENV, capture_output=True, encoding="utf-8", timeout=120)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert f"--json {out}" in result.stderr
    assert not list(games.glob("*.json"))  # no game was played
