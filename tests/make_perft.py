"""Regenerate tests/data/perft.json from the brute-force reference.

    .venv/bin/python tests/make_perft.py           # rewrite the file
    .venv/bin/python tests/make_perft.py --check   # exit 1 if the file is stale

Each case is (name, rules, hand, table or None): the rules are a preset's name or one of
:data:`VARIANTS` (fields over a preset), the cards are written in the rules' suit order.
The expected counts per category of the plays that beat the table come from
tests/reference.py only.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from reference import ref_category_counts

from big2.cards import parse_cards
from big2.rules import Rules, from_dict, get

PATH = Path(__file__).parent / "data" / "perft.json"

# Variants that are no preset, as rules fields over a preset (written to the file as such).
VARIANTS = {
    "wraps-high": {"base": "standard", "wrap_straights": "high"},
    "pair-bombs": {"base": "bombs", "bombs_beat": [1, 2]},
    "no-flush": {
        "base": "standard",
        "five_card_hands": ["straight", "full_house", "four_of_a_kind", "straight_flush"],
    },
}

CASES = [
    # --- STANDARD, empty table
    ("std-small-full-house", "standard", "4D 4S 7C 7H 7S", None),
    ("std-quads-and-kickers", "standard", "3D 3C 3H 3S 4D", None),
    ("std-quads-13", "standard", "3D 3C 3H 3S 5D 5C 7H 9S JD QC KH AS 2D", None),
    ("std-two-quads", "standard", "2D 2C 2H 2S AD AC AH AS KD KC KH KS QD", None),
    ("std-many-flushes", "standard", "3H 5H 7H 9H JH KH 2H 4S 6S 8S TS QS AS", None),
    ("std-straights-near-ace", "standard", "9D TC JH QS KD AC 2H 2S 8C 7D 6H 5S 4D", None),
    ("std-straight-flushes", "standard", "9S TS JS QS KS AS 2S 3D 4D 5D 6D 7D 8C", None),
    ("std-jqka2-not-straight", "standard", "JD QC KH AS 2D", None),
    ("std-wraparounds", "standard", "AD 2C 3H 4S 5D 6C", None),
    # --- STANDARD, a table of each category
    ("std-single-ace", "standard", "AD AH 2D 2S 3C", "AS"),
    ("std-pair-lower-suit", "standard", "9H 9C TD 2C", "9D 9S"),
    ("std-pair-55", "standard", "4D 4S 7C 7H 7S", "5D 5C"),
    ("std-pair-kings", "standard", "KD KS AD AS 2C 3D 4D 5D 6H 8S 9S TC JC", "KH KC"),
    ("std-triple", "standard", "TS JD JC JH 9D 9C 9H 2S 2D 2C 5D 6D 7D", "TD TC TH"),
    ("std-straight-top", "standard", "TS JS QS KC AH 9H TH JH QD KD AC 2D 3C", "TD JC QH KS AD"),
    ("std-flush", "standard", "3S 5S 7S 9S QS KS 4H 6H 8H TH AH 2C 2D", "3D 5D 7D 9D KD"),
    ("std-full-house", "standard", "QS KD KC KH 3S 3H AD AC 4D 4C 4H 4S 9C", "QD QC QH 3D 3C"),
    ("std-four-of-a-kind", "standard", "TD TC TH TS 8D 8C 8H 8S 6H 7H 5H 4H 3H", "9D 9C 9H 9S 3D"),
    ("std-straight-flush", "standard", "9S TS JS QS KS AS 8S 7S 2D 2C KH AH 3C", "8H 9H TH JH QH"),
    ("std-top-straight-flush", "standard", "9H TH JH QH KH AH 2S 2D 3C", "TS JS QS KS AS"),
    # --- CHARLESWORTH
    ("cw-quads-no-kicker", "charlesworth", "3D 3C 3H 3S 4D", None),
    ("cw-quads-13", "charlesworth", "3D 3C 3H 3S 5D 5C 7H 9S JD QC KH AS 2D", None),
    ("cw-jqka2", "charlesworth", "JD QC KH AS 2D", None),
    ("cw-straights-to-two", "charlesworth", "JD QC KH AS 2D 2C TD 9C 8H 3D 4C 5H 6S", None),
    ("cw-wraparounds", "charlesworth", "AD 2C 3H 4S 5D 6C", None),
    ("cw-single-two", "charlesworth", "2C 2H 2S AS 3D 4D", "2D"),
    ("cw-two-pair-kings", "charlesworth", "KS KD 3D 3C 4D 4C", "KH KC QD QC"),
    ("cw-two-pair-low", "charlesworth", "3H 3S 4H 4S 6D 6C 6H 6S 7D 7C 2D 2S AC", "5D 5C 4D 4C"),
    ("cw-quads-table", "charlesworth", "7D 7C 7H 7S 5D 5C 5H 5S 8D 8C 2D 2C 3C", "6D 6C 6H 6S"),
    ("cw-jqka2-table", "charlesworth", "TS JS QS KS AH 2S JH QH KD AD 2H 9C 3D", "JD QC KH AS 2D"),
    ("cw-flush", "charlesworth", "3S 5S 7S 9S JS 2S 4H 6H 8H TH QH KD AD", "4D 6D 8D TD 2D"),
    ("cw-full-house", "charlesworth", "AD AC AH 2D 2C 2H QD QC 3S 4S 5S 6S 7S", "KH KS KD 3D 3C"),
    ("cw-sf-table", "charlesworth", "JS QS KS AS 2S TS 9S 8C 9C TC JC QC KC", "9D TD JD QD KD"),
    # --- wrap-arounds: the lowest two straights (western), the highest two (wraps-high)
    ("western-wraps", "western", "AD 2C 3H 4S 5D 6C", None),
    ("western-wraps-lowest", "western", "AD 2C 3H 4S 5D 6C", "3D 4D 5C 6D 7D"),
    ("western-wraps-by-the-five", "western", "AH 2D 3D 4D 5S 6C", "AC 2H 3C 4C 5D"),
    ("western-wrap-flushes", "western", "AH 2H 3H 4H 5H 6H 9H KD", None),
    ("wraps-high", "wraps-high", "AD 2C 3H 4S 5D 6C", None),
    ("wraps-high-top", "wraps-high", "AD 2C 3H 4S 5D 6C", "TD JC QH KS AC"),
    ("wraps-high-by-the-two", "wraps-high", "AH 2D 3D 4D 5S 6C", "AC 2H 3C 4C 5D"),
    ("wraps-high-sf-table", "wraps-high", "AS 2S 3S 4S 5S 6S 2H AH 3H 4H 5H", "TD JD QD KD AD"),
    # --- bombs: on singles (the preset), on pairs (pair-bombs), and a bomb on the table
    ("bombs-on-a-single", "bombs", "9D 9C 9H 9S 3C 4D 5D 6D 7D 8D", "2S"),
    ("bombs-not-on-a-pair", "bombs", "9D 9C 9H 9S KD KS 2C", "AD AC"),
    ("pair-bombs-on-a-pair", "pair-bombs", "9D 9C 9H 9S KD KS 2C", "AD AC"),
    ("pair-bombs-not-on-a-triple", "pair-bombs", "9D 9C 9H 9S 4S 5S 6S 7S 8S", "3D 3C 3H"),
    ("pair-bombs-13", "pair-bombs", "3D 3C 3H 3S 5D 5C 6H 7S 8D 9C TH JS 2D", "AD AS"),
    ("bombs-on-a-bomb", "bombs", "9D 9C 9H 9S 3S 4S 5S 6S 7S 2S", "8D 8C 8H 4C 8S"),
    # --- suit orders: Taiwan's clubs below diamonds; Pusoy Dos's flushes by suit
    ("taiwan-single-by-suit", "taiwan", "5C 5H", "5D"),
    ("taiwan-opening-single", "taiwan", "3D 4C", "3C"),
    ("pusoy-flush-by-suit", "pusoy-dos", "3D 5D 7D 9D JD 4S 6S 8S TS AS", "4H 6H 8H TH 2H"),
    ("pusoy-13", "pusoy-dos", "3C 5C 7C 9C JC KC 3D 6D 8D TD QD AD 2S", None),
    # --- hands of 17, 18 and 26 cards
    ("three-player-18", "three-player", "3D 3C 4H 5S 6D 7C 8H 9S 9D TC JH QS KD AC 2H 2S 2D 4D",
     None),
    ("three-player-17-table", "three-player",
     "3D 4D 5D 6D 7D 8D 9H TH JH QH KH AC AS 2C 2S 3S 4S", "3C 4C 5C 6C 7C"),
    ("two-player-26", "two-player",
     "3D 3C 4D 4H 5S 5C 6D 6H 7S 7C 8D 8H 9S 9C TD TH JS JC QD QH KS KC AD AH 2S 2C", None),
    ("two-player-26-full-house-table", "two-player",
     "3D 3C 3H 4D 4C 5D 5C 5H 6S 7S 8S 9S TS JD JC JH QD QC QH KD KC KH AD AC 2D 2C",
     "TC TH TD 9D 9C"),
    # --- no flushes: five suited cards are nothing unless they run
    ("no-flush", "no-flush", "3H 5H 7H 9H JH KH 4S 6S", None),
    ("no-flush-suited-run", "no-flush", "3H 4H 5H 6H 7H 9H JH", None),
    ("no-flush-on-straight", "no-flush", "3H 5H 7H 9H JH KH 2H 8D 9D TC JS", "4D 5C 6H 7S 8C"),
]  # fmt: skip


def rules_of(name: str) -> Rules:
    """A preset, or one of :data:`VARIANTS` by its name."""
    if name in VARIANTS:
        return from_dict({**VARIANTS[name], "name": name})
    return get(name)


def build() -> dict:
    cases = []
    for name, rules_name, hand, table in CASES:
        rules = rules_of(rules_name)
        hand_mask = parse_cards(hand, rules.suit_order)
        table_mask = parse_cards(table, rules.suit_order) if table else None
        if table_mask is not None and hand_mask & table_mask:
            raise ValueError(f"{name}: the hand and the table share cards")
        if hand_mask.bit_count() > rules.largest_hand:
            raise ValueError(f"{name}: a seat holds at most {rules.largest_hand} cards")
        counts = ref_category_counts(hand_mask, table_mask, rules)
        cases.append(
            {
                "name": name,
                "rules": rules_name,
                "hand": hand,
                "table": table,
                "counts": counts,
                "total": sum(counts.values()),
            }
        )
    return {
        "generated_by": "tests/make_perft.py (reference enumerator)",
        "variants": VARIANTS,
        "cases": cases,
    }


def render() -> str:
    return json.dumps(build(), indent=1) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        stale = not PATH.exists() or PATH.read_text() != text
        print(f"{PATH} is {'stale' if stale else 'up to date'}")
        return int(stale)
    PATH.parent.mkdir(exist_ok=True)
    PATH.write_text(text)
    print(f"wrote {len(CASES)} cases to {PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
