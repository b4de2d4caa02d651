"""``big2 serve`` on a machine where other web pages, other programs and slow or broken
clients can reach it: it answers only its own pages, refuses what is malformed with a
reason, survives slow clients and bursts, and keeps its log folder in order.

No browser here (``tests/test_browser.py`` has those); requests are sent as raw bytes
where the point is a header a normal client would not send.
"""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from big2.app.cli import main
from big2.app.server import Server
from big2.app.table import Table, cards_list
from big2.game import Game
from big2.hand_ranking import PASS
from big2.log import GameLog
from big2.players import GreedyAgent, RandomAgent, play

SEED_BODY = b'{"seed": 1}'


def make_server(tmp_path: Path, **options: Any) -> Server:
    agents = [RandomAgent(seed) for seed in (1, 2, 3)]
    table = Table(agents, ["random:1", "random:2", "random:3"], log_dir=tmp_path / "logs")
    return Server(("127.0.0.1", 0), table, tmp_path / "logs", **options)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    server = make_server(tmp_path, timeout=0.5)  # a short timeout keeps the slow tests fast
    server.start()
    yield server
    server.shutdown()
    server.server_close()


def port_of(server: Server) -> int:
    return int(server.server_address[1])


def here(server: Server) -> str:
    return f"127.0.0.1:{port_of(server)}"


def ask(
    server: Server, method: str, path: str, body: bytes | None = None, **headers: str
) -> tuple[int, Any]:
    """Status and JSON of one request; ``Host`` and ``Content-Type`` unless given."""
    sent = {"Host": here(server), "Content-Type": "application/json"}
    sent.update({k.replace("_", "-"): v for k, v in headers.items()})
    connection = http.client.HTTPConnection("127.0.0.1", port_of(server), timeout=10)
    try:
        connection.request(method, path, body, {k: v for k, v in sent.items() if v})
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def raw(server: Server, request: bytes) -> tuple[int, Any]:
    """Status and JSON of a request sent as these bytes."""
    with socket.create_connection(("127.0.0.1", port_of(server)), timeout=10) as client:
        client.sendall(request)
        return parse(read_all(client))


def read_all(client: socket.socket) -> bytes:
    answer = b""
    while chunk := client.recv(65536):
        answer += chunk
    return answer


def parse(answer: bytes) -> tuple[int, Any]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def written(server: Server) -> list[str]:
    folder = server.log_dir
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def finished_log(seed: int = 2) -> GameLog:
    return play(Game(seed=seed), GreedyAgent()).log


# --- who may ask


@pytest.mark.parametrize(
    "headers",
    [
        {"Host": "evil.example:{port}"},  # DNS rebinding: another site's name, this address
        {"Host": "evil.example"},
        {"Host": "127.0.0.1:1"},  # another port
        {"Host": "evil.example@127.0.0.1:{port}"},
        {"Origin": "http://evil.example"},  # another site's page, through the browser
        {"Origin": "http://127.0.0.1:1"},  # another local program's page
        {"Origin": "null"},
    ],
)
def test_requests_from_other_sites_are_refused_and_write_nothing(server, headers):
    headers = {k: v.format(port=port_of(server)) for k, v in headers.items()}
    asks = [("POST", "/api/new", SEED_BODY), ("GET", "/api/state", None), ("GET", "/", None)]
    for method, path, body in [*asks, ("GET", "/api/logs", None)]:
        status, data = ask(server, method, path, body, **headers)
        assert status == 403, (method, path)
        assert "answers" in data["error"]
    assert server.table.game is None and written(server) == []


@pytest.mark.parametrize("kind", ["text/plain", "application/x-www-form-urlencoded", ""])
def test_a_post_that_is_not_json_is_refused_and_writes_nothing(server, kind):
    status, data = ask(server, "POST", "/api/new", SEED_BODY, Content_Type=kind)
    assert status == 415 and "application/json" in data["error"]
    assert server.table.game is None and written(server) == []


def test_its_own_names_and_allowed_hosts_are_answered(tmp_path):
    server = make_server(tmp_path, allow_hosts=["big2.example", "proxy.example:80"])
    server.start()
    try:
        port = port_of(server)
        own = [f"localhost:{port}", f"[::1]:{port}", f"LOCALHOST:{port}"]
        for host in [*own, f"big2.example:{port}", "proxy.example"]:
            origin = f"http://{host}"
            assert ask(server, "GET", "/api/state", Host=host, Origin=origin)[0] == 200, host
        status, data = ask(server, "POST", "/api/new", SEED_BODY, Origin=f"http://{here(server)}")
        assert status == 200 and data["seed"] == 1
        assert ask(server, "GET", "/api/state", Host="big2.example:80")[0] == 403
    finally:
        server.shutdown()
        server.server_close()


def test_a_network_address_needs_allow_network(tmp_path, monkeypatch, capsys):
    table = Table([RandomAgent(1)] * 3, ["r"] * 3, log_dir=tmp_path / "logs")
    with pytest.raises(ValueError, match=r"reachable from other machines.*--allow-network"):
        Server(("0.0.0.0", 0), table, tmp_path / "logs")
    server = Server(("0.0.0.0", 0), table, tmp_path / "logs", allow_network=True)
    server.start()
    try:  # asked for by an address: answered; by a name: refused (rebinding)
        assert ask(server, "GET", "/api/state", Host=f"192.0.2.7:{port_of(server)}")[0] == 200
        assert ask(server, "GET", "/api/state", Host=f"rebind.example:{port_of(server)}")[0] == 403
    finally:
        server.shutdown()
        server.server_close()

    def served(self: Server) -> None:
        raise AssertionError("the server was started")

    monkeypatch.setattr(Server, "serve_forever", served)
    logs = str(tmp_path / "logs")
    argv = ["serve", "--agents", "random", "--host", "0.0.0.0", "--port", "0", "--log-dir", logs]
    with pytest.raises(SystemExit, match=r"big2 serve: --host 0\.0\.0\.0 is reachable"):
        main(argv)
    monkeypatch.setattr(Server, "serve_forever", lambda self: None)
    main([*argv, "--allow-network"])
    assert "anyone who can reach" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--port", "70000"], "0..65535"),
        (["--port", "-1"], "0..65535"),
        (["--keep-unfinished", "-1"], "0 or more"),
    ],
)
def test_bad_serve_options_are_argparse_errors(argv, words, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["serve", "--agents", "random", *argv])
    assert stop.value.code == 2
    assert words in capsys.readouterr().err


# --- slow, broken and many clients


def test_a_half_sent_request_is_dropped_after_the_timeout_and_blocks_no_one(server):
    head = f"POST /api/new HTTP/1.1\r\nHost: {here(server)}\r\nContent-Type: application/json\r\n"
    half_body = socket.create_connection(("127.0.0.1", port_of(server)), timeout=10)
    half_body.sendall(f"{head}Content-Length: 20\r\n\r\n".encode() + b'{"se')
    half_head = socket.create_connection(("127.0.0.1", port_of(server)), timeout=10)
    half_head.sendall(head.encode())
    assert ask(server, "GET", "/api/state")[0] == 200  # others are answered meanwhile
    with half_body, half_head:
        status, data = parse(read_all(half_body))  # the server gave up on it
        assert status == 400 and "4 of the 20 bytes" in data["error"]
        assert read_all(half_head) == b""  # no request line and headers: closed
    assert server.table.game is None and written(server) == []


def test_a_burst_of_50_clients_is_queued_and_answered(tmp_path):
    server = make_server(tmp_path)  # listening, not yet accepting: every client queues
    request = f"GET /api/state HTTP/1.0\r\nHost: {here(server)}\r\n\r\n".encode()
    clients: list[socket.socket] = []
    try:
        try:
            for _ in range(50):  # a full queue drops the connection: connect times out
                address = ("127.0.0.1", port_of(server))
                clients.append(socket.create_connection(address, timeout=3))
                clients[-1].sendall(request)
        finally:
            server.start()
        for client in clients:
            client.settimeout(10)
            assert parse(read_all(client))[0] == 200
    finally:
        for client in clients:
            client.close()
        server.shutdown()
        server.server_close()


def post(path: str, body: bytes, length: str | None = None, extra: str = "") -> bytes:
    size = str(len(body)) if length is None else length
    head = f"POST {path} HTTP/1.1\r\nHost: {{host}}\r\nContent-Type: application/json\r\n"
    head += f"Content-Length: {size}\r\n{extra}\r\n"
    return head.encode() + body


@pytest.mark.parametrize(
    "request_bytes, status, words",
    [
        (post("/api/new", b'{"seed": ' + b"7" * 5000 + b"}"), 400, "not JSON"),
        (post("/api/new", b"[" * 100_000), 400, "nested too deeply"),
        (post("/api/move", b'{"game": ' + b"[" * 100_000), 400, "nested too deeply"),
        (post("/api/frames", b"[" * 100_000), 400, "nested too deeply"),
        (post("/api/new", SEED_BODY, "abc"), 400, "Content-Length"),
        (post("/api/new", SEED_BODY, "-5"), 400, "Content-Length"),
        (post("/api/new", SEED_BODY, "9" * 5000), 413, "too large"),
        (post("/api/new", SEED_BODY, extra="Content-Length: 11\r\n"), 400, "Content-Length"),
        (post("/api/new", SEED_BODY, extra="Transfer-Encoding: chunked\r\n"), 411, "Content-"),
    ],
    ids=[
        "long seed",
        "nested new",
        "nested move",
        "nested frames",
        "length abc",
        "negative length",
        "long length",
        "two lengths",
        "chunked",
    ],
)
def test_malformed_requests_get_a_reason_and_change_nothing(server, request_bytes, status, words):
    got, data = raw(server, request_bytes.replace(b"{host}", here(server).encode()))
    assert got == status and words in data["error"], data
    assert server.table.game is None and written(server) == []


# --- the log folder


def finish(table: Table) -> None:
    """Play the person's seat to the end: pass when allowed, else the first legal move."""
    while not (state := table.state())["over"]:
        assert table.game is not None
        legal = table.game.legal_moves()
        cards = [] if PASS in legal else cards_list(legal[0].cards)
        table.move(state["game"], state["version"], cards)


def test_logs_of_unfinished_games_beyond_the_limit_are_deleted_and_nothing_else(tmp_path):
    folder, outside = tmp_path / "logs", tmp_path / "elsewhere.json"
    table = Table([GreedyAgent()] * 3, ["greedy"] * 3, log_dir=folder, keep_unfinished=2)
    table.new(seed=1)
    finish(table)
    done = Path(table.saved)
    left: list[Path] = []
    for seed in range(2, 7):  # five games left unfinished, one after another
        table.new(seed=seed)
        left.append(Path(table.saved))
    table.new(seed=7)  # beyond the newest two unfinished: the three oldest ...
    assert [p.exists() for p in left] == [False, False, False, True, True]
    for seed in range(8, 11):
        table.new(seed=seed)
        left.append(Path(table.saved))
    outside.write_bytes(left[-3].read_bytes())  # ... unless one is no longer what it saved:
    left[-3].unlink()
    left[-3].symlink_to(outside)  # a symbolic link now
    left[-2].write_bytes(done.read_bytes())  # another game now
    copied = folder / "a copy.json"
    copied.write_bytes(left[-1].read_bytes())  # a copy: not written by the table
    (folder / "notes.json").write_text("{}", encoding="utf-8")
    table.new(seed=11)
    table.new(seed=12)
    assert not left[3].exists() and not left[4].exists()  # saved by it and unchanged
    assert left[-3].is_symlink() and outside.exists() and left[-2].exists()
    assert done.exists() and copied.exists() and (folder / "notes.json").exists()
    assert [p.exists() for p in left[-3:]] == [True, True, True]


def test_every_listed_log_opens_and_nothing_outside_the_folder_does(server, tmp_path):
    folder, text = server.log_dir, finished_log().to_json()
    folder.mkdir()
    names = ["game copy (1).json", "50% #2 + more é.json"]
    for name in names:
        (folder / name).write_text(text, encoding="utf-8")
    (tmp_path / "secret.json").write_text(text, encoding="utf-8")
    (folder / "link.json").symlink_to(tmp_path / "secret.json")  # out of the folder
    (folder / "sub.json").mkdir()
    (folder / ".hidden.json").write_text(text, encoding="utf-8")
    status, data = ask(server, "GET", "/api/logs")
    assert status == 200 and data["logs"] == sorted(names, reverse=True)
    for name in names:
        status, data = ask(server, "GET", "/api/logs/" + quote(name, safe=""))
        assert status == 200 and data["name"] == name and data["frames"], name
    for name in ("link.json", "sub.json", ".hidden.json", "../secret.json", "."):
        status, data = ask(server, "GET", "/api/logs/" + quote(name, safe=""))
        assert status == 404 and "no saved game" in data["error"], name


def test_answers_name_files_never_the_log_folder(server):
    folder = str(server.log_dir.resolve())
    status, data = ask(server, "GET", "/api/logs/missing.json")
    assert status == 404 and "missing.json" in data["error"] and folder not in data["error"]
    status, state = ask(server, "POST", "/api/new", SEED_BODY)
    assert status == 200 and state["saved"] == Path(server.table.saved).name
    assert (server.log_dir / state["saved"]).is_file()
