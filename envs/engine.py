"""The batched Big Two engine: the rules of :mod:`big2.game` over arrays, compiled by numba.

:class:`Tables` holds one rules preset's catalog as arrays; :class:`Games` holds N games as
arrays (hands, played cards, table, turn, the move log and, per seat, the catalog indices of
every combination still in its hand, sorted, as :class:`big2.game.Game` keeps them). It
plays 2, 3 or 4 players: the per-seat arrays have one column per seat of the rules
(``rules.players``; no unused seats), and the capacities (:func:`max_combos`,
:func:`max_moves`) follow the rules. The kernels of :mod:`envs.kernels.turns` deal, list
legal moves and apply moves for many games in one call. ``big2.game`` stays the readable
reference: the tests replay thousands of games through both and compare every move,
observation and score.

A move is a catalog index, or :data:`envs.kernels.turns.PASS` (-1).

>>> from big2.board import Board
>>> from big2.rules import STANDARD
>>> tables = Tables.of(STANDARD)
>>> games = Games(2, tables)
>>> games.deal(0, Board(seed=0).hands)
>>> seat = int(games.turn[0])
>>> from big2.hand_ranking import combinations_in
>>> games.combos[0, seat, : games.n_combos[0, seat]].tolist() == [
...     c.index for c in combinations_in(Board(seed=0).hands[seat])]
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache, cached_property

import numpy as np

from big2.game import Game
from big2.hand_ranking import PASS, catalog
from big2.log import History, LogEntry
from big2.rules import Rules
from envs.kernels import deals, turns
from envs.kernels.turns import CatalogArrays, GameArrays

# Every combination is a distinct subset of 1 to 5 cards of a 13-card hand, so a hand
# holds at most C(13,1) + ... + C(13,5) of them: the per-seat capacity of the combo lists
# of four players (max_combos for others).
MAX_COMBOS = 13 + 78 + 286 + 715 + 1287
# At most 49 plays (the winner's 13 cards, 12 for each other seat) and 3 passes after
# each but the last, plus CHARLESWORTH's automatic opening: the move-log capacity of four
# players (max_moves for others).
MAX_MOVES = 49 + 3 * 48 + 1
OPENINGS = {"contains": 0, "auto": 1, "free": 2}


@dataclass(frozen=True)
class Tables:
    """One rules preset's catalog as arrays (build with :meth:`of`, cached per rules)."""

    rules: Rules
    players: int  # the seats of a game (2, 3 or 4)
    cards: np.ndarray  # uint64 (C,): the cards of catalog entry i
    size: np.ndarray  # int8 (C,)
    ranking: np.ndarray  # int8 (C,): its Ranking
    beaten_from: np.ndarray  # int32 (C,): the first index that beats entry i
    size_end: np.ndarray  # int32 (6,): one past the last index of each size
    sorted_cards: np.ndarray  # uint64 (C,): the masks, sorted, for lookups
    sorted_index: np.ndarray  # int32 (C,): their catalog indices
    low_start: np.ndarray  # int32 (13 * 16 * 3 + 1,): pairs/triples ranges, see _low_tables
    low_items: np.ndarray  # int32: catalog indices of singles, pairs, triples per rank mask
    straights: np.ndarray  # int64 (S, 5): the ranks of each straight (a row)
    penalty: np.ndarray  # int64 (largest hand + 1,): what a loser holding n cards pays
    four_card_plays: bool
    five_card_quads: bool
    flushes: bool  # flushes exist (five_card_hands)
    full_houses: bool  # full houses exist
    pass_locks_out: bool
    opening: int  # OPENINGS
    opening_card: int  # its card index (0, the lowest card, unless the rules name one)
    bomb_kinds: int  # bit r: a combination of Ranking r is a bomb
    bombs_beat: int  # bit s: bombs beat a play of s cards
    bombs: np.ndarray  # int64: the catalog indices of the bombs

    @cached_property
    def arrays(self) -> CatalogArrays:
        """The catalog as the kernels take it (made once: every kernel call reads it)."""
        return CatalogArrays(*(getattr(self, name) for name in CatalogArrays._fields))

    @staticmethod
    @cache
    def of(rules: Rules) -> Tables:
        """The tables of ``rules`` (any rules value: two to four players)."""
        cat = catalog(rules)
        cards = np.array([c.cards for c in cat], dtype=np.uint64)
        order = np.argsort(cards, kind="stable")
        low_start, low_items = _low_tables(cat)
        size_end = np.array([cat.size_end(n) for n in range(6)], dtype=np.int32)
        return Tables(
            rules=rules,
            players=rules.players,
            cards=cards,
            size=np.array([c.size for c in cat], dtype=np.int8),
            ranking=np.array([c.ranking for c in cat], dtype=np.int8),
            beaten_from=np.array([cat.beaten_from(c) for c in cat], dtype=np.int32),
            size_end=size_end,
            sorted_cards=cards[order],
            sorted_index=order.astype(np.int32),
            low_start=low_start,
            low_items=low_items,
            straights=np.array(cat.straights, dtype=np.int64).reshape(-1, 5),
            penalty=np.array([rules.penalty(n) for n in range(rules.largest_hand + 1)], np.int64),
            four_card_plays=rules.four_card_plays,
            five_card_quads=rules.five_card_quads,
            flushes=cat.flushes,
            full_houses=cat.full_houses,
            pass_locks_out=rules.pass_locks_out,
            opening=OPENINGS[rules.opening],
            opening_card=rules.opening_index,
            bomb_kinds=sum(1 << int(kind) for kind in {b.ranking for b in cat.bombs}),
            bombs_beat=sum(1 << size for size in rules.bombs_beat),
            bombs=np.array([b.index for b in cat.bombs], dtype=np.int64),
        )


def max_combos(rules: Rules) -> int:
    """The per-seat capacity of the combo lists: the combinations (subsets of 1 to 5 cards)
    of the largest hand, but never more than the catalog holds (a hand's combinations are
    distinct catalog entries; 26-card hands would otherwise need ~84,000 slots a seat).

    >>> from big2.rules import STANDARD, THREE_PLAYER
    >>> max_combos(STANDARD) == MAX_COMBOS, max_combos(THREE_PLAYER)
    (True, 12615)
    """
    subsets = sum(math.comb(rules.largest_hand, k) for k in range(1, 6))
    return min(subsets, len(catalog(rules)))


def max_moves(rules: Rules) -> int:
    """The move-log capacity: at most ``52 - (players - 1)`` plays (every loser keeps a
    card), ``players - 1`` passes after each but the last, and an automatic opening.

    >>> from big2.rules import STANDARD, TWO_PLAYER
    >>> max_moves(STANDARD) == MAX_MOVES, max_moves(TWO_PLAYER)
    (True, 102)
    """
    plays = 52 - (rules.players - 1)
    return plays + (rules.players - 1) * (plays - 1) + 1


def _low_tables(cat: object) -> tuple[np.ndarray, np.ndarray]:
    """``low_items[low_start[k]:low_start[k + 1]]`` with ``k = low_key(rank, suit_mask,
    n)`` (:func:`envs.kernels.combos.low_key`): the catalog indices of the n-card sets
    (singles, pairs, triples) of that rank held in that suit mask, in catalog order."""
    starts, items = [0], []
    for key in range(13 * 16):
        for combos in cat.low[key]:  # type: ignore[attr-defined]
            items += [c.index for c in combos]
            starts.append(len(items))
    return np.array(starts, dtype=np.int32), np.array(items, dtype=np.int32)


class Games:
    """N games as arrays; see the module docstring. Slots are dealt with :meth:`deal`.

    The per-seat arrays (``hands``, ``played``, ``kinds``, ``combos``, ``n_combos``) have
    ``tables.players`` columns; the log holds :func:`max_moves` moves and each seat's combo
    list :func:`max_combos` entries.
    """

    def __init__(self, n: int, tables: Tables) -> None:
        self.n, self.tables = n, tables
        seats, moves = tables.players, max_moves(tables.rules)
        self.hands = np.zeros((n, seats), np.uint64)
        self.played = np.zeros((n, seats), np.uint64)
        self.kinds = np.zeros((n, seats), np.int32)  # bit r: the seat played a Ranking r
        self.turn = np.zeros(n, np.int64)
        self.table = np.full(n, -1, np.int64)  # catalog index, -1 when empty
        self.table_seat = np.full(n, -1, np.int64)
        self.passes = np.zeros(n, np.int64)
        self.locked = np.zeros(n, np.int64)
        self.opening = np.zeros(n, np.bool_)
        self.winner = np.full(n, -1, np.int64)
        self.n_moves = np.zeros(n, np.int64)
        self.log_seat = np.zeros((n, moves), np.int8)
        self.log_move = np.zeros((n, moves), np.int16)
        self.log_table = np.zeros((n, moves), np.int16)
        self.combos = np.zeros((n, seats, max_combos(tables.rules)), np.int16)
        self.n_combos = np.zeros((n, seats), np.int64)
        # the kernels' view of the arrays above, made once: they are written in place,
        # never rebound (a profile of search rollouts spent 6% building it per call)
        self._arrays = GameArrays(*(getattr(self, name) for name in GameArrays._fields))
        # the log as Python, made as views ask for it: (the game it is of, its entries)
        self.dealt = np.zeros(n, np.int64)  # games dealt in each slot so far
        self._entries: list[tuple[int, list[LogEntry]]] = [(0, []) for _ in range(n)]

    def deal(self, slot: int, hands: tuple[int, ...]) -> None:
        """Start a new game in ``slot`` from the dealt hands (a :class:`big2.board.Board`'s:
        one per seat of the rules)."""
        if len(hands) != self.tables.players:
            raise ValueError(
                f"the {self.tables.rules.name} rules seat {self.tables.players} players, "
                f"got {len(hands)} hands"
            )
        self.hands[slot] = np.array(hands, dtype=np.uint64)
        self.dealt[slot] += 1
        turns.deal(slot, self.arrays, self.tables.arrays)

    def deal_next(self, slots: np.ndarray, generators: deals.Generators) -> None:
        """Start the next game of every slot of ``slots`` in one compiled call, each dealt by
        its own generator as ``Board(seed=rng)`` deals with that slot's ``random.Random``
        (:mod:`envs.kernels.deals`)."""
        mt, positions = generators
        deals.deal_games(slots, mt, positions, self.arrays, self.tables.arrays)
        self.dealt[slots] += 1

    def history(self, slot: int) -> History:
        """The moves of ``slot``'s game as a :class:`big2.log.History` (entries are made
        once, as they are first asked for, so a view costs O(new moves))."""
        game, entries = self._entries[slot]
        if game != self.dealt[slot]:  # a new game in the slot since the last view
            entries = []
            self._entries[slot] = (int(self.dealt[slot]), entries)
        cat = catalog(self.tables.rules)
        for i in range(len(entries), int(self.n_moves[slot])):
            move, before = int(self.log_move[slot, i]), int(self.log_table[slot, i])
            played, table = cat[move] if move >= 0 else PASS, cat[before] if before >= 0 else None
            entries.append(LogEntry(int(self.log_seat[slot, i]), played, table))
        return History(entries)

    def apply(self, slots: np.ndarray, moves: np.ndarray) -> None:
        """Play ``moves[i]`` (checked legal by the caller) for the seat to act in ``slots[i]``."""
        turns.apply(slots, moves, self.arrays, self.tables.arrays)

    @property
    def arrays(self) -> GameArrays:
        """The arrays as the kernels take them."""
        return self._arrays

    def scores(self, slot: int) -> tuple[int, ...]:
        """The final scores of the finished game in ``slot`` (as :meth:`Game.scores`)."""
        if self.winner[slot] < 0:
            raise ValueError(f"the game in slot {slot} is not over")
        return tuple(self.final_scores(np.array([slot]))[0].tolist())

    def final_scores(self, slots: np.ndarray) -> np.ndarray:
        """(M, players): the final scores of the finished games of ``slots``, all at once (the
        winner is paid what the others' penalties for their cards left add up to)."""
        pay = self.tables.penalty[np.bitwise_count(self.hands[slots])]
        scores: np.ndarray = -pay
        scores[np.arange(len(slots)), self.winner[slots]] = pay.sum(axis=1)
        return scores

    def nbytes(self) -> int:
        """Memory held by the arrays."""
        return sum(a.nbytes for a in self.arrays)


def reference_game(games: Games, slot: int) -> Game:
    """The pure-Python game that ``slot``'s log describes (for tests and fallbacks); its deal
    is what each seat holds plus what it has played."""
    from big2.board import Board

    deal = tuple(
        int(h) | int(p) for h, p in zip(games.hands[slot], games.played[slot], strict=True)
    )
    game = Game.from_board(Board.from_hands(deal, games.tables.rules))
    cat = catalog(games.tables.rules)
    for i in range(len(game.log.moves), int(games.n_moves[slot])):
        move = int(games.log_move[slot, i])
        game.play(cat[move] if move >= 0 else PASS)
    return game
