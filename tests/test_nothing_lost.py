"""Nothing lost, nothing left behind: run directories, locks, settings, signals, logs, seeds.

Each test here reproduces a way a careless command once lost data, hung or left processes
running, and checks that it now gets a clear error (or the right behaviour) instead.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from training_helpers import FORMER_FLAGS

from big2.app.cli import main as big2_main
from big2.app.terminal import TerminalGame
from big2.evaluation.backends import ClusterUnreachable, RayBackend, check_reachable
from big2.players import RandomAgent
from big2.rules import STANDARD
from envs.big2_env import raw_env
from envs.vector import Big2VectorEnv
from training.ablation.cli import main as study_main
from training.ablation.runner import _finished
from training.ablation.study import Study
from training.checkpoint import load as load_checkpoint
from training.config import FORMER_DEFAULTS, Config
from training.lock import LOCK_FILE, DirectoryLock, Locked, locked
from training.rundir import RunDirError, refuse_protected
from training.train import main as train_main
from training.train import train

ROOT = Path(__file__).resolve().parent.parent
SMALL = {**FORMER_DEFAULTS, "steps": 8, "epoch_steps": 8, "envs": 1, "eval_deals": 1,
         "hidden": (8,), "eval_opponents": ("random",), "opponents": ("random",),
         "threads": 1}  # fmt: skip
RUN_FILES = ["best.pt", "config.json", "curve.png", "evaluations.json", "latest.pt", "tb"]


def small(run_dir: Path, **changes: object) -> Config:
    return Config(**{**SMALL, "run_dir": str(run_dir), **changes})  # type: ignore[arg-type]


def python(*args: str, **kwargs: object) -> subprocess.Popen[str]:
    """``python ARGS`` from the project root, its output captured as text; it starts with
    SIGINT delivered as a terminal delivers it, whatever earlier tests left in this
    process (a child inherits a blocked or ignored SIGINT, and Python then keeps it so)."""
    return subprocess.Popen([sys.executable, *args], cwd=ROOT, text=True,  # type: ignore[call-overload]
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=_terminal_signals, **kwargs)  # fmt: skip


def _terminal_signals() -> None:
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (read from /proc)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":  # a zombie is dead, only not yet reaped
            parents[int(stat.parent.name)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def wait_for(condition, seconds: float = 120.0, what: str = "condition") -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def alive(pids: set[int]) -> set[int]:
    return {p for p in pids if Path(f"/proc/{p}").exists() and _state(p) != "Z"}


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


# ------------------------------------------------------------------ --overwrite


def test_overwrite_refuses_a_directory_of_unrelated_files_and_keeps_them(tmp_path):
    mine = tmp_path / "thesis"
    (mine / "chapters").mkdir(parents=True)
    (mine / "draft.tex").write_text("years of work")
    (mine / "latest.pt").write_text("looks like a run file")
    with pytest.raises(RunDirError, match=r"also holds chapters, draft.tex, which no run writes"):
        train(small(mine), overwrite=True)
    assert sorted(p.name for p in mine.iterdir()) == ["chapters", "draft.tex", "latest.pt"]
    assert (mine / "draft.tex").read_text() == "years of work"


@pytest.mark.parametrize("where", ["cwd", "parent", "repository", "home"])
def test_overwrite_refuses_places_it_must_never_empty(tmp_path, monkeypatch, where):
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / "src").mkdir()
    monkeypatch.chdir(project / "src")
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    (tmp_path / "me").mkdir()
    target = {"cwd": Path("."), "parent": Path(".."), "repository": project,
              "home": tmp_path / "me"}[where]  # fmt: skip
    if where == "repository":
        monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in target.iterdir())
    reason = {"cwd": "is the current directory", "parent": "contains the current directory",
              "repository": "is a repository root",
              "home": "is a home directory"}[where]  # fmt: skip
    with pytest.raises(RunDirError, match=reason):
        refuse_protected(target)
    with pytest.raises(SystemExit, match=f"will not empty .*{reason}"):
        train_main(["--run-dir", str(target), "--overwrite", "--steps", "8"])
    assert sorted(p.name for p in target.iterdir()) == before


def test_overwrite_replaces_a_run_and_only_a_run(tmp_path, one_thread):
    run = tmp_path / "run"
    train(small(run))
    assert sorted(p.name for p in run.iterdir()) == RUN_FILES  # the lock file is gone
    old_log = next((run / "tb").iterdir())
    train(small(run, seed=1), overwrite=True)
    assert sorted(p.name for p in run.iterdir()) == RUN_FILES
    assert json.loads((run / "config.json").read_text())["seed"] == 1
    assert old_log not in list((run / "tb").iterdir())  # the old run's log went with it


# ------------------------------------------------------------------ settings checked first


def test_bad_settings_cost_nothing_and_the_corrected_command_runs(tmp_path, one_thread):
    run = tmp_path / "run"
    for bad in (["--eval-deals", "0"], ["--opponents", "self", "--snapshot-every", "0"],
                ["--algo", "dqn", "--buffer-size", "0"], ["--seed", "-1"],
                ["--hidden", "0"], ["--ppo-repeat", "0"], ["--eps-train", "2"]):  # fmt: skip
        with pytest.raises(SystemExit, match="must be"):
            train_main([*bad, "--run-dir", str(run), "--steps", "8"])
        assert not run.exists(), bad
    train(small(run))  # the corrected command needs no --overwrite
    assert (run / "latest.pt").is_file()


def test_a_resumed_run_checks_its_changes_first(tmp_path, one_thread):
    run = tmp_path / "run"
    train(small(run))
    before = {p.name: p.stat().st_mtime_ns for p in run.iterdir() if p.is_file()}
    with pytest.raises(SystemExit, match="threads must be in"):
        train_main(["--resume", str(run), "--threads", "0"])
    assert {p.name: p.stat().st_mtime_ns for p in run.iterdir() if p.is_file()} == before


def test_a_new_run_that_fails_before_its_first_checkpoint_leaves_nothing(tmp_path, monkeypatch):
    run = tmp_path / "run"

    def explode(self):  # type: ignore[no-untyped-def]
        (self.run_dir / "tb" / "events.out.tfevents.1").write_text("half a log")
        raise RuntimeError("the machine caught fire")

    # in the first epoch, so that Run.run closes its log writer as a real failure does
    monkeypatch.setattr("training.loop.Run._epoch", explode)
    with pytest.raises(RuntimeError, match="caught fire"):
        train(small(run))
    assert not run.exists()


def test_a_study_with_a_bad_setting_is_refused_before_it_writes(tmp_path):
    root = tmp_path / "study"
    args = ["--observers", "simple", "--seeds", "1", "--steps", "8", "--run-dir", str(root),
            "--no-progress"]  # fmt: skip
    with pytest.raises(SystemExit, match=r"eval_deals'? must be at least 1"):
        study_main([*args, "--set", "eval_deals=0"])
    assert not root.exists()
    study_file = tmp_path / "s.toml"
    study_file.write_text('seeds = "three"\n')
    with pytest.raises(SystemExit, match="study key 'seeds' takes an integer, got 'three'"):
        study_main(["--study", str(study_file), "--run-dir", str(root)])
    assert not root.exists()


def test_a_study_that_never_finished_a_cell_takes_corrected_settings(tmp_path):
    root = tmp_path / "study"
    root.mkdir()
    old = Study(observers=("simple",), seeds=1, steps=8)
    (root / "study.json").write_text(json.dumps(old.to_dict()))
    new = Study(observers=("simple",), seeds=1, steps=16)
    from training.ablation.runner import prepare

    prepare(new, root)
    assert json.loads((root / "study.json").read_text())["steps"] == 16
    finished = root / "cells" / "simple" / "seed0"
    finished.mkdir(parents=True)
    (finished / "result.json").write_text("{}")
    with pytest.raises(ValueError, match="holds a study with other settings"):
        prepare(old, root)


def test_a_hand_edited_result_reruns_its_cell_and_says_so(tmp_path, capsys):
    cell = Study(observers=("simple",), seeds=1).cells(tmp_path)[0]
    cell.directory.mkdir(parents=True)
    for text in ("{}", "[1, 2]", '{"setting": "x"}', "{half"):
        (cell.directory / "result.json").write_text(text)
        assert _finished(cell) is None
        assert "is not a cell result" in capsys.readouterr().err


# ------------------------------------------------------------------ locks


def test_a_second_run_into_a_busy_directory_is_refused_naming_the_first(tmp_path):
    run = tmp_path / "run"
    holder = python("-c", "import sys, time; from pathlib import Path; "
                    "from training.lock import locked; "
                    "cm = locked(Path(sys.argv[1]), 'run'); cm.__enter__(); print('held', "
                    "flush=True); time.sleep(600)", str(run))  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(SystemExit, match=f"run directory .* is in use by process {holder.pid}"):
            train_main(["--run-dir", str(run), "--steps", "8"])
        assert [p.name for p in run.iterdir()] == [LOCK_FILE]  # nothing of ours was written
        holder.send_signal(signal.SIGKILL)  # a dead holder's lock file is taken over
        holder.wait(10)
        with DirectoryLock(run, "run") as lock:
            assert lock.holder()["pid"] == os.getpid()
    finally:
        holder.kill()
        holder.wait()


def test_a_stale_lock_file_is_taken_over(tmp_path):
    (tmp_path / LOCK_FILE).write_text(json.dumps({"pid": 999_999_999, "host": "gone"}))
    with locked(tmp_path, "study") as lock:
        assert lock.holder()["pid"] == os.getpid()
        with pytest.raises(Locked, match="in use by process"):
            DirectoryLock(tmp_path, "study").acquire()  # another holder in this process too
    assert not (tmp_path / LOCK_FILE).exists()


@pytest.mark.slow
def test_two_runs_started_together_into_one_directory(tmp_path):
    run = tmp_path / "run"
    flags = ["-m", "training.train", *FORMER_FLAGS, "--run-dir", str(run), "--steps", "64",
             "--epoch-steps", "64", "--envs", "2", "--eval-deals", "1", "--hidden", "8",
             "--threads", "1", "--eval-opponents", "random", "--opponents", "random"]  # fmt: skip
    first, second = python(*flags), python(*flags)
    outcomes = sorted([first.wait(300), second.wait(300)])
    errors = (first.stderr.read() if first.stderr else "") + (
        second.stderr.read() if second.stderr else ""
    )
    assert outcomes[0] == 0 and outcomes[1] != 0, errors
    assert "is in use by process" in errors or "already holds files" in errors
    assert sorted(p.name for p in run.iterdir()) == RUN_FILES
    assert len(list((run / "tb").iterdir())) == 1  # one run's log, not two mixed


# ------------------------------------------------------------------ disks that cannot take a run

# two epochs of 8 decisions (one PPO round each), the smallest networks
TINY = [*FORMER_FLAGS, "--steps", "16", "--epoch-steps", "8", "--collect-steps", "8",
        "--batch-size", "8", "--envs", "1", "--eval-deals", "1", "--hidden", "8",
        "--eval-opponents", "random", "--opponents", "random", "--threads", "1"]  # fmt: skip


def listing(run: Path) -> dict[str, bytes]:
    """Every file of a run directory (below it too) with its bytes."""
    return {str(p.relative_to(run)): p.read_bytes() for p in sorted(run.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of TINY (two epochs, 16 decisions); tests copy it."""
    run = tmp_path_factory.mktemp("tiny") / "run"
    train_main([*TINY, "--run-dir", str(run)])
    return run


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MB file system of the test's own (a tmpfs), unmounted after it; skipped where
    mounting one is not permitted (it takes root, as in CI)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if shutil.which("mount") is None:
        pytest.skip("no mount command: the full- and read-only-disk tests mount a tmpfs")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)],
                             capture_output=True, text=True)  # fmt: skip
    if mounted.returncode:
        pytest.skip(f"cannot mount a tmpfs here (root only): {mounted.stderr.strip()}")
    try:
        yield disk
    finally:  # lazily: at once, though a failing run may still hold a file open there
        subprocess.run(["umount", "--lazy", str(disk)], check=True)


def fill(disk: Path) -> Path:
    """Write a file on ``disk`` until no room is left; the file."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, bytes(1 << 16))
    except OSError as e:
        assert e.errno == errno.ENOSPC
    finally:
        os.close(fd)
    return filler


def test_a_disk_that_fills_up_mid_run_keeps_the_last_checkpoint_and_resumes(
    small_disk, monkeypatch, one_thread
):
    import training.loop

    run, evaluate, evaluations = small_disk / "run", training.loop.evaluate_policy, []

    def evaluate_then_fill_the_disk(*args):  # type: ignore[no-untyped-def]
        evaluations.append(args)
        if len(evaluations) == 2:  # after the first epoch's checkpoint, before the second's
            fill(small_disk)
        return evaluate(*args)

    monkeypatch.setattr(training.loop, "evaluate_policy", evaluate_then_fill_the_disk)
    said = (
        f"^training: no space left on device while writing {run}/latest.pt: free some space, "
        f"then continue with --resume {run} "
    )
    with pytest.raises(SystemExit, match=said):
        train_main([*TINY, "--run-dir", str(run)])
    assert sorted(p.name for p in run.iterdir()) == RUN_FILES  # no .tmp left, the lock released
    assert load_checkpoint(run / "latest.pt")["epoch"] == 1
    before = listing(run)
    said = f"{run} has .+ free, less than its last checkpoint .*: free some space, then"
    with pytest.raises(SystemExit, match=said):
        train_main(["--resume", str(run)])  # still full: refused before it trains
    assert listing(run) == before
    (small_disk / "filler").unlink()
    train_main(["--resume", str(run)])
    assert load_checkpoint(run / "latest.pt")["epoch"] == 2
    assert sorted(p.name for p in run.iterdir()) == RUN_FILES


def test_a_read_only_run_directory_is_refused_before_training(small_disk, tiny_run):
    run = small_disk / "run"
    shutil.copytree(tiny_run, run)
    before = listing(run)
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    said = (
        f"^training: cannot write in run directory {run}: read-only file system .*; mount its "
        "file system read-write, or choose another directory$"
    )
    with pytest.raises(SystemExit, match=said):
        train_main(["--resume", str(run), "--steps", "24"])
    new = small_disk / "new" / "run"  # its parent cannot be made either
    said = rf"cannot write in run directory {new}: read-only file system \({new.parent}\)"
    with pytest.raises(SystemExit, match=said):
        train_main([*TINY, "--run-dir", str(new)])
    assert listing(run) == before


def test_an_immutable_run_directory_is_refused_before_training(tmp_path, tiny_run):
    if shutil.which("chattr") is None:
        pytest.skip("no chattr here: this test makes a folder immutable")
    run = tmp_path / "run"
    shutil.copytree(tiny_run, run)
    (run / LOCK_FILE).write_text("left by a process that died")  # the lock itself opens
    before = listing(run)
    made = subprocess.run(["chattr", "+i", str(run)], capture_output=True, text=True)
    if made.returncode:
        pytest.skip(f"cannot make a folder immutable here: {made.stderr.strip()}")
    try:
        said = f"^training: cannot write in run directory {run}: operation not permitted; make"
        with pytest.raises(SystemExit, match=said + " it writable .*chattr -i"):
            train_main(["--resume", str(run), "--steps", "24"])
        with pytest.raises(SystemExit, match=f"cannot write in run directory {run}/sub"):
            train_main([*TINY, "--run-dir", str(run / "sub")])
    finally:
        subprocess.run(["chattr", "-i", str(run)], check=True)
    assert listing(run).keys() == before.keys()
    assert {k: v for k, v in listing(run).items() if k != LOCK_FILE} == {
        k: v for k, v in before.items() if k != LOCK_FILE
    }  # the lock file, taken over, names this process now


def test_a_resume_with_fewer_steps_than_done_is_refused_and_changes_nothing(tmp_path, tiny_run):
    run = tmp_path / "run"
    shutil.copytree(tiny_run, run)
    before = listing(run)
    said = (
        f"^cannot resume: --steps 8: {run} already trained 16 steps; give --steps above 16 to "
        "extend it, or leave --steps out"
    )
    with pytest.raises(SystemExit, match=said):
        train_main(["--resume", str(run), "--steps", "8"])
    assert listing(run) == before  # config.json's bytes among them


# ------------------------------------------------------------------ Ray


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again when the socket is


def test_an_unreachable_ray_address_fails_within_seconds(tmp_path):
    pytest.importorskip("ray")
    address = f"127.0.0.1:{closed_port()}"
    start = time.monotonic()
    with pytest.raises(ClusterUnreachable, match=f"no Ray cluster answers at {address}.*ray start"):
        RayBackend(address, connect_timeout=2.0)
    with pytest.raises(SystemExit, match="no Ray cluster answers"):
        train_main(["--backend", "ray", "--ray-address", address, "--run-dir",
                    str(tmp_path / "run"), "--steps", "8"])  # fmt: skip
    assert time.monotonic() - start < 30
    assert not (tmp_path / "run").exists()
    with pytest.raises(ValueError, match="takes HOST:PORT"):
        check_reachable("no-port-here", 1.0)


# ------------------------------------------------------------------ children die with parents


def arena_with_workers() -> subprocess.Popen[str]:
    process = python("-m", "big2.app.cli", "arena", "--agents", "heuristic", "random", "random",
                     "random", "--deals", "100000", "--workers", "2")  # fmt: skip
    wait_for(lambda: len(descendants(process.pid)) >= 3, what="the arena's workers")
    return process


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_a_stopped_arena_leaves_no_worker_behind(sig):
    process = arena_with_workers()
    children = descendants(process.pid)
    process.send_signal(sig)
    process.wait(30)
    wait_for(lambda: not alive(children), 30, "the workers to end")


@pytest.mark.slow
def test_a_killed_study_leaves_no_cell_training(tmp_path):
    root = tmp_path / "study"
    args = ["-m", "training.ablation", "--observers", "simple", "--seeds", "2", "--steps",
            "10000000", "--run-dir", str(root), "--workers", "2", "--no-progress", "--set",
            "envs=2", "--set", "hidden=8", "--set", "eval_deals=1"]  # fmt: skip
    process = python(*args)
    wait_for(lambda: len(descendants(process.pid)) >= 2, what="two cells")
    cells = descendants(process.pid)
    wait_for(lambda: len(list(root.glob("cells/*/*/.lock"))) == 2, what="the cells' locks")
    process.send_signal(signal.SIGKILL)
    process.wait(30)
    wait_for(lambda: not alive(cells), 30, "the cells to end")
    assert not list(root.glob("cells/*/*/error.json"))  # nothing reported by an orphan


# ------------------------------------------------------------------ a played game's log


def test_play_checks_the_log_directory_before_the_game(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(SystemExit, match=r"cannot save game logs in .*a-file/logs.*--log-dir"):
        big2_main(["play", "--log-dir", str(blocker / "logs"), "--opponents", "random"])


def test_the_arena_checks_its_log_directory_before_any_game(tmp_path, monkeypatch):
    from big2.evaluation import arena

    played: list[object] = []
    monkeypatch.setattr(arena, "_game", lambda *a: played.append(a))
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(ValueError, match=r"cannot save game logs in .*a-file/logs"):
        arena.evaluate(["greedy", "random", "random", "random"], 1, log_dir=blocker / "logs")
    assert played == []


def test_the_arena_makes_a_missing_log_directory(tmp_path):
    from big2.evaluation import evaluate

    evaluate(["greedy", "random", "random", "random"], 1, log_dir=tmp_path / "new" / "logs")
    assert len(list((tmp_path / "new" / "logs").glob("deal-00000-seating-*.json"))) == 4


def test_a_log_that_cannot_be_saved_where_asked_is_saved_elsewhere(tmp_path):
    said: list[str] = []
    moves = iter(["1"] * 200)
    session = TerminalGame([RandomAgent(1), RandomAgent(2), RandomAgent(3)], STANDARD,
                           log_dir=tmp_path / "logs", read=lambda _: next(moves),
                           write=said.append)  # fmt: skip
    (tmp_path / "logs").rmdir()
    (tmp_path / "logs").write_text("the folder became a file mid-game")
    game = session.play(seed=3)
    saved = [line for line in said if line.startswith("Game log saved to ")]
    assert any("Could not save the log in" in line for line in said)
    path = Path(saved[-1].removeprefix("Game log saved to "))
    assert path.is_file() and json.loads(path.read_text())["moves"]
    assert game.is_over


# ------------------------------------------------------------------ Ctrl-C


@pytest.mark.slow
def test_ctrl_c_during_training_is_one_line_and_status_130(tmp_path):
    run = tmp_path / "run"
    process = python("-m", "training.train", *FORMER_FLAGS, "--run-dir", str(run), "--steps",
                     "10000000", "--envs", "2", "--hidden", "8", "--threads", "1")  # fmt: skip
    wait_for(lambda: (run / "config.json").exists(), what="training to start")
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130
    assert "Traceback" not in err
    assert "training: interrupted; it stopped before its first checkpoint" in err
    assert not run.exists()


# ------------------------------------------------------------------ the vector env


def test_numpy_and_negative_seeds_deal_as_raw_env_does():
    env = Big2VectorEnv(12)
    for seed in (np.int64(7), -5, np.int32(-5)):
        env.reset(seed=seed)
        for i in range(3):
            single = raw_env()
            single.reset(seed=seed + i)
            assert [int(h) for h in env.games.hands[i]] == list(single.game.hands)
    env.reset(seed=np.int64(7))
    numpy_deal = env.games.hands.copy()
    env.reset(seed=7)
    assert (env.games.hands == numpy_deal).all()
    with pytest.raises(TypeError, match="seed must be an integer"):
        env.reset(seed=1.5)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("opponents", "error"),
    [("random", "opponents must be a list, got 'random'"), ([None], r"opponents\[0\] is None"),
     ([], "at least one agent"), ([["random"]], r"opponents\[0\] is \['random'\]")],
)  # fmt: skip
def test_opponent_lists_are_checked_at_construction(opponents, error):
    with pytest.raises(ValueError, match=error):
        Big2VectorEnv(2, opponents=opponents)


def test_a_large_vector_env_costs_memory_in_proportion_to_its_games():
    Big2VectorEnv(4)  # compile and import before measuring
    tracemalloc.start()
    env = Big2VectorEnv(8000, observer="card_counting")  # 2,000 games, every seat
    per_game = tracemalloc.get_traced_memory()[1] / 2000
    tracemalloc.stop()
    # the engine's arrays (about 20 kB a game) and the returned buffers, an observation
    # row and a final row for each of its 4 agents (2 x 4 x 421 x 4 bytes, 13.5 kB),
    # made once; no batched space (its bounds would add 2 x 4 x 421 x 4 bytes more)
    assert per_game < 40_000
    assert env.observation_space["observation"].shape == (8000, 421)  # built when asked for


def test_the_study_summary_states_the_decisions_each_cell_trained():
    from training.ablation.report import _trained
    from training.ablation.runner import Outcome

    study = Study(observers=("simple",), seeds=2, steps=1024)
    cells = study.cells(Path("s"))
    outcomes = [Outcome(cell, {"steps": 2048}) for cell in cells]
    assert _trained(study, outcomes).startswith("2,048 (budget 1,024; training stops after")
    exact = [Outcome(cell, {"steps": 1024}) for cell in cells]
    assert _trained(study, exact) == "1,024"
