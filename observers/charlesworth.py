"""The observation of henrycharlesworth/big2_PPOalgorithm (the 2018 Big Two PPO paper).

412 values, so agents and results can be compared with that anchor:

- ``hand_slots`` (13 x 22): one row per card of my hand sorted weakest first (rows past
  my hand size are zeros): rank one-hot (13, ``3`` .. ``2``), suit one-hot (4, D C H S),
  then whether the card is in a pair, a triple, a four of a kind, a run of five or more
  consecutive ranks that could form straights, and a suit held five or more times.
- ``opponents`` (3 x 27), for next, across and previous: cards left one-hot (13, n-1);
  which of AD AC AH AS 2D 2C 2H 2S they have played (8); whether they have played a
  pair, a triple, a four-card play, a straight, a flush, a full house (6).
- ``high_cards`` (16): which of QD .. 2S (the 16 strongest cards) anyone has played.
- ``table`` (29): the table's key card rank one-hot (13) and suit one-hot (4) (the
  highest card; for a full house the triple's rank and no suit), a control flag (I lead
  on an empty table), the table's type (single, pair, triple, two pair, four of a kind,
  straight, flush, full house: 8; a straight flush sets both straight and flush, as the
  anchor does), and passes since the play one-hot (none, one, two).

Differences from the anchor, all on purpose: the features are computed from the seat's
view at each decision, so every seat sees the same up-to-date facts (the anchor does not
update the passing seat's own vector); under STANDARD rules a four of a kind plus kicker
sets the four-card flags with the quad's rank and no suit, and runs stop at ``A``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from big2 import cards as C
from big2.hand_ranking import HandRanking, Ranking
from observers.base import Observer, Piece, Pieces, card_positions, relative_seats

if TYPE_CHECKING:
    from big2.game import Game, View

_ACES_AND_TWOS = 44  # first card index of the 8 flags (AD)
_HIGH_CARDS = 36  # first card index of the 16 flags (QD)
# (ranking played, opponent flag): pair, triple, four-card, straight, flush, full house
_PLAYED_FLAG = (
    (Ranking.PAIR, 0),
    (Ranking.TRIPLE, 1),
    (Ranking.TWO_PAIR, 2),
    (Ranking.QUADS, 2),
    (Ranking.FOUR_OF_A_KIND, 2),
    (Ranking.STRAIGHT, 3),
    (Ranking.FLUSH, 4),
    (Ranking.STRAIGHT_FLUSH, 3),  # the anchor flags a straight flush as both
    (Ranking.STRAIGHT_FLUSH, 4),
    (Ranking.FULL_HOUSE, 5),
)
_TABLE_TYPE = {
    Ranking.SINGLE: (0,),
    Ranking.PAIR: (1,),
    Ranking.TRIPLE: (2,),
    Ranking.TWO_PAIR: (3,),
    Ranking.QUADS: (4,),
    Ranking.FOUR_OF_A_KIND: (4,),
    Ranking.STRAIGHT: (5,),
    Ranking.FLUSH: (6,),
    Ranking.STRAIGHT_FLUSH: (5, 6),
    Ranking.FULL_HOUSE: (7,),
}


_HAND_SLOTS_DOC = "per sorted hand card: rank 13, suit 4, in pair/triple/quads/run/flush 5"
_OPPONENTS_DOC = (
    "next, across, previous: cards left 13, A/2 played 8, "
    "played pair/triple/four/straight/flush/full house 6"
)


class CharlesworthObserver(Observer):
    """The anchor's 412-long observation (see the module docstring, piece by piece)."""

    name: ClassVar[str] = "charlesworth"

    def declare(self) -> list[Piece]:
        return [
            Piece("hand_slots", (13, 22), _HAND_SLOTS_DOC),
            Piece("opponents", (3, 27), _OPPONENTS_DOC),
            Piece("high_cards", (16,), "QD..2S played by anyone"),
            Piece("table", (29,), "key rank 13, key suit 4, control 1, type 8, passes 3"),
        ]

    def write(self, view: View, pieces: Pieces, game: Game | None = None) -> None:
        pieces.ones("hand_slots", self._hand_slots(view.hand))
        for row, seat in enumerate(relative_seats(view.seat)[1:]):
            base = 27 * row
            if n := view.cards_left[seat]:
                pieces.one_hot("opponents", base + n - 1)
            pieces.cards("opponents", view.played[seat] >> _ACES_AND_TWOS, at=base + 13)
            kinds = view.played_rankings[seat]
            for ranking, flag in _PLAYED_FLAG:
                if kinds >> ranking & 1:
                    pieces.one_hot("opponents", base + 21 + flag)
        played = view.played[0] | view.played[1] | view.played[2] | view.played[3]
        pieces.cards("high_cards", played >> _HIGH_CARDS)
        pieces.ones("table", _table(view))

    def _hand_slots(self, hand: int) -> list[int]:
        """Flat positions of the ones in ``hand_slots`` (22 per sorted card)."""
        counts = [C.rank_mask(hand, r).bit_count() for r in range(C.N_RANKS)]
        suits = [(hand & _SUIT_MASKS[s]).bit_count() for s in range(4)]
        runs = _run_ranks(counts, 13 if self.rules.straights_to_two else 12)
        out: list[int] = []
        for slot, card in enumerate(card_positions(hand)):
            rank, suit, base = card >> 2, card & 3, 22 * slot
            out += (base + rank, base + 13 + suit)
            count = counts[rank]
            out += [base + 15 + k for k in range(2, count + 1)]  # pair 17, triple 18, quads 19
            if rank in runs:
                out.append(base + 20)
            if suits[suit] >= 5:
                out.append(base + 21)
        return out


_SUIT_MASKS = tuple(sum(1 << (4 * r + s) for r in range(13)) for s in range(4))


def _run_ranks(counts: list[int], span: int) -> set[int]:
    """Ranks inside runs of five or more consecutive held ranks below ``span``."""
    out: set[int] = set()
    start = 0
    for r in range(span + 1):
        if r == span or not counts[r]:
            if r - start >= 5:
                out.update(range(start, r))
            start = r + 1
    return out


def _table(view: View) -> list[int]:
    """Flat positions of the ones in the 29 table features."""
    table: HandRanking | None = view.table
    if table is None:
        return [17] if view.leading else []
    top = C.highest(table.cards)
    if table.ranking in (Ranking.FULL_HOUSE, Ranking.FOUR_OF_A_KIND):
        out = [C.majority_rank(table.cards)]
    else:
        out = [C.rank_of(top), 13 + C.suit_of(top)]
    out += [18 + t for t in _TABLE_TYPE[table.ranking]]
    out.append(26 + min(view.passes, 2))
    return out
