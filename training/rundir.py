"""A training run's directory: what a run writes there, and the only files it ever removes.

A run writes ``config.json``, ``tb/`` (TensorBoard event files), ``latest.pt``,
``best.pt``, ``evaluations.json``, ``curve.png`` and the lock file ``.lock``
(:mod:`training.lock`). :class:`RunDirectory` guards that set:

- a new run takes the directory's lock first, so a second run into the same directory
  is refused at once, naming the first;
- it refuses a directory that holds files unless ``--overwrite`` asks to replace a run,
  and ``--overwrite`` removes the files above and nothing else: it refuses a directory
  holding anything else (naming what it found), and it refuses the current directory,
  a parent of it, a home directory, a repository root and the file-system root;
- a new run that stops before its first checkpoint (a crash, Ctrl-C, SIGTERM) removes
  what it wrote, so the same command can simply be run again; one killed there (SIGKILL,
  the machine lost) leaves it, and is refused with ``--overwrite`` as the remedy, since
  there is nothing for ``--resume`` to continue;
- a directory that cannot be written in (read-only, immutable, no permission) is refused
  before the run starts (:func:`training.lock.locked`), and so is a resume on a disk
  without room for the run's next checkpoint.

Every file a run writes is written whole or not at all (:func:`write_whole`): a full disk
mid-run leaves the last checkpoint as it was, no temporary file, and an error
(:func:`fault_message`) saying what failed and how to continue.

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

import errno
import os
import pwd
import shutil
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from training.lock import LOCK_FILE, REMEDIES, locked

TMP = ".tmp"  # the suffix of a file being written (write_whole)
# what a run writes (the .tmp files: a save cut short)
FILES = (
    "config.json",
    "latest.pt",
    "best.pt",
    "evaluations.json",
    "curve.png",
    LOCK_FILE,
    "latest.pt.tmp",
    "best.pt.tmp",
    "config.json.tmp",
    "evaluations.json.tmp",
    "curve.png.tmp",
)
# the errors of a disk that cannot take what a run writes (fault_message says what to do)
DISK_FAULTS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EIO}
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
            else:
                self._check_room()
            try:
                yield self
            except BaseException:
                if fresh and not self.checkpointed:
                    with suppress(OSError):  # a disk gone read-only: nothing more to do
                        self.remove_run()  # nothing to resume: leave the disk as it was
                raise

    def _check_fresh(self, overwrite: bool) -> None:
        held = sorted(p.name for p in self.path.iterdir() if p.name != LOCK_FILE)
        if not held:
            return
        if not overwrite:
            if self.checkpointed or self.foreign():
                remedy = f"--resume {self.path} to continue that run or --overwrite to replace it"
            else:  # killed (SIGKILL, the machine lost) before the run's first checkpoint
                remedy = "--overwrite to start again: a run stopped before its first checkpoint"
            raise RunDirError(
                f"run directory {self.path} already holds files ({', '.join(held[:6])}); "
                f"pass {remedy}"
            )
        foreign = self.foreign()
        if foreign:
            raise RunDirError(
                f"--overwrite replaces a run, but {self.path} also holds "
                f"{', '.join(foreign[:6])}, which no run writes; move them away or choose "
                f"another --run-dir"
            )

    def _check_room(self) -> None:
        """Refuse to resume on a disk without room for the next checkpoint (at least as
        large as the last: the evaluation history only grows)."""
        latest = self.path / "latest.pt"
        if not latest.is_file():
            return
        need, free = latest.stat().st_size, shutil.disk_usage(self.path).free
        if free < need:
            raise RunDirError(
                f"the disk holding run directory {self.path} has {_size(free)} free, less "
                f"than its last checkpoint ({_size(need)}): free some space, then continue "
                f"with --resume {self.path}"
            )

    def foreign(self) -> list[str]:
        """What the directory holds that no run writes (relative names)."""
        out = []
        for entry in sorted(self.path.iterdir()):
            if entry.name == TENSORBOARD and entry.is_dir() and not entry.is_symlink():
                out += [
                    f"{TENSORBOARD}/{e.name}"
                    for e in sorted(entry.iterdir())
                    if not (e.name.startswith(EVENT_PREFIX) and e.is_file())
                ]
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


def write_whole(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all: into ``path.tmp``, flushed to the
    disk, then renamed over ``path``. Any failure removes the temporary file (so a full
    disk keeps its last free space) and leaves ``path`` as it was; an ``OSError`` is
    raised again naming ``path``.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     write_whole(Path(d) / "a.json", b"{}")
    ...     write_whole(Path(d) / "missing" / "a.json", b"{}")
    Traceback (most recent call last):
    ...
    FileNotFoundError: [Errno 2] No such file or directory: '.../missing/a.json'
    """
    tmp = path.with_name(path.name + TMP)
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        with suppress(OSError):
            tmp.unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise OSError(e.errno, e.strerror, str(path)) from None
        raise


def is_disk_fault(error: BaseException) -> bool:
    """Whether ``error`` says the disk cannot take what a run writes (full, read-only,
    not permitted, failing), as opposed to a fault of the program."""
    return isinstance(error, OSError) and error.errno in DISK_FAULTS


def fault_message(error: OSError, run_dir: Path | str) -> str:
    """What failed in run ``run_dir``, and what to do: free space or make the directory
    writable, then ``--resume`` it (or, if it had no checkpoint yet, run it again).

    >>> e = OSError(errno.ENOSPC, "No space left on device", "runs/a/latest.pt")
    >>> print(fault_message(e, "runs/a"))
    no space left on device while writing runs/a/latest.pt: free some space, then run the
    same command again
    """
    cause = (error.strerror or str(error)).lower()
    where = error.filename if error.filename is not None else run_dir
    remedy = REMEDIES.get(error.errno or 0, "check the disk")
    if RunDirectory(run_dir).checkpointed:
        then = f"continue with --resume {run_dir} (its last checkpoint is intact)"
    else:
        then = "run the same command again"
    return f"{cause} while writing {where}: {remedy}, then {then}"


def _size(n: int) -> str:
    """A number of bytes for people.

    >>> _size(512), _size(26_176), _size(3_500_000)
    ('512 bytes', '26 kB', '3.5 MB')
    """
    if n < 1000:
        return f"{n} bytes"
    if n < 1_000_000:
        return f"{n / 1000:.0f} kB"
    return f"{n / 1e6:.1f} MB"


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
