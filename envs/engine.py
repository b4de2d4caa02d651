"""The batched Big Two engine: the rules of :mod:`big2.game` over arrays, compiled by numba.

:class:`Tables` holds one rules preset's catalog as arrays; :class:`Games` holds N games
as arrays (hands, played cards, table, turn, the move log and, per seat, the catalog
indices of every combination still in its hand, sorted, as :class:`big2.game.Game`
keeps them). The kernels below deal, list legal moves and apply moves for many games
in one call. ``big2.game`` stays the readable reference: the tests replay thousands of
games through both and compare every move, observation and score.

A move is a catalog index, or :data:`PASS_MOVE` (-1).

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

from dataclasses import dataclass
from functools import cache

import numba
import numpy as np

from big2.game import Game
from big2.hand_ranking import PASS, Ranking, catalog
from big2.log import History, LogEntry
from big2.rules import Rules

PASS_MOVE = -1
# Every combination is a distinct subset of 1 to 5 cards of a 13-card hand, so a hand
# holds at most C(13,1) + ... + C(13,5) of them: the per-seat capacity of the combo lists.
MAX_COMBOS = 13 + 78 + 286 + 715 + 1287
# At most 49 plays (the winner's 13 cards, 12 for each other seat) and 3 passes after
# each but the last, plus CHARLESWORTH's automatic opening: the move-log capacity.
MAX_MOVES = 49 + 3 * 48 + 1
OPENINGS = {"contains_3d": 0, "auto_3d": 1, "free": 2}


@dataclass(frozen=True)
class Tables:
    """One rules preset's catalog as arrays (build with :meth:`of`, cached per rules)."""

    rules: Rules
    cards: np.ndarray  # uint64 (C,): the cards of catalog entry i
    size: np.ndarray  # int8 (C,)
    ranking: np.ndarray  # int8 (C,): its Ranking
    beaten_from: np.ndarray  # int32 (C,): the first index that beats entry i
    size_end: np.ndarray  # int32 (6,): one past the last index of each size
    sorted_cards: np.ndarray  # uint64 (C,): the masks, sorted, for lookups
    sorted_index: np.ndarray  # int32 (C,): their catalog indices
    low_start: np.ndarray  # int32 (13 * 16 * 3 + 1,): pairs/triples ranges, see _low_tables
    low_items: np.ndarray  # int32: catalog indices of singles, pairs, triples per rank mask
    starts: np.ndarray  # int64: lowest ranks of the straights
    penalty: np.ndarray  # int64 (14,): what a loser holding n cards pays
    four_card_plays: bool
    five_card_quads: bool
    pass_locks_out: bool
    opening: int  # OPENINGS

    @staticmethod
    @cache
    def of(rules: Rules) -> Tables:
        cat = catalog(rules)
        cards = np.array([c.cards for c in cat], dtype=np.uint64)
        order = np.argsort(cards, kind="stable")
        low_start, low_items = _low_tables(cat)
        size_end = np.array([cat.size_end(n) for n in range(6)], dtype=np.int32)
        return Tables(
            rules=rules,
            cards=cards,
            size=np.array([c.size for c in cat], dtype=np.int8),
            ranking=np.array([c.ranking for c in cat], dtype=np.int8),
            beaten_from=np.array([cat.beaten_from(c) for c in cat], dtype=np.int32),
            size_end=size_end,
            sorted_cards=cards[order],
            sorted_index=order.astype(np.int32),
            low_start=low_start,
            low_items=low_items,
            starts=np.array(cat.starts, dtype=np.int64),
            penalty=np.array([rules.penalty(n) for n in range(14)], dtype=np.int64),
            four_card_plays=rules.four_card_plays,
            five_card_quads=rules.five_card_quads,
            pass_locks_out=rules.pass_locks_out,
            opening=OPENINGS[rules.opening],
        )


def _low_tables(cat: object) -> tuple[np.ndarray, np.ndarray]:
    """``low_items[low_start[k]:low_start[k + 1]]`` with ``k = 3 * (16 * rank + suit_mask)
    + n - 1``: the catalog indices of the n-card sets (singles, pairs, triples) of that
    rank held in that suit mask, in catalog order."""
    starts, items = [0], []
    for key in range(13 * 16):
        for combos in cat.low[key]:  # type: ignore[attr-defined]
            items += [c.index for c in combos]
            starts.append(len(items))
    return np.array(starts, dtype=np.int32), np.array(items, dtype=np.int32)


class Games:
    """N games as arrays; see the module docstring. Slots are dealt with :meth:`deal`."""

    def __init__(self, n: int, tables: Tables) -> None:
        self.n, self.tables = n, tables
        self.hands = np.zeros((n, 4), np.uint64)
        self.played = np.zeros((n, 4), np.uint64)
        self.kinds = np.zeros((n, 4), np.int32)  # bit r: the seat played a Ranking r
        self.turn = np.zeros(n, np.int64)
        self.table = np.full(n, -1, np.int64)  # catalog index, -1 when empty
        self.table_seat = np.full(n, -1, np.int64)
        self.passes = np.zeros(n, np.int64)
        self.locked = np.zeros(n, np.int64)
        self.opening = np.zeros(n, np.bool_)
        self.winner = np.full(n, -1, np.int64)
        self.n_moves = np.zeros(n, np.int64)
        self.log_seat = np.zeros((n, MAX_MOVES), np.int8)
        self.log_move = np.zeros((n, MAX_MOVES), np.int16)
        self.log_table = np.zeros((n, MAX_MOVES), np.int16)
        self.combos = np.zeros((n, 4, MAX_COMBOS), np.int16)
        self.n_combos = np.zeros((n, 4), np.int64)
        self._entries: list[list[LogEntry]] = [[] for _ in range(n)]  # the log, as Python

    def deal(self, slot: int, hands: tuple[int, ...]) -> None:
        """Start a new game in ``slot`` from four dealt hands (a :class:`big2.board.Board`'s)."""
        self.hands[slot] = np.array(hands, dtype=np.uint64)
        self._entries[slot] = []
        _deal(slot, *self._state(), *self._rules())

    def history(self, slot: int) -> History:
        """The moves of ``slot``'s game as a :class:`big2.log.History` (entries are made
        once, as they are first asked for, so a view costs O(new moves))."""
        entries, cat = self._entries[slot], catalog(self.tables.rules)
        for i in range(len(entries), int(self.n_moves[slot])):
            move, before = int(self.log_move[slot, i]), int(self.log_table[slot, i])
            entries.append(LogEntry(int(self.log_seat[slot, i]), cat[move] if move >= 0 else PASS,
                                    cat[before] if before >= 0 else None))  # fmt: skip
        return History(entries)

    def apply(self, slots: np.ndarray, moves: np.ndarray) -> None:
        """Play ``moves[i]`` (checked legal by the caller) for the seat to act in ``slots[i]``."""
        _apply(slots, moves, *self._state(), *self._rules())

    def _state(self) -> tuple[np.ndarray, ...]:
        return (
            self.hands,
            self.played,
            self.kinds,
            self.turn,
            self.table,
            self.table_seat,
            self.passes,
            self.locked,
            self.opening,
            self.winner,
            self.n_moves,
            self.log_seat,
            self.log_move,
            self.log_table,
            self.combos,
            self.n_combos,
        )

    def _rules(self) -> tuple[object, ...]:
        t = self.tables
        return (
            t.cards,
            t.size,
            t.ranking,
            t.sorted_cards,
            t.sorted_index,
            t.low_start,
            t.low_items,
            t.starts,
            t.four_card_plays,
            t.five_card_quads,
            t.pass_locks_out,
            t.opening,
        )

    def scores(self, slot: int) -> tuple[int, ...]:
        """The final scores of the finished game in ``slot`` (as :meth:`Game.scores`)."""
        winner = int(self.winner[slot])
        if winner < 0:
            raise ValueError(f"the game in slot {slot} is not over")
        pay = [int(self.tables.penalty[int(h).bit_count()]) for h in self.hands[slot]]
        return tuple(sum(pay) if s == winner else -p for s, p in enumerate(pay))

    def nbytes(self) -> int:
        """Memory held by the arrays."""
        return sum(a.nbytes for a in self._state())


def reference_game(games: Games, slot: int, deal: tuple[int, ...]) -> Game:
    """The pure-Python game that ``slot``'s log describes (for tests and fallbacks)."""
    from big2.board import Board

    game = Game.from_board(Board.from_hands(list(deal), games.tables.rules))
    cat = catalog(games.tables.rules)
    for i in range(len(game.log.moves), int(games.n_moves[slot])):
        move = int(games.log_move[slot, i])
        game.play(cat[move] if move >= 0 else PASS)
    return game


# ------------------------------------------------------------------ kernels

_SINGLE = int(Ranking.SINGLE)
_FLUSH = int(Ranking.FLUSH)


@numba.njit(cache=True)
def popcount(x: np.uint64) -> int:
    """The number of set bits of a 64-bit mask (SWAR)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_INDEX = np.zeros(64, np.int64)
for _i in range(64):
    _DEBRUIJN_INDEX[((_DEBRUIJN << np.uint64(_i)) >> np.uint64(58)) & np.uint64(63)] = _i


@numba.njit(cache=True)
def lowest_card(single):
    """The index of the one set bit of ``single`` (a de Bruijn multiply, no loop)."""
    return _DEBRUIJN_INDEX[((single * _DEBRUIJN) >> np.uint64(58)) & np.uint64(63)]


@numba.njit(cache=True)
def _lookup(mask, sorted_cards, sorted_index):
    i = np.searchsorted(sorted_cards, mask)
    if i < sorted_cards.shape[0] and sorted_cards[i] == mask:
        return sorted_index[i]
    return -1


@numba.njit(cache=True)
def _rank_mask(hand, rank):
    return int((hand >> np.uint64(4 * rank)) & np.uint64(15))


@numba.njit(cache=True)
def _bit(card):
    return np.uint64(1) << np.uint64(card)


@numba.njit(cache=True)
def _enumerate(
    hand,
    cards,
    ranking,
    sorted_cards,
    sorted_index,
    low_start,
    low_items,
    starts,
    four_card_plays,
    five_card_quads,
    out,
):  # pragma: no cover - compiled
    """Write every combination in ``hand`` (catalog indices, ascending) to ``out``; the count."""
    n = 0
    masks = np.zeros(13, np.int64)
    for r in range(13):
        masks[r] = _rank_mask(hand, r)
    for r in range(13):  # singles, pairs, triples
        if masks[r]:
            for k in range(3):
                key = 3 * (16 * r + masks[r]) + k
                for j in range(low_start[key], low_start[key + 1]):
                    out[n] = low_items[j]
                    n += 1
    if four_card_plays:
        n = _fours(masks, cards, sorted_cards, sorted_index, low_start, low_items, out, n)
    n = _straights(masks, starts, sorted_cards, sorted_index, out, n)
    n = _flushes(hand, ranking, sorted_cards, sorted_index, out, n)
    n = _full_houses(masks, cards, sorted_cards, sorted_index, low_start, low_items, out, n)
    if five_card_quads:
        for r in range(13):
            if masks[r] == 15:
                quad = np.uint64(15) << np.uint64(4 * r)
                for c in range(52):
                    if (hand >> np.uint64(c)) & np.uint64(1) and not (quad >> np.uint64(c)) & 1:
                        out[n] = _lookup(quad | _bit(c), sorted_cards, sorted_index)
                        n += 1
    out[:n].sort()
    return n


@numba.njit(cache=True)
def _fours(masks, cards, sorted_cards, sorted_index, low_start, low_items, out, n):
    for r1 in range(13):
        if masks[r1] == 15:
            out[n] = _lookup(np.uint64(15) << np.uint64(4 * r1), sorted_cards, sorted_index)
            n += 1
        k1 = 3 * (16 * r1 + masks[r1]) + 1
        for r2 in range(r1 + 1, 13):
            k2 = 3 * (16 * r2 + masks[r2]) + 1
            for a in range(low_start[k1], low_start[k1 + 1]):
                for b in range(low_start[k2], low_start[k2 + 1]):
                    both = cards[low_items[a]] | cards[low_items[b]]
                    out[n] = _lookup(both, sorted_cards, sorted_index)
                    n += 1
    return n


@numba.njit(cache=True)
def _straights(masks, starts, sorted_cards, sorted_index, out, n):
    for s in starts:
        if masks[s] and masks[s + 1] and masks[s + 2] and masks[s + 3] and masks[s + 4]:
            for s0 in range(4):
                if not masks[s] >> s0 & 1:
                    continue
                for s1 in range(4):
                    if not masks[s + 1] >> s1 & 1:
                        continue
                    for s2 in range(4):
                        if not masks[s + 2] >> s2 & 1:
                            continue
                        for s3 in range(4):
                            if not masks[s + 3] >> s3 & 1:
                                continue
                            for s4 in range(4):
                                if masks[s + 4] >> s4 & 1:
                                    m = (
                                        _bit(4 * s + s0)
                                        | _bit(4 * s + 4 + s1)
                                        | _bit(4 * s + 8 + s2)
                                        | _bit(4 * s + 12 + s3)
                                        | _bit(4 * s + 16 + s4)
                                    )
                                    out[n] = _lookup(m, sorted_cards, sorted_index)
                                    n += 1
    return n


@numba.njit(cache=True)
def _flushes(hand, ranking, sorted_cards, sorted_index, out, n):
    held = np.zeros(13, np.int64)
    for suit in range(4):
        k = 0
        for r in range(13):
            if (hand >> np.uint64(4 * r + suit)) & np.uint64(1):
                held[k] = 4 * r + suit
                k += 1
        for a in range(k):
            for b in range(a + 1, k):
                for c in range(b + 1, k):
                    for d in range(c + 1, k):
                        for e in range(d + 1, k):
                            m = (
                                _bit(held[a])
                                | _bit(held[b])
                                | _bit(held[c])
                                | _bit(held[d])
                                | _bit(held[e])
                            )
                            i = _lookup(m, sorted_cards, sorted_index)
                            if ranking[i] == _FLUSH:  # straight flushes came with straights
                                out[n] = i
                                n += 1
    return n


@numba.njit(cache=True)
def _full_houses(masks, cards, sorted_cards, sorted_index, low_start, low_items, out, n):
    for tr in range(13):
        kt = 3 * (16 * tr + masks[tr]) + 2
        for a in range(low_start[kt], low_start[kt + 1]):
            for pr in range(13):
                if pr == tr:
                    continue
                kp = 3 * (16 * pr + masks[pr]) + 1
                for b in range(low_start[kp], low_start[kp + 1]):
                    both = cards[low_items[a]] | cards[low_items[b]]
                    out[n] = _lookup(both, sorted_cards, sorted_index)
                    n += 1
    return n


@numba.njit(cache=True)
def _deal(
    g,
    hands,
    played,
    kinds,
    turn,
    table,
    table_seat,
    passes,
    locked,
    opening,
    winner,
    n_moves,
    log_seat,
    log_move,
    log_table,
    combos,
    n_combos,
    cards,
    size,
    ranking,
    sorted_cards,
    sorted_index,
    low_start,
    low_items,
    starts,
    four_card_plays,
    five_card_quads,
    pass_locks_out,
    opening_rule,
):
    played[g, :] = 0
    kinds[g, :] = 0
    table[g], table_seat[g], passes[g], locked[g], winner[g], n_moves[g] = -1, -1, 0, 0, -1, 0
    for seat in range(4):
        n_combos[g, seat] = _enumerate(
            hands[g, seat],
            cards,
            ranking,
            sorted_cards,
            sorted_index,
            low_start,
            low_items,
            starts,
            four_card_plays,
            five_card_quads,
            combos[g, seat],
        )
        if hands[g, seat] & np.uint64(1):
            turn[g] = seat
    opening[g] = opening_rule == 0
    if opening_rule == 1:  # auto_3d: the rules play the 3D (catalog index 0) for its holder
        _play(
            g,
            0,
            hands,
            played,
            kinds,
            turn,
            table,
            table_seat,
            passes,
            locked,
            opening,
            winner,
            n_moves,
            log_seat,
            log_move,
            log_table,
            combos,
            n_combos,
            cards,
            ranking,
            pass_locks_out,
        )


@numba.njit(cache=True)
def _apply(
    slots,
    moves,
    hands,
    played,
    kinds,
    turn,
    table,
    table_seat,
    passes,
    locked,
    opening,
    winner,
    n_moves,
    log_seat,
    log_move,
    log_table,
    combos,
    n_combos,
    cards,
    size,
    ranking,
    sorted_cards,
    sorted_index,
    low_start,
    low_items,
    starts,
    four_card_plays,
    five_card_quads,
    pass_locks_out,
    opening_rule,
):
    for i in range(slots.shape[0]):
        _play(
            slots[i],
            moves[i],
            hands,
            played,
            kinds,
            turn,
            table,
            table_seat,
            passes,
            locked,
            opening,
            winner,
            n_moves,
            log_seat,
            log_move,
            log_table,
            combos,
            n_combos,
            cards,
            ranking,
            pass_locks_out,
        )


@numba.njit(cache=True)
def _play(
    g,
    move,
    hands,
    played,
    kinds,
    turn,
    table,
    table_seat,
    passes,
    locked,
    opening,
    winner,
    n_moves,
    log_seat,
    log_move,
    log_table,
    combos,
    n_combos,
    cards,
    ranking,
    pass_locks_out,
):
    """One move in game ``g``, as :meth:`big2.game.Game.play` makes it (already checked)."""
    seat = turn[g]
    i = n_moves[g]
    log_seat[g, i], log_move[g, i], log_table[g, i] = seat, move, table[g]
    n_moves[g] = i + 1
    if move < 0:
        passes[g] += 1
        if pass_locks_out:
            locked[g] |= 1 << seat
        if passes[g] == 3:
            table[g], turn[g], passes[g], locked[g] = -1, table_seat[g], 0, 0
        else:
            turn[g] = (seat + 1) % 4
        return
    taken = cards[move]
    hands[g, seat] ^= taken
    played[g, seat] |= taken
    kinds[g, seat] |= 1 << ranking[move]
    kept = 0
    for j in range(n_combos[g, seat]):
        c = combos[g, seat, j]
        if not cards[c] & taken:
            combos[g, seat, kept] = c
            kept += 1
    n_combos[g, seat] = kept
    table[g], table_seat[g], passes[g], opening[g] = move, seat, 0, False
    if hands[g, seat] == 0:
        winner[g] = seat
    else:
        turn[g] = (seat + 1) % 4


@numba.njit(cache=True)
def legal_ranges(
    slots,
    turn,
    table,
    locked,
    opening,
    winner,
    combos,
    n_combos,
    cards,
    size,
    beaten_from,
    size_end,
    lo,
    hi,
    may_pass,
    count,
):
    """For game ``slots[i]``: the range of the acting seat's combos that may be played,
    whether it may pass, and the count, in row ``i`` of ``lo``, ``hi``, ``may_pass``, ``count``.

    ``lo = -1`` marks the first play of a ``contains_3d`` game: the combos in ``[0, hi)``
    that hold 3D. Game over: no moves.
    """
    for i in range(slots.shape[0]):
        g = slots[i]
        seat = turn[g]
        n = n_combos[g, seat]
        lo[i], hi[i], may_pass[i] = 0, 0, False
        if winner[g] >= 0:
            count[i] = 0
        elif table[g] < 0:
            hi[i] = n
            if opening[g]:
                lo[i] = -1
                k = 0
                for j in range(n):
                    k += cards[combos[g, seat, j]] & np.uint64(1) != 0
                count[i] = k
            else:
                count[i] = n
        elif locked[g] >> seat & 1:
            may_pass[i] = True
            count[i] = 1
        else:
            t = table[g]
            row = combos[g, seat, :n]
            lo[i] = np.searchsorted(row, beaten_from[t])
            hi[i] = max(lo[i], np.searchsorted(row, size_end[size[t]]))
            may_pass[i] = True
            count[i] = hi[i] - lo[i] + 1


@numba.njit(cache=True)
def fill_legal(
    slots,
    turn,
    hands,
    combos,
    cards,
    lo,
    hi,
    may_pass,
    hand_actions,
    pass_action,
    out_moves,
    out_actions,
):
    """Write the legal moves of game ``slots[i]`` (catalog index, -1 for PASS) and their
    actions in row ``i``, padded with -2 (moves) and -1 (actions) past its count, in the
    order of :meth:`big2.game.Game.legal_moves`.

    ``hand_actions`` is empty for the catalog codec, where the action is the catalog
    index; for the hand codec it maps a 13-bit mask of hand positions to the action.
    """
    for i in range(slots.shape[0]):
        g = slots[i]
        seat = turn[g]
        hand = hands[g, seat]
        k = 0
        for j in range(max(lo[i], 0), hi[i]):
            c = combos[g, seat, j]
            if lo[i] < 0 and not cards[c] & np.uint64(1):
                continue
            out_moves[i, k] = c
            if hand_actions.shape[0] == 0:
                out_actions[i, k] = c
            else:
                out_actions[i, k] = _hand_action(hand, cards[c], hand_actions)
            k += 1
        if may_pass[i]:
            out_moves[i, k] = -1
            out_actions[i, k] = pass_action
            k += 1
        for j in range(k, out_moves.shape[1]):
            out_moves[i, j] = -2
            out_actions[i, j] = -1


@numba.njit(cache=True)
def _hand_action(hand, move_cards, hand_actions):
    """The hand codec's action for ``move_cards``: positions in the sorted hand, as a mask."""
    positions = 0
    for c in range(52):
        if (move_cards >> np.uint64(c)) & np.uint64(1):
            below = hand & ((np.uint64(1) << np.uint64(c)) - np.uint64(1))
            positions |= 1 << popcount(below)
    return hand_actions[positions]


@numba.njit(cache=True)
def find_actions(actions, legal_actions, counts, positions):
    """For each game, the position of ``actions[g]`` among its legal actions; the first
    game whose action is not legal (-1 when every action is)."""
    for g in range(actions.shape[0]):
        positions[g] = -1
        for j in range(counts[g]):
            if legal_actions[g, j] == actions[g]:
                positions[g] = j
                break
        if positions[g] < 0:
            return g
    return -1
