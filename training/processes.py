"""Child processes of the training wings: each a command with its output in a log file.

A recipe's members (:mod:`training.recipes.members`) and a study's cells
(:mod:`training.ablation.runner`) each run in a process of their own, so that one that
fails, or dies, cannot take the others down. What both do with them is here:

- :meth:`Child.start` starts a command with its output (stdout and stderr) appended to a
  log file, which so keeps every attempt's output; :meth:`Child.tail` is the end of that
  log, for the message when the child fails.
- :class:`Children` holds the running ones by key: :meth:`Children.ended` polls them, and
  :meth:`Children.stop` stops the rest with grace: ``grace`` seconds to end on their own
  (Ctrl-C in a terminal reaches its whole process group, children included), then
  SIGTERM, then, after :data:`TERM_WAIT` seconds more, SIGKILL.

A child ends with its parent, however that ends: its command names the parent's pid, and
the child calls :func:`big2.evaluation.processes.die_with_parent` with it first thing.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Generic, TypeVar

TERM_WAIT = 30.0  # seconds a child has to end after SIGTERM before SIGKILL

K = TypeVar("K")


@dataclass
class Child:
    """A command running in a process of its own, its output appended to ``log``."""

    process: subprocess.Popen[bytes]
    log: Path
    file: IO[bytes]  # the log, open while the child runs

    @classmethod
    def start(cls, command: Sequence[str], log: Path) -> Child:
        """Start ``command`` with its output appended to ``log`` (its folder made)."""
        log.parent.mkdir(parents=True, exist_ok=True)
        file = log.open("ab")  # every attempt's output
        try:
            process = subprocess.Popen(list(command), stdout=file, stderr=subprocess.STDOUT)
        except BaseException:
            file.close()
            raise
        return cls(process, log, file)

    @property
    def returncode(self) -> int | None:
        """Its exit status, once it has ended and been polled."""
        return self.process.returncode

    def poll(self) -> int | None:
        """Its exit status once it has ended (its log then closed); None while it runs."""
        code = self.process.poll()
        if code is not None:
            self.file.close()
        return code

    def tail(self, chars: int) -> str:
        """The last ``chars`` characters of its log, stripped."""
        return self.log.read_text(encoding="utf-8", errors="replace")[-chars:].strip()


class Children(Generic[K]):
    """The children running, each by a key (a member, a cell)."""

    def __init__(self) -> None:
        self._running: dict[K, Child] = {}

    def __len__(self) -> int:
        return len(self._running)

    def __iter__(self) -> Iterator[K]:
        return iter(self._running)

    def add(self, key: K, child: Child) -> None:
        """Hold ``child``, started, as ``key``'s."""
        self._running[key] = child

    def ended(self) -> list[tuple[K, Child]]:
        """The children that have ended since the last look (no longer held), by key."""
        done = [(key, child) for key, child in self._running.items() if child.poll() is not None]
        for key, _ in done:
            del self._running[key]
        return done

    def stop(self, grace: float = 0.0) -> None:
        """Give the children still running ``grace`` seconds to end on their own, then
        SIGTERM them, and SIGKILL any still running :data:`TERM_WAIT` seconds later; their
        logs closed, none is held after."""
        deadline = time.monotonic() + grace
        for child in self._running.values():
            try:
                child.process.wait(timeout=max(deadline - time.monotonic(), 0.01))
            except subprocess.TimeoutExpired:
                child.process.terminate()
        for child in self._running.values():
            try:
                child.process.wait(timeout=TERM_WAIT)
            except subprocess.TimeoutExpired:
                child.process.kill()
                child.process.wait()
            child.file.close()
        self._running.clear()
