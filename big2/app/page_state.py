"""What the browser page is sent about a game, as JSON-ready values: cards as text
(``"TS"``), moves with their category, what an agent weighed, each seat's last play.

The page (``big2/app/static``) draws these and computes nothing of the game itself;
:class:`big2.app.table.Table` and :func:`big2.app.table.frames` build them.

>>> from big2.game import Game
>>> game = Game(seed=1)
>>> game.play(game.legal_moves()[0])
>>> last_plays(game.log)[game.log.moves[0].seat]
{'cards': ['3D'], 'label': 'single'}
"""

from __future__ import annotations

from typing import Any

from big2 import cards as C
from big2.game import Game
from big2.hand_ranking import PASS, HandRanking
from big2.log import GameLog, LogEntry, Thought


def cards_list(mask: int, suits: str = C.SUITS) -> list[str]:
    """Cards as text, lowest first, under the suit order ``suits``: ``["3D", "TS"]``."""
    return C.format_cards(mask, suits=suits).split()


def move_fields(move: HandRanking) -> dict[str, Any]:
    """A move's cards and its category; a pass: no cards, category ``"pass"``."""
    if not move:
        return {"cards": [], "label": "pass"}
    assert move.rules is not None  # only PASS has none
    return {"cards": cards_list(move.cards, move.rules.suit_order), "label": move.ranking.label}


def move_dict(entry: LogEntry, thought: Thought | None, number: int) -> dict[str, Any]:
    """One move for the page: who, the cards (empty for a pass), its category, and what
    its agent weighed where it had a choice (None for a forced move: one candidate)."""
    chose = thought is not None and len(thought.candidates) > 1
    return {
        "number": number + 1,
        "seat": entry.seat,
        **move_fields(entry.move),
        "thought": thought_dict(thought, entry.move) if chose and thought else None,
    }


def thought_dict(thought: Thought, made: HandRanking) -> dict[str, Any]:
    """A thought for the page: its candidates (cards, category, probability, win rate and
    deals sampled, and whether it is the move ``made``), its value and its rule."""
    rows = [
        {
            **move_fields(c.move),
            "probability": c.probability,
            "win_rate": c.win_rate,
            "deals": c.deals,
            "chosen": c.move == made,
        }
        for c in thought.candidates
    ]
    return {"candidates": rows, "value": thought.value, "rule": thought.rule}


def table_dict(game: Game) -> dict[str, Any] | None:
    """The combination on the table and who played it; None when the table is empty."""
    if game.table is None:
        return None
    return {
        "seat": game.table_seat,
        "cards": cards_list(game.table.cards, game.rules.suit_order),
        "label": game.table.ranking.label,
    }


def last_plays(log: GameLog) -> list[dict[str, Any] | None]:
    """Per seat, its latest play or pass since the table was last empty (the current
    round, or the round just won while nobody has led yet); None where it made none."""
    out: list[dict[str, Any] | None] = [None] * len(log.deal)
    for entry in reversed(log.moves):
        if out[entry.seat] is None:
            out[entry.seat] = move_fields(entry.move)
        if entry.table is None:  # the lead of the round
            break
    return out


def playable(game: Game, seat: int) -> list[str]:
    """The cards of ``seat``'s hand that some legal move of its uses, when it is to act.

    >>> game = Game(seed=1)  # the first play must hold the 3D: every card it can go with
    >>> playable(game, game.turn)[0], playable(game, (game.turn + 1) % 4)
    ('3D', [])
    """
    if game.is_over or game.turn != seat:
        return []
    used = 0
    for move in game.legal_moves():
        if move is not PASS:
            used |= move.cards
    return cards_list(used, game.rules.suit_order)
