"""The game page as players expect it, in headless Chromium (see tests/test_browser.py for
how it is found and driven): seats named ``seat N (agent)`` everywhere, four seats round
a table with each one's last play and a one-card warning, playable cards marked, a hint,
thought tables only where there was a choice, keyboard shortcuts, and a layout that
works at 360, 768 and 1280 px (positions, no horizontal overflow, no overlapping boxes).

Screenshots of the game and the replay page at each width are kept as test artifacts in
``test-artifacts/browser/`` (git-ignored; ``$BIG2_ARTIFACTS`` to put them elsewhere).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

# browser is a fixture, imported for pytest to find here
from test_browser import (  # noqa: F401
    browser,
    hands_shown,
    my_move,
    new_game,
    play_to_the_end,
    version,
)

from big2.app.page_state import last_plays, move_dict
from big2.app.server import Server
from big2.app.table import Refused, Table, frames
from big2.game import Game
from big2.hand_ranking import PASS, HandRanking
from big2.log import Candidate, LogEntry, Thought
from big2.players import GreedyAgent, RandomAgent, SearchAgent
from big2.rules import get as get_rules
from envs.policy_agent import PolicyAgent

ARTIFACTS = Path(os.environ.get("BIG2_ARTIFACTS") or Path(__file__).parents[1] / "test-artifacts")
NAMES = ["policy", "search:1", "random:3"]
WIDTHS = [360, 768, 1280]
OLD_LOG = Path(__file__).parent / "data" / "big2-log-1.json"


def skewed_logits(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A policy sure of its first legal action: the others get well under 0.5%."""
    return np.where(mask > 0, -6.0 * np.arange(mask.size), -1e9)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    agents = [
        PolicyAgent(skewed_logits, "simple", "catalog", name="policy"),
        SearchAgent(determinizations=2, max_determinizations=2, candidates=3, seed=1),
        RandomAgent(3),
    ]
    table = Table(agents, NAMES, log_dir=tmp_path / "logs", hint=GreedyAgent(), hint_name="greedy")
    server = Server(("127.0.0.1", 0), table, tmp_path / "logs")
    server.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def page_at(browser: Any) -> Iterator[Any]:  # noqa: F811
    """A function opening a page of a given width (each closed at the end); a script
    error on any of them fails the test."""
    contexts: list[Any] = []
    errors: list[str] = []

    def open_page(width: int) -> Any:
        context = browser.new_context(viewport={"width": width, "height": 800})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.on("pageerror", lambda error: errors.append(str(error)))
        return page

    yield open_page
    for context in contexts:
        context.close()
    assert errors == []


def screenshot(page: Any, name: str) -> None:
    folder = ARTIFACTS / "browser"
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def box(page: Any, selector: str) -> dict[str, float]:
    found = page.locator(selector).bounding_box()
    assert found is not None, f"{selector} is not shown"
    return found


# Containers whose visible children must not overlap one another.
CONTAINERS = "header, #chooser, main, main > .panel, #felt, #felt > .seat, #hand, .controls"

OVERLAPS = """containers => {
  const shown = (e) => { const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden"; };
  const hits = [];
  for (const parent of document.querySelectorAll(containers)) {
    const kids = Array.from(parent.children).filter(shown)
      .map((e) => [e, e.getBoundingClientRect()]);
    for (let i = 0; i < kids.length; i++) for (let j = i + 1; j < kids.length; j++) {
      const [a, r] = kids[i], [b, q] = kids[j];
      const apart = r.right <= q.left + 0.5 || q.right <= r.left + 0.5
        || r.bottom <= q.top + 0.5 || q.bottom <= r.top + 0.5;
      const name = (e) => e.id || e.className || e.tagName;
      if (!apart) hits.push(name(a) + " / " + name(b));
    }
  }
  return hits;
}"""

SPILLS = """() => Array.from(document.querySelectorAll("#felt > *, #hand, #log li, #scores"))
  .filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.id || e.className)"""


def check_layout(page: Any, width: int) -> None:
    """No horizontal scrolling, no overlapping boxes, no text spilling out of its box."""
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.evaluate(OVERLAPS, CONTAINERS) == []
    assert page.evaluate(SPILLS) == []


PLACES = {
    2: ["south", "north"],
    3: ["south", "east", "west"],
    4: ["south", "east", "north", "west"],
}


def check_table(page: Any, me: int, players: int = 4) -> None:
    """The seats round the middle: yours at the bottom, the next on your right (of two
    players, across), the previous on your left."""
    middle = box(page, "#table-area")
    assert page.locator("#felt > .seat").count() == players
    places = {(me + k) % players: place for k, place in enumerate(PLACES[players])}
    for seat, place in places.items():
        assert page.get_attribute(f"#seat-{seat}", "data-place") == place
        at = box(page, f"#seat-{seat}")
        if place == "north":
            assert at["y"] + at["height"] <= middle["y"] + 1
        if place == "south":
            assert at["y"] >= middle["y"] + middle["height"] - 1
        if place == "west":
            assert at["x"] + at["width"] <= middle["x"] + 1
        if place == "east":
            assert at["x"] >= middle["x"] + middle["width"] - 1
        last = box(page, f"#seat-{seat} .last")  # the last play sits in front of its seat
        assert at["x"] <= last["x"] and last["x"] + last["width"] <= at["x"] + at["width"] + 1


def test_the_table_and_the_replay_fit_every_width(server, page_at):
    """One game and its replay, each shown at every width in turn: the layout is CSS of
    the width alone (no script measures it), so a page resized to a width is laid out as
    one opened at it, and the game need not be played once a width."""
    page = page_at(WIDTHS[0])
    new_game(page, server.url, seed=3)
    for _ in range(4):
        my_move(page)
    page.keyboard.press("h")  # the hint box too
    page.wait_for_selector("#hint .thought")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        check_table(page, me=0)
        tops = page.locator("#hand .card").evaluate_all("cs => cs.map(c => c.offsetTop)")
        assert len(tops) >= 5 and tops.count(tops[0]) >= 5  # side by side, not one a line
        check_layout(page, width)
        screenshot(page, f"play-{width}")
    name = Path(server.table.saved).name
    page.goto(f"{server.url}replay?log={name}")
    page.wait_for_function("() => document.querySelector('#position').dataset.index === '0'")
    page.keyboard.press("End")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        check_table(page, me=0)
        check_layout(page, width)
        screenshot(page, f"replay-{width}")


@pytest.fixture(params=["three-player", "two-player"])
def fewer_seats(request: Any, tmp_path: Path) -> Iterator[Server]:
    """A server of three or two seats, the person in the last seat."""
    rules = get_rules(request.param)
    agents = [RandomAgent(s) for s in range(1, rules.players)]
    names = [f"random:{s}" for s in range(1, rules.players)]
    seat = rules.players - 1
    table = Table(agents, names, rules, seat, tmp_path / "logs", hint=GreedyAgent())
    server = Server(("127.0.0.1", 0), table, tmp_path / "logs")
    server.start()
    yield server
    server.shutdown()
    server.server_close()


def test_three_and_two_players_sit_round_the_table_and_replay(fewer_seats, page_at):
    server, rules = fewer_seats, fewer_seats.table.rules
    players, me = rules.players, fewer_seats.table.seat
    page = page_at(360)
    new_game(page, server.url, seed=2)
    check_table(page, me, players)
    assert len(page.evaluate("state.hand")) in (rules.hand_size, rules.hand_size + 1)
    check_layout(page, 360)
    screenshot(page, f"play-{rules.name}-360")
    play_to_the_end(page)
    game = server.table.game
    assert json.loads(page.get_attribute("#scores", "data-scores")) == list(game.scores())
    labels = [f"seat {s} (random:{s + 1})" for s in range(me)] + [f"seat {me} (you)"]
    assert page.locator("#felt .seat .name").all_text_contents() == labels
    page.goto(f"{server.url}replay?log={Path(server.table.saved).name}")
    page.wait_for_function("() => document.querySelector('#position').dataset.index === '0'")
    want = frames(game.log)
    assert hands_shown(page, players) == want[0]["hands"]
    check_table(page, 0, players)  # a replay shows seat 0 at the bottom
    page.keyboard.press("End")
    assert json.loads(page.get_attribute("#scores", "data-scores")) == want[-1]["scores"]
    check_layout(page, 360)


def test_every_seat_is_named_with_its_agent_everywhere(server, page_at):
    page = page_at(1280)
    new_game(page, server.url, seed=5)
    labels = ["seat 0 (you)", *(f"seat {s} ({n})" for s, n in enumerate(NAMES, 1))]
    assert page.locator("#felt .seat .name").all_text_contents() == labels
    table = server.table.game.table_seat if server.table.game.table else None
    if table is not None:
        assert page.text_content("#table-area").endswith(f"played by {labels[table]}")
    play_to_the_end(page)
    log = server.table.game.log
    moves = page.locator("#log > li")
    for number, entry in enumerate(log.moves):
        assert moves.nth(number).text_content().startswith(labels[entry.seat] + ": ")
    scores = page.text_content("#scores")
    assert all(f"{label} " in scores for label in labels)
    assert labels[server.table.game.winner] in scores
    page.check("#reveal")
    revealed = page.locator("#all-hands .name").all_text_contents()
    assert revealed == [f"{label}: " for label in labels]
    page.goto(f"{server.url}replay?log={Path(server.table.saved).name}")
    page.wait_for_function("() => document.querySelector('#position').dataset.index === '0'")
    assert page.locator("#felt .seat .name").all_text_contents() == labels
    page.keyboard.press("ArrowRight")
    assert page.text_content("#frame-move").startswith(labels[log.moves[0].seat] + ": ")


def test_an_old_log_replays_with_bare_seat_numbers(server, page_at):
    page = page_at(768)
    page.goto(server.url + "replay")
    page.set_input_files("#log-file", str(OLD_LOG))
    page.wait_for_function("() => document.querySelector('#position').dataset.index === '0'")
    names = page.locator("#felt .seat .name").all_text_contents()
    assert names == ["seat 0", "seat 1", "seat 2", "seat 3"]


def to_one_card_left(table: Table) -> int:
    """Play seeds (passing when allowed, else the lowest card) until an opponent holds one
    card at the person's turn; that opponent's seat."""
    for seed in range(40):
        state = table.new(seed)
        while not state["over"]:
            ones = [s for s in range(1, 4) if state["counts"][s] == 1]
            if ones:
                return ones[0]
            cards = [] if state["can_pass"] else state["hand"][:1]
            state = table.move(state["game"], state["version"], cards)
    raise AssertionError("no seed left an opponent one card")


def test_an_opponent_with_one_card_is_warned(server, page_at):
    seat = to_one_card_left(server.table)
    page = page_at(360)
    page.goto(server.url)
    page.wait_for_function("() => state && state.game")
    assert page.is_visible(f"#seat-{seat} .warning")
    assert page.text_content(f"#seat-{seat} .warning") == "1 card left!"
    counts = server.table.state()["counts"]
    assert page.locator(".seat .warning").count() == sum(c == 1 for c in counts[1:])
    check_layout(page, 360)
    screenshot(page, "one-card-360")


def test_playable_cards_are_marked_and_the_hint_is_the_agents_move(server, page_at):
    page = page_at(768)
    new_game(page, server.url, seed=3)
    my_move(page)
    game = server.table.game
    legal = game.legal_moves()
    used = sorted({c for m in legal if m is not PASS for c in str(m).split()})
    marked = page.locator("#hand .card.playable").evaluate_all("cs => cs.map(c => c.dataset.card)")
    assert sorted(marked) == used and len(marked) < len(page.locator("#hand .card").all())
    before = (version(page), list(game.log.moves))
    page.click("#hint-button")
    page.wait_for_selector("#hint .thought")
    wanted = GreedyAgent().act(game.view(0), legal)
    row = page.locator("#hint tr.chosen")
    assert row.get_attribute("data-cards") == ("" if wanted is PASS else str(wanted))
    assert (version(page), list(game.log.moves)) == before  # asking changed nothing
    if wanted is not PASS:
        row.click()  # selects the hint's cards; Enter plays them
        page.keyboard.press("Enter")
        page.wait_for_function(f"() => state.version > {before[0]}")
        mine = [e.move for e in game.log.moves[before[0] :] if e.seat == 0]
        assert mine[0] is wanted


def test_thought_tables_only_where_there_was_a_choice(server, page_at):
    page = page_at(1280)
    new_game(page, server.url, seed=3)
    play_to_the_end(page)
    log = server.table.game.log
    items = page.locator("#log > li")
    forced = chosen_among_many = 0
    for number, entry in enumerate(log.moves):
        thought = log.thoughts.get(number)
        has_table = items.nth(number).locator(".thought-box").count() == 1
        assert has_table == (thought is not None and len(thought.candidates) > 1), number
        forced += thought is not None and len(thought.candidates) == 1
        if not has_table:
            continue
        chosen_among_many += 1
        shown = items.nth(number).locator(".thought-box > table tbody tr")
        folded = items.nth(number).locator("details.folded tr")
        low = [c for c in thought.candidates if c.probability < 0.005 and c.move != entry.move]
        assert shown.count() + folded.count() == len(thought.candidates)
        assert folded.count() == len(low) and not any(r.is_visible() for r in folded.all())
        if thought.rule is not None:  # a search: deals and the rule shown
            text = items.nth(number).text_content()
            assert f"of {thought.candidates[0].deals}" in text and thought.rule in text
    assert forced and chosen_among_many  # both kinds were seen
    assert page.locator("details.folded").count() > 0


def test_keyboard_shortcuts_select_clear_and_pass(server, page_at):
    page = page_at(768)
    new_game(page, server.url, seed=3)
    hand = page.evaluate("state.hand")
    rank = hand[0][0]
    same = [c for c in hand if c[0] == rank]
    key = {"T": "t"}.get(rank, rank.lower())
    selected = "() => Array.from(document.querySelectorAll('#hand .selected'), c => c.dataset.card)"
    for n in range(1, len(same) + 1):
        page.keyboard.press(key)
        assert page.evaluate(selected) == same[:n]
    page.keyboard.press(key)  # all of that rank were selected: now none
    assert page.evaluate(selected) == []
    page.keyboard.press(key)
    page.keyboard.press("Escape")
    assert page.evaluate(selected) == []
    page.fill("#new-seed", "3")  # typing in a field selects nothing
    assert page.evaluate(selected) == []
    page.locator("#hand").click(position={"x": 1, "y": 1})  # focus leaves the field
    if page.evaluate("state.can_pass"):
        before = version(page)
        page.keyboard.press("p")
        page.wait_for_function(f"() => state.version > {before}")
    assert page.is_visible("#keys") and "Enter" in page.text_content("#keys")


# --- what the page is sent, without a browser


def test_a_forced_move_sends_no_thought_and_a_choice_marks_the_move_made():
    three, four = HandRanking.from_str("3D"), HandRanking.from_str("4D")
    forced = Thought((Candidate(PASS, 1.0),))
    assert move_dict(LogEntry(1, PASS, three), forced, 4)["thought"] is None
    choice = Thought((Candidate(three, 0.3), Candidate(four, 0.7, 0.5, 12)), 0.5, "a rule")
    sent = move_dict(LogEntry(1, four, None), choice, 4)["thought"]
    assert [(c["cards"], c["chosen"], c["deals"]) for c in sent["candidates"]] == [
        (["3D"], False, None),
        (["4D"], True, 12),
    ]
    assert sent["rule"] == "a rule"


def test_last_plays_are_the_moves_since_the_table_was_last_empty():
    game = Game(seed=1)
    while len(game.log.moves) < 12:
        game.play(game.legal_moves()[-1] if len(game.log.moves) % 3 else game.legal_moves()[0])
    lead = max(n for n, e in enumerate(game.log.moves) if e.table is None)
    want: list[Any] = [None] * 4
    for entry in game.log.moves[lead:]:
        want[entry.seat] = [] if entry.move is PASS else str(entry.move).split()
    got = [None if m is None else m["cards"] for m in last_plays(game.log)]
    assert got == want


def test_hints_are_refused_when_they_cannot_be_given(tmp_path):
    table = Table([GreedyAgent()] * 3, ["greedy"] * 3, seat=1, log_dir=None)
    state = table.new(seed=3)
    assert state["hint"] is False
    with pytest.raises(Refused, match="no agent to ask for hints"):
        table.hint(state["game"], state["version"])
    with pytest.raises(Refused, match="no longer being played") as stale:
        table.hint("other", state["version"])
    assert stale.value.stale
    cheat = PolicyAgent(skewed_logits, "oracle", "catalog", cheat=True)
    with pytest.raises(ValueError, match="sees every hand"):
        Table([GreedyAgent()] * 3, ["greedy"] * 3, log_dir=None, hint=cheat)
