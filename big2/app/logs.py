"""Where the apps keep game logs: one JSON file per game in a folder, never lost.

``big2 play`` and ``big2 serve`` save every game here, after every move. A save replaces
the file in one step (a temporary file beside it, then a rename), so a process stopped
in the middle of a save leaves the previous save whole. If the folder stops working while
a game is played, the log goes to a private folder of the user's in the system's
temporary folder instead (:func:`fallback_folder`), and the caller is told where.

>>> import tempfile
>>> from big2.game import Game
>>> folder = Path(tempfile.mkdtemp())
>>> path, problem = save_log(Game(seed=1).log, folder, "game-test.json")
>>> path == folder / "game-test.json", problem
(True, None)
"""

from __future__ import annotations

import os
import secrets
import stat
import tempfile
from datetime import datetime
from pathlib import Path

from big2.log import GameLog

MAX_BODY = 2_000_000  # bytes: the most of a log that is read (a game's is a few kilobytes)

# O_NOFOLLOW where the system has it: a planted link is refused, never written through
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)


def new_log_name() -> str:
    """A file name for a new game's log: ``game-YYYYmmdd-HHMMSS-micro.json``."""
    return f"game-{datetime.now().strftime('%Y%m%d-%H%M%S-%f')}.json"


def save_log(log: GameLog, folder: Path, name: str) -> tuple[Path, str | None]:
    """Write ``log`` as ``folder/name`` (replacing an earlier save of the same game);
    the path, and None or why it went to :func:`fallback_folder` instead."""
    text = log.to_json(indent=1)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        return write_replacing(folder / name, text), None
    except OSError as e:
        path = write_replacing(fallback_folder() / name, text)
        return path, f"could not save the log in {folder} ({e.strerror or e})"


def write_replacing(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` in one step: a new temporary file beside it (created
    exclusively, never through a link), then renamed over ``path``. ``path`` is returned.

    An error, or a signal that stops the process mid-write, leaves ``path`` as it was and
    removes the temporary file.

    >>> import tempfile
    >>> target = Path(tempfile.mkdtemp()) / "a.json"
    >>> write_replacing(target, "{}").read_text()
    '{}'
    """
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        descriptor = os.open(temporary, _CREATE, 0o666)
        with open(descriptor, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, path)  # a link at ``path`` is replaced, not followed
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return path


def fallback_folder() -> Path:
    """A folder for logs that only this user can enter: ``big2_logs-UID`` in the system's
    temporary folder, made with mode 0700.

    On a shared machine anyone can create that name first. It is used only if it is a
    real folder (not a link) owned by this user that nobody else may write in; otherwise
    a new private folder with a random name is made.

    >>> folder = fallback_folder()
    >>> folder.is_dir() and oct(folder.stat().st_mode & 0o777)
    '0o700'
    """
    uid = os.getuid() if hasattr(os, "getuid") else None
    folder = Path(tempfile.gettempdir()) / f"big2_logs-{uid if uid is not None else 'user'}"
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    except OSError:
        return Path(tempfile.mkdtemp(prefix="big2_logs-"))
    if _private(folder, uid):
        return folder
    return Path(tempfile.mkdtemp(prefix="big2_logs-"))


def _private(folder: Path, uid: int | None) -> bool:
    """Whether ``folder`` is a real folder, owned by ``uid``, closed to everyone else."""
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    if uid is None:  # no owners or modes to check (Windows: the temporary folder is the user's)
        return stat.S_ISDIR(info.st_mode)
    return stat.S_ISDIR(info.st_mode) and info.st_uid == uid and not info.st_mode & 0o077


def is_log_name(name: str) -> bool:
    """Whether ``name`` may name a saved game: ``*.json``, not hidden, no folder in it.

    >>> is_log_name("game copy (1).json"), is_log_name("../x.json"), is_log_name(".x.json")
    (True, False, False)
    """
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # a file name that is not text: no URL can name it
        return False
    bad = ("/", "\\", "\0")
    return name.endswith(".json") and not name.startswith(".") and not any(b in name for b in bad)


def log_names(folder: Path) -> list[str]:
    """The saved games in ``folder``, latest name first: regular files (not symbolic
    links) directly in it whose names pass :func:`is_log_name`; the names
    :func:`read_log` opens."""
    try:
        with os.scandir(folder) as entries:
            found = [
                e.name for e in entries if is_log_name(e.name) and e.is_file(follow_symlinks=False)
            ]
    except OSError:
        return []
    return sorted(found, reverse=True)


def read_log(folder: Path, name: str) -> bytes | None:
    """The bytes of the saved game ``name`` in ``folder`` (at most ``MAX_BODY + 1``), or
    None when :func:`log_names` would not list it."""
    if not is_log_name(name):
        return None
    path = folder / name
    try:
        if path.is_symlink():
            return None
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                return None
            return file.read(MAX_BODY + 1)
    except OSError:
        return None
