"""The game state machine: turns, passes, trick resets, the end and the scores.

>>> game = Game(seed=0)
>>> game.turn == game.board.first_seat, game.table is None
(True, True)
>>> all(m.cards & 1 for m in game.legal_moves())  # the first play contains 3D
True
>>> while not game.is_over:
...     game.play(game.legal_moves()[0])
>>> game.winner, sum(game.scores())
(3, 0)
>>> Game.replay(game.log).hands == game.hands
True
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping
from typing import NamedTuple

from big2 import cards as C
from big2.board import Board, Seed, relative_seat
from big2.hand_ranking import PASS, HandRanking, Ranking, catalog, combinations_in
from big2.log import GameLog, History, LogEntry
from big2.rules import STANDARD, Rules

Moves = tuple[HandRanking, ...]


class IllegalMove(ValueError):
    """A move that is not legal now; the game is left unchanged."""


class View(NamedTuple):
    """What ``seat`` may see: its own hand and public information, never others' cards.

    ``played[s]`` is the mask of cards seat ``s`` has played; ``history`` the public
    moves in order; ``cards_left[s]`` each seat's hand size; ``played_rankings[s]`` has
    bit ``r`` set when seat ``s`` has played a combination of :class:`Ranking` ``r``.
    Immutable.
    """

    seat: int
    hand: int
    turn: int
    table: HandRanking | None
    table_seat: int | None
    passes: int
    cards_left: tuple[int, ...]
    played: tuple[int, ...]
    history: History
    rules: Rules
    played_rankings: tuple[int, ...] = (0, 0, 0, 0)

    def has_played(self, seat: int, ranking: Ranking) -> bool:
        """Whether ``seat`` has played a combination of category ``ranking`` this game."""
        return bool(self.played_rankings[seat] >> ranking & 1)

    @property
    def leading(self) -> bool:
        """Whether this seat is to act on an empty table."""
        return self.turn == self.seat and self.table is None

    @property
    def unseen(self) -> int:
        """Cards this seat has not seen: not in its hand and not played."""
        seen = self.hand
        for cards in self.played:
            seen |= cards
        return C.DECK & ~seen

    def relative(self, seat: int) -> int:
        """``seat`` relative to this view's seat: 0 me, 1 next, ... (of four: 2 across,
        3 previous)."""
        return relative_seat(seat, self.seat, self.rules.players)


class Game:
    """A game of Big Two from a deal to its end.

    ``turn`` is the seat to act (after the end: the winner), ``table`` the combination
    to beat (None when leading), ``legal_moves()`` the moves of ``turn`` (PASS last,
    when allowed) and ``play(move)`` makes one; ``log`` records every move.
    """

    def __init__(
        self,
        rules: Rules = STANDARD,
        seed: Seed = None,
        fixed: Mapping[int, int | str] | None = None,
    ) -> None:
        self._start(Board(rules, seed, fixed))

    @classmethod
    def from_board(cls, board: Board) -> Game:
        """A new game on ``board``'s deal."""
        game = cls.__new__(cls)
        game._start(board)
        return game

    @classmethod
    def replay(cls, log: GameLog) -> Game:
        """The game that ``log`` records, with every move re-checked (and the log's
        thoughts, players, seed and date kept).

        A move that is not legal, or made out of turn, raises :class:`IllegalMove`.
        """
        game = cls.from_board(Board.from_hands(log.deal, log.rules))
        automatic = len(game.log.moves)  # moves the rules make (CHARLESWORTH's opening 3D)
        if log.moves[:automatic] != game.log.moves:
            raise IllegalMove(
                f"log starts with {log.moves[:automatic]}, but the rules open with {game.log.moves}"
            )
        for number, entry in enumerate(log.moves[automatic:], automatic):
            if game.is_over:
                raise IllegalMove(f"log move {number} comes after the game is over")
            if entry.seat != game.turn or entry.table is not game.table:
                raise IllegalMove(
                    f"log move {number} is by seat {entry.seat} on table {entry.table}, but seat "
                    f"{game.turn} is to act on table {game.table}"
                )
            game.play(entry.move)
        game.log.thoughts = dict(log.thoughts)  # what the agents weighed, kept as logged
        game.log.players, game.log.seed, game.log.date = log.players, log.seed, log.date
        return game

    def _start(self, board: Board) -> None:
        self.board = board
        self.rules = board.rules
        self._hands = list(board.hands)
        players = board.rules.players
        self._played = [0] * players
        self._left = [h.bit_count() for h in board.hands]  # cards left per seat
        self._kinds = [0] * players  # per seat: bit r set once it played a Ranking r
        self._catalog = catalog(board.rules)
        # per seat: the combinations in its hand (catalog order) and their indices; the
        # five-card ones (last in catalog order) are added when first needed
        small = tuple(s for s in self._catalog.sizes if s < 5)
        self._combos = [combinations_in(h, small, board.rules) for h in board.hands]
        self._indices = [[c.index for c in combos] for combos in self._combos]
        self._has_fives = [False] * players
        self._legal: Moves | None = None
        self._locked = 0  # seats locked out of the trick by a pass (rules.pass_locks_out)
        self._opening = board.rules.opening == "contains"
        self._opening_card = 1 << board.rules.opening_index
        self._bomb_kinds = frozenset(b.ranking for b in self._catalog.bombs)
        self.turn = board.first_seat
        self.table: HandRanking | None = None
        self.table_seat: int | None = None
        self.passes = 0
        self.winner: int | None = None
        self.log = GameLog(board.rules, board.hands)
        if board.rules.opening == "auto":
            self.play(self._catalog.by_cards[self._opening_card])

    # ------------------------------------------------------------------ queries

    @property
    def hands(self) -> tuple[int, ...]:
        """The hands (one per seat), as masks."""
        return tuple(self._hands)

    def hand(self, seat: int) -> int:
        """The hand of ``seat``, as a mask."""
        return self._hands[seat]

    @property
    def is_over(self) -> bool:
        """Whether a seat has gone out."""
        return self.winner is not None

    def legal_moves(self) -> Moves:
        """The moves ``turn`` may make: combinations in catalog order, then PASS if allowed.

        Empty once the game is over.
        """
        if self._legal is None:
            self._legal = self._generate()
        return self._legal

    def _generate(self) -> Moves:
        if self.winner is not None:
            return ()
        seat, table = self.turn, self.table
        bombs = bool(self._bomb_kinds) and table is not None and table.size in self.rules.bombs_beat
        if (table is None or table.size == 5 or bombs) and not self._has_fives[seat]:
            self._add_fives(seat)
        combos = self._combos[seat]
        if table is None:
            if self._opening:
                return tuple(m for m in combos if m.cards & self._opening_card)
            return tuple(combos)
        if self._locked >> seat & 1:
            return (PASS,)
        # catalog order is size-major and strength-sorted: what beats the table is a range
        indices, cat = self._indices[seat], self._catalog
        lo = bisect_left(indices, cat.beaten_from(table))
        hi = bisect_left(indices, cat.size_end(table.size), lo)
        if bombs:  # bigger than the table, after it in catalog order
            kinds = self._bomb_kinds
            return (*combos[lo:hi], *(c for c in combos[hi:] if c.ranking in kinds), PASS)
        return (*combos[lo:hi], PASS)

    def _add_fives(self, seat: int) -> None:
        fives = combinations_in(self._hands[seat], 5, self.rules)
        self._combos[seat] = self._combos[seat] + fives
        self._indices[seat] = self._indices[seat] + [c.index for c in fives]
        self._has_fives[seat] = True

    def scores(self) -> tuple[int, ...]:
        """Final scores: losers pay their penalty to the winner; they sum to zero."""
        if self.winner is None:
            raise ValueError("the game is not over; scores exist only after a seat goes out")
        penalties = [self.rules.penalty(h.bit_count()) for h in self._hands]
        return tuple(sum(penalties) if s == self.winner else -p for s, p in enumerate(penalties))

    def view(self, seat: int) -> View:
        """What ``seat`` may see now."""
        if not 0 <= seat < self.rules.players:
            raise ValueError(f"unknown seat {seat!r}; expected 0..{self.rules.players - 1}")
        return View(
            seat,
            self._hands[seat],
            self.turn,
            self.table,
            self.table_seat,
            self.passes,
            tuple(self._left),
            tuple(self._played),
            History(self.log.moves),
            self.rules,
            tuple(self._kinds),
        )

    # ------------------------------------------------------------------ moves

    def play(self, move: HandRanking) -> None:
        """Make ``move`` for the seat to act.

        Raises :class:`IllegalMove` (a ``ValueError``), naming the move and the table,
        if it is not in :meth:`legal_moves`; the game is then unchanged.
        """
        if move not in self.legal_moves():
            raise IllegalMove(self._why_illegal(move))
        seat = self.turn
        self.log.moves.append(LogEntry(seat, move, self.table))
        self._legal = None
        if move:
            self._take(seat, move)
        else:
            self._pass(seat)

    def _take(self, seat: int, move: HandRanking) -> None:
        hand = self._hands[seat] ^ move.cards
        self._hands[seat] = hand
        self._played[seat] |= move.cards
        self._left[seat] = hand.bit_count()
        self._kinds[seat] |= 1 << move.ranking
        combos = [c for c in self._combos[seat] if not c.cards & move.cards]
        self._combos[seat] = combos
        self._indices[seat] = [c.index for c in combos]
        self.table, self.table_seat = move, seat
        self.passes = 0
        self._opening = False
        if hand:
            self.turn = (seat + 1) % self.rules.players
        else:
            self.winner = seat

    def _pass(self, seat: int) -> None:
        self.passes += 1
        if self.rules.pass_locks_out:
            self._locked |= 1 << seat
        if self.passes == self.rules.players - 1:
            assert self.table_seat is not None
            self.table, self.turn = None, self.table_seat
            self.passes = self._locked = 0
        else:
            self.turn = (seat + 1) % self.rules.players

    def why_illegal(self, move: object) -> str:
        """Why ``move`` cannot be made now, in a few words ("" when it is legal).

        >>> game = Game(seed=5)
        >>> game.why_illegal(PASS)
        'the leader must play, not pass'
        """
        if self.winner is not None:
            return f"the game is over (seat {self.winner} won)"
        if not isinstance(move, HandRanking):
            return "expected a HandRanking or PASS"
        if move in self.legal_moves():
            return ""
        if move is PASS:
            return "the leader must play, not pass"
        if move not in self._catalog:
            return f"it is not a combination of the {self.rules.name} rules"
        if missing := move.cards & ~self._hands[self.turn]:
            return f"seat {self.turn} does not hold {self._text(missing)}"
        if self._opening and not move.cards & self._opening_card:
            return f"the first play must contain {self._text(self._opening_card)}"
        if self._locked >> self.turn & 1:
            return f"seat {self.turn} passed and is locked out until the table clears"
        if self.table is not None and move.size != self.table.size:
            n = self.table.size
            return f"the table holds {n} card{'s' if n > 1 else ''}, not {move.size}"
        return "it does not beat the table"

    def _text(self, cards: int) -> str:
        return C.format_cards(cards, suits=self.rules.suit_order)

    def _why_illegal(self, move: object) -> str:
        table = "an empty table" if self.table is None else f"the table {self.table}"
        text = str(move) if isinstance(move, HandRanking) else repr(move)
        if self.winner is not None:
            return f"cannot play {text}: {self.why_illegal(move)}"
        n = len(self.legal_moves())
        reason = self.why_illegal(move)
        return f"illegal move {text} by seat {self.turn} on {table}: {reason} ({n} legal moves)"

    def copy(self) -> Game:
        """An independent copy (for search); the log is copied too."""
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        other._hands, other._played = list(self._hands), list(self._played)
        other._left, other._kinds = list(self._left), list(self._kinds)
        other._combos = [list(c) for c in self._combos]
        other._indices = [list(i) for i in self._indices]
        other._has_fives = list(self._has_fives)
        other.log = GameLog(self.rules, self.log.deal, list(self.log.moves))
        return other

    def __repr__(self) -> str:
        state = (
            f"winner={self.winner}" if self.is_over else f"turn={self.turn}, table={self.table!r}"
        )
        left = tuple(self._left)
        return f"<Game {self.rules.name} {state}, cards_left={left}, moves={len(self.log.moves)}>"
