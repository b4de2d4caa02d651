"""Cards as bits.

A card is an index ``4 * rank + suit`` with ranks ``3456789TJQKA2`` (rank 0 is ``3``,
rank 12 is ``2``) and suits in the rules' suit order, lowest first (``DCHS`` by
default: diamonds lowest, spades highest), so index order is strength order: under
the default order 3♦ is 0 and 2♠ is 51. A set of cards is a plain ``int`` with bit
``index`` set for each card (a 52-bit mask), as python-chess does with squares.

Every engine compares cards by index alone; only text knows which suit is which.
:func:`parse_cards` and :func:`format_cards` take the suit order (``suits``, a
:attr:`~big2.rules.Rules.suit_order`): under ``"CDHS"`` (Taiwan) card 0 is the 3♣.

>>> hand = parse_cards("3d 10h 2♠")
>>> format_cards(hand)
'3D TH 2S'
>>> hand.bit_count(), highest(hand)
(3, 51)
>>> format_cards(1, suits="CDHS"), parse_cards("3C", suits="CDHS")
('3C', 1)
"""

from __future__ import annotations

from collections.abc import Iterator

RANKS = "3456789TJQKA2"
SUITS = "DCHS"
SUIT_SYMBOLS = "♦♣♥♠"
N_RANKS = 13
N_SUITS = 4
N_CARDS = 52
DECK = (1 << N_CARDS) - 1
THREE_OF_DIAMONDS = 1  # the mask of 3D, bit 0

_RANK_OF_CHAR = {c: i for i, c in enumerate(RANKS)}
SYMBOL_OF = dict(zip(SUITS, SUIT_SYMBOLS, strict=True))
"""``SYMBOL_OF[letter]``: a suit's symbol (``"D"`` -> ``"♦"``)."""
_LETTER_OF = {**{c: c for c in SUITS}, **{s: c for c, s in SYMBOL_OF.items()}}


def _names(suits: str) -> tuple[str, ...]:
    return tuple(r + s for r in RANKS for s in suits)


_NAMES = {SUITS: _names(SUITS)}  # suit order -> the 52 names in index order


def names(suits: str = SUITS) -> tuple[str, ...]:
    """The 52 card names in index order under the suit order ``suits``.

    >>> names()[:2], names("CDHS")[:2]
    (('3D', '3C'), ('3C', '3D'))
    """
    found = _NAMES.get(suits)
    if found is None:
        found = _NAMES[suits] = _names(suits)
    return found


def card_index(rank: int, suit: int) -> int:
    """The index of the card of ``rank`` (0 = ``3`` .. 12 = ``2``) and ``suit`` (its place
    in the suit order, 0 = the lowest: D by default .. 3 = S).

    >>> card_index(12, 3)
    51
    """
    return 4 * rank + suit


def rank_of(index: int) -> int:
    """The rank (0 = ``3`` .. 12 = ``2``) of a card index."""
    return index >> 2


def suit_of(index: int) -> int:
    """The suit (its place in the suit order, 0 = the lowest) of a card index."""
    return index & 3


def card_name(index: int, suits: str = SUITS) -> str:
    """The text of one card (under the suit order ``suits``).

    >>> card_name(0), card_name(51), card_name(0, "CDHS")
    ('3D', '2S', '3C')
    """
    if not 0 <= index < N_CARDS:
        raise ValueError(f"card index {index} is out of range; expected 0..51")
    return names(suits)[index]


def parse_card(token: str, suits: str = SUITS) -> int:
    """The index of one card written as rank then suit: ``3D``, ``th``, ``10♥`` (under
    the suit order ``suits``).

    >>> parse_card("10h"), parse_card("3D", "CDHS")
    (30, 1)
    """
    text = token.strip().upper()
    rank_text, suit_text = text[:-1], text[-1:]
    if rank_text == "10":
        rank_text = "T"
    rank = _RANK_OF_CHAR.get(rank_text)
    letter = _LETTER_OF.get(suit_text)
    suit = None if letter is None else suits.find(letter)
    if rank is None or suit is None or len(rank_text) != 1:
        raise ValueError(
            f"bad card {token!r}: expected a rank of {RANKS} (or 10) followed by a suit "
            f"of {SUITS} or {SUIT_SYMBOLS}, e.g. '3D' or 'T♠'"
        )
    return card_index(rank, suit)


def parse_cards(text: str, suits: str = SUITS) -> int:
    """The mask of the cards in ``text``, separated by spaces or commas.

    Case-insensitive; ``10`` is accepted for ``T`` and ``♦♣♥♠`` for the suits; ``suits``
    is the suit order (lowest first) that gives each card its index.
    A malformed token or a card written twice raises :class:`ValueError` naming it.

    >>> parse_cards("3D 3C") == 0b11
    True
    >>> parse_cards("3D 1X")
    Traceback (most recent call last):
    ...
    ValueError: bad card '1X': expected a rank of 3456789TJQKA2 (or 10) followed by a suit ...
    """
    mask = 0
    for token in text.replace(",", " ").split():
        bit = 1 << parse_card(token, suits)
        if mask & bit:
            raise ValueError(f"card {token!r} appears twice in {text!r}")
        mask |= bit
    return mask


def format_cards(mask: int, symbols: bool = False, suits: str = SUITS) -> str:
    """The text of a mask, weakest card first (``symbols`` writes suits as ``♦♣♥♠``;
    ``suits`` is the suit order).

    >>> format_cards(parse_cards("2s 3d"))
    '3D 2S'
    >>> format_cards(parse_cards("2s 3d"), symbols=True)
    '3♦ 2♠'
    """
    check_mask(mask)
    if symbols:
        return " ".join(RANKS[i >> 2] + SYMBOL_OF[suits[i & 3]] for i in iter_cards(mask))
    text = names(suits)
    return " ".join(text[i] for i in iter_cards(mask))


def check_mask(mask: int) -> int:
    """Return ``mask`` if it is a valid set of cards, else raise :class:`ValueError`."""
    if not isinstance(mask, int) or mask < 0 or mask > DECK:
        raise ValueError(f"{mask!r} is not a card mask; expected an int in 0..2**52-1")
    return mask


def iter_cards(mask: int) -> Iterator[int]:
    """The card indices in ``mask``, weakest first.

    >>> list(iter_cards(0b1001))
    [0, 3]
    """
    return iter(card_indices(mask))


_CHUNK = 13
# _INDICES[j][c]: the card indices of 13-bit chunk j (cards 13j..13j+12) holding bits c
_INDICES = tuple(
    tuple(tuple(_CHUNK * j + b for b in range(_CHUNK) if c >> b & 1) for c in range(1 << _CHUNK))
    for j in range(4)
)


def card_indices(mask: int) -> tuple[int, ...]:
    """The card indices in ``mask``, weakest first, as a tuple (table lookups, no bit loop).

    >>> card_indices(0b1001 | 1 << 51)
    (0, 3, 51)
    """
    p0, p1, p2, p3 = _INDICES
    return p0[mask & 8191] + p1[(mask >> 13) & 8191] + p2[(mask >> 26) & 8191] + p3[mask >> 39]


def single_bits(mask: int) -> list[int]:
    """The one-card masks of ``mask``, weakest first.

    >>> single_bits(0b1010)
    [2, 8]
    """
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


def highest(mask: int) -> int:
    """The index of the strongest card in a non-empty mask."""
    return mask.bit_length() - 1


def rank_mask(mask: int, rank: int) -> int:
    """The 4-bit suit mask of ``rank`` in ``mask`` (bit ``suit`` set per card held)."""
    return (mask >> (4 * rank)) & 15


def rank_masks(mask: int) -> list[int]:
    """The 4-bit suit mask of every rank in ``mask``, rank ``3`` first.

    >>> rank_masks(parse_cards("3D 3S 5H"))[:3]
    [9, 0, 4]
    """
    return [(mask >> shift) & 15 for shift in range(0, N_CARDS, 4)]


def rank_counts(mask: int) -> list[int]:
    """How many cards of each rank ``mask`` holds, rank ``3`` first.

    >>> rank_counts(parse_cards("3D 3S 5H"))[:3]
    [2, 0, 1]
    """
    return [POPCOUNT4[(mask >> shift) & 15] for shift in range(0, N_CARDS, 4)]


POPCOUNT4 = tuple(m.bit_count() for m in range(16))
"""``POPCOUNT4[m]``: the number of cards in a 4-bit suit mask ``m``."""
SUIT_MASKS = tuple(sum(1 << card_index(r, s) for r in range(N_RANKS)) for s in range(N_SUITS))
"""``SUIT_MASKS[suit]``: the mask of the 13 cards of ``suit``."""


def majority_rank(mask: int) -> int:
    """The rank held three or more times in ``mask`` (a triple, full house or quads).

    >>> RANKS[majority_rank(parse_cards("5C 5D 5S 8H 8D"))]
    '5'
    """
    for rank in range(N_RANKS):
        if rank_mask(mask, rank).bit_count() >= 3:
            return rank
    raise ValueError(f"{format_cards(mask)} holds no rank three times")
