"""``big2 serve`` and ``big2 replay --html`` in a real headless browser.

Debian's Chromium (``/usr/bin/chromium``, or ``$BIG2_CHROMIUM``), driven by Playwright for
Python. Without Chromium these tests are skipped, and pytest's summary says why;
``.ci/run`` installs it. The API's answers to bad requests are checked without a browser.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from big2.app.page import replay_html
from big2.app.server import Server
from big2.app.table import Table, frames
from big2.game import Game
from big2.log import GameLog
from big2.players import GreedyAgent, RandomAgent, play

CHROMIUM = os.environ.get("BIG2_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update",
         "--disable-sync"]  # fmt: skip


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    agents = [RandomAgent(seed) for seed in (1, 2, 3)]
    table = Table(agents, ["random:1", "random:2", "random:3"], log_dir=tmp_path / "logs")
    server = Server(("127.0.0.1", 0), table, tmp_path / "logs")
    server.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"browser tests skipped: no Chromium at {CHROMIUM} (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="browser tests need playwright")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


def version(page: Any) -> int:
    return int(page.evaluate("() => state && state.game ? state.version : -1"))


def new_game(page: Any, url: str, seed: int) -> None:
    page.goto(url)
    page.fill("#new-seed", str(seed))
    page.click("#new-game")
    page.wait_for_function(f"() => state && state.seed === {seed}")


def my_move(page: Any) -> None:
    """Pass when allowed, else play the lowest card (legal when leading, 3D included)."""
    before = version(page)
    if page.is_enabled("#pass"):
        page.click("#pass")
    else:
        page.click("#hand .card >> nth=0")
        page.click("#play")
    page.wait_for_function(f"() => state.version > {before}")


def play_to_the_end(page: Any) -> None:
    for _ in range(60):
        if page.evaluate("() => state.over"):
            return
        my_move(page)
    raise AssertionError("the game did not end")


def message(page: Any, says: str) -> str:
    """The page's message once it says ``says``. Messages arrive when the server answers,
    and an earlier one ("Your turn") may still be showing, so wait for the words."""
    with contextlib.suppress(Exception):  # playwright's TimeoutError: show what it does say
        page.wait_for_function(
            "says => document.querySelector('#message').textContent.includes(says)",
            arg=says,
            timeout=10_000,
        )
    return str(page.text_content("#message"))


def test_a_whole_game_by_clicking_ends_with_the_servers_scores(server, page):
    new_game(page, server.url, seed=3)
    play_to_the_end(page)
    game = server.table.game
    assert game is not None and game.is_over
    shown = json.loads(page.get_attribute("#scores", "data-scores"))
    assert shown == list(game.scores())
    assert page.is_visible("#scores") and not page.is_enabled("#play")
    saved = GameLog.from_json(Path(server.table.saved).read_text(encoding="utf-8"))
    assert saved == game.log  # the log, thoughts included, is what was played
    assert page.locator("#log li").count() == len(game.log.moves)
    page.check("#reveal")  # every hand, after the game
    assert page.locator("#all-hands .seat").count() == 4


def test_an_illegal_choice_is_explained_and_changes_nothing(server, page):
    new_game(page, server.url, seed=3)
    before = version(page)
    hand = page.evaluate("() => state.hand")
    ranks = {card[0] for card in hand}
    first, other = hand[0], next(c for c in hand if c[0] != hand[0][0])
    assert len(ranks) > 1
    page.click(f"#hand .card[data-card='{first}']")
    page.click(f"#hand .card[data-card='{other}']")
    page.click("#play")
    assert "not a combination" in message(page, "not a combination")
    assert version(page) == before and len(server.table.game.log.moves) == before
    page.click("#play")  # nothing chosen now: the selection was cleared
    assert "Choose cards" in message(page, "Choose cards")


def test_a_second_tab_that_fell_behind_is_told_and_shown_the_game(server, browser, page):
    new_game(page, server.url, seed=5)
    other = browser.new_context().new_page()
    other.goto(server.url)
    other.wait_for_function("() => state && state.game")
    my_move(page)  # the first tab moves on
    other.click("#pass") if other.is_enabled("#pass") else (
        other.click("#hand .card >> nth=0"), other.click("#play"))  # fmt: skip
    assert "behind the game" in message(other, "behind the game")
    assert version(other) == len(server.table.game.log.moves)  # it now shows the game as it is
    other.context.close()


def test_a_dropped_connection_is_retried_and_the_game_kept(server, page):
    new_game(page, server.url, seed=8)
    before = version(page)
    page.route("**/api/move", lambda route: route.abort())
    page.click("#pass") if page.is_enabled("#pass") else (
        page.click("#hand .card >> nth=0"), page.click("#play"))  # fmt: skip
    page.wait_for_function("() => document.querySelector('#message').textContent.includes('lost')")
    assert len(server.table.game.log.moves) == before  # nothing reached the server
    page.unroute("**/api/move")
    page.wait_for_function(f"() => state.version > {before}")  # the retry went through
    assert "Connection back" in page.text_content("#message") or version(page) > before


def test_an_answer_that_comes_late_does_not_undo_a_newer_one(server, page):
    """The page's first request (the state before any game) answered after New game:
    the game stays on the page."""
    no_game = urllib.request.urlopen(server.url + "api/state").read()
    held: list[Any] = []
    page.route("**/api/state", lambda route: held.append(route))
    page.goto(server.url)
    page.fill("#new-seed", "3")
    page.click("#new-game")
    page.wait_for_function("() => state && state.seed === 3")
    assert len(held) == 1  # the first request is still unanswered
    held[0].fulfill(status=200, content_type="application/json", body=no_game)
    page.wait_for_timeout(500)  # the late answer has arrived and been read
    assert page.evaluate("() => state.seed") == 3 and page.is_visible("#hand .card")


def test_a_replay_asked_for_first_and_answered_last_is_not_shown(server, page):
    folder = server.table.log_dir
    folder.mkdir(parents=True, exist_ok=True)
    for seed in (1, 2):
        game = play(Game(seed=seed), RandomAgent(seed))
        (folder / f"game-{seed}.json").write_text(game.log.to_json(), encoding="utf-8")
    held: list[Any] = []
    page.route("**/api/logs/game-1.json", lambda route: held.append(route))
    page.goto(server.url + "replay")
    page.wait_for_function("() => document.querySelectorAll('#saved-logs option').length >= 2")
    page.select_option("#saved-logs", "game-1.json")
    page.select_option("#saved-logs", "game-2.json")
    page.wait_for_function("() => document.querySelector('#position').dataset.index === '0'")
    shown = hands_shown(page)
    held[0].continue_()
    page.wait_for_timeout(500)  # game 1's answer has arrived and been read
    assert hands_shown(page) == shown == frames(play(Game(seed=2), RandomAgent(2)).log)[0]["hands"]


def hands_shown(page: Any, players: int = 4) -> list[list[str]]:
    return page.evaluate(
        "players => Array.from({length: players}, (_, s) => Array.from(document.querySelectorAll("
        "'#seat-' + s + ' .hand .card')).map(c => c.dataset.card))",
        players,
    )


def test_a_saved_game_replays_forward_and_back(server, page):
    new_game(page, server.url, seed=3)
    play_to_the_end(page)
    log = server.table.game.log
    want = frames(log)
    page.goto(server.url + "replay?log=" + Path(server.table.saved).name)
    page.wait_for_function("() => document.querySelector('#position').dataset.index === '0'")
    assert hands_shown(page) == want[0]["hands"]
    for step in (1, 2, 3):
        page.click("#next")
        assert hands_shown(page) == want[step]["hands"]
    page.click("#prev")
    assert hands_shown(page) == want[2]["hands"]
    page.click("#last")
    shown = json.loads(page.get_attribute("#scores", "data-scores"))
    assert shown == want[-1]["scores"] == list(server.table.game.scores())


def test_the_self_contained_replay_shows_the_same_positions(server, page, tmp_path):
    new_game(page, server.url, seed=4)
    play_to_the_end(page)
    log = server.table.game.log
    html = tmp_path / "game.html"
    html.write_text(replay_html(log), encoding="utf-8")
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(html.as_uri())
    want = frames(log)
    for index, frame in enumerate(want):
        assert page.get_attribute("#position", "data-index") == str(index)
        assert hands_shown(page) == frame["hands"]
        if index < len(want) - 1:
            page.keyboard.press("ArrowRight")
    assert json.loads(page.get_attribute("#scores", "data-scores")) == want[-1]["scores"]
    assert requests == [html.as_uri()]  # nothing else was loaded


def test_a_corrupt_log_is_reported_on_the_replay_page(server, page, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "big2-log/1", "rules": {}}', encoding="utf-8")
    page.goto(server.url + "replay")
    page.set_input_files("#log-file", str(bad))
    assert "cannot be replayed" in message(page, "cannot be replayed")
    assert "corrupt game log" in page.text_content("#message")


# --- the API without a browser


def call(server: Server, path: str, body: bytes | None = None) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"} if body is not None else {}
    request = urllib.request.Request(server.url.rstrip("/") + path, data=body, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


@pytest.mark.parametrize(
    "path, body, status, words",
    [
        ("/api/new", b"not json", 400, "seed"),
        ("/api/new", b'{"seed": -1}', 400, "seed"),
        ("/api/new", b'{"seed": true}', 400, "seed"),
        ("/api/move", b'{"game": 1}', 400, "a move is"),
        ("/api/move", b'{"game": "x", "version": 0, "cards": []}', 409, "no longer"),
        ("/api/hint", b'{"game": "x"}', 400, "a hint request is"),
        ("/api/hint", b'{"game": "x", "version": 0}', 409, "no longer"),
        ("/api/frames", b"\xff\xfe", 400, "not a big2 game log"),
        ("/api/frames", b'{"format": "other"}', 400, "cannot be replayed"),
        ("/api/logs/..%2Fsecret.json", None, 404, "no saved game"),
        ("/static/..%2Fserver.py", None, 404, "no page file"),
        ("/nothing", None, 404, "nothing at"),
    ],
)
def test_bad_requests_get_a_clear_error_and_change_nothing(server, path, body, status, words):
    got, data = call(server, path, body)
    assert got == status and words in data["error"]
    assert server.table.game is None


def test_moves_are_checked_against_the_game(server):
    state = server.table.new(seed=3)
    ask = {"game": state["game"], "version": state["version"]}
    for cards, words in ((["3D", "3D"], "twice"), (["ZZ"], "card"), (["2S", "3X"], "card")):
        got, data = call(server, "/api/move", json.dumps({**ask, "cards": cards}).encode())
        assert got == 400 and words in data["error"], data
    not_mine = next(c for c in ("3D", "3C", "3H", "3S", "4D") if c not in state["hand"])
    got, data = call(server, "/api/move", json.dumps({**ask, "cards": [not_mine]}).encode())
    assert got == 400 and "do not hold" in data["error"]
    assert server.table.state()["version"] == state["version"]


def test_serve_refuses_a_port_in_use_and_an_unwritable_log_folder(server, tmp_path):
    from big2.app.cli import main

    port = server.server_address[1]
    with pytest.raises(SystemExit, match=r"cannot listen on 127\.0\.0\.1"):
        main(["serve", "--agents", "random:1", "--port", str(port), "--log-dir",
              str(tmp_path / "logs")])  # fmt: skip
    blocked = tmp_path / "file"
    blocked.write_text("")
    with pytest.raises(SystemExit, match="cannot save game logs"):
        main(["serve", "--agents", "random", "greedy", "heuristic", "--log-dir", str(blocked)])
    with pytest.raises(SystemExit, match="one agent spec or 3 \\(one per other seat"):
        main(["serve", "--agents", "random", "greedy"])


def test_replay_html_refuses_a_log_it_cannot_replay(tmp_path, capsys):
    from big2.app.cli import main

    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "big2-log/1"}', encoding="utf-8")
    with pytest.raises(SystemExit, match="corrupt game log"):
        main(["replay", "--html", str(bad)])
    assert capsys.readouterr().out == ""  # no half page written


def test_a_replay_whose_log_holds_html_still_renders(page, tmp_path):
    data = play(Game(seed=2), GreedyAgent()).log.to_dict()
    data["rules"]["name"] = "<!--<script>"  # would hide the rest of the page's script
    log = GameLog.from_dict(data)
    html = tmp_path / "game.html"
    html.write_text(replay_html(log), encoding="utf-8")
    page.goto(html.as_uri())
    page.wait_for_function("() => document.querySelector('#position').dataset.index === '0'")
    assert page.text_content("#title") == "<!--<script> rules"
    assert hands_shown(page) == frames(log)[0]["hands"]


ATTACK = """<!doctype html><title>elsewhere</title><script>
async function attempt(options) {
  try { await fetch(TARGET + "api/new", options); } catch (error) {}
}
(async () => {
  const body = JSON.stringify({ seed: 1 });
  await attempt({ method: "POST", mode: "no-cors", body,
                  headers: { "Content-Type": "text/plain" } });  // a simple request
  await attempt({ method: "POST", body, headers: { "Content-Type": "application/json" } });
  document.title = "done";
})();
</script>"""


def test_a_page_from_another_site_cannot_start_a_game(server, page):
    """Another site's page (here another port: another origin) posts to the server."""
    attack = ATTACK.replace("TARGET", json.dumps(server.url)).encode()

    class Elsewhere(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(attack)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    other = ThreadingHTTPServer(("127.0.0.1", 0), Elsewhere)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        page.goto(f"http://127.0.0.1:{other.server_address[1]}/")
        page.wait_for_function("() => document.title === 'done'")
    finally:
        other.shutdown()
        other.server_close()
    assert server.table.game is None and not server.log_dir.exists()
