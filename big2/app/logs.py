"""Where the apps keep game logs: one JSON file per game in a folder, never lost.

``big2 play`` and ``big2 serve`` save every game here. If the folder stops working
while a game is played, the log goes to the system's temporary folder instead and the
caller is told where.

>>> import tempfile
>>> from big2.game import Game
>>> folder = Path(tempfile.mkdtemp())
>>> path, problem = save_log(Game(seed=1).log, folder, "game-test.json")
>>> path == folder / "game-test.json", problem
(True, None)
"""

from __future__ import annotations

import tempfile
from datetime import datetime
from pathlib import Path

from big2.log import GameLog


def new_log_name() -> str:
    """A file name for a new game's log: ``game-YYYYmmdd-HHMMSS-micro.json``."""
    return f"game-{datetime.now().strftime('%Y%m%d-%H%M%S-%f')}.json"


def save_log(log: GameLog, folder: Path, name: str) -> tuple[Path, str | None]:
    """Write ``log`` as ``folder/name`` (replacing an earlier save of the same game);
    the path, and None or why it went to the temporary folder instead."""
    text = log.to_json(indent=1)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
        return folder / name, None
    except OSError as e:
        fallback = Path(tempfile.gettempdir()) / "big2_logs"
        fallback.mkdir(parents=True, exist_ok=True)
        (fallback / name).write_text(text, encoding="utf-8")
        return fallback / name, f"could not save the log in {folder} ({e.strerror or e})"
