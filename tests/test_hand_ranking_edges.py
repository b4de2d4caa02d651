"""Readable card-table edge cases for big2.hand_ranking (the random and exhaustive
comparisons with the reference live in test_hand_ranking.py)."""

from __future__ import annotations

import operator
from dataclasses import replace

import pytest

from big2.cards import parse_cards
from big2.hand_ranking import PASS, HandRanking, catalog, classify, combinations_in, stronger_than
from big2.rules import CHARLESWORTH, STANDARD

by_name = pytest.mark.parametrize("rules", [STANDARD, CHARLESWORTH], ids=lambda r: r.name)


def hand(text: str, rules=STANDARD):
    return classify(parse_cards(text), rules)


def test_two_of_spades_is_the_top_single():
    top = hand("2S")
    assert all(top > h for h in catalog() if h.size == 1 and h is not top)
    assert stronger_than(parse_cards("2D 2C 2H AS"), top) == ()


def test_pair_tie_break_is_the_higher_suit():
    assert hand("9S 9D") > hand("9H 9C")
    assert hand("9C 9H") < hand("9D 9S") and not hand("9D 9S").beats(hand("9H 9S"))


@by_name
def test_straights(rules):
    assert hand("TD JD QC KH AS", rules) > hand("9S TS JS QS KH", rules)
    assert hand("3D 4C 5D 6D 7D", rules).ranking.name == "STRAIGHT"
    for text in ("AD 2C 3D 4D 5D", "2D 3C 4D 5D 6D"):  # wrap-arounds never
        assert hand(text, rules) is None
        assert hand(text.replace("C", "D"), rules).ranking.name == "FLUSH"


def test_jqka2_is_a_straight_only_in_charlesworth():
    assert hand("JD QC KD AD 2D") is None
    assert hand("JD QD KD AD 2D").ranking.name == "FLUSH"
    assert hand("JD QC KD AD 2D", CHARLESWORTH).ranking.name == "STRAIGHT"
    top = hand("JD QC KD AD 2S", CHARLESWORTH)
    straights = [h for h in catalog(CHARLESWORTH) if h.ranking.name == "STRAIGHT"]
    assert top > hand("TS JS QS KS AH", CHARLESWORTH) and top.key == straights[-1].key
    assert hand("JD QD KD AD 2D", CHARLESWORTH).ranking.name == "STRAIGHT_FLUSH"
    assert catalog(CHARLESWORTH)[-1] is hand("JS QS KS AS 2S", CHARLESWORTH)


def test_flushes_by_highest_card():
    assert hand("3H 5H 7H 9H KH") > hand("4S 6S 8S TS QS")
    assert hand("3S 5S 7S 9S AS") > hand("3H 5H 7H 9H AH")
    a, b = hand("3H 5H 7H 9H KH"), hand("4H 6H 8H TH KH")  # same highest card: a tie
    assert not a.beats(b) and not b.beats(a)


def test_suit_flush_order():
    rules = replace(STANDARD, name="suit_flush", flush_order="suit")
    assert hand("3S 5S 7S 9S JS", rules) > hand("3H 5H 7H 9H AH", rules)


def test_full_house_by_triple_rank():
    assert hand("4D 4C 4H 3D 3C") > hand("3H 3S 3D 2D 2S")
    assert hand("3H 3S 3D 2D 2S") < hand("4D 4C 4H 5D 5C")


def test_five_card_categories():
    quads = hand("5D 5C 5H 5S 3D")
    assert quads.ranking.name == "FOUR_OF_A_KIND" and quads > hand("2D 2C 2H AS AD")
    assert hand("3D 4D 5D 6D 7D") > hand("2D 2C 2H 2S AD") > hand("AS AH AC 2S 2C")
    assert hand("5D 5C 5H 5S 3D", CHARLESWORTH) is None
    assert hand("9H TH JH QH KH", CHARLESWORTH) > hand("3D 4D 5D 6D 7D", CHARLESWORTH)


def test_charlesworth_four_card_plays():
    c = CHARLESWORTH
    assert hand("3D 3C 3H 3S", c) > hand("2S 2H AS AH", c)
    assert hand("KD KS 3D 3C", c) < hand("KH KC AD AC", c)
    assert hand("KS KD 3D 3C", c) > hand("KH KC QD QC", c)
    a, b = hand("KS KD 3D 3C", c), hand("KS KH 4D 4C", c)
    assert not a.beats(b) and not b.beats(a)
    assert hand("3D 3C 3H 3S") is None and hand("3D 3C 4H 4S") is None


def test_comparisons_that_raise():
    single, pair = hand("2S"), hand("3D 3C")
    for left, right in ((single, pair), (pair, single), (PASS, single), (single, PASS)):
        for op in (operator.lt, operator.gt, operator.le, operator.ge):
            with pytest.raises(TypeError):
                op(left, right)
    assert not PASS and not PASS.beats(None)


@pytest.mark.parametrize("mask", [-1, 1 << 52, 2**60, -(1 << 51)])
def test_invalid_masks(mask):
    with pytest.raises(ValueError):
        classify(mask)
    with pytest.raises(ValueError):
        combinations_in(mask)
    with pytest.raises(ValueError):
        stronger_than(mask, HandRanking.from_str("3D"))


def test_empty_mask_is_no_combination():
    assert classify(0) is None and combinations_in(0) == []


def test_stronger_than_needs_a_table():
    with pytest.raises(ValueError, match="use combinations_in"):
        stronger_than(parse_cards("3D 4D"), None)
