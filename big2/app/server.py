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
- ``POST /api/hint`` ``{"game", "version"}``: what the hint agent would play in your
  seat (:meth:`big2.app.table.Table.hint`); 409 and 400 as for a move;
- ``GET /api/logs``: the saved games; ``GET /api/logs/NAME``: one as replay frames;
- ``POST /api/frames`` (a log's JSON text as the body): replay frames, or 400 naming
  what is wrong with the log.

Safety. The server is for the person at this machine, and any web page that person
visits can make their browser send it requests, so it trusts no request by default:

- It answers only requests addressed to one of its own names at its port: ``127.0.0.1``,
  ``localhost``, ``[::1]``, the ``--host`` it listens on, and each ``--allow-host NAME``
  (``NAME`` or ``NAME:PORT``). When the browser says which page sent a request
  (``Origin``), that page must be one of the same. Anything else is refused with 403 and
  changes nothing: another site's page (cross-site requests) and a site whose name has
  been pointed at this machine (DNS rebinding) get nothing.
- ``POST`` bodies are JSON and must say so (``Content-Type: application/json``, else
  415): a browser sends no such request across sites without asking first (a CORS
  preflight), and the server approves none.
- It listens on loopback only. Another address (``--host 0.0.0.0``, a LAN address) needs
  ``allow_network`` (``--allow-network``): then anyone who can reach the address can play,
  read every saved game in the log folder and start games that write log files there; there
  is no password and no encryption. Requests addressed to an IP address at the port are
  then answered too (a DNS-rebinding page is addressed by a name, never by an address).
- A client has ``timeout`` seconds (20 by default) for each read, and for the whole body
  of a request: a half-sent request is answered with 400 or dropped, and holds no thread
  for long. Bursts of connections queue (``request_queue_size`` 128) instead of being
  reset.
- A malformed request gets 400 and what was wrong: a body that is not JSON, nested too
  deeply or holding a number too long to read, a ``Content-Length`` that is not a number of
  bytes or more bytes than arrive, text that is not UTF-8.
- Saved games are the files :func:`big2.app.logs.log_names` lists: regular files (not
  symbolic links) directly in the log folder, named ``*.json``, not hidden;
  :func:`~big2.app.logs.read_log` opens the same names and no others. Answers name
  files, never the folder.
- The :class:`~big2.app.table.Table` deletes the logs of games it started and left
  unfinished beyond the newest ``keep_unfinished`` (see there); nothing else is deleted.

:func:`big2.app.page.replay_html` writes the replay page and one game's frames as one self-contained
file (``big2 replay --html LOG``).
"""

from __future__ import annotations

import json
import re
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from big2.app.addresses import (
    LOOPBACK_NAMES,
    exposure_problem,
    host_and_port,
    is_ip,
    wildcard,
)
from big2.app.logs import MAX_BODY, log_names, read_log
from big2.app.page import STATIC, replay_html
from big2.app.table import Refused, Table, replay_data
from big2.log import GameLog

TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}
PAGES = {"/": "play.html", "/replay": "replay.html"}
TIMEOUT = 20.0  # seconds a client has for each read, and for a request's whole body
QUEUE = 128  # connections waiting to be accepted
NEW_GAME = 'a new game takes {"seed": a whole number 0 or more, or null}'
MOVE = 'a move is {"game": id, "version": moves so far, "cards": [card text, ...]}'
HINT = 'a hint request is {"game": id, "version": moves so far}'


class BadRequest(Exception):
    """A request refused with ``status`` and a message saying what was wrong."""

    def __init__(self, message: str, status: HTTPStatus = HTTPStatus.BAD_REQUEST) -> None:
        super().__init__(message)
        self.status = status


class Server(ThreadingHTTPServer):
    """The HTTP server, holding the :class:`Table` and the log folder.

    ``allow_hosts``: more names to answer to (``NAME`` at this port, or ``NAME:PORT``);
    ``allow_network``: listen on an address other machines reach; ``timeout``: seconds a
    client has for each read and for a request's body (module docstring: Safety).
    """

    daemon_threads = True
    request_queue_size = QUEUE

    def __init__(
        self,
        address: tuple[str, int],
        table: Table,
        log_dir: Path,
        *,
        allow_hosts: Sequence[str] = (),
        allow_network: bool = False,
        timeout: float = TIMEOUT,
    ) -> None:
        host, port = address[0].strip("[]"), address[1]
        if problem := exposure_problem(host, allow_network):
            raise ValueError(problem)
        extra = [(text, host_and_port(text, 0)) for text in allow_hosts]
        if bad := [text for text, parsed in extra if parsed is None]:
            raise ValueError(f"--allow-host {bad[0]!r} is not a host name (NAME or NAME:PORT)")
        self.extra = [parsed for _, parsed in extra if parsed is not None]  # port 0: ours
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.table, self.log_dir = table, log_dir
        self.allow_network, self.request_timeout = allow_network, timeout
        bound = [host.lower()] if host and not wildcard(host) else []
        self.own_names = {*LOOPBACK_NAMES, *bound}
        super().__init__((host, port), Handler)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        host = str(self.server_address[0])
        return f"http://{f'[{host}]' if ':' in host else host}:{self.port}/"

    def names(self) -> list[str]:
        """The ``Host`` values this server answers to (for messages)."""
        own = [f"[{n}]" if ":" in n else n for n in sorted(self.own_names)]
        extra = [f"{n}:{p or self.port}" for n, p in self.extra]
        return [f"{n}:{self.port}" for n in own] + extra

    def addressed_here(self, name: str, port: int) -> bool:
        """Whether a request for ``name:port`` is addressed to this server."""
        if any(name == n and port == (p or self.port) for n, p in self.extra):
            return True
        if port != self.port:
            return False
        return name in self.own_names or (self.allow_network and is_ip(name))

    def start(self) -> threading.Thread:
        """Serve in a background thread (tests; ``serve_forever`` for the command)."""
        thread = threading.Thread(target=self.serve_forever, daemon=True)
        thread.start()
        return thread


class Handler(BaseHTTPRequestHandler):
    """Routes requests to the table, the log folder and the page's files."""

    server: Server

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.request_timeout)  # each read and write

    def do_GET(self) -> None:
        self._answer(self._get)

    def do_POST(self) -> None:
        self._answer(self._post)

    def _answer(self, route: Callable[[str], None]) -> None:
        """Run ``route`` on the request's path if the request is addressed here; a
        :class:`BadRequest` is answered with its status, anything unexpected with 500."""
        try:
            self._check_sender()
            route(urlsplit(self.path).path)
        except BadRequest as e:
            self._error(e.status, str(e))
        except (ConnectionError, TimeoutError):  # the client left or stalled: nobody to tell
            self.close_connection = True
        except Exception as e:  # a fault of the server's: say so, keep serving
            traceback.print_exc(file=sys.stderr)
            self._error(
                HTTPStatus.INTERNAL_SERVER_ERROR,
                f"the server failed on this request ({type(e).__name__})",
            )

    def _check_sender(self) -> None:
        """Refuse (403) a request not addressed to this server's own names, or sent by a
        page that is not its own (module docstring: Safety)."""
        hosts = self.headers.get_all("Host") or []
        where = host_and_port(hosts[0], 80) if len(hosts) == 1 else None
        if where is None or not self.server.addressed_here(*where):
            asked = f"Host {hosts[0]!r}" if len(hosts) == 1 else f"{len(hosts)} Host headers"
            raise BadRequest(
                f"big2 serve answers requests addressed to "
                f"{', '.join(self.server.names())}, not {asked}; start it with "
                f"--allow-host NAME to answer to another name",
                HTTPStatus.FORBIDDEN,
            )
        origin = self.headers.get("Origin")
        if origin is not None and not self._own_origin(origin):
            raise BadRequest(
                f"big2 serve answers only its own pages, not a page at {origin[:100]!r}",
                HTTPStatus.FORBIDDEN,
            )

    def _own_origin(self, origin: str) -> bool:
        parts = urlsplit(origin)
        where = host_and_port(parts.netloc, 80)
        return (
            parts.scheme == "http"
            and where is not None
            and not parts.path
            and self.server.addressed_here(*where)
        )

    def _get(self, path: str) -> None:
        if path in PAGES:
            self._file(PAGES[path])
        elif path.startswith("/static/"):
            self._file(path.removeprefix("/static/"))
        elif path == "/api/state":
            self._json(self.server.table.state())
        elif path == "/api/logs":
            self._json({"logs": log_names(self.server.log_dir)})
        elif path.startswith("/api/logs/"):
            self._saved(unquote(path.removeprefix("/api/logs/")))
        else:
            raise BadRequest(f"nothing at {path}", HTTPStatus.NOT_FOUND)

    def _post(self, path: str) -> None:
        routes: dict[str, Callable[[bytes], None]] = {
            "/api/new": self._new,
            "/api/move": self._move,
            "/api/hint": self._hint,
            "/api/frames": self._frames,
        }
        if path not in routes:
            raise BadRequest(f"nothing at {path}", HTTPStatus.NOT_FOUND)
        kind = self.headers.get("Content-Type")
        if kind is None or self.headers.get_content_type() != "application/json":
            raise BadRequest(
                f"send the body as JSON with Content-Type: application/json, "
                f"not {kind or 'no Content-Type'}",
                HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
            )
        routes[path](self._body())

    def _body(self) -> bytes:
        """The request's body: ``Content-Length`` bytes, within the timeout."""
        if self.headers.get("Transfer-Encoding"):
            raise BadRequest(
                "send the body with a Content-Length, not a Transfer-Encoding",
                HTTPStatus.LENGTH_REQUIRED,
            )
        lengths = self.headers.get_all("Content-Length") or ["0"]
        text = lengths[0].strip()
        if len(lengths) > 1 or not re.fullmatch(r"[0-9]+", text):
            raise BadRequest(
                f"Content-Length must be one number of bytes, 0 or more, not "
                f"{', '.join(lengths)[:40]!r}"
            )
        length = int(text) if len(text) < 12 else MAX_BODY + 1
        if length > MAX_BODY:
            raise BadRequest(
                "that is too large for a game log (2 MB at most)",
                HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
            )
        return self._read(length)

    def _read(self, length: int) -> bytes:
        body = bytearray()
        deadline = time.monotonic() + self.server.request_timeout
        try:
            while len(body) < length and time.monotonic() < deadline:
                chunk = self.rfile.read1(length - len(body))
                if not chunk:
                    break
                body += chunk
        except TimeoutError:
            pass
        if len(body) < length:
            self.close_connection = True
            raise BadRequest(
                f"the body stopped after {len(body)} of the {length} bytes its "
                f"Content-Length announced"
            )
        return bytes(body)

    # --- the game

    def _new(self, body: bytes) -> None:
        seed = _object(body, NEW_GAME).get("seed")
        whole = isinstance(seed, int) and not isinstance(seed, bool)
        if not (seed is None or (whole and seed >= 0)):
            raise BadRequest(NEW_GAME)
        self._json(self.server.table.new(seed))

    def _move(self, body: bytes) -> None:
        data = _object(body, MOVE)
        cards = data.get("cards")
        typed = isinstance(data.get("game"), str) and isinstance(data.get("version"), int)
        if not (typed and isinstance(cards, list) and all(isinstance(c, str) for c in cards)):
            raise BadRequest(MOVE)
        self._at_table(lambda table: table.move(data["game"], data["version"], cards))

    def _hint(self, body: bytes) -> None:
        data = _object(body, HINT)
        if not (isinstance(data.get("game"), str) and isinstance(data.get("version"), int)):
            raise BadRequest(HINT)
        self._at_table(lambda table: {"hint": table.hint(data["game"], data["version"])})

    def _at_table(self, ask: Callable[[Table], dict[str, Any]]) -> None:
        """Answer with what ``ask`` returns, or a :class:`Refused` choice with its reason
        and the game as it stands (409 for a stale page, else 400)."""
        try:
            self._json(ask(self.server.table))
        except Refused as e:
            status = HTTPStatus.CONFLICT if e.stale else HTTPStatus.BAD_REQUEST
            self._json({"error": str(e), "state": self.server.table.state()}, status)

    # --- replays

    def _saved(self, name: str) -> None:
        text = read_log(self.server.log_dir, name)
        if text is None:
            raise BadRequest(f"no saved game {name!r}", HTTPStatus.NOT_FOUND)
        self._replay(text, name)

    def _frames(self, body: bytes) -> None:
        self._replay(body, "the file")

    def _replay(self, text: bytes, name: str) -> None:
        if len(text) > MAX_BODY:
            raise BadRequest(f"{name} is too large for a game log (2 MB at most)")
        try:
            data = replay_data(GameLog.from_json(text.decode("utf-8")), name)
        except UnicodeDecodeError:
            raise BadRequest(f"{name} is not a big2 game log (not UTF-8 text)") from None
        except RecursionError:
            raise BadRequest(
                f"{name} cannot be replayed: corrupt game log (nested too deeply)"
            ) from None
        except ValueError as e:
            raise BadRequest(f"{name} cannot be replayed: {e}") from None
        self._json(data)

    # --- responses

    def _file(self, name: str) -> None:
        resource = STATIC / name
        suffix = Path(name).suffix
        if "/" in name or suffix not in TYPES or not resource.is_file():
            raise BadRequest(f"no page file {name!r}", HTTPStatus.NOT_FOUND)
        self._send(resource.read_bytes(), TYPES[suffix])

    def _json(self, data: Any, status: HTTPStatus = HTTPStatus.OK) -> None:
        self._send(json.dumps(data).encode("utf-8"), "application/json", status)

    def _error(self, status: HTTPStatus, message: str) -> None:
        self._json({"error": message}, status)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The base class's errors (a malformed request line or header) as JSON too."""
        self.close_connection = True
        status = HTTPStatus(code)
        self._error(status, message or f"{status.phrase}: {status.description}")

    def _send(self, body: bytes, kind: str, status: HTTPStatus = HTTPStatus.OK) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the page reports what matters."""


def _object(body: bytes, expected: str) -> dict[str, Any]:
    """The JSON object in ``body`` (empty: ``{}``); anything else raises
    :class:`BadRequest` saying what was wrong and ``expected``."""
    try:
        data = json.loads(body or b"{}")
    except UnicodeDecodeError:
        raise BadRequest(f"the body is not UTF-8 text; {expected}") from None
    except RecursionError:
        raise BadRequest(f"the body is nested too deeply; {expected}") from None
    except ValueError as e:  # not JSON, or a number too long to read
        raise BadRequest(f"the body is not JSON ({str(e)[:80]}); {expected}") from None
    if not isinstance(data, dict):
        raise BadRequest(expected)
    return data


__all__ = ["Handler", "Server", "replay_html"]
