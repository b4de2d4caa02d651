"""Big Two in a terminal: a person against three agents, and a replay viewer.

The person picks a legal move by its number, types its cards (``3D 3S``), ``p`` to
pass, ``h`` for help or ``q`` to quit. Invalid input re-prompts and changes nothing; cards
that are not a legal move get the engine's reason, worded as the browser page words it
(:mod:`big2.app.reasons`).

The screen fits the terminal: the legal moves in columns (:mod:`big2.app.columns`), a
page at a time when they fill more than the terminal's height (``m`` shows the next),
then the opponents' card counts, the table and the hand, next to the prompt, so a long
move list never pushes them off the screen (80x24 included).
Every game's log is saved as JSON in the chosen folder after every move, and on
quitting, on end of input and on SIGTERM or SIGHUP (:func:`stop_on_signals`), so closing
the terminal loses nothing; it says who played (the opponents' specs, ``you``), the seed
and the date. :func:`replay` steps through a saved log with all hands visible, naming
seats ``seat N (agent)`` where the log says who played.
"""

from __future__ import annotations

import errno
import os
import select
import shutil
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from types import FrameType

from big2 import cards as C
from big2.app.columns import pages
from big2.app.logs import new_log_name, save_log
from big2.app.reasons import chosen_move
from big2.board import Board, Seed
from big2.game import Game, View
from big2.hand_ranking import PASS, HandRanking
from big2.log import PERSON, GameLog, now, unwritable
from big2.players import Agent, agent_name, play
from big2.rules import Rules

HELP = """Commands:
  <number>     play the legal move with that number
  <cards>      play those cards, e.g. 3D 3S (10 or T, suits D C H S or ♦ ♣ ♥ ♠)
  p            pass
  m            the next page of legal moves (the screen again when all fit)
  h            this help
  q            quit (the game so far is saved)"""

RED, RESET, BOLD = "\033[31m", "\033[0m", "\033[1m"


POLL = 0.25  # seconds: the longest a signal's handler waits while a terminal line is read
# terminal lines a screen needs besides its move list: the moves announced since the
# person's last turn (three seats' and the person's own), a blank line, the list's
# heading, the card counts, the table, the hand and the prompt
AROUND_MOVES = 10


class Quit(Exception):
    """The person typed q."""


class Stopped(Exception):
    """A signal that ends the program arrived (SIGTERM, or SIGHUP: the terminal closed).

    :meth:`TerminalGame.play` saves the game and sets ``saved`` to the log's path before
    passing it on; the command then exits with ``128 + signum``, as the signal would have.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.saved: Path | None = None


def hung_up(error: OSError) -> Stopped | None:
    """:class:`Stopped` for SIGHUP if ``error`` is a terminal's hang-up (``EIO``: its
    window closed, so reading and writing fail), else None.

    >>> hung_up(OSError(errno.EIO, "Input/output error")).signum == signal.SIGHUP
    True
    >>> hung_up(OSError(errno.ENOSPC, "No space left on device")) is None
    True
    """
    hang_up = getattr(signal, "SIGHUP", None)  # POSIX only, as are terminals that hang up
    return Stopped(hang_up) if hang_up is not None and error.errno == errno.EIO else None


def read_line(prompt: str) -> str:
    """``input(prompt)``, but a signal that lands just before the wait for the line still
    has its handler run (:func:`stop_on_signals`' SIGTERM among them).

    ``input`` blocks in one ``read``: a signal whose handler is due just before it starts
    waits for the next line typed. On a terminal this waits in short ``select`` calls
    (:data:`POLL` seconds), which return to Python, then reads the line (a terminal hands
    over one line per read); elsewhere (pipes, files, Windows) it is ``input``. A terminal
    that has hung up (its window closed: reads and writes fail with ``EIO``) raises
    :class:`Stopped` for SIGHUP, as the hang-up's own signal does when it comes first.
    """
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):  # replaced by something without a file
        return input(prompt)
    if sys.platform == "win32" or not os.isatty(fd):
        return input(prompt)
    try:
        sys.stdout.write(prompt)
        sys.stdout.flush()
        while not select.select([fd], [], [], POLL)[0]:
            pass
        data = os.read(fd, 4096)
    except OSError as e:
        if stop := hung_up(e):  # its SIGHUP has not come yet
            raise stop from None
        raise
    if not data:
        raise EOFError
    return data.decode(sys.stdin.encoding or "utf-8", "replace").rstrip("\r\n")


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """Inside, SIGTERM and SIGHUP raise :class:`Stopped` in the main thread instead of
    ending the process at once, so the game in play is saved.

    A signal that is ignored (``nohup``) or has a handler of its own already is left
    as it is; the handlers before are given back on the way out.
    """
    names = ("SIGTERM", "SIGHUP")  # SIGHUP: POSIX only
    signums = [getattr(signal, n) for n in names if hasattr(signal, n)]

    def stop(signum: int, frame: FrameType | None) -> None:
        raise Stopped(signum)

    previous = {s: signal.getsignal(s) for s in signums}
    for signum, handler in previous.items():
        if handler is signal.SIG_DFL:
            signal.signal(signum, stop)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            if signal.getsignal(signum) is stop:
                signal.signal(signum, handler)


def cards_text(mask: int, color: bool, suits: str = C.SUITS) -> str:
    """Cards with suit symbols (``suits``: the rules' suit order), hearts and diamonds in
    red when ``color``.

    >>> cards_text(0b11, False), cards_text(0b11, False, "CDHS")
    ('3♦ 3♣', '3♣ 3♦')
    """
    out = []
    for i in C.iter_cards(mask):
        letter = suits[C.suit_of(i)]
        text = C.RANKS[C.rank_of(i)] + C.SYMBOL_OF[letter]
        out.append(f"{RED}{text}{RESET}" if color and letter in "DH" else text)
    return " ".join(out)


def move_text(move: HandRanking, color: bool) -> str:
    """A move as the terminal shows it: its cards and category, or ``pass``."""
    if not move:
        return "pass"
    suits = move.rules.suit_order if move.rules is not None else C.SUITS
    return f"{cards_text(move.cards, color, suits)} ({move.ranking.label})"


class TerminalGame:
    """One person (``seat``) against ``opponents`` (agents for the other seats of the
    rules: three of four, or two, or one), named in the logs by ``names`` (their agent
    specs; default: each agent's ``name``).

    ``size`` gives the terminal's (columns, lines), asked at every screen.
    """

    def __init__(
        self,
        opponents: Sequence[Agent],
        rules: Rules,
        seat: int = 0,
        log_dir: Path | str = "big2_logs",
        color: bool | None = None,
        read: Callable[[str], str] = read_line,
        write: Callable[[str], None] = print,
        size: Callable[[], tuple[int, int]] = shutil.get_terminal_size,
        names: Sequence[str] | None = None,
    ) -> None:
        others_count, seats = rules.players - 1, rules.players
        if len(opponents) != others_count:
            raise ValueError(
                f"a terminal game under the {rules.name} rules needs {others_count} opponents, "
                f"got {len(opponents)}"
            )
        if names is None:
            names = [agent_name(a) for a in opponents]
        if len(names) != others_count:
            raise ValueError(f"give the {others_count} opponents' names, not {len(names)}")
        if not 0 <= seat < seats:
            raise ValueError(f"seat must be 0..{seats - 1}, got {seat}")
        self.opponents, self.rules, self.seat = list(opponents), rules, seat
        others = iter(names)
        self.players = [PERSON if s == seat else next(others) for s in range(seats)]
        self.log_dir = Path(log_dir)
        problem = unwritable(self.log_dir)
        if problem:
            raise ValueError(
                f"cannot save game logs in {self.log_dir} ({problem}); choose another --log-dir"
            )
        self.color = _wants_color() if color is None else color
        self.read, self.write, self.size = read, write, size
        self._problem: str | None = None

    def play(self, seed: Seed = None) -> Game:
        """Play one game to its end (or until ``q``); the log is saved after every move.

        A signal that ends the program (:class:`Stopped`, from :func:`stop_on_signals`),
        or a terminal that hung up before its SIGHUP came, saves the game too, then goes on
        to the caller as :class:`Stopped`. The log names the seed if it is a
        number (a ``random.Random`` has none to name).
        """
        game = Game(self.rules, seed=seed)
        game.log.sign(self.players, seed if isinstance(seed, int) else None, now())
        name = new_log_name()
        person = _Person(self, game)
        others = iter(self.opponents)
        agents = [person if s == self.seat else next(others) for s in range(self.rules.players)]
        try:
            self._play(game, agents, person, name)
        except (Stopped, OSError) as error:  # an OSError: the terminal may have hung up
            stop = error if isinstance(error, Stopped) else hung_up(error)
            if stop is None:
                raise
            stop.saved = self.save(game.log, name)
            raise stop from None
        return game

    def _play(self, game: Game, agents: list[Agent], person: _Person, name: str) -> None:
        """The moves to the end or until ``q`` (or the end of input), saving after each,
        then the end of the game on the screen."""
        self.write(f"You are seat {self.seat}. Type h for help.")
        self.save(game.log, name)  # the deal, before the first move
        try:
            while not game.is_over:
                _one_move(game, agents)
                self.save(game.log, name)
        except Quit:
            person.announce()
            self.write("Quit.")
        else:
            person.announce()
        self._finish(game, name)

    def _finish(self, game: Game, name: str) -> None:
        if game.is_over:
            scores = game.scores()
            winner = "You win" if game.winner == self.seat else f"Seat {game.winner} wins"
            self.write(f"{winner}! Scores: {list(scores)} (you: {scores[self.seat]:+d})")
        path = self.save(game.log, name)
        self.write(f"Game log saved to {path}")

    def save(self, log: GameLog, name: str | None = None) -> Path:
        """Write ``log`` as JSON in the log folder as ``name`` (a new name if None); the
        path is returned.

        If the folder stopped working since the game began, the log goes to a private
        temporary folder instead (:func:`big2.app.logs.fallback_folder`), and a message
        says why and where, once.
        """
        path, problem = save_log(log, self.log_dir, name or new_log_name())
        if problem and problem != self._problem:
            self._write_if_possible(f"{problem[0].upper()}{problem[1:]}; saved to {path}.")
        self._problem = problem
        return path

    def _write_if_possible(self, text: str) -> None:
        """Write ``text``, unless the terminal is gone (after a hang-up)."""
        with suppress(OSError):
            self.write(text)

    def ask(self, game: Game) -> HandRanking:
        """Show the person's screen and read moves until one is legal (``q`` quits;
        ``m`` shows the next page of moves)."""
        legal, page = game.legal_moves(), 0
        self.write(self._screen(game, legal, page))
        while True:
            try:
                answer = self.read("your move> ").strip()
            except (EOFError, KeyboardInterrupt):
                raise Quit from None  # end of input counts as quitting: the log is saved
            if answer.lower() in ("m", "more"):
                page += 1
                self.write(self._screen(game, legal, page))
                continue
            move, problem = self._parse(answer, game, legal)
            if move is not None:
                return move
            self.write(problem)

    def _parse(
        self, answer: str, game: Game, legal: Sequence[HandRanking]
    ) -> tuple[HandRanking | None, str]:
        """The move ``answer`` names, or None and what was wrong with it."""
        word = answer.lower()
        if not word.strip(" ,"):
            return None, "Type a move number, the cards to play, p to pass or h for help."
        if word in ("q", "quit"):
            raise Quit
        if word in ("h", "help", "?"):
            return None, HELP
        if word in ("p", "pass"):
            if PASS in legal:
                return PASS, ""
            return None, "You cannot pass: you lead, so you must play."
        if word.isdigit():
            number = int(word)
            if 1 <= number <= len(legal):
                return legal[number - 1], ""
            return None, f"No move {number}: choose 1..{len(legal)}, p to pass or h for help."
        try:
            cards = C.parse_cards(answer, game.rules.suit_order)
        except ValueError as e:
            return None, f"{e}. Type h for help."
        try:
            return chosen_move(game, cards), ""
        except ValueError as e:
            return None, str(e)

    def _screen(self, game: Game, legal: Sequence[HandRanking], page: int) -> str:
        """The legal moves (page ``page`` of them, counted round), then the card counts,
        the table and the hand, which end next to the prompt."""
        width, height = self.size()
        items = [f"{i:>3}. {move_text(m, self.color)}" for i, m in enumerate(legal, 1)]
        shown = pages(items, width - 2, max(3, height - AROUND_MOVES))
        heading = "Legal moves:"
        if len(shown) > 1:
            heading = f"Legal moves, page {page % len(shown) + 1} of {len(shown)} (m: more):"
        moves = [f"  {line}" for line in shown[page % len(shown)]]
        return "\n".join(["", heading, *moves, *self._status(game)])

    def _status(self, game: Game) -> list[str]:
        """The opponents' card counts, the table and the person's hand."""
        color = self.color
        others = ", ".join(
            f"seat {s}: {game.hand(s).bit_count()}"
            for s in range(game.rules.players)
            if s != self.seat
        )
        table = "(empty: you lead)" if game.table is None else move_text(game.table, color)
        hand = cards_text(game.hand(self.seat), color, game.rules.suit_order)
        return [f"Cards left: {others}", f"Table: {table}", f"Your hand: {hand}"]


def _one_move(game: Game, agents: Sequence[Agent]) -> None:
    """Let the seat to act in ``game`` make one move."""
    before = len(game.log.moves)
    play(game, agents, until=lambda g: len(g.log.moves) > before)


class _Person:
    """The person's seat as an agent: announces the moves made since its last turn, asks."""

    def __init__(self, session: TerminalGame, game: Game) -> None:
        self.session, self.game, self.shown = session, game, 0

    def announce(self) -> None:
        """Write the moves not shown yet (the rules' own first, e.g. CHARLESWORTH's 3D)."""
        for entry in self.game.log.moves[self.shown :]:
            who = "you" if entry.seat == self.session.seat else f"seat {entry.seat}"
            self.session.write(f"  {who}: {move_text(entry.move, self.session.color)}")
        self.shown = len(self.game.log.moves)

    def act(self, view: View, legal_moves: Sequence[HandRanking]) -> HandRanking:
        self.announce()
        return self.session.ask(self.game)


def replay(
    log: GameLog,
    step: bool = True,
    color: bool | None = None,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> Game:
    """Show a logged game move by move with every hand visible.

    With ``step``, Enter shows the next move, ``a`` runs to the end, ``q`` stops.
    """
    color = _wants_color() if color is None else color
    moves = log.moves
    Game.replay(log)  # a corrupt or illegal log fails here, before anything is shown
    game = Game.from_board(Board.from_hands(log.deal, log.rules))
    write(f"Replay: {len(moves)} moves, {log.rules.name} rules{_setting(log)}")
    for number, entry in enumerate(game.log.moves):  # moves the rules made at the start
        write(f"{number + 1}. {log.seat_name(entry.seat)}: {move_text(entry.move, color)}")
    for number in range(len(game.log.moves), len(moves) + 1):
        write(_all_hands(game, log, color))
        if number == len(moves):
            break
        if step:
            answer = read("[Enter] next, a: to the end, q: quit> ").strip().lower()
            if answer == "q":
                return game
            step = answer != "a"
        entry = moves[number]
        game.play(entry.move)
        write(f"{number + 1}. {log.seat_name(entry.seat)}: {move_text(entry.move, color)}")
    if game.is_over and game.winner is not None:
        scores = ", ".join(f"{log.seat_name(s)} {x:+d}" for s, x in enumerate(game.scores()))
        winner = log.seat_name(game.winner)
        write(f"{winner[0].upper()}{winner[1:]} wins. Scores: {scores}")
    return game


def _setting(log: GameLog) -> str:
    """``, seed 7, played 2026-01-02T10:00:00+01:00``: what the log says of its game."""
    seed = "" if log.seed is None else f", seed {log.seed}"
    return seed + ("" if log.date is None else f", played {log.date}")


def _all_hands(game: Game, log: GameLog, color: bool) -> str:
    suits, seats = game.rules.suit_order, range(game.rules.players)
    rows = [f"  {log.seat_name(s)}: {cards_text(game.hand(s), color, suits)}" for s in seats]
    table = "(empty)" if game.table is None else move_text(game.table, color)
    return "\n".join([*rows, f"  table: {table}"])


def _wants_color() -> bool:
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ
