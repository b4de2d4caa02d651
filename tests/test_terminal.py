"""big2.app.terminal and ``big2 play``: a person against three agents, driven by scripted input."""

from __future__ import annotations

import os
import random
import re
import select
import subprocess
import sys
import time
from dataclasses import replace

import pytest

from big2.app.terminal import HELP, TerminalGame, cards_text, move_text
from big2.board import Board
from big2.cards import format_cards
from big2.game import Game
from big2.hand_ranking import PASS, HandRanking
from big2.log import GameLog
from big2.players import GreedyAgent, RandomAgent
from big2.players.heuristic import HeuristicAgent
from big2.rules import CHARLESWORTH, STANDARD
from big2.rules import get as get_rules

SEED = 0  # seat 0 holds 3D 3C 4D 4C 4S 6D TD JC QD QH KC AC 2C and leads
ENV = {**os.environ, "PYTHONUTF8": "1"}
ENV.pop("NO_COLOR", None)
SAVED = re.compile(r"^Game log saved to (.+\.json)$", re.M)
FINAL = re.compile(r"^(You win|Seat (\d) wins)! Scores: \[(.+)\] \(you: ([+-]\d+)\)$", re.M)


def cli(*args, stdin="", timeout=120):
    command = [sys.executable, "-m", "big2.app.cli", *args]
    return subprocess.run(
        command, input=stdin, env=ENV, capture_output=True, encoding="utf-8", timeout=timeout
    )


def play_cli(tmp_path, answers, *extra):
    args = ["play", "--seed", str(SEED), "--no-color", "--log-dir", str(tmp_path), *extra]
    return cli(*args, "--opponents", "heuristic", stdin="".join(a + "\n" for a in answers))


def saved_log(out):
    (path,) = SAVED.findall(out)
    with open(path, encoding="utf-8") as f:
        return GameLog.from_json(f.read())


class Script:
    """A ``read`` function answering from a list, then raising EOFError like input()."""

    def __init__(self, answers):
        self.answers, self.prompts = list(answers), []

    def __call__(self, prompt):
        self.prompts.append(prompt)
        if not self.answers:
            raise EOFError
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer


def session(tmp_path, answers, seat=0, opponents=None, color=False):
    out, script = [], Script(answers)
    agents = opponents or [HeuristicAgent(), GreedyAgent(), HeuristicAgent()]
    game = TerminalGame(agents, STANDARD, seat, tmp_path, color, read=script, write=out.append)
    return game, script, out


def test_board_of_the_seed():
    board = Board(seed=SEED)
    assert board.first_seat == 0
    assert format_cards(board.hands[0]) == "3D 3C 4D 4C 4S 6D TD JC QD QH KC AC 2C"


def test_scripted_game_with_mistakes_to_the_end(tmp_path):
    mistakes = ["h", "99", "0", "3X", "QD", "5H", "p"]
    result = play_cli(tmp_path, [*mistakes, "3d", *["1"] * 300])
    out = result.stdout
    assert result.returncode == 0, result.stderr
    expected = [HELP, "No move 99: choose 1..4, p to pass or h for help.",
                "No move 0: choose 1..4", "bad card '3X'", ". Type h for help.",
                "The first play of the game must include the 3♦.", "You do not hold 5H.",
                "You cannot pass: you lead, so you must play.", "  you: 3♦ (single)"]  # fmt: skip
    at = 0
    for text in expected:  # each message, in order, then the typed move is played
        at = out.index(text, at) + len(text)
    first_move = out.index("  you: ")
    assert out[:first_move].count("your move> ") == len(mistakes) + 1
    assert "\033[" not in out  # --no-color

    log = saved_log(out)
    game = Game.replay(log)
    assert game.is_over and log.moves[0] == (0, HandRanking.from_str("3D"), None)
    final = FINAL.search(out)
    assert final is not None and out.index("Game log saved") > final.end()
    assert [int(s) for s in final[3].split(", ")] == list(game.scores())
    assert int(final[4]) == game.scores()[0]
    assert final[1] == "You win" if game.winner == 0 else int(final[2]) == game.winner
    assert out.rstrip().endswith("Play again? [y/N]")

    check = Game.from_board(Board.from_hands(log.deal))  # every later answer "1" was move 1
    for entry in log.moves:
        if entry.seat == 0 and len(check.log.moves) > 0:
            assert entry.move is check.legal_moves()[0]
        check.play(entry.move)
    human = sum(e.seat == 0 for e in log.moves)
    assert out.count("your move> ") == len(mistakes) + human


def questions_in_first_game(tmp_path):
    """How many moves the CLI asks for in its first game when every answer is 1."""
    game, script, _ = session(tmp_path / "sim", ["1"] * 300, opponents=[HeuristicAgent()] * 3)
    assert game.play(seed=random.Random(SEED)).is_over
    return len(script.prompts)


def test_play_again_starts_a_new_deal(tmp_path):
    result = play_cli(tmp_path, [*["1"] * questions_in_first_game(tmp_path), "y", "q"])
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("You are seat 0.") == 2 and result.stdout.count("Quit.") == 1
    logs = sorted(tmp_path.glob("*.json"))
    first, second = (GameLog.from_json(p.read_text("utf-8")) for p in logs)
    assert Game.replay(first).is_over and not Game.replay(second).is_over
    assert first.deal != second.deal
    assert (first.seed, second.seed) == (SEED, SEED + 1)  # each game's log names its seed
    assert second.deal == Board(seed=SEED + 1).hands
    assert first.players == ("you", "heuristic", "heuristic", "heuristic")


def test_end_of_input_at_play_again_is_no(tmp_path):
    result = play_cli(tmp_path, ["1"] * questions_in_first_game(tmp_path))
    assert FINAL.search(result.stdout) and "Play again? [y/N]" in result.stdout
    assert len(SAVED.findall(result.stdout)) == 1
    assert result.returncode == 0  # got: 130


@pytest.mark.parametrize("answers", [["3D", "q"], ["3D"], [], ["3D", "QUIT"]])
def test_quit_and_end_of_input_save_a_replayable_log(tmp_path, answers):
    result = play_cli(tmp_path, answers)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Quit." in out and "Play again" not in out and FINAL.search(out) is None
    log = saved_log(out)
    game = Game.replay(log)
    assert not game.is_over and log.deal == Board(seed=SEED).hands
    if answers:
        assert log.moves[0].move == HandRanking.from_str("3D") and len(log.moves) >= 4
        assert game.turn == 0  # stopped at the person's second question
    else:
        assert log.moves == []


def test_mistakes_change_nothing(tmp_path):
    clean, _, clean_out = session(tmp_path, ["3D", *["1"] * 5])
    clean_game = clean.play(seed=SEED)
    noisy, script, noisy_out = session(tmp_path, ["h", "42", "2S", "3D 3C 3H", "", "p", "3d"] +
                                       ["zz", "?", "1"] * 5)  # fmt: skip
    noisy_game = noisy.play(seed=SEED)
    # the same game, though the two sessions may begin in different seconds
    assert replace(noisy_game.log, date=None) == replace(clean_game.log, date=None)
    assert len(clean_game.log.moves) > 6
    assert [line for line in noisy_out if line.startswith("  ")] == [
        line for line in clean_out if line.startswith("  ")]  # fmt: skip
    assert noisy_out.count(HELP) == 6 and script.prompts[0] == "your move> "
    assert "You do not hold 3H." in noisy_out
    assert "Type a move number, the cards to play, p to pass or h for help." in noisy_out


def test_pass_and_typed_cards_while_following(tmp_path):
    game, script, out = session(tmp_path, ["3D", "pass", "P"], opponents=[GreedyAgent()] * 3)
    played = game.play(seed=SEED)
    mine = [e.move for e in played.log.moves if e.seat == 0]
    assert mine[0] == HandRanking.from_str("3D") and mine[1:] == [PASS, PASS]
    assert out.count("  you: pass") == 2 and len(script.prompts) == 4


def test_typed_cards_accept_case_tens_and_symbols(tmp_path):
    for text in ("3d", "3♦", "3D,", " 3D "):
        game, _, _ = session(tmp_path, [text])
        assert str(game.play(seed=SEED).log.moves[0].move) == "3D"
    game, _, _ = session(tmp_path, ["10d 3d 4d 6d qd"])
    assert str(game.play(seed=SEED).log.moves[0].move) == "3D 4D 6D TD QD"


def test_empty_line_is_not_a_pass(tmp_path):
    game, _, _ = session(tmp_path, ["3D", "", "q"], opponents=[GreedyAgent()] * 3)
    played = game.play(seed=SEED)
    assert [e.move for e in played.log.moves if e.seat == 0] == [HandRanking.from_str("3D")]


def test_other_seat_interrupt_and_screen(tmp_path):
    game, _, out = session(tmp_path, [KeyboardInterrupt()], seat=2)
    played = game.play(seed=SEED)
    assert out[0] == "You are seat 2. Type h for help." and out[-2] == "Quit."
    assert played.turn == 2 and all(e.seat != 2 for e in played.log.moves)
    screen = next(line for line in out if "Legal moves:" in line).split("\n")
    hand = cards_text(played.hand(2), False)
    assert screen[-1] == f"Your hand: {hand}" and screen[-3].startswith("Cards left: seat 0: ")
    assert "seat 2:" not in screen[-3]  # your own count is not listed
    assert (tmp_path / out[-1].split("/")[-1]).exists()


def test_colors_and_texts():
    cards = HandRanking.from_str("3D 3S").cards
    assert cards_text(cards, False) == "3♦ 3♠"
    assert cards_text(cards, True) == "\033[31m3♦\033[0m 3♠"
    assert move_text(PASS, True) == "pass"
    assert move_text(HandRanking.from_str("TH"), False) == "T♥ (single)"


def test_constructor_errors():
    with pytest.raises(ValueError, match="needs 3 opponents, got 2"):
        TerminalGame([RandomAgent()] * 2, STANDARD)
    with pytest.raises(ValueError, match=r"seat must be 0\.\.3, got 4"):
        TerminalGame([RandomAgent()] * 3, STANDARD, seat=4)


def read_until(fd: int, text: str, buf: str = "", timeout: float = 60.0) -> str:
    """Read the terminal ``fd`` until ``text`` appears after what ``buf`` already holds."""
    start, deadline = len(buf), time.monotonic() + timeout
    while text not in buf[start:]:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            raise AssertionError(f"timed out waiting for {text!r}; got {buf[-500:]!r}")
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: the child closed the terminal
            chunk = b""
        if not chunk:
            raise AssertionError(f"output ended before {text!r}; got {buf[-500:]!r}")
        buf += chunk.decode("utf-8", "replace")
    return buf


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty test for Linux")
@pytest.mark.parametrize("no_color", [False, True])
def test_real_terminal(tmp_path, no_color):
    env = {**ENV, "NO_COLOR": "1"} if no_color else ENV
    master, slave = os.openpty()
    cmd = [sys.executable, "-m", "big2.app.cli", "play", "--seed", "0", "--log-dir", str(tmp_path)]
    proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    try:
        buf = read_until(master, "your move> ", "")
        assert ("\033[31m3♦\033[0m" in buf) != no_color  # colour only on a terminal
        os.write(master, b"h\n")
        buf = read_until(master, "quit (the game so far is saved)\r\nyour move> ", buf)
        os.write(master, b"q\n")
        buf = read_until(master, "Game log saved to", buf)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    assert len(list(tmp_path.glob("game-*.json"))) == 1


def test_automatic_opening_is_announced(tmp_path):
    game = TerminalGame([GreedyAgent()] * 3, CHARLESWORTH, 0, tmp_path, False,
                        read=Script(["q"]), write=(out := []).append)  # fmt: skip
    played = game.play(seed=1)
    assert played.log.moves[0].seat == 2  # seat 2 held 3D; seat 3 played next
    assert "  seat 2: 3♦ (single)" in out


def test_version_comes_from_the_installed_metadata():
    from importlib.metadata import version

    result = cli("--version")
    assert result.returncode == 0 and result.stdout == f"big2 {version('big2')}\n"


@pytest.mark.parametrize("flag", ["--opponents", "--agents"])
def test_play_takes_three_specs_as_serve_does(tmp_path, flag):
    from big2.players import load_agent

    specs = ["random:1", "greedy", "heuristic"]
    args = ["play", "--seed", "3", "--seat", "1", "--no-color", "--log-dir", str(tmp_path)]
    result = cli(*args, flag, *specs, stdin="1\n" * 300)
    assert result.returncode == 0, result.stderr
    opponents = [load_agent(s, STANDARD) for s in specs]
    game, _, _ = session(tmp_path / "direct", ["1"] * 300, seat=1, opponents=opponents)
    log, expected = saved_log(result.stdout), game.play(seed=random.Random(3)).log
    assert (log.deal, log.moves) == (expected.deal, expected.moves)


def test_play_and_serve_refuse_two_specs_alike():
    for command in ("play", "serve"):
        result = cli(command, "--opponents", "random", "greedy")
        assert result.returncode == 1
        takes = "--opponents takes one agent spec or 3 (one per other seat of the standard rules)"
        assert f"big2 {command}: {takes}, not 2" in result.stderr
    from big2.app.cli import parser

    serve = parser().parse_args(["serve", "--agents", "random", "greedy", "heuristic"])
    assert serve.opponents == ["random", "greedy", "heuristic"]
    assert parser().parse_args(["play"]).opponents == ["heuristic"]
    assert parser().parse_args(["serve"]).opponents == ["trained"]


LONG = 2374  # seat 0 leads the first move with 38 legal moves (pairs, triples, flushes)


def last_lines(buf: str, height: int = 24) -> list[str]:
    """What a terminal of ``height`` lines shows when ``buf`` (no cursor codes) is printed."""
    return buf.replace("\r\n", "\n").split("\n")[-height:]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty test for Linux")
def test_80x24_keeps_hand_table_and_counts_on_screen(tmp_path):
    import fcntl
    import struct
    import termios

    from big2.app.columns import shown_width

    env = {k: v for k, v in ENV.items() if k not in ("COLUMNS", "LINES")}
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    cmd = [sys.executable, "-m", "big2.app.cli", "play", "--seed", str(LONG), "--log-dir",
           str(tmp_path)]  # fmt: skip
    proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    screens = []
    try:
        buf = read_until(master, "your move> ", "")
        screens.append(last_lines(buf))
        os.write(master, b"m\n")
        buf = read_until(master, "your move> ", buf)
        screens.append(last_lines(buf))
        os.write(master, b"KD\n")
        buf = read_until(master, "your move> ", buf)
        screens.append(last_lines(buf))
        os.write(master, b"q\n")
        read_until(master, "Game log saved to", buf)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    shown = set()
    for page, screen in enumerate(screens[:2], 1):
        assert all(shown_width(line) <= 80 for line in screen)  # nothing wraps
        assert f"Legal moves, page {page} of 2 (m: more):" in screen
        assert [line.split(":")[0] for line in screen[-4:]] == [
            "Cards left", "Table", "Your hand", "your move> "]  # fmt: skip
        moves = "\n".join(line for line in screen if line.startswith("  "))
        shown |= {int(n) for n in re.findall(r"(\d+)\. ", moves)}
    assert shown == set(range(1, 39))  # every legal move on one page or the other
    assert screens[2][-2:] == ["The first play of the game must include the 3♦.", "your move> "]
    assert screens[2][-3] == "your move> KD"  # the terminal's echo
    assert screens[2][-6].startswith("Cards left: seat 1: 13")  # still on screen


def test_pages_of_moves_and_a_number_from_the_second(tmp_path):
    game, _, out = session(tmp_path, ["m", "m", "m", "30"], opponents=[GreedyAgent()] * 3)
    game.size = lambda: (80, 24)
    played = game.play(seed=LONG)
    assert played.log.moves[0].move is Game(seed=LONG).legal_moves()[29]
    headings = [line for screen in out for line in screen.split("\n") if "Legal moves" in line]
    assert headings[:4] == [f"Legal moves, page {p} of 2 (m: more):" for p in (1, 2, 1, 2)]
    first = out[1].split("\n")
    assert len(first) + 1 <= 24 - 4  # the screen and its prompt, below four announced moves
    assert re.findall(r"(\d+)\. ", first[2])[:2] == ["1", "15"]  # read down the columns
    wide, _, wide_out = session(tmp_path, ["q"])
    wide.size = lambda: (200, 60)
    wide.play(seed=LONG)
    assert "Legal moves:" in wide_out[1] and " 38. " in wide_out[1]  # all on one page


def test_the_terminal_gives_the_pages_reasons(tmp_path):
    from big2.app.table import Refused, Table

    table = Table([GreedyAgent()] * 3, ["greedy"] * 3, log_dir=None)
    state = table.new(seed=SEED)
    state = table.move(state["game"], state["version"], ["3D"])
    tries = [["4D"], ["4D", "4C"], ["5H"], ["4D", "6D"], ["3C"]]
    reasons = []
    for cards in tries:
        with pytest.raises(Refused) as refused:
            table.move(state["game"], state["version"], cards)
        reasons.append(str(refused.value))
    assert "does not beat the single on the table" in reasons[0]
    assert len(set(reasons)) == len(reasons)
    game, _, out = session(tmp_path, ["3D", *(" ".join(c) for c in tries), "q"],
                           opponents=[GreedyAgent()] * 3)  # fmt: skip
    game.play(seed=SEED)
    assert [line for line in out if line in reasons] == reasons


@pytest.mark.parametrize("name", ["three-player", "two-player"])
def test_a_person_plays_a_game_of_fewer_seats_to_the_end(tmp_path, name):
    rules = get_rules(name)
    out, script = [], Script(["1"] * 300)  # always the first legal move
    opponents = [GreedyAgent() for _ in range(rules.players - 1)]
    session = TerminalGame(opponents, rules, 0, tmp_path, False, read=script, write=out.append)
    game = session.play(seed=SEED)
    assert game.is_over and len(game.hands) == rules.players
    (saved,) = tmp_path.glob("*.json")
    log = GameLog.from_json(saved.read_text(encoding="utf-8"))
    assert log.rules == rules and len(log.players) == rules.players and log.moves == game.log.moves
    with pytest.raises(ValueError, match=rf"needs {rules.players - 1} opponents, got 3"):
        TerminalGame([GreedyAgent()] * 3, rules, 0, tmp_path)


def test_cards_are_named_in_the_rules_suit_order(tmp_path):
    taiwan = get_rules("taiwan")
    out, script = [], Script(["3c", *["1"] * 300])  # under taiwan the 3C (bit 0) leads
    opponents = [GreedyAgent() for _ in range(3)]
    session = TerminalGame(opponents, taiwan, 0, tmp_path, False, read=script, write=out.append)
    game = session.play(seed=SEED)  # seat 0 holds bit 0 (see test_board_of_the_seed)
    assert game.log.moves[0].move == HandRanking.from_str("3C", taiwan)
    assert game.log.moves[0].move.cards == 1
    assert any("3♣ 3♦ 4♣ 4♦" in line for line in out)  # bits 0 to 3: clubs below diamonds
