"""An exclusive lock on a directory, held for a process's life: one run or study at a time.

The lock is an OS-level ``flock`` on a file inside the directory, so the kernel releases
it when its holder exits, however it exits (a crash, ``kill -9``, a power cut followed by
a reboot): a lock file left by a dead process is simply taken over. The file records who
holds it (process id, host, command, start time), and a second process that finds the
lock held is refused at once with those details. The holder deletes the file when it
lets go, so a directory is left as it was found.

A directory the process cannot write in (a read-only file system, an immutable folder, no
permission, no room for a file) is refused with :class:`Unwritable`, naming it and what
to do, before the holder starts its work; so is one that cannot be created.

Why not the ``filelock`` package: it truncates the lock file on every attempt to take it,
so a refused contender would erase the holder's details before reporting them.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d, DirectoryLock(Path(d), "run") as lock:
...     DirectoryLock(Path(d), "run").acquire()
Traceback (most recent call last):
...
training.lock.Locked: run directory ... is in use by process ...
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

LOCK_FILE = ".lock"


class Locked(ValueError):
    """Another live process holds the directory's lock."""


class Unwritable(ValueError):
    """The directory cannot be created or written in; the message says why and what to do."""


# what to do about an OSError of these numbers (others: check the disk)
REMEDIES = {
    errno.ENOSPC: "free some space",
    errno.EDQUOT: "free some space (the disk quota is used up)",
    errno.EROFS: "mount its file system read-write",
    errno.EACCES: "give this user write permission",
    errno.EPERM: "make it writable (if lsattr -d shows it immutable, chattr -i clears that)",
}


def unwritable(what: str, directory: Path, error: OSError) -> Unwritable:
    """The refusal of ``what`` directory ``directory``, which raised ``error`` when written.

    >>> e = PermissionError(errno.EACCES, "Permission denied", "runs/a/.lock")
    >>> print(unwritable("run", Path("runs/a"), e))
    cannot write in run directory runs/a: permission denied (runs/a/.lock); give this user
    write permission, or choose another directory
    """
    cause = (error.strerror or str(error)).lower()
    if error.filename is not None and Path(error.filename) != directory:
        cause += f" ({error.filename})"
    remedy = REMEDIES.get(error.errno or 0, "check the disk")
    return Unwritable(
        f"cannot write in {what} directory {directory}: {cause}; {remedy}, or choose "
        f"another directory"
    )


class DirectoryLock:
    """An exclusive lock on ``directory`` (the file ``directory/.lock``); ``what`` names the
    directory's kind in messages ("run", "study", "cell")."""

    def __init__(self, directory: Path, what: str) -> None:
        self.directory, self.what = Path(directory), what
        self.path = self.directory / LOCK_FILE
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        """Whether this object holds the lock."""
        return self._fd is not None

    def acquire(self) -> None:
        """Take the lock (the directory must exist), or raise :class:`Locked` naming the
        holder, or :class:`Unwritable` if the lock file cannot be made."""
        while self._fd is None:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as e:
                raise unwritable(self.what, self.directory, e) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise Locked(self._refusal()) from None
            if self._same_file(fd):  # not unlinked by a holder that gave up meanwhile
                self._fd = fd
            else:
                os.close(fd)
        self._write_holder()

    def _same_file(self, fd: int) -> bool:
        try:
            return os.stat(self.path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            return False

    def _write_holder(self) -> None:
        assert self._fd is not None
        holder = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "command": " ".join(sys.argv),
            "since": time.strftime("%Y-%m-%d %H:%M:%S"),
        }
        with suppress(OSError):  # a full disk: the lock holds without the details
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, json.dumps(holder).encode(), 0)

    def _refusal(self) -> str:
        holder = self.holder()
        who = f"process {holder.get('pid', '?')}"
        if holder.get("host"):
            who += f" on {holder['host']}"
        if holder.get("command"):
            who += f" ({holder['command']})"
        since = f" since {holder['since']}" if holder.get("since") else ""
        return (
            f"{self.what} directory {self.directory} is in use by {who}{since}; wait for it "
            f"to finish, stop it, or choose another directory"
        )

    def holder(self) -> dict[str, Any]:
        """What the lock file says about its holder ({} if it says nothing readable)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def release(self) -> None:
        """Give the lock up, deleting the lock file first (while still holding it, so a
        process waiting on the old file sees it was unlinked and tries again)."""
        if self._fd is None:
            return
        with suppress(OSError):  # a directory made read-only meanwhile: the file stays, unlocked
            self.path.unlink(missing_ok=True)
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> DirectoryLock:
        if not self.held:
            self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def check_writable(directory: Path, what: str) -> None:
    """Raise :class:`Unwritable` unless a file can be made (and removed) in ``directory``.

    >>> check_writable(Path(tempfile.gettempdir()), "run")
    """
    try:
        fd, name = tempfile.mkstemp(prefix=".write-test-", dir=directory)
        os.close(fd)
        os.unlink(name)
    except OSError as e:  # said of the directory: the test file's name means nothing
        raise unwritable(what, directory, OSError(e.errno, e.strerror)) from None


@contextmanager
def locked(directory: Path, what: str) -> Iterator[DirectoryLock]:
    """Hold ``directory``'s lock for the block, creating the directory if it is missing; a
    directory made here that holds nothing but the lock file afterwards is removed again.

    Raises :class:`Locked` if another process holds it, :class:`Unwritable` if it cannot
    be created or written in (checked before the block runs), and ``ValueError`` if
    ``directory`` is a file.
    """
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise ValueError(f"{what} directory {directory} is a file, not a directory")
    created = not directory.exists()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise unwritable(what, directory, e) from None
    lock = DirectoryLock(directory, what)
    try:
        lock.acquire()
        check_writable(directory, what)
        yield lock
    finally:
        lock.release()
        if created:
            with suppress(OSError):  # not empty: it holds what the block wrote, or a rival's lock
                directory.rmdir()
