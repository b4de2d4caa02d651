"""training.processes: children started with a log, polled, stopped with grace."""

from __future__ import annotations

import signal
import sys
import time

from training import processes
from training.processes import Child, Children


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def wait_ended(children: Children[str]) -> dict[str, Child]:
    ended: dict[str, Child] = {}
    while children:
        ended.update(children.ended())
        time.sleep(0.02)
    return ended


def test_a_childs_output_is_appended_to_its_log_and_its_status_kept(tmp_path):
    log = tmp_path / "member0" / "log.txt"  # its folder made
    children: Children[str] = Children()
    children.add("a", Child.start(python("print('first')"), log))
    assert wait_ended(children)["a"].returncode == 0
    children.add("a", Child.start(python("import sys; print('second'); sys.exit(3)"), log))
    (child,) = wait_ended(children).values()
    assert child.returncode == 3 and child.file.closed
    assert log.read_text() == "first\nsecond\n"  # every attempt's output
    assert child.tail(7) == "second"


def test_stop_lets_a_child_end_on_its_own_within_its_grace(tmp_path):
    children: Children[str] = Children()
    child = Child.start(python("import time; time.sleep(0.3); raise SystemExit(4)"), tmp_path / "l")
    children.add("a", child)
    children.stop(grace=60.0)
    assert child.process.returncode == 4 and not children and child.file.closed


def test_stop_terminates_then_kills(tmp_path, monkeypatch):
    monkeypatch.setattr(processes, "TERM_WAIT", 0.5)
    deaf = (
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        "print('deaf', flush=True); time.sleep(60)"
    )
    children: Children[str] = Children()
    sleeper = Child.start(python("import time; time.sleep(60)"), tmp_path / "sleeper")
    ignorer = Child.start(python(deaf), tmp_path / "deaf")
    children.add("sleeper", sleeper)
    children.add("deaf", ignorer)
    while "deaf" not in (tmp_path / "deaf").read_text():  # SIGTERM ignored from here on
        time.sleep(0.02)
    children.stop()
    assert sleeper.process.returncode == -signal.SIGTERM
    assert ignorer.process.returncode == -signal.SIGKILL
    assert not children
