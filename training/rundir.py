"""A training run's directory: what a run writes there, and the only files it ever removes.

A run writes ``config.json``, ``tb/`` (TensorBoard event files), ``latest.pt``,
``best.pt``, ``evaluations.json``, ``curve.png``, the lock file ``.lock``
(:mod:`training.lock`), and a distillation run (:mod:`training.distill`) its
``labels.npz`` and ``distill.json``. :class:`RunDirectory` guards that set:

- a new run takes the directory's lock first, so a second run into the same directory
  is refused at once, naming the first;
- it refuses a directory that holds files unless ``--overwrite`` asks to replace a run,
  and ``--overwrite`` removes the files above and nothing else: it refuses a directory
  holding anything else (naming what it found), and it refuses the current directory,
  a parent of it, a home directory, a repository root and the file-system root;
- a new run that stops before its first checkpoint (a crash, Ctrl-C, SIGTERM) removes
  what it wrote, so the same command can simply be run again.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d:
...     _ = (Path(d) / "notes.txt").write_text("mine")
...     with RunDirectory(d).claim(fresh=True, overwrite=True):
...         pass
Traceback (most recent call last):
...
training.rundir.RunDirError: --overwrite replaces a run, but ... also holds notes.txt, ...
"""

from __future__ import annotations

import os
import pwd
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from training.lock import LOCK_FILE, locked

# what a run writes (the .tmp files: a save cut short)
FILES = ("config.json", "latest.pt", "best.pt", "evaluations.json", "curve.png", LOCK_FILE,
         "latest.pt.tmp", "best.pt.tmp",
         "labels.npz", "labels.tmp.npz", "distill.json")  # fmt: skip
TENSORBOARD = "tb"  # a directory of TensorBoard event files
EVENT_PREFIX = "events.out.tfevents."
REPOSITORY_MARKERS = (".git", ".hg", ".svn")


class RunDirError(ValueError):
    """The run directory cannot be used as asked; nothing was changed."""


class RunDirectory:
    """The directory of one training run (see the module docstring)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)

    @property
    def checkpointed(self) -> bool:
        """Whether the run has saved a checkpoint (so ``--resume`` can continue it)."""
        return (self.path / "latest.pt").is_file()

    @contextmanager
    def claim(self, fresh: bool, overwrite: bool = False) -> Iterator[RunDirectory]:
        """Hold the directory for the block: locked, checked, and cleaned up after a new run
        that ended before its first checkpoint. ``fresh``: a new run (not a resume)."""
        if overwrite and fresh:
            refuse_protected(self.path)
        with locked(self.path, "run"):
            if fresh:
                self._check_fresh(overwrite)
            try:
                yield self
            except BaseException:
                if fresh and not self.checkpointed:
                    self.remove_run()  # nothing to resume: leave the disk as it was
                raise

    def _check_fresh(self, overwrite: bool) -> None:
        held = sorted(p.name for p in self.path.iterdir() if p.name != LOCK_FILE)
        if not held:
            return
        if not overwrite:
            raise RunDirError(
                f"run directory {self.path} already holds files ({', '.join(held[:6])}); pass "
                f"--resume {self.path} to continue that run or --overwrite to replace it"
            )
        foreign = self.foreign()
        if foreign:
            raise RunDirError(
                f"--overwrite replaces a run, but {self.path} also holds "
                f"{', '.join(foreign[:6])}, which no run writes; move them away or choose "
                f"another --run-dir"
            )

    def foreign(self) -> list[str]:
        """What the directory holds that no run writes (relative names)."""
        out = []
        for entry in sorted(self.path.iterdir()):
            if entry.name == TENSORBOARD and entry.is_dir() and not entry.is_symlink():
                out += [f"{TENSORBOARD}/{e.name}" for e in sorted(entry.iterdir())
                        if not (e.name.startswith(EVENT_PREFIX) and e.is_file())]  # fmt: skip
            elif entry.name not in FILES or not entry.is_file() or entry.is_symlink():
                out.append(entry.name)
        return out

    def remove_run(self) -> None:
        """Remove what a run writes here (never anything else; the lock file stays)."""
        for name in FILES:
            if name != LOCK_FILE:
                (self.path / name).unlink(missing_ok=True)
        board = self.path / TENSORBOARD
        if board.is_dir() and not board.is_symlink():
            for event in board.glob(EVENT_PREFIX + "*"):
                event.unlink()
            if not any(board.iterdir()):
                board.rmdir()


def refuse_protected(path: Path) -> None:
    """Raise :class:`RunDirError` if ``path`` must never be emptied: the current directory
    or a parent of it, a home directory, a repository root, or the file-system root."""
    target, here = path.resolve(), Path.cwd().resolve()
    reason = ""
    if here == target or here.is_relative_to(target):
        reason = "is the current directory" if here == target else "contains the current directory"
    elif target in _homes():
        reason = "is a home directory"
    elif any((target / marker).exists() for marker in REPOSITORY_MARKERS):
        reason = "is a repository root"
    if reason:
        raise RunDirError(
            f"--overwrite will not empty {path}: it {reason}; give each run a directory of "
            f"its own, such as runs/NAME"
        )


def _homes() -> set[Path]:
    homes = {Path.home().resolve(), Path(os.sep)}
    for entry in pwd.getpwall():
        homes.add(Path(entry.pw_dir).resolve())
    return homes
