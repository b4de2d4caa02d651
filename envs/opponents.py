"""The opponents inside :class:`envs.vector.Big2VectorEnv`: who sits where, and how they move.

Each game of a slot has one learner seat (game j of the slot: seat j mod ``players``) and
the other seats' opponents (three of four players, two of three, one of two), each drawn
from the env's ``opponents`` list for that game (an entry that is a pool,
:mod:`envs.pools`, draws one of its members for its seat; an empty pool plays as
``random``). With ``draw="seat"`` each opponent seat is drawn on its own, so tables mix
kinds; with ``draw="game"`` one draw seats them all of the same kind, the tables the arena
evaluates against (a pool's seats still draw their own members).

With :data:`SELF_ALL` in the list (``draw="game"`` only), one draw picks each game's
whole table: :data:`SELF_ALL` seats the caller at every seat (no opponents), any other
entry seats the learner as above and that entry at the other seats (a pool: one member
drawn for all of them, copies of one snapshot); an entry listed more than once (to be
drawn more often) is seated as its first listing, so all its games move in one call.
The caller's seats are those of kind -1.
Opponents move in rounds: every game waiting on an opponent gets one move per round,
grouped by kind so that each kind answers for all its games at once (``random`` on the
legal rows, ``greedy`` and ``heuristic`` each in one compiled call
(:mod:`envs.kernels.opponents`, :mod:`envs.compiled_heuristic`, checked move by move
against ``GreedyAgent`` and ``HeuristicAgent``), one call of a
:class:`~envs.decisions.BatchPolicy` with a :class:`~envs.decisions.Decisions` record, or a
:class:`big2.players.Agent` asked game by game), until every game is back at one of the
caller's seats or over. When every opponent is ``random``, ``greedy`` or ``heuristic``
(and no game draws from a stream of its own), all the rounds run in one compiled call,
the same moves and draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from big2.hand_ranking import PASS, catalog
from big2.players import Agent, load_agent
from envs.batch_observers import view_of
from envs.compiled_heuristic import CompiledHeuristic, heuristic_inputs
from envs.decisions import BatchPolicy, DecisionMaker, Legal
from envs.engine import MAX_MOVES
from envs.kernels.opponents import CODES, greedy_choose
from envs.kernels.opponents import advance as advance_compiled
from envs.pools import Pool, draw_member

# opponents that need no View: random and greedy on the legal rows, heuristic compiled
COMPILED = ("random", "greedy", "heuristic")
DRAWS = ("seat", "game")  # what one draw from the mix seats: one opponent, or all of them
SELF_ALL = "self-all"  # in the mix: a table where the caller plays every seat
Entry = str | BatchPolicy | list[BatchPolicy] | Pool  # an entry of the mix


class Opponents:
    """The opponent seats of the games of ``maker.games`` (see the module docstring).

    They read the games' arrays, ask ``maker`` for legal lists and records, and draw from
    ``rng``; they never call back into the env.
    """

    def __init__(
        self,
        maker: DecisionMaker,
        mix: Sequence[Entry],
        rng: np.random.Generator,
        draw: str = "seat",
    ) -> None:
        check_mix(mix)
        check_draw(draw)
        self.maker, self.games, self.mix, self.rng = maker, maker.games, list(mix), rng
        self.draw = draw
        self.self_all = np.array([is_self_all(m) for m in self.mix])  # the caller's tables
        self.tables = bool(self.self_all.any())  # each game draws its table
        if self.tables and draw != "game":
            raise ValueError(
                f"opponents with {SELF_ALL!r} draw each game's whole table, which "
                f"opponent_draw='game' does; got opponent_draw={draw!r} (it draws each "
                f"opponent seat on its own)"
            )
        rules = self.games.tables.rules
        # an Agent for each spec that is not compiled; checked now, before any game
        self.agents: dict[int, Agent] = {
            i: load_agent(m, rules)
            for i, m in enumerate(self.mix)
            if isinstance(m, str) and m not in COMPILED and not is_self_all(m)
        }
        self.heuristic = CompiledHeuristic()
        # no pool members to draw and no agents to reseed when a game starts
        self._plain = not self.agents and not any(isinstance(m, list | Pool) for m in self.mix)
        self._codes = _compiled_codes(self.mix)
        # the seats' kind of each entry: with tables drawn, an entry listed again (a rate)
        # is seated as its first listing, so its games move together, in one call
        self.canonical = _first_listings(self.mix) if self.tables else np.arange(len(self.mix))
        n, self.players = len(self.games.turn), rules.players
        self._all = np.arange(n)
        seats = (n, self.players)
        self.kind = np.full(seats, -1, np.int64)  # index in mix (canonical); -1: the caller's
        self.member = np.full(seats, -1, np.int64)  # in a pool; -1: none (or plays random)
        self.table = np.full(n, -1, np.int64)  # index in mix of the one draw; -1: none
        self.learner = np.zeros(n, np.int64)  # the caller's one seat; -1: none or all seats
        self.streams: np.ndarray | None = None  # per-game uniforms for random players (seat)
        self.drawn = np.full(n, -1, np.int64)  # of its stream, used; -1: the shared generator

    def start(self, slots: np.ndarray, learners: np.ndarray) -> None:
        """Seat the learner (``learners[i]`` in game ``slots[i]``) and draw the opponents
        of each of these new games."""
        if self._plain:  # no pools or agents drawing between the games' draws: all at once
            self._start_all(slots, learners)
            return
        for slot, seat in zip(slots.tolist(), learners.tolist(), strict=True):
            if self.draw == "seat":
                table, draws = -1, self.rng.integers(len(self.mix), size=self.players)
            else:
                table = int(self.rng.integers(len(self.mix)))
                draws = np.full(self.players, table)
            if table >= 0 and self.self_all[table]:
                seat, draws[:] = -1, -1  # the caller plays every seat
            else:
                draws = self.canonical[draws]
                draws[seat] = -1
            self._seat(slot, seat, draws)
            self.table[slot] = table

    def _start_all(self, slots: np.ndarray, learners: np.ndarray) -> None:
        """:meth:`start` in a few array operations: the same draws from ``rng``, since a
        batch of draws from a numpy generator is the draws one after the other."""
        n = len(self.mix)
        if self.draw == "seat":
            tables = np.full(len(slots), -1)
            draws = self.rng.integers(n, size=(len(slots), self.players))
        else:
            tables = self.rng.integers(n, size=len(slots))
            draws = np.repeat(self.canonical[tables][:, None], self.players, axis=1)
        draws[np.arange(len(slots)), learners] = -1
        if self.tables:  # the caller plays every seat of those games
            mine = self.self_all[tables]
            draws[mine], learners = -1, np.where(mine, -1, learners)
        self.learner[slots], self.kind[slots], self.drawn[slots] = learners, draws, -1
        self.table[slots] = tables

    def seat(self, slots: np.ndarray, kinds: np.ndarray, streams: np.ndarray | None = None) -> None:
        """Seat ``kinds[i]`` (an index into the mix for each seat) in game
        ``slots[i]``, with no learner: :meth:`advance` then plays these games to their end
        (the arena's seatings in the compiled engine: :mod:`envs.duplicate`).

        ``streams[i]`` (uniforms in [0, 1), at least :data:`MAX_MOVES` of them), if given,
        are game ``slots[i]``'s own draws for its ``random`` players, one per move they
        make, so that what they play depends on that game alone.
        """
        kinds = np.asarray(kinds, np.int64)
        shape = (len(slots), self.players)
        if kinds.shape != shape or not ((kinds >= 0) & (kinds < len(self.mix))).all():
            raise ValueError(
                f"kinds must be {shape} indices into the mix of "
                f"{len(self.mix)}, got {kinds.tolist()}"
            )
        if streams is not None and streams.shape != (len(slots), MAX_MOVES):
            raise ValueError(
                f"streams must be ({len(slots)}, {MAX_MOVES}) uniforms, got shape {streams.shape}"
            )
        for slot, draws in zip(slots.tolist(), kinds, strict=True):
            self._seat(slot, -1, draws)
        self.table[slots] = -1
        if streams is not None:
            if self.streams is None:
                self.streams = np.zeros((len(self.games.turn), MAX_MOVES))
            self.streams[slots], self.drawn[slots] = streams, 0

    def _seat(self, slot: int, learner: int, draws: np.ndarray) -> None:
        """Seat the learner and the opponents ``draws`` (index in mix; -1: the caller) in
        ``slot``: pool members are drawn, and agents that reseed are reseeded."""
        self.learner[slot], self.kind[slot], self.drawn[slot] = learner, draws, -1
        self._draw_members(slot, draws)
        for i in set(draws.tolist()) & set(self.agents):
            reset = getattr(self.agents[i], "reset", None)
            if callable(reset):
                reset(int(self.rng.integers(2**63)))

    def table_member(self, slots: np.ndarray) -> np.ndarray:
        """The pool member at each of ``slots``' tables drawn whole (:data:`SELF_ALL` in the
        mix: one for all its opponents' seats); -1 where none sits."""
        members: np.ndarray = self.member[slots].max(axis=1)
        return members

    def _draw_members(self, slot: int, draws: np.ndarray) -> None:
        """The pool members at ``slot``'s seats ``draws`` (-1: none): one for each seat,
        or at a table drawn whole (:data:`SELF_ALL` in the mix) one for all of them."""
        members = self.member[slot]
        members[:] = -1
        for s in range(self.players):
            pool = self.mix[draws[s]] if draws[s] >= 0 else None
            if not isinstance(pool, list | Pool):
                continue
            if self.tables:  # one member for the table
                members[draws >= 0] = draw_member(pool, self.rng)
                return
            members[s] = draw_member(pool, self.rng)

    def advance(self) -> None:
        """Let opponents move until every game is at one of the caller's seats or over."""
        games = self.games
        if self._codes is not None and self.streams is None:  # the same rounds, compiled
            state, cat, heur = heuristic_inputs(games)
            advance_compiled(self.kind, self._codes, self.rng, state, cat, heur)
            return
        while True:
            waiting = self.kind[self._all, games.turn] >= 0  # an opponent's turn
            slots = np.flatnonzero((games.winner < 0) & waiting)
            if not len(slots):
                return
            legal = self.maker.legal(slots)
            kinds = self.kind[slots, games.turn[slots]]
            chosen = np.empty(len(slots), np.int64)
            for kind in range(len(self.mix)):  # in order, as the draws must be made
                rows = np.flatnonzero(kinds == kind)
                if len(rows) == len(slots):
                    chosen[:] = self._moves(kind, slots, legal)
                elif len(rows):
                    chosen[rows] = self._moves(kind, slots[rows], legal, rows)
            games.apply(slots, chosen)

    def _moves(
        self, kind: int, slots: np.ndarray, legal: Legal, rows: np.ndarray | None = None
    ) -> np.ndarray:
        """The catalog moves that opponent ``kind`` makes in ``slots`` (their legal lists:
        ``legal``, or its ``rows``)."""
        who = self.mix[kind]
        if who == "heuristic":  # these two list their own moves
            return self.heuristic.choose(self.games, slots)
        if who == "greedy":
            out = np.empty(len(slots), np.int64)
            greedy_choose(slots, self.games.arrays, self.games.tables.arrays, out)
            return out
        if rows is not None:
            legal = legal.take(rows)
        moves, counts = legal.moves, legal.counts
        if who == "random":
            picked: np.ndarray = moves[np.arange(len(slots)), self._random_positions(slots, counts)]
            return picked
        if kind in self.agents:
            return self._ask(self.agents[kind], slots, legal)
        if not isinstance(who, list | Pool):
            assert not isinstance(who, str)
            return self._batch(who, slots, legal)
        # a pool: each game's member was drawn at its start (-1: it was empty, play random)
        members = self.member[slots, self.games.turn[slots]]
        out = np.empty(len(slots), np.int64)
        for m in np.unique(members).tolist():
            rows = np.flatnonzero(members == m)
            if m < 0:
                out[rows] = moves[rows, self.rng.integers(counts[rows])]
            else:
                out[rows] = self._batch(who[m], slots[rows], legal.take(rows))
        return out

    def _random_positions(self, slots: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """A uniform legal position for each of ``slots``: from each game's own stream when
        it has one (:meth:`seat`), else from the shared generator."""
        own = self.drawn[slots] >= 0
        if not own.any():
            drawn: np.ndarray = self.rng.integers(counts)
            return drawn
        assert self.streams is not None
        positions = np.empty(len(slots), np.int64)
        mine = slots[own]
        uniforms = self.streams[mine, self.drawn[mine]]
        self.drawn[mine] += 1
        positions[own] = np.minimum((uniforms * counts[own]).astype(np.int64), counts[own] - 1)
        if not own.all():
            positions[~own] = self.rng.integers(counts[~own])
        return positions

    def _batch(self, policy: BatchPolicy, slots: np.ndarray, legal: Legal) -> np.ndarray:
        """The moves of one batch policy in ``slots``, from one call."""
        decisions = self.maker.decisions(slots, self.games.turn[slots], legal, critic=False)
        rows = np.arange(len(slots))
        picked = np.asarray(policy(decisions))
        where = legal.actions == picked.reshape(-1, 1)
        if picked.shape != (len(slots),) or not where.any(axis=1).all():
            raise ValueError(f"batch policy {policy!r} chose actions that are not legal")
        chosen: np.ndarray = legal.moves[rows, where.argmax(axis=1)]
        return chosen

    def _ask(self, agent: Agent, slots: np.ndarray, legal: Legal) -> np.ndarray:
        """Each game's move from ``agent``, asked with that seat's view (Python speed)."""
        games, cat = self.games, catalog(self.games.tables.rules)
        out = np.empty(len(slots), np.int64)
        for i, slot in enumerate(slots.tolist()):
            view = view_of(games, slot, int(games.turn[slot]))
            row = legal.moves[i, : legal.counts[i]].tolist()
            moves = tuple(cat[m] if m >= 0 else PASS for m in row)
            move = agent.act(view, moves)
            if move not in moves:
                raise ValueError(f"opponent {agent!r} chose {move}, not legal in slot {slot}")
            out[i] = -1 if move is PASS else move.index
        return out


def check_draw(draw: Any) -> None:
    """Raise ValueError unless ``draw`` is one of :data:`DRAWS`."""
    if draw not in DRAWS:
        raise ValueError(f"unknown opponent draw {draw!r}; expected one of {DRAWS}")


def is_self_all(entry: Any) -> bool:
    """Whether ``entry`` of a mix is :data:`SELF_ALL` (the caller plays every seat)."""
    return isinstance(entry, str) and entry == SELF_ALL


def check_mix(mix: Any) -> None:
    """Raise ValueError unless ``mix`` is a non-empty list of opponents (agent specs, batch
    policies, pools: lists of batch policies or :class:`~envs.pools.Pool`, and
    :data:`SELF_ALL`)."""
    expected = (
        f"expected a list of agent specs (such as ['random', 'heuristic']), batch "
        f"policies, pools (lists of them, or Pool) and {SELF_ALL!r}, or None for all seats"
    )
    if isinstance(mix, str | bytes) or not isinstance(mix, Sequence):
        raise ValueError(f"opponents must be a list, got {mix!r}; {expected}")
    if not len(mix):
        raise ValueError("opponents must name at least one agent (or be None: all seats)")
    for i, entry in enumerate(mix):
        pool = isinstance(entry, Pool) or (
            isinstance(entry, list) and all(callable(m) for m in entry)
        )
        if not (isinstance(entry, str) or callable(entry) or pool):
            raise ValueError(f"opponents[{i}] is {entry!r}; {expected}")


def _first_listings(mix: list[Entry]) -> np.ndarray:
    """For each entry of ``mix``, the index where it is first listed (a spec by its name,
    anything else by identity).

    >>> pool = []
    >>> _first_listings([SELF_ALL, "heuristic", pool, "heuristic", pool, []]).tolist()
    [0, 1, 2, 1, 2, 5]
    """

    def same(a: Entry, b: Entry) -> bool:
        return a == b if isinstance(a, str) and isinstance(b, str) else a is b

    return np.array([next(j for j in range(i + 1) if same(mix[j], e)) for i, e in enumerate(mix)])


def _compiled_codes(mix: list[Entry]) -> np.ndarray | None:
    """Each entry's code for the compiled rounds (:data:`SELF_ALL`, never seated as an
    opponent: -1), or None unless every opponent is one of :data:`COMPILED`."""
    codes = [CODES.get(m) if isinstance(m, str) else None for m in mix]
    codes = [-1 if is_self_all(m) else code for m, code in zip(mix, codes, strict=True)]
    return None if None in codes else np.array(codes, np.int64)
