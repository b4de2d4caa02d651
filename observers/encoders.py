"""The built-in observers, each a layout of named pieces (seat-relative throughout).

Seat-relative order is: me, next (acts after me), across, previous. Cards are
52-long rows in card-index order (3♦ first, 2♠ last). All values are 0 or 1 unless a
piece says otherwise.

>>> from big2.game import Game
>>> view = Game(seed=0).view(0)
>>> obs = SimpleObserver().observe(view)
>>> obs.shape, obs.dtype, int(obs[:52].sum())
((161,), dtype('float32'), 13)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from big2.board import seats_from
from big2.cards import N_CARDS, N_RANKS, N_SUITS, card_indices, rank_of, suit_of
from big2.hand_ranking import Ranking
from big2.rules import STANDARD, Rules
from observers.base import Field, Observer, Piece, Pieces

if TYPE_CHECKING:
    from big2.game import Game, View

_RANKINGS = len(Ranking) - 1  # every category but PASS


# the table's context, shared by the observers that have it
_CONTEXT = [
    Piece("table_ranking", (_RANKINGS,), "one-hot Ranking of the table (SINGLE..)"),
    Piece("table_owner", (4,), "who played the table: me, next, across, previous"),
    Piece("leading", (1,), "1 when I am to act on an empty table"),
    Piece("passes", (3,), "one-hot consecutive passes since the table's play (0, 1, 2)"),
]


def _write_context(view: View, pieces: Pieces) -> None:
    """Fill the :data:`_CONTEXT` pieces."""
    table = view.table
    if table is not None:
        pieces.one_hot("table_ranking", table.ranking - 1)
        assert view.table_seat is not None
        pieces.one_hot("table_owner", view.relative(view.table_seat))
        pieces.one_hot("passes", min(view.passes, 2))
    if view.leading:
        pieces.one_hot("leading", 0)


class SimpleObserver(Observer):
    """Own hand, the table, whose it is, leading flag, passes and opponents' card counts."""

    name: ClassVar[str] = "simple"

    def declare(self) -> list[Piece]:
        return [
            Piece("hand", (52,), "cards in my hand"),
            Piece("table", (52,), "cards of the combination to beat (zeros when leading)"),
            *_CONTEXT,
            Piece("cards_left", (3, 13), "per opponent (next, across, previous): one-hot n-1"),
        ]

    def write(self, view: View, pieces: Pieces, game: Game | None = None) -> None:
        pieces.cards("hand", view.hand)
        if view.table is not None:
            pieces.cards("table", view.table.cards)
        _write_context(view, pieces)
        left = view.cards_left
        for row, seat in enumerate(seats_from(view.seat)[1:]):
            if n := left[seat]:
                pieces.one_hot("cards_left", n - 1, row)


class CardCountingObserver(SimpleObserver):
    """``simple`` plus the cards each seat has played and the cards I have not seen."""

    name: ClassVar[str] = "card_counting"

    def declare(self) -> list[Piece]:
        return [
            *super().declare(),
            Piece("played", (4, 52), "cards played so far by me, next, across, previous"),
            Piece("unseen", (52,), "cards neither in my hand nor played (opponents hold them)"),
        ]

    def write(self, view: View, pieces: Pieces, game: Game | None = None) -> None:
        super().write(view, pieces, game)
        for row, seat in enumerate(seats_from(view.seat)):
            pieces.cards("played", view.played[seat], row)
        pieces.cards("unseen", view.unseen)


_MOVE_FIELDS = (
    Field("seat", 4, "who moved: me, next, across, previous"),
    Field("pass", 1, "1 for a pass"),
    Field("cards", 52, "the cards played"),
)
_MOVE_WIDTH = sum(f.width for f in _MOVE_FIELDS)  # 57


class HistoryObserver(SimpleObserver):
    """``simple`` plus the last ``k`` moves (oldest first, zero-padded at the front)."""

    name: ClassVar[str] = "history"

    def __init__(self, rules: Rules = STANDARD, k: int = 16) -> None:
        if not isinstance(k, int) or k < 1:
            raise ValueError(f"history length k must be a positive int, got {k!r}")
        self.k = k
        super().__init__(rules)

    def declare(self) -> list[Piece]:
        return [
            *super().declare(),
            Piece(
                "history",
                (self.k, _MOVE_WIDTH),
                "last k moves, oldest first; empty slots are zeros and come first",
                _MOVE_FIELDS,
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

    ``planes[c, suit, rank]`` is card ``4 * rank + suit`` of channel c. The non-card
    facts of ``simple`` come in a separate ``context`` piece for the dense head.
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

    def declare(self) -> list[Piece]:
        return [
            Piece("planes", (len(self.CHANNELS), 4, 13), "channels: " + ", ".join(self.CHANNELS)),
            *_CONTEXT,
            Piece("cards_left", (3,), "cards left / 13 for next, across, previous"),
        ]

    def write(self, view: View, pieces: Pieces, game: Game | None = None) -> None:
        table = view.table
        masks = [view.hand, table.cards if table else 0]
        masks += [view.played[s] for s in seats_from(view.seat)]
        masks.append(view.unseen)
        for channel, mask in enumerate(masks):  # a channel is N_SUITS rows of 13 ranks
            pieces.ones("planes", [_PLANE[c] for c in card_indices(mask)], N_SUITS * channel)
        _write_context(view, pieces)
        pieces["cards_left"][:] = [view.cards_left[s] / 13 for s in seats_from(view.seat)[1:]]


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
            Piece("opponent_hands", (3, 52), "CHEAT: hands of next, across, previous"),
        ]

    def write(self, view: View, pieces: Pieces, game: Game | None = None) -> None:
        if game is None:
            raise ValueError("the oracle observer needs the full game")
        super().write(view, pieces, game)
        for row, seat in enumerate(seats_from(view.seat)[1:]):
            pieces.cards("opponent_hands", game.hand(seat), row)
