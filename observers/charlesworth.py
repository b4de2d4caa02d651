"""The observation of henrycharlesworth/big2_PPOalgorithm (the 2018 Big Two PPO paper).

412 values, so agents and results can be compared with that anchor, in four pieces cut
into named fields (``CharlesworthObserver().layout()`` lists them with their flat ranges):

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

:class:`CharlesworthObserver`'s docstring lists where it differs from the anchor, and
``faithful=True`` reproduces the anchor's one quirk that changes its vectors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from big2 import cards as C
from big2.board import seats_from
from big2.hand_ranking import HandRanking, Ranking
from big2.rules import STANDARD, Rules
from observers.base import Field, Observer, Piece, Pieces

if TYPE_CHECKING:
    from big2.game import Game, View

FIRST_ACE = C.parse_card("AD")  # the first of the 8 aces and twos
FIRST_QUEEN = C.parse_card("QD")  # the first of the 16 high cards
# the columns of ``opponents.kinds`` and of ``table.type``: a name, and the rankings
# that set it (the anchor flags a straight flush as both a straight and a flush)
_Kinds = tuple[tuple[str, tuple[Ranking, ...]], ...]
_PLAYED_KINDS: _Kinds = (
    ("pair", (Ranking.PAIR,)),
    ("triple", (Ranking.TRIPLE,)),
    ("four-card play", (Ranking.TWO_PAIR, Ranking.QUADS, Ranking.FOUR_OF_A_KIND)),
    ("straight", (Ranking.STRAIGHT, Ranking.STRAIGHT_FLUSH)),
    ("flush", (Ranking.FLUSH, Ranking.STRAIGHT_FLUSH)),
    ("full house", (Ranking.FULL_HOUSE,)),
)
_TABLE_TYPES: _Kinds = (
    ("single", (Ranking.SINGLE,)),
    ("pair", (Ranking.PAIR,)),
    ("triple", (Ranking.TRIPLE,)),
    ("two pair", (Ranking.TWO_PAIR,)),
    ("four of a kind", (Ranking.QUADS, Ranking.FOUR_OF_A_KIND)),
    ("straight", (Ranking.STRAIGHT, Ranking.STRAIGHT_FLUSH)),
    ("flush", (Ranking.FLUSH, Ranking.STRAIGHT_FLUSH)),
    ("full house", (Ranking.FULL_HOUSE,)),
)


def _names(kinds: _Kinds) -> str:
    return ", ".join(name for name, _ in kinds)


def _columns(kinds: _Kinds, rankings: int) -> tuple[int, ...]:
    """The columns of ``kinds`` set by the rankings whose bits ``rankings`` holds.

    >>> _columns(_TABLE_TYPES, 1 << Ranking.STRAIGHT_FLUSH)
    (5, 6)
    """
    return tuple(i for i, (_, its) in enumerate(kinds) if any(rankings >> r & 1 for r in its))


# a seat's played_rankings bits -> its columns in ``opponents.kinds``
KIND_COLUMNS = tuple(_columns(_PLAYED_KINDS, bits) for bits in range(1 << len(Ranking)))
# the table's ranking -> its columns in ``table.type``
TYPE_COLUMNS: dict[Ranking, tuple[int, ...]] = {
    r: _columns(_TABLE_TYPES, 1 << r) for r in Ranking if r != Ranking.PASS
}
# faithful=True: the anchor's isFullHouse returns the truthy tuple (False,) for any hand
# that is not a full house, so a plain straight (not a flush) is also taken for one: its
# player gets the full-house flag, and on the table it sets the full-house type with the
# middle card's rank as its key and no suit
FULL_HOUSE_KIND = [name for name, _ in _PLAYED_KINDS].index("full house")
FULL_HOUSE_TYPE = [name for name, _ in _TABLE_TYPES].index("full house")
# the hand_slots flags of a card whose rank is held at least 2, 3, 4 times
_SETS = ("hand_slots.pair", "hand_slots.triple", "hand_slots.quads")

_HAND_SLOT = (
    Field("rank", C.N_RANKS, "rank one-hot, 3 .. 2"),
    Field("suit", C.N_SUITS, "suit one-hot, D C H S"),
    Field("pair", 1, "its rank is held two or more times"),
    Field("triple", 1, "its rank is held three or more times"),
    Field("quads", 1, "its rank is held four times"),
    Field("run", 1, "its rank is in a run of five or more consecutive held ranks"),
    Field("flush", 1, "its suit is held five or more times"),
)
_OPPONENT = (
    Field("cards_left", 13, "cards left one-hot, n-1"),
    Field("aces_twos", 8, "which of AD AC AH AS 2D 2C 2H 2S they have played"),
    Field("kinds", len(_PLAYED_KINDS), "they have played: " + _names(_PLAYED_KINDS)),
)
_TABLE = (
    Field("key_rank", C.N_RANKS, "the key card's rank one-hot (a full house's triple)"),
    Field("key_suit", C.N_SUITS, "the key card's suit one-hot (none for a full house)"),
    Field("control", 1, "I lead on an empty table"),
    Field("type", len(_TABLE_TYPES), "its type: " + _names(_TABLE_TYPES)),
    Field("passes", 3, "passes since the play one-hot: none, one, two"),
)


class CharlesworthObserver(Observer):
    """The 2018 code's 412-long observation, piece by piece (layout below).

    Differences from that code, all on purpose: the features are computed from the
    seat's view at each decision, so every seat sees the same up-to-date facts (the 2018
    code does not update the passing seat's own vector); under STANDARD rules a four of a
    kind plus kicker sets the four-card flags with the quad's rank and no suit, and runs
    stop at ``A``.

    That code has one quirk that changes its vectors (at 12.8% of the decisions of 4,000
    random games: ``python -m lab.faithful``): its ``isFullHouse`` returns the tuple
    ``(False,)`` for a hand
    that is not a full house, which is truthy, so every straight that is not a flush is
    also taken for a full house. An opponent who played one gets the "full house" flag,
    and with one on the table the key rank is its middle card's, the key suit is empty,
    and the type says straight and full house. The written rules are followed by
    default; ``faithful=True`` reproduces the quirk, so that code's published network
    sees what it saw.

    >>> import observers
    >>> observers.make("charlesworth", "charlesworth", faithful=True)
    CharlesworthObserver(rules='charlesworth', faithful=True)
    >>> observers.make("charlesworth", "three-player")
    Traceback (most recent call last):
    ...
    ValueError: the charlesworth observer (the 2018 code's) is defined for four players of ...
    """

    name: ClassVar[str] = "charlesworth"

    def __init__(self, rules: Rules = STANDARD, faithful: bool = False) -> None:
        if not isinstance(faithful, bool):
            raise ValueError(f"faithful must be True or False, got {faithful!r}")
        if rules.players != 4:  # four players are the only ones dealt 13 cards each
            raise ValueError(
                f"the charlesworth observer (the 2018 code's) is defined for four players of "
                f"13 cards (13 hand slots, three opponents); the {rules.name} rules seat "
                f"{rules.players} with up to {rules.largest_hand} cards: use observer='simple' "
                f"(or 'card_counting', 'history', 'planes'), which follow the player count"
            )
        self.faithful = faithful
        super().__init__(rules)

    def __repr__(self) -> str:
        faithful = ", faithful=True" if self.faithful else ""
        return f"{type(self).__name__}(rules={self.rules.name!r}{faithful})"

    def declare(self) -> list[Piece]:
        return [
            Piece("hand_slots", (13, 22), "per card of my hand, sorted weakest first", _HAND_SLOT),
            Piece("opponents", (3, 27), "next, across, previous", _OPPONENT),
            Piece("high_cards", (16,), "QD..2S played by anyone"),
            Piece("table", (29,), "the combination to beat", _TABLE),
        ]

    def write(self, view: View, pieces: Pieces, game: Game | None = None) -> None:
        self._write_hand(view.hand, pieces)
        for row, seat in enumerate(seats_from(view.seat)[1:]):
            if n := view.cards_left[seat]:
                pieces.one_hot("opponents.cards_left", n - 1, row)
            pieces.cards("opponents.aces_twos", view.played[seat] >> FIRST_ACE, row)
            kinds = view.played_rankings[seat]
            pieces.ones("opponents.kinds", KIND_COLUMNS[kinds], row)
            if self.faithful and kinds >> Ranking.STRAIGHT & 1:
                pieces.ones("opponents.kinds", (FULL_HOUSE_KIND,), row)
        played_cards = view.played[0] | view.played[1] | view.played[2] | view.played[3]
        pieces.cards("high_cards", played_cards >> FIRST_QUEEN)
        _write_table(view, pieces, self.faithful)

    def _write_hand(self, hand: int, pieces: Pieces) -> None:
        """Fill ``hand_slots``: one row per card of ``hand``, weakest first."""
        held = C.card_indices(hand)
        ranks = [card >> 2 for card in held]
        pieces.one_hot_rows("hand_slots.rank", ranks)
        pieces.one_hot_rows("hand_slots.suit", [card & 3 for card in held])
        counts = C.rank_counts(hand)
        for field, slots in zip(_SETS, _set_slots(counts), strict=True):
            if slots:
                pieces.flags(field, slots)
        if runs := _run_ranks(counts, 13 if self.rules.straights_to_two else 12):
            in_runs = [slot for slot, rank in enumerate(ranks) if rank in runs]
            pieces.flags("hand_slots.run", in_runs)
        if long := [s for s, mask in enumerate(C.SUIT_MASKS) if (hand & mask).bit_count() >= 5]:
            flush = [slot for slot, card in enumerate(held) if card & 3 in long]
            pieces.flags("hand_slots.flush", flush)


def _set_slots(counts: list[int]) -> tuple[list[int], list[int], list[int]]:
    """The hand slots (cards sorted by rank) whose rank is held at least 2, 3, 4 times.

    >>> _set_slots([2, 1, 3] + [0] * 10)
    ([0, 1, 3, 4, 5], [3, 4, 5], [])
    """
    out: tuple[list[int], list[int], list[int]] = ([], [], [])
    slot = 0
    for n in counts:
        if n > 1:  # the n cards of this rank fill slots slot .. slot + n - 1
            for slots in out[: n - 1]:
                slots += range(slot, slot + n)
        slot += n
    return out


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


def _write_table(view: View, pieces: Pieces, faithful: bool) -> None:
    """Fill the ``table`` piece (``faithful``: a plain straight also as a full house)."""
    table: HandRanking | None = view.table
    if table is None:
        if view.leading:
            pieces.one_hot("table.control", 0)
        return
    quirk = faithful and table.ranking == Ranking.STRAIGHT
    if quirk:  # the key of a full house: the middle card's rank, no suit
        pieces.one_hot("table.key_rank", C.rank_of(C.card_indices(table.cards)[2]))
    elif table.ranking in (Ranking.FULL_HOUSE, Ranking.FOUR_OF_A_KIND):
        pieces.one_hot("table.key_rank", C.majority_rank(table.cards))
    else:
        top = C.highest(table.cards)
        pieces.one_hot("table.key_rank", C.rank_of(top))
        pieces.one_hot("table.key_suit", C.suit_of(top))
    pieces.ones("table.type", TYPE_COLUMNS[table.ranking])
    if quirk:
        pieces.ones("table.type", (FULL_HOUSE_TYPE,))
    pieces.one_hot("table.passes", min(view.passes, 2))
