"""The built-in observers, each a layout of named pieces (seat-relative throughout).

Seat-relative order is: me, next (acts after me), across, previous; of three players
me, next, previous; of two me, next (:func:`observers.base.seat_names`). Pieces sized by
seats follow the rules' ``players``: a row (or column) per seat, or per opponent
(``players - 1``), and cards-left one-hots as long as the largest hand
(``rules.largest_hand``: 13, 18 or 26). Cards are 52-long rows in card-index order (3♦
first, 2♠ last). All values are 0 or 1 unless a piece says otherwise.

>>> from big2.game import Game
>>> view = Game(seed=0).view(0)
>>> obs = SimpleObserver().observe(view)
>>> obs.shape, obs.dtype, int(obs[:52].sum())
((161,), dtype('float32'), 13)
>>> from big2.rules import THREE_PLAYER
>>> SimpleObserver(THREE_PLAYER).shapes["cards_left"]  # per opponent, up to 18 cards
(2, 18)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from big2.board import seats_from
from big2.cards import N_CARDS, N_RANKS, N_SUITS, card_indices, rank_of, suit_of
from big2.hand_ranking import Ranking
from big2.rules import STANDARD, Rules
from observers.base import Field, Observer, Piece, Pieces, seat_names

if TYPE_CHECKING:
    from big2.game import Game, View

_RANKINGS = len(Ranking) - 1  # every category but PASS


def _seats(rules: Rules, first: int = 0) -> str:
    """The seat-relative names from ``first`` on, as text: ``"next, across, previous"``."""
    return ", ".join(seat_names(rules.players)[first:])


def _context(rules: Rules) -> list[Piece]:
    """The table's context, shared by the observers that have it: a table owner per seat,
    and passes since the table's play from 0 to ``players - 2`` (one more clears it)."""
    passes = ", ".join(str(n) for n in range(rules.players - 1))
    return [
        Piece("table_ranking", (_RANKINGS,), "one-hot Ranking of the table (SINGLE..)"),
        Piece("table_owner", (rules.players,), f"who played the table: {_seats(rules)}"),
        Piece("leading", (1,), "1 when I am to act on an empty table"),
        Piece(
            "passes",
            (rules.players - 1,),
            f"one-hot consecutive passes since the table's play ({passes})",
        ),
    ]


def _write_context(view: View, pieces: Pieces) -> None:
    """Fill the :func:`_context` pieces."""
    table = view.table
    if table is not None:
        pieces.one_hot("table_ranking", table.ranking - 1)
        assert view.table_seat is not None
        pieces.one_hot("table_owner", view.relative(view.table_seat))
        pieces.one_hot("passes", min(view.passes, view.rules.players - 2))
    if view.leading:
        pieces.one_hot("leading", 0)


class SimpleObserver(Observer):
    """Own hand, the table, whose it is, leading flag, passes and opponents' card counts."""

    name: ClassVar[str] = "simple"

    def declare(self) -> list[Piece]:
        rules = self.rules
        return [
            Piece("hand", (52,), "cards in my hand"),
            Piece("table", (52,), "cards of the combination to beat (zeros when leading)"),
            *_context(rules),
            Piece(
                "cards_left",
                (rules.players - 1, rules.largest_hand),
                f"per opponent ({_seats(rules, 1)}): one-hot n-1",
            ),
        ]

    def write(self, view: View, pieces: Pieces, game: Game | None = None) -> None:
        pieces.cards("hand", view.hand)
        if view.table is not None:
            pieces.cards("table", view.table.cards)
        _write_context(view, pieces)
        left = view.cards_left
        for row, seat in enumerate(seats_from(view.seat, self.rules.players)[1:]):
            if n := left[seat]:
                pieces.one_hot("cards_left", n - 1, row)


class CardCountingObserver(SimpleObserver):
    """``simple`` plus the cards each seat has played and the cards I have not seen."""

    name: ClassVar[str] = "card_counting"

    def declare(self) -> list[Piece]:
        return [
            *super().declare(),
            Piece(
                "played",
                (self.rules.players, 52),
                f"cards played so far by {_seats(self.rules)}",
            ),
            Piece("unseen", (52,), "cards neither in my hand nor played (opponents hold them)"),
        ]

    def write(self, view: View, pieces: Pieces, game: Game | None = None) -> None:
        super().write(view, pieces, game)
        for row, seat in enumerate(seats_from(view.seat, self.rules.players)):
            pieces.cards("played", view.played[seat], row)
        pieces.cards("unseen", view.unseen)


def _move_fields(rules: Rules) -> tuple[Field, ...]:
    """The fields of one move of ``history``: 57 columns of four players, 56 of three."""
    return (
        Field("seat", rules.players, f"who moved: {_seats(rules)}"),
        Field("pass", 1, "1 for a pass"),
        Field("cards", 52, "the cards played"),
    )


class HistoryObserver(SimpleObserver):
    """``simple`` plus the last ``k`` moves (oldest first, zero-padded at the front)."""

    name: ClassVar[str] = "history"

    def __init__(self, rules: Rules = STANDARD, k: int = 16) -> None:
        if not isinstance(k, int) or k < 1:
            raise ValueError(f"history length k must be a positive int, got {k!r}")
        self.k = k
        super().__init__(rules)

    def declare(self) -> list[Piece]:
        fields = _move_fields(self.rules)
        return [
            *super().declare(),
            Piece(
                "history",
                (self.k, sum(f.width for f in fields)),
                "last k moves, oldest first; empty slots are zeros and come first",
                fields,
            ),
        ]

    def write(self, view: View, pieces: Pieces, game: Game | None = None) -> None:
        super().write(view, pieces, game)
        recent = view.history[-self.k :]
        first = self.k - len(recent)
        for row, entry in enumerate(recent, first):
            pieces.one_hot("history.seat", view.relative(entry.seat), row)
            if entry.move:
                pieces.cards("history.cards", entry.move.cards, row)
            else:
                pieces.one_hot("history.pass", 0, row)


class PlanesObserver(Observer):
    """Card planes shaped (channels, 4 suits, 13 ranks) for convolutional networks.

    ``planes[c, suit, rank]`` is card ``4 * rank + suit`` of channel c; ``channels``
    names them (a ``played_`` channel per seat: :data:`CHANNELS` of four players). The
    non-card facts of ``simple`` come in separate pieces for the dense head.
    """

    name: ClassVar[str] = "planes"
    CHANNELS = (
        "hand",
        "table",
        "played_me",
        "played_next",
        "played_across",
        "played_previous",
        "unseen",
    )

    def __init__(self, rules: Rules = STANDARD) -> None:
        played = tuple(f"played_{seat}" for seat in seat_names(rules.players))
        self.channels = ("hand", "table", *played, "unseen")
        super().__init__(rules)

    def declare(self) -> list[Piece]:
        rules = self.rules
        return [
            Piece("planes", (len(self.channels), 4, 13), "channels: " + ", ".join(self.channels)),
            *_context(rules),
            Piece(
                "cards_left",
                (rules.players - 1,),
                f"cards left / {rules.largest_hand} for {_seats(rules, 1)}",
            ),
        ]

    def write(self, view: View, pieces: Pieces, game: Game | None = None) -> None:
        table = view.table
        masks = [view.hand, table.cards if table else 0]
        seats = seats_from(view.seat, self.rules.players)
        masks += [view.played[s] for s in seats]
        masks.append(view.unseen)
        for channel, mask in enumerate(masks):  # a channel is N_SUITS rows of 13 ranks
            pieces.ones("planes", [_PLANE[c] for c in card_indices(mask)], N_SUITS * channel)
        _write_context(view, pieces)
        largest = self.rules.largest_hand
        pieces["cards_left"][:] = [view.cards_left[s] / largest for s in seats[1:]]


# card -> its place in a channel's (suit, rank) plane
_PLANE = tuple(N_RANKS * suit_of(card) + rank_of(card) for card in range(N_CARDS))


class OracleObserver(CardCountingObserver):
    """CHEATS: ``card_counting`` plus every opponent's hand (perfect information).

    For ablation upper bounds and centralised critics only; it reads the full game.
    """

    name: ClassVar[str] = "oracle"
    perfect_information: ClassVar[bool] = True

    def declare(self) -> list[Piece]:
        return [
            *super().declare(),
            Piece(
                "opponent_hands",
                (self.rules.players - 1, 52),
                f"CHEAT: hands of {_seats(self.rules, 1)}",
            ),
        ]

    def write(self, view: View, pieces: Pieces, game: Game | None = None) -> None:
        if game is None:
            raise ValueError("the oracle observer needs the full game")
        super().write(view, pieces, game)
        for row, seat in enumerate(seats_from(view.seat, self.rules.players)[1:]):
            pieces.cards("opponent_hands", game.hand(seat), row)
