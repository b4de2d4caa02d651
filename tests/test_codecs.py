"""Action codecs: exhaustive round trips, the hand-relative layout, the catalog layout."""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from env_helpers import PRESETS

from big2 import cards as C
from big2.hand_ranking import PASS, HandRanking, catalog, classify, combinations_in
from big2.rules import CHARLESWORTH, STANDARD, get
from envs import codecs
from envs.codecs import HAND_LAYOUT, CatalogCodec, HandCodec

SIZES = (13, 13, 13, 12, 10, 8, 5, 3, 1)  # hand sizes drawn, 13 most often


def random_hands(seed, count):
    rng = random.Random(seed)
    for i in range(count):
        yield sum(1 << c for c in rng.sample(range(52), SIZES[i % len(SIZES)]))


def rich_hands():
    """Hands dense in combinations: quads, full houses, straight flushes, long flushes."""
    for text in (
        "3D 3C 3H 3S 4D 4C 4H 5D 6D 7D 8D 9D 2S",
        "JS QS KS AS 2S JD QD KD AD 2D TS 9S 8S",
        "5D 5C 6D 6C 7D 7C 8D 8C 9D 9C TD TC JD",
    ):
        yield C.parse_cards(text)


@pytest.mark.parametrize("rules", PRESETS)
def test_every_combination_in_random_hands_round_trips(rules):
    rules = get(rules)
    cat_codec, hand_codec = CatalogCodec(rules), HandCodec(rules)
    for hand in [*random_hands(1, 1000), *rich_hands()]:
        combos = combinations_in(hand, rules=rules)
        assert all(c.cards & ~hand == 0 for c in combos)
        moves = [*combos, PASS]
        for codec in (cat_codec, hand_codec):
            actions = [codec.encode(m, hand) for m in moves]
            assert len(set(actions)) == len(moves), "two moves share an action"
            assert all(0 <= a < codec.n for a in actions)
            for move, action in zip(moves, actions, strict=True):
                assert codec.decode(action, hand) is move
            mask = codec.mask(moves, hand)
            assert sorted(mask.nonzero()[0].tolist()) == sorted(actions)


@pytest.mark.parametrize("rules", PRESETS)
def test_hand_codec_decodes_exactly_the_combinations_of_the_hand(rules):
    rules = get(rules)
    codec = HandCodec(rules)
    for hand in [*random_hands(2, 120), *rich_hands()]:
        n_cards = hand.bit_count()
        decoded = {}
        for action in range(codec.n):
            positions = HAND_LAYOUT[action] if action < codec.pass_action else ()
            try:
                decoded[action] = codec.decode(action, hand)
            except ValueError as e:
                beyond = bool(positions) and positions[-1] >= n_cards
                assert ("positions" if beyond else "not a combination") in str(e)
                assert str(action) in str(e)
        assert decoded.pop(codec.pass_action) is PASS
        assert sorted(decoded.values(), key=lambda m: m.index) == combinations_in(hand, rules=rules)


def test_hand_layout_blocks():
    assert len(HAND_LAYOUT) + 1 == HandCodec().n == 1695
    sizes = [len(p) for p in HAND_LAYOUT]
    assert sizes == sorted(sizes)
    blocks = {k: [p for p in HAND_LAYOUT if len(p) == k] for k in range(1, 6)}
    assert [len(blocks[k]) for k in range(1, 6)] == [13, 33, 31, 330, 1287]
    for block in blocks.values():
        assert block == sorted(block) and len(set(block)) == len(block)
        assert all(list(p) == sorted(set(p)) and p[-1] < 13 for p in block)
    assert blocks[1] == [(i,) for i in range(13)]
    assert blocks[2] == [p for p in combinations(range(13), 2) if p[1] - p[0] <= 3]
    assert blocks[3] == [t for t in combinations(range(13), 3) if t[2] - t[0] <= 3]
    assert blocks[4] == [
        f for f in combinations(range(13), 4) if f[1] - f[0] <= 3 and f[3] - f[2] <= 3
    ]
    assert blocks[5] == list(combinations(range(13), 5))


def test_hand_codec_docstring_example_and_pass():
    hand = C.parse_cards("3D 3S 4H 9C 9D")
    codec = HandCodec()
    assert codec.encode(HandRanking.from_str("9D 9C"), hand) == 13 + 9  # pairs (0,1)..(3,4)
    assert codec.encode(HandRanking.from_str("4H"), hand) == 2
    assert codec.encode(PASS, hand) == codec.pass_action == 1694
    assert codec.decode(1694, 0) is PASS


def test_hand_codec_refuses_what_it_cannot_name():
    codec = HandCodec()
    hand = C.parse_cards("3D 4C 5H 6S 8D")
    with pytest.raises(ValueError, match="positions"):
        codec.decode(12, hand)  # single at position 12 of a 5-card hand
    with pytest.raises(ValueError, match="positions"):
        codec.decode(HAND_LAYOUT.index((0, 1, 2, 3, 12)), hand)
    with pytest.raises(ValueError, match="not a combination"):
        codec.decode(13, hand)  # pair positions (0, 1): 3D 4C
    with pytest.raises(ValueError, match="not a combination"):
        codec.decode(HAND_LAYOUT.index((0, 1, 2, 3, 4)), hand)  # 3 4 5 6 8
    with pytest.raises(ValueError, match="not in the hand"):
        codec.encode(HandRanking.from_str("2S"), hand)
    five = C.parse_cards("3D 4D 5D 6D 7D 7C")  # the 7s are at positions 4 and 5
    assert codec.encode(HandRanking.from_str("7D 7C"), five) == HAND_LAYOUT.index((4, 5)) == 25
    for bad in (-1, 1695, "0", 2.0, None, True):
        with pytest.raises(ValueError):
            codec.decode(bad, hand)


@pytest.mark.parametrize("rules", [STANDARD, CHARLESWORTH])
def test_catalog_codec_is_the_catalog_then_pass(rules):
    codec = CatalogCodec(rules)
    cat = catalog(rules)
    assert codec.n == len(cat) + 1 == {STANDARD: 17859, CHARLESWORTH: 21076}[rules]
    assert codec.pass_action == codec.n - 1
    for i, entry in enumerate(cat):
        assert codec.decode(i) is entry and codec.encode(entry) == i
        assert codec.decode(i, hand=C.DECK) is entry  # the hand is ignored
    assert codec.decode(codec.pass_action) is PASS and codec.encode(PASS) == codec.pass_action
    for bad in (-1, codec.n, "0", 2.0, None, False):
        with pytest.raises(ValueError):
            codec.decode(bad)


def test_catalog_codec_refuses_combinations_of_other_rules():
    two_pair = classify(C.parse_cards("3D 3C 4D 4C"), CHARLESWORTH)
    assert two_pair is not None
    with pytest.raises(ValueError, match="standard"):
        CatalogCodec(STANDARD).encode(two_pair)
    single = catalog(CHARLESWORTH).find("3D")  # the same cards, the other catalog's entry
    with pytest.raises(ValueError):
        CatalogCodec(STANDARD).encode(single)


def test_make_by_name():
    assert isinstance(codecs.make("catalog"), CatalogCodec)
    made = codecs.make("hand", CHARLESWORTH)
    assert isinstance(made, HandCodec) and made.rules is CHARLESWORTH
    with pytest.raises(ValueError, match=r"\['catalog', 'hand'\]"):
        codecs.make("positions")
