"""Perft-style counts: how many plays of each category beat a table.

tests/data/perft.json is written by tests/make_perft.py from the reference enumerator;
a few simple cases are also counted by hand below. On a mismatch the failure message
"divides" the count by category and lists the missing and extra plays.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import make_perft
import pytest
from reference import ref_stronger_than

from big2.cards import format_cards, parse_cards
from big2.hand_ranking import classify, combinations_in, stronger_than
from big2.rules import PRESETS

DATA = json.loads((Path(__file__).parent / "data" / "perft.json").read_text())
CASES = DATA["cases"]

# Counted by hand from the rules, not by any program.
HAND_COUNTED = {
    # 5 singles; pairs 4D4S 7C7H 7C7S 7H7S; triple 777; the whole hand is a full house
    "std-small-full-house": {"SINGLE": 5, "PAIR": 4, "TRIPLE": 1, "FULL_HOUSE": 1},
    # 5 singles; C(4,2) pairs and C(4,3) triples of 3s; 3333 + 4D is four of a kind
    "std-quads-and-kickers": {"SINGLE": 5, "PAIR": 6, "TRIPLE": 4, "FOUR_OF_A_KIND": 1},
    # the same hand in CHARLESWORTH: four-card quads, no four-plus-kicker
    "cw-quads-no-kicker": {"SINGLE": 5, "PAIR": 6, "TRIPLE": 4, "QUADS": 1},
    # only the 2s beat the ace of spades
    "std-single-ace": {"SINGLE": 2},
    # 7C7H, 7C7S, 7H7S beat 5D5C; 4D4S does not
    "std-pair-55": {"PAIR": 3},
    # 9C9H (top H) loses to 9D9S (top S)
    "std-pair-lower-suit": {},
    # J-Q-K-A-2 is a straight only in CHARLESWORTH
    "cw-jqka2": {"SINGLE": 5, "STRAIGHT": 1},
    "std-jqka2-not-straight": {"SINGLE": 5},
    # KK33 and KK44 (top KS) beat KK-QQ (top KC); 3344 does not
    "cw-two-pair-kings": {"TWO_PAIR": 2},
    # A-2-3-4-5 and 2-3-4-5-6 wrap around: never straights
    "cw-wraparounds": {"SINGLE": 6},
    "std-top-straight-flush": {},
    # A-2-3-4-5 and 2-3-4-5-6: the lowest two straights (western), the highest two
    "western-wraps": {"SINGLE": 6, "STRAIGHT": 2},
    "wraps-high": {"SINGLE": 6, "STRAIGHT": 2},
    "western-wraps-lowest": {},
    "wraps-high-top": {"STRAIGHT": 2},
    # A-2-3-4-5 against A-2-3-4-5: by the 5 (5S beats 5D) or by the 2 (2D loses to 2H);
    # 2-3-4-5-6 is the next sequence up either way
    "western-wraps-by-the-five": {"STRAIGHT": 2},
    "wraps-high-by-the-two": {"STRAIGHT": 1},
    # nothing beats 2S as a single; 9999 with any of 6 kickers, 4D-8D and 5D-9D do
    "bombs-on-a-single": {"FOUR_OF_A_KIND": 6, "STRAIGHT_FLUSH": 2},
    "bombs-not-on-a-pair": {},
    "pair-bombs-on-a-pair": {"FOUR_OF_A_KIND": 3},
    "pair-bombs-not-on-a-triple": {"TRIPLE": 4},
    # clubs are below diamonds in Taiwan: 5C loses to 5D, 3D beats 3C
    "taiwan-single-by-suit": {"SINGLE": 1},
    "taiwan-opening-single": {"SINGLE": 2},
    # diamonds are the highest suit of Pusoy Dos, spades below hearts
    "pusoy-flush-by-suit": {"FLUSH": 1},
    # without flushes: 8 singles and 3H 4S 5H 6S 7H; the suited run stays a straight flush
    "no-flush": {"SINGLE": 8, "STRAIGHT": 1},
    "no-flush-suited-run": {"SINGLE": 7, "STRAIGHT_FLUSH": 1},
}


def engine_plays(case) -> tuple[int, int | None, tuple]:
    rules = make_perft.rules_of(case["rules"])
    hand = parse_cards(case["hand"], rules.suit_order)
    table_mask = parse_cards(case["table"], rules.suit_order) if case["table"] else None
    table = classify(table_mask, rules) if table_mask is not None else None
    assert table_mask is None or table is not None, f"table {case['table']} is no combination"
    if table is None:  # an empty table: every combination in the hand may be led
        return hand, table_mask, tuple(combinations_in(hand, rules=rules))
    return hand, table_mask, stronger_than(hand, table, rules)


def divide(case, plays) -> str:
    """A per-category breakdown, then the plays that differ from the reference."""
    rules = make_perft.rules_of(case["rules"])
    hand, table_mask, _ = engine_plays(case)
    got = Counter(h.ranking.name for h in plays)
    expected = case["counts"]
    lines = [f"{case['name']} ({case['rules']}): hand {case['hand']}, table {case['table']}"]
    for name in sorted(set(got) | set(expected)):
        mark = "" if got[name] == expected.get(name, 0) else "   <-- differs"
        lines.append(f"  {name:15} expected {expected.get(name, 0):4}  got {got[name]:4}{mark}")
    got_masks = {h.cards for h in plays}
    reference = ref_stronger_than(hand, table_mask, rules)
    for what, masks in (("missing", reference - got_masks), ("extra:  ", got_masks - reference)):
        lines.append(f"  {what}: {sorted(format_cards(m, suits=rules.suit_order) for m in masks)}")
    return "\n".join(lines)


def test_data_is_fresh():
    """The committed data is what make_perft.py writes now (rerun it if this fails)."""
    assert make_perft.build() == DATA
    assert len(CASES) >= 25
    assert {c["rules"] for c in CASES} >= set(PRESETS) | set(make_perft.VARIANTS)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_perft(case):
    _, _, plays = engine_plays(case)
    got = dict(Counter(h.ranking.name for h in plays))
    if got != case["counts"] or len(plays) != case["total"]:
        message = divide(case, plays)  # the reference again: only on a failure
        print(message)
        pytest.fail(message)


@pytest.mark.parametrize("name", sorted(HAND_COUNTED))
def test_hand_counted(name):
    case = next(c for c in CASES if c["name"] == name)
    _, _, plays = engine_plays(case)
    expected = HAND_COUNTED[name]
    assert case["counts"] == expected, f"the reference disagrees with the hand count for {name}"
    assert dict(Counter(h.ranking.name for h in plays)) == expected, divide(case, plays)
