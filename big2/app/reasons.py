"""Why cards a person chose are not a move they can play now, in words for the table.

The terminal (:mod:`big2.app.terminal`) and the browser page (:mod:`big2.app.table`)
both ask :func:`chosen_move`; the reasons come from the engine
(:meth:`big2.game.Game.why_illegal`), worded for the person at the table.

>>> from big2 import cards as C
>>> game = Game(seed=0)  # seat 0 leads and holds 3D 3C 4D 4C 4S 6D TD JC QD QH KC AC 2C
>>> chosen_move(game, C.parse_cards("3D 3C"))
HandRanking.from_str('3D 3C')
>>> chosen_move(game, C.parse_cards("QD"))
Traceback (most recent call last):
...
ValueError: The first play of the game must include the 3♦.
"""

from __future__ import annotations

from big2 import cards as C
from big2.game import Game
from big2.hand_ranking import HandRanking, classify
from big2.rules import Rules


def chosen_move(game: Game, cards: int) -> HandRanking:
    """The legal move of the seat to act that plays ``cards`` (a mask), or ValueError
    saying, for that seat's person, why there is none."""
    suits = game.rules.suit_order
    if missing := cards & ~game.hand(game.turn):
        raise ValueError(f"You do not hold {C.format_cards(missing, suits=suits)}.")
    combo = classify(cards, game.rules)
    if combo is None:
        shown = C.format_cards(cards, suits=suits) or "Nothing"
        raise ValueError(
            f"{shown} is not a combination: play a single, a pair, a triple or a five-card "
            f"hand{_four_card_note(game.rules)}."
        )
    if combo not in game.legal_moves():
        raise ValueError(_why(game, combo))
    return combo


def _why(game: Game, combo: HandRanking) -> str:
    """Why the combination ``combo``, held by the person, cannot be played now."""
    suits = game.rules.suit_order
    shown = f"{C.format_cards(combo.cards, symbols=True, suits=suits)} ({combo.ranking.label})"
    reason = game.why_illegal(combo)
    if reason.startswith("the first play must contain"):
        first = C.format_cards(1 << game.rules.opening_index, symbols=True, suits=suits)
        return f"The first play of the game must include the {first}."
    if reason.endswith("locked out until the table clears"):
        return "You passed on this table: you may play again once it clears."
    table = game.table
    if table is not None and reason.startswith("the table holds"):
        return (
            f"The table holds {table.size} card{'s' if table.size > 1 else ''} "
            f"({table.ranking.label}): play as many cards, or pass."
        )
    if table is not None:
        return f"{shown} does not beat the {table.ranking.label} on the table."
    return f"{shown} cannot be played now: {reason}."


def _four_card_note(rules: Rules) -> str:
    return " (or four of a kind)" if rules.four_card_plays else ""
