"""Combinations: what they are, how they compare, which ones a hand holds.

Every legal combination of a :class:`~big2.rules.Rules` exists once, in that rules'
**catalog**, as a frozen :class:`HandRanking` with a precomputed integer comparison
key; equality is identity. The package has three modules, one idea each:

- :mod:`~big2.hand_ranking.combination`: the value (:class:`HandRanking`,
  :class:`Ranking`, :data:`PASS`);
- :mod:`~big2.hand_ranking.catalog`: every combination of a rules preset, built once
  (:func:`catalog`, :func:`classify`);
- :mod:`~big2.hand_ranking.in_hand`: the combinations a hand holds
  (:func:`combinations_in`) and those that beat the table (:func:`stronger_than`).

>>> from big2.cards import parse_cards
>>> pair = classify(parse_cards("9D 9S"))
>>> pair
HandRanking.from_str('9D 9S')
>>> pair.ranking, pair > classify(parse_cards("9C 9H"))
(<Ranking.PAIR: 2>, True)
>>> [str(c) for c in stronger_than(parse_cards("9H 9S TD TS 2C"), pair)]  # 9H 9S only ties
['TD TS']
>>> len(catalog())
17858
"""

from big2.hand_ranking.catalog import Catalog, catalog, classify
from big2.hand_ranking.combination import PASS, HandRanking, Ranking
from big2.hand_ranking.in_hand import combinations_in, stronger_than

__all__ = [
    "PASS",
    "Catalog",
    "HandRanking",
    "Ranking",
    "catalog",
    "classify",
    "combinations_in",
    "stronger_than",
]
