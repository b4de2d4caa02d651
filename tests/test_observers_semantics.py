"""What each observer's pieces say, on hand-built positions.

The main position deals one suit per seat (seat 0 diamonds, 1 clubs, 2 hearts, 3 spades)
under STANDARD rules; seat 0 leads 3D, seat 1 plays 5C, seat 2 passes, and seat 3 (all
spades) is to act: from seat 3, seat 0 is "next", seat 1 "across", seat 2 "previous".
"""

from __future__ import annotations

import numpy as np
import pytest

import observers
from big2 import cards as C
from big2.board import Board
from big2.game import Game
from big2.hand_ranking import HandRanking, Ranking
from big2.rules import CHARLESWORTH, STANDARD

SUIT_HANDS = [sum(1 << (4 * r + s) for r in range(13)) for s in range(4)]
THREE_D, FIVE_C = C.parse_cards("3D"), C.parse_cards("5C")


@pytest.fixture
def position():
    game = Game.from_board(Board.from_hands(SUIT_HANDS))
    for text in ("3D", "5C", "pass"):
        game.play(HandRanking.from_str(text))
    assert game.turn == 3 and game.passes == 1 and game.table_seat == 1
    return game


def pieces_of(name, game, seat=3, rules=STANDARD, **params):
    observer = observers.make(name, rules, **params)
    return observer.split(observer.observe(game.view(seat), game))


def ones(array):
    return np.flatnonzero(np.asarray(array).ravel()).tolist()


def cards(mask):
    return list(C.iter_cards(mask))


def test_simple(position):
    p = pieces_of("simple", position)
    assert ones(p["hand"]) == cards(SUIT_HANDS[3])
    assert ones(p["table"]) == [C.parse_card("5C")]
    assert ones(p["table_ranking"]) == [Ranking.SINGLE - 1]
    assert ones(p["table_owner"]) == [2]  # seat 1 sits across from seat 3
    assert ones(p["leading"]) == [] and ones(p["passes"]) == [1]
    assert [ones(row) for row in p["cards_left"]] == [[11], [11], [12]]  # 12, 12, 13 cards
    lead = pieces_of("simple", position, seat=0)  # seat 0, not to act
    assert ones(lead["table_owner"]) == [1] and ones(lead["leading"]) == []
    assert [ones(row) for row in lead["cards_left"]] == [[11], [12], [12]]
    start = pieces_of("simple", Game.from_board(Board.from_hands(SUIT_HANDS)), seat=0)
    assert ones(start["leading"]) == [0] and not start["table"].any()
    waiting = pieces_of("simple", Game.from_board(Board.from_hands(SUIT_HANDS)), seat=1)
    assert ones(waiting["leading"]) == []  # an empty table, but seat 0 leads
    assert not (start["table_ranking"].any() or start["passes"].any())


def test_simple_table_ranking_for_each_category():
    game = Game.from_board(Board.from_hands(SUIT_HANDS))
    observer = observers.make("simple")
    for text in ("9D 9C", "9D 9C 9H", "3D 4C 5H 6S 7D", "3D 5D 7D 9D JD", "3D 3C 3H 4D 4C",
                 "3D 3C 3H 3S 4D", "3H 4H 5H 6H 7H"):  # fmt: skip
        table = HandRanking.from_str(text)
        view = game.view(0)._replace(table=table, table_seat=2, turn=1)
        split = observer.split(observer.observe(view))
        assert ones(split["table_ranking"]) == [table.ranking - 1]
        assert ones(split["table"]) == cards(table.cards)
        assert ones(split["table_owner"]) == [2]


def test_card_counting(position):
    p = pieces_of("card_counting", position)
    assert [ones(row) for row in p["played"]] == [[], cards(THREE_D), cards(FIVE_C), []]
    assert ones(p["unseen"]) == cards(C.DECK & ~SUIT_HANDS[3] & ~THREE_D & ~FIVE_C)


def test_history(position):
    p = pieces_of("history", position, k=4)["history"]
    assert p.shape == (4, 57) and not p[0].any()
    assert ones(p[1]) == [1, 5 + C.parse_card("3D")]  # next (seat 0) played 3D
    assert ones(p[2]) == [2, 5 + C.parse_card("5C")]  # across (seat 1) played 5C
    assert ones(p[3]) == [3, 4]  # previous (seat 2) passed
    last = pieces_of("history", position, k=1)["history"]
    assert np.array_equal(last, p[3:])


def test_planes(position):
    p = pieces_of("planes", position)
    planes = p["planes"]
    assert planes.shape == (7, 4, 13)
    for suit in range(4):
        for rank in range(13):
            card = 4 * rank + suit
            assert planes[0, suit, rank] == SUIT_HANDS[3] >> card & 1
            assert planes[1, suit, rank] == FIVE_C >> card & 1
            assert planes[3, suit, rank] == THREE_D >> card & 1
            assert planes[4, suit, rank] == FIVE_C >> card & 1
    assert not planes[2].any() and not planes[5].any()
    assert planes[6].sum() == 52 - 13 - 2
    assert p["cards_left"].tolist() == pytest.approx([12 / 13, 12 / 13, 1.0])
    assert ones(p["table_ranking"]) == [0] and ones(p["table_owner"]) == [2]
    assert ones(p["passes"]) == [1] and ones(p["leading"]) == []


def test_oracle(position):
    p = pieces_of("oracle", position)
    expected = [cards(position.hand(s)) for s in (0, 1, 2)]
    assert [ones(row) for row in p["opponent_hands"]] == expected
    assert ones(p["hand"]) == cards(SUIT_HANDS[3])


def slot_ones(hand_text, rules):
    observer = observers.make("charlesworth", rules)
    view = Game(rules, seed=0).view(0)._replace(hand=C.parse_cards(hand_text))
    return [ones(row) for row in observer.split(observer.observe(view))["hand_slots"]]


def test_charlesworth_hand_slots():
    hand = "3D 3C 4D 5H 6S 7C 7D 9S TS JS QS KS 2S"
    rows = slot_ones(hand, CHARLESWORTH)
    run = {0, 1, 2, 3, 4, 6, 7, 8, 9, 10}  # 3-4-5-6-7 and 9-T-J-Q-K
    for row, card in zip(rows, cards(C.parse_cards(hand)), strict=True):
        rank, suit = card >> 2, card & 3
        expected = [rank, 13 + suit]
        expected += [17] if rank in (0, 4) else []  # the 3s and the 7s are pairs
        expected += [20] if rank in run else []
        expected += [21] if suit == 3 else []  # seven spades
        assert row == expected, C.card_name(card)
    assert len(rows) == 13
    assert slot_ones("8D 8C 8H 8S 9D 9C 9H", STANDARD)[:7] == [
        *([r, 13 + s, 17, 18, 19] for r, s in ((5, 0), (5, 1), (5, 2), (5, 3))),
        *([6, 13 + s, 17, 18] for s in (0, 1, 2)),
    ]
    assert slot_ones("5C 6D", STANDARD)[2:] == [[]] * 11  # rows past the hand are zeros
    five = "3D 5D 7D 9D JD 4C 8C TC QC"  # exactly 5 diamonds, 4 clubs
    diamonds = [C.suit_of(c) == 0 for c in cards(C.parse_cards(five))]
    assert [21 in row for row in slot_ones(five, STANDARD)[:9]] == diamonds
    top = "JD QC KH AS 2D"  # J-Q-K-A-2 is a straight under CHARLESWORTH only
    assert all(20 in row for row in slot_ones(top, CHARLESWORTH)[:5])
    assert not any(20 in row for row in slot_ones(top, STANDARD))


def table_ones(table_text, rules, passes=0):
    observer = observers.make("charlesworth", rules)
    table = None if table_text is None else HandRanking.from_str(table_text, rules)
    view = Game(rules, seed=0).view(0)._replace(table=table, table_seat=2, passes=passes, turn=0)
    return ones(observer.split(observer.observe(view))["table"])


def test_charlesworth_table():
    assert table_ones("5C 5D 5S 8H 8D", STANDARD) == [2, 18 + 7, 26]  # triple's rank, no suit
    assert table_ones("3H 4H 5H 6H 7H", STANDARD, 2) == [4, 13 + 2, 18 + 5, 18 + 6, 28]
    assert table_ones("9D 9C 9H 9S 3D", STANDARD, 1) == [6, 18 + 4, 27]  # quads' rank, no suit
    assert table_ones("9D 9C 9H 9S", CHARLESWORTH) == [6, 13 + 3, 18 + 4, 26]
    assert table_ones("4D 4H 6C 6S", CHARLESWORTH) == [3, 13 + 3, 18 + 3, 26]
    assert table_ones("TD TS", STANDARD) == [7, 13 + 3, 18 + 1, 26]
    assert table_ones("KD 3D 5D 7D 9D", STANDARD) == [10, 13, 18 + 6, 26]
    assert table_ones(None, STANDARD) == [17]  # seat 0 leads: control


def test_charlesworth_opponents_and_high_cards(position):
    played = C.parse_cards("AD 2S QD QC")
    kinds = 1 << Ranking.PAIR | 1 << Ranking.STRAIGHT_FLUSH
    view = position.view(3)._replace(
        played=(0, played, 0, 0), played_rankings=(0, kinds, 0, 0), cards_left=(4, 7, 13, 13)
    )
    observer = observers.make("charlesworth")
    p = observer.split(observer.observe(view))
    next_, across, previous = (ones(row) for row in p["opponents"])
    assert next_ == [3]  # seat 0: 4 cards, nothing of note played
    assert across == [6, 13 + 0, 13 + 7, 21 + 0, 21 + 3, 21 + 4]  # AD, 2S; pair, straight+flush
    assert previous == [12]
    assert ones(p["high_cards"]) == [0, 1, 8, 15]  # QD QC AD 2S
    assert ones(pieces_of("charlesworth", position)["table"]) == [2, 14, 18, 27]
