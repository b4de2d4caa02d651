"""What the browser page shows, computed in Python: a person's game against three agents
(:class:`Table`) and a saved game as replay frames (:func:`frames`).

The page (``big2/app/static``) only draws what these return, as JSON
(:mod:`big2.app.page_state`): cards are text (``"TS"``), seats are named ``seat N
(agent)``, moves carry their category and, for agents that say what they weighed, their
:class:`~big2.log.Thought`. :class:`Table` checks every choice the person makes and
explains a refusal in words; a move sent from a page that has fallen behind the game
(another tab, a lost connection) is refused as stale and changes nothing. On request it
asks its hint agent what it would play in the person's seat (:meth:`Table.hint`).

>>> from big2.players import GreedyAgent
>>> table = Table([GreedyAgent()] * 3, ["greedy"] * 3, log_dir=None)
>>> state = table.new(seed=7)
>>> state["seed"], len(state["hand"]), state["labels"][:2]
(7, 13, ['seat 0 (you)', 'seat 1 (greedy)'])
"""

from __future__ import annotations

import random
import threading
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from big2 import cards as C
from big2.app.logs import new_log_name, save_log
from big2.app.page_state import (
    cards_list,
    last_plays,
    move_dict,
    playable,
    table_dict,
    thought_dict,
)
from big2.app.reasons import chosen_move
from big2.board import Board
from big2.game import Game
from big2.hand_ranking import PASS, HandRanking
from big2.log import PERSON, Candidate, GameLog, LogEntry, Thought, now
from big2.players import Agent, play
from big2.rules import STANDARD, Rules

YOU = PERSON
KEEP_UNFINISHED = 20  # logs of games a table left unfinished that it keeps
GONE = (
    "This page showed a game that is no longer being played (a new game was started, "
    "perhaps in another tab); here is the current one."
)
BEHIND = (
    "This page was behind the game (it was played on in another tab or window); "
    "here is where it stands now."
)


class Refused(ValueError):
    """A choice the page sent that was not applied; ``stale``: the page is behind the game."""

    def __init__(self, message: str, stale: bool = False) -> None:
        super().__init__(message)
        self.stale = stale


class Table:
    """One person (``seat``) against three agents, one game at a time (thread-safe).

    Every change is saved to the game's log file in ``log_dir`` (None: not saved), so a
    closed page or a stopped server loses nothing that was played.

    Games left unfinished (a new game started before the end) keep their logs, but only
    the latest ``keep_unfinished`` of this table's: when a new game starts, the logs of
    older ones are deleted. Only files this table wrote are deleted, and only while they
    still hold the unfinished game as it saved it (a regular file, not a symbolic link):
    logs of finished games, logs from ``big2 play``, the arena or an earlier server, and
    any file that was changed or is not a game log stay.

    ``names`` are the agents' specs, written in the logs as who played; ``hint`` is the
    agent asked for hints (None: no hints), named ``hint_name``; give it an agent of its
    own, not one of the three, so that asking for a hint changes nothing in the game.
    """

    def __init__(
        self,
        agents: Sequence[Agent],
        names: Sequence[str],
        rules: Rules = STANDARD,
        seat: int = 0,
        log_dir: Path | None = Path("big2_logs"),
        keep_unfinished: int = KEEP_UNFINISHED,
        *,
        hint: Agent | None = None,
        hint_name: str = "hint",
    ) -> None:
        others = rules.players - 1
        if len(agents) != others or len(names) != others:
            raise ValueError(
                f"a table of the {rules.name} rules needs {others} agents (one per other "
                f"seat), got {len(agents)} agents and {len(names)} names"
            )
        if not 0 <= seat < rules.players:
            raise ValueError(f"seat {seat}: the {rules.name} rules seat 0..{rules.players - 1}")
        if keep_unfinished < 0:
            raise ValueError(
                f"keep_unfinished is a number of logs, 0 or more, not {keep_unfinished}"
            )
        if getattr(hint, "sees_every_hand", False):
            raise ValueError(f"hint agent {hint_name!r} sees every hand: its hints would cheat")
        self.hint_agent, self.hint_name = hint, hint_name
        self.rules, self.seat, self.log_dir = rules, seat, log_dir
        self.keep_unfinished = keep_unfinished
        self.unfinished: list[tuple[Path, GameLog]] = []  # this table's, oldest first
        agents_names = iter(zip(agents, names, strict=True))
        self.by_seat: list[Agent | None] = []
        self.names: list[str] = []
        for s in range(rules.players):
            agent, name = (None, YOU) if s == seat else next(agents_names)
            self.by_seat.append(agent)
            self.names.append(name)
        self.lock = threading.Lock()
        self.game: Game | None = None
        self.id, self.name, self.seed, self.saved, self.problem = "", "", 0, "", ""

    def new(self, seed: int | None = None) -> dict[str, Any]:
        """Start a new game (a random seed unless given) and play the agents up to the
        person's turn; the page's state."""
        with self.lock:
            self._leave_game()
            self.seed = random.SystemRandom().randrange(2**31) if seed is None else seed
            self.game = Game(self.rules, seed=self.seed)
            self.game.log.sign(self.names, self.seed, now())
            self.id, self.name = uuid.uuid4().hex[:12], new_log_name()
            for seat, agent in enumerate([*self.by_seat, self.hint_agent]):  # as in the arena
                reset = getattr(agent, "reset", None)
                if callable(reset):
                    reset(random.Random(f"{self.seed}:{seat}").getrandbits(64))
            self._agents_move()
            return self._state()

    def state(self) -> dict[str, Any]:
        """The page's state of the current game (``{"game": None}`` before the first)."""
        with self.lock:
            return self._state()

    def move(self, game_id: str, version: int, cards: Sequence[str]) -> dict[str, Any]:
        """Play the person's ``cards`` (text; none: pass) in game ``game_id`` after
        ``version`` moves; then the agents up to the person's next turn. A stale page or an
        illegal choice raises :class:`Refused` saying why, and changes nothing."""
        with self.lock:
            game = self._your_turn(game_id, version)
            game.play(self._chosen(game, cards))
            self._agents_move()
            return self._state()

    def hint(self, game_id: str, version: int) -> dict[str, Any]:
        """What the hint agent would play in the person's seat, as a thought for the page
        (``"agent"``: its name): its top candidates for the person's hand, the move it
        picks marked ``chosen``. Nothing in the game changes; a stale page, another
        seat's turn or no hint agent raises :class:`Refused`."""
        with self.lock:
            game = self._your_turn(game_id, version)
            if self.hint_agent is None:
                raise Refused("This table has no agent to ask for hints.")
            view, legal = game.view(self.seat), game.legal_moves()
            move = self.hint_agent.act(view, legal)
            thought = getattr(self.hint_agent, "last_thought", None)
            if thought is None:  # an agent that says nothing of what it weighed
                thought = Thought((Candidate(move, 1.0),))
            return {"agent": self.hint_name, **thought_dict(thought, move)}

    def _your_turn(self, game_id: str, version: int) -> Game:
        """The current game, if the page is up to date and it is the person's turn;
        :class:`Refused` saying why not otherwise."""
        game = self.game
        if game is None or game_id != self.id:
            raise Refused(GONE, stale=True)
        if version != len(game.log.moves):
            raise Refused(BEHIND, stale=True)
        if game.is_over:
            raise Refused("The game is over: start a new one.")
        if game.turn != self.seat:
            raise Refused(f"It is {game.log.seat_name(game.turn)}'s turn, not yours.")
        return game

    def _chosen(self, game: Game, cards: Sequence[str]) -> HandRanking:
        """The legal move ``cards`` names, or :class:`Refused` explaining why it is none."""
        if not cards:
            if PASS in game.legal_moves():
                return PASS
            raise Refused("You lead, so you must play: you cannot pass now.")
        try:
            mask = C.parse_cards(" ".join(cards), game.rules.suit_order)
        except ValueError as e:
            raise Refused(f"{e}.") from None
        if len(cards) != mask.bit_count():
            raise Refused("The same card was chosen twice.")
        try:
            return chosen_move(game, mask)
        except ValueError as e:
            raise Refused(str(e)) from None

    def _leave_game(self) -> None:
        """Note the current game's log if it is unfinished; delete the oldest such logs
        beyond ``keep_unfinished`` (the class docstring says which)."""
        game = self.game
        if game is not None and not game.is_over and self.saved:
            self.unfinished.append((Path(self.saved), game.log))
        while len(self.unfinished) > self.keep_unfinished:
            delete_if_unchanged(*self.unfinished.pop(0))

    def _agents_move(self) -> None:
        """Let the agents play until it is the person's turn or the game is over; save."""
        game = self.game
        assert game is not None
        agents: list[Agent] = [a if a is not None else _Stop() for a in self.by_seat]
        play(game, agents, until=lambda g: g.turn == self.seat)
        if self.log_dir is not None:
            path, problem = save_log(game.log, self.log_dir, self.name)
            self.saved, self.problem = str(path), problem or ""

    def _state(self) -> dict[str, Any]:
        game = self.game
        if game is None:
            labels = [f"seat {s} ({name})" for s, name in enumerate(self.names)]
            return {"game": None, "names": self.names, "labels": labels, "seat": self.seat}
        log = game.log
        over = game.is_over
        state: dict[str, Any] = {
            "game": self.id,
            "version": len(log.moves),
            "seed": self.seed,
            "rules": self.rules.name,
            "seat": self.seat,
            "names": self.names,
            "labels": log.seat_names(),
            "hand": cards_list(game.hand(self.seat), self.rules.suit_order),
            "counts": [hand.bit_count() for hand in game.hands],
            "table": table_dict(game),
            "last": last_plays(log),
            "turn": game.turn,
            "your_turn": not over and game.turn == self.seat,
            "can_pass": not over and game.turn == self.seat and PASS in game.legal_moves(),
            "playable": playable(game, self.seat),
            "hint": self.hint_agent is not None,
            "moves": [move_dict(e, log.thoughts.get(n), n) for n, e in enumerate(log.moves)],
            "over": over,
            "saved": self._saved_as(),
            "save_problem": self.problem,
        }
        if over:
            state["winner"] = game.winner
            state["scores"] = list(game.scores())
            suits = self.rules.suit_order
            state["hands"] = [cards_list(h, suits) for h in game.hands]
            state["deal"] = [cards_list(h, suits) for h in log.deal]
        return state

    def _saved_as(self) -> str:
        """Where the log is, for the page: its file name in the log folder (the page is
        not told the folder), or its whole path when it had to go elsewhere."""
        path = Path(self.saved)
        in_folder = self.log_dir is not None and path == self.log_dir / path.name
        return path.name if in_folder else self.saved


def delete_if_unchanged(path: Path, log: GameLog) -> bool:
    """Delete ``path`` if it is a regular file (not a symbolic link) holding ``log``;
    whether it was deleted. Anything else there is left as it is.

    >>> import tempfile
    >>> game = Game(seed=1)
    >>> path = Path(tempfile.mkdtemp()) / "game.json"
    >>> _ = path.write_text(game.log.to_json(), encoding="utf-8")
    >>> game.play(game.legal_moves()[0])  # the file no longer holds this log
    >>> delete_if_unchanged(path, game.log), path.exists()
    (False, True)
    """
    try:
        if path.is_symlink() or not path.is_file():
            return False
        if GameLog.from_json(path.read_text(encoding="utf-8")) != log:
            return False
        path.unlink()
    except (OSError, ValueError, RecursionError):  # unreadable, or not a game log
        return False
    return True


class _Stop:
    """The person's seat inside :func:`play`: never asked, since play stops first."""

    def act(self, view: Any, legal_moves: Any) -> HandRanking:
        raise AssertionError("the person's seat is not played by an agent")


def replay_data(log: GameLog, name: str = "") -> dict[str, Any]:
    """What the replay page is sent of a saved game: its ``name``, rules, seats named
    ``seat N (agent)`` (``seat N`` for a log that does not say who played), seed, date
    and :func:`frames`; ValueError as :func:`frames`.

    >>> from big2.players import GreedyAgent
    >>> data = replay_data(play(Game(seed=2), GreedyAgent()).log, "old.json")
    >>> data["names"][0], data["seed"], len(data["frames"]) > 1
    ('seat 0', None, True)
    """
    about = {"name": name, "rules": log.rules.name, "names": log.seat_names()}
    return {**about, "seed": log.seed, "date": log.date, "frames": frames(log)}


def frames(log: GameLog) -> list[dict[str, Any]]:
    """A saved game as replay frames: the deal, then the position after each move, with
    every hand shown, the move and what its agent weighed. A log that is corrupt or whose
    moves are not legal raises ValueError saying why.

    >>> from big2.players import GreedyAgent
    >>> game = play(Game(seed=2), GreedyAgent())
    >>> shots = frames(game.log)
    >>> len(shots) == len(game.log.moves) + 1, shots[-1]["winner"] == game.winner
    (True, True)
    """
    Game.replay(log)  # an illegal or out-of-turn move fails here, saying which
    game = Game.from_board(Board.from_hands(log.deal, log.rules))
    automatic = len(game.log.moves)  # moves the rules make (CHARLESWORTH's opening 3D)
    out = [_frame(game, None, log, -1)] if not automatic else []
    for number, entry in enumerate(log.moves):
        if number >= automatic:
            game.play(entry.move)
        out.append(_frame(game, entry, log, number))
    return out


def _frame(game: Game, entry: LogEntry | None, log: GameLog, number: int) -> dict[str, Any]:
    frame: dict[str, Any] = {
        "number": number + 1,
        "move": None if entry is None else move_dict(entry, log.thoughts.get(number), number),
        "hands": [cards_list(hand, game.rules.suit_order) for hand in game.hands],
        "counts": [hand.bit_count() for hand in game.hands],
        "table": table_dict(game),
        "last": last_plays(game.log),
        "turn": None if game.is_over else game.turn,
    }
    if game.is_over:
        frame["winner"], frame["scores"] = game.winner, list(game.scores())
    return frame
