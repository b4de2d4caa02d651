"""``big2 serve``: play three agents and replay saved games in a browser.

One local process serves the page and a small JSON API, on loopback by default. It is
built on the standard library's ``http.server`` rather than a web framework: the page is
for one person on their own machine, it needs a handful of routes and no async, and so
``big2`` gains no dependency to install or keep up with. The page's files
(``big2/app/static``) ship in the package and load nothing from the network.

Routes (JSON in and out; an error is ``{"error": message}`` with a 4xx status):

- ``GET /``: the game page; ``GET /replay``: the replay page; ``GET /static/NAME``;
- ``GET /api/state``: the current game (:meth:`big2.app.table.Table.state`);
- ``POST /api/new`` ``{"seed": N or null}``: a new game;
- ``POST /api/move`` ``{"game", "version", "cards": ["3D", ...]}`` (no cards: pass);
  409 when the page is stale (another tab, a lost connection), 400 for an illegal choice;
- ``GET /api/logs``: the saved games; ``GET /api/logs/NAME``: one as replay frames;
- ``POST /api/frames`` (a log's JSON text as the body): replay frames, or 400 naming
  what is wrong with the log.

:func:`replay_html` writes the replay page and one game's frames as one self-contained
file (``big2 replay --html LOG``).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from big2.app.table import Refused, Table, frames
from big2.log import GameLog

STATIC = resources.files("big2.app") / "static"
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
         ".css": "text/css; charset=utf-8"}  # fmt: skip
PAGES = {"/": "play.html", "/replay": "replay.html"}
LOG_NAME = re.compile(r"^[\w.-]+\.json$")  # a file directly in the log folder, nothing else
MAX_BODY = 2_000_000  # bytes: a game log is a few kilobytes


class Server(ThreadingHTTPServer):
    """The HTTP server, holding the :class:`Table` and the log folder."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], table: Table, log_dir: Path) -> None:
        super().__init__(address, Handler)
        self.table, self.log_dir = table, log_dir

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}/"

    def start(self) -> threading.Thread:
        """Serve in a background thread (tests; ``serve_forever`` for the command)."""
        thread = threading.Thread(target=self.serve_forever, daemon=True)
        thread.start()
        return thread


class Handler(BaseHTTPRequestHandler):
    """Routes requests to the table, the log folder and the page's files."""

    server: Server

    def do_GET(self) -> None:
        path = urlparse(self.path).path
        if path in PAGES:
            self._file(PAGES[path])
        elif path.startswith("/static/"):
            self._file(path.removeprefix("/static/"))
        elif path == "/api/state":
            self._json(self.server.table.state())
        elif path == "/api/logs":
            self._json({"logs": self._logs()})
        elif path.startswith("/api/logs/"):
            self._saved(unquote(path.removeprefix("/api/logs/")))
        else:
            self._error(HTTPStatus.NOT_FOUND, f"nothing at {path}")

    def do_POST(self) -> None:
        path = urlparse(self.path).path
        routes: dict[str, Callable[[bytes], None]] = {
            "/api/new": self._new, "/api/move": self._move, "/api/frames": self._frames,
        }  # fmt: skip
        if path not in routes:
            self._error(HTTPStatus.NOT_FOUND, f"nothing at {path}")
            return
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self._error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "that is too large for a game log")
            return
        routes[path](self.rfile.read(length))

    # --- the game

    def _new(self, body: bytes) -> None:
        data = _object(body)
        seed = data.get("seed") if data is not None else None
        whole = isinstance(seed, int) and not isinstance(seed, bool)
        if data is None or not (seed is None or (whole and seed >= 0)):
            self._error(HTTPStatus.BAD_REQUEST, "a new game takes {\"seed\": a whole number "
                        "0 or more, or null}")  # fmt: skip
            return
        self._json(self.server.table.new(seed))

    def _move(self, body: bytes) -> None:
        data = _object(body)
        cards = data.get("cards") if data is not None else None
        if (data is None or not isinstance(data.get("game"), str)
                or not isinstance(data.get("version"), int) or not isinstance(cards, list)
                or not all(isinstance(c, str) for c in cards)):  # fmt: skip
            self._error(HTTPStatus.BAD_REQUEST, "a move is {\"game\": id, \"version\": "
                        "moves so far, \"cards\": [card text, ...]}")  # fmt: skip
            return
        try:
            self._json(self.server.table.move(data["game"], data["version"], cards))
        except Refused as e:
            status = HTTPStatus.CONFLICT if e.stale else HTTPStatus.BAD_REQUEST
            self._json({"error": str(e), "state": self.server.table.state()}, status)

    # --- replays

    def _logs(self) -> list[str]:
        folder = self.server.log_dir
        found = folder.glob("*.json") if folder.is_dir() else []
        return sorted((p.name for p in found), reverse=True)

    def _saved(self, name: str) -> None:
        path = self.server.log_dir / name
        if not LOG_NAME.match(name) or not path.is_file():
            self._error(HTTPStatus.NOT_FOUND, f"no saved game {name!r} in {self.server.log_dir}")
            return
        self._replay(path.read_bytes(), name)

    def _frames(self, body: bytes) -> None:
        self._replay(body, "the file")

    def _replay(self, text: bytes, name: str) -> None:
        try:
            log = GameLog.from_json(text.decode("utf-8"))
            shots = frames(log)
        except UnicodeDecodeError:
            self._error(HTTPStatus.BAD_REQUEST, f"{name} is not a big2 game log (not text)")
        except ValueError as e:
            self._error(HTTPStatus.BAD_REQUEST, f"{name} cannot be replayed: {e}")
        else:
            self._json({"name": name, "rules": log.rules.name, "frames": shots})

    # --- responses

    def _file(self, name: str) -> None:
        resource = STATIC / name
        suffix = Path(name).suffix
        if "/" in name or suffix not in TYPES or not resource.is_file():
            self._error(HTTPStatus.NOT_FOUND, f"no page file {name!r}")
            return
        self._send(resource.read_bytes(), TYPES[suffix])

    def _json(self, data: Any, status: HTTPStatus = HTTPStatus.OK) -> None:
        self._send(json.dumps(data).encode("utf-8"), "application/json", status)

    def _error(self, status: HTTPStatus, message: str) -> None:
        self._json({"error": message}, status)

    def _send(self, body: bytes, kind: str, status: HTTPStatus = HTTPStatus.OK) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the page reports what matters."""


def _object(body: bytes) -> dict[str, Any] | None:
    """The JSON object in ``body`` (empty: ``{}``), or None when it is not one."""
    try:
        data = json.loads(body or b"{}")
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


def replay_html(log: GameLog) -> str:
    """The replay page with ``log``'s frames inside: one file that needs no server and
    loads nothing from the network. A log that cannot be replayed raises ValueError."""
    data = {"name": "", "rules": log.rules.name, "frames": frames(log)}
    page = (STATIC / "replay.html").read_text(encoding="utf-8")
    css = (STATIC / "big2.css").read_text(encoding="utf-8")
    scripts = "".join((STATIC / n).read_text(encoding="utf-8") for n in ("cards.js", "replay.js"))
    embedded = json.dumps(data).replace("</", "<\\/")  # no "</script>" inside the script
    page = page.replace('<link rel="stylesheet" href="/static/big2.css">', f"<style>{css}</style>")
    page = re.sub(r'<script src="/static/[\w.]+"></script>\s*', "", page)
    tail = f"<script>window.BIG2_REPLAY = {embedded};</script>\n<script>{scripts}</script>\n"
    return page.replace("</body>", tail + "</body>")
