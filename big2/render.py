"""Plain-text pictures of a game, for ``render()`` and terminals.

>>> from big2.game import Game
>>> print(render_text(Game(seed=0), show=None))  # doctest: +NORMALIZE_WHITESPACE
Big Two (standard)  move 0
  seat 0: 13 cards  <- to act, leading
  seat 1: 13 cards
  seat 2: 13 cards
  seat 3: 13 cards
table: (empty)
"""

from __future__ import annotations

from big2.cards import format_cards
from big2.game import Game


def render_text(game: Game, show: int | None = -1, recent: int = 6, symbols: bool = False) -> str:
    """Each seat's card count, the table and the last ``recent`` moves.

    ``show`` is the seat whose hand is printed: -1 for the seat to act, None for nobody.
    """
    seat_shown = game.turn if show == -1 else show
    moves = game.log.moves
    lines = [f"Big Two ({game.rules.name})  move {len(moves)}"]
    suits = game.rules.suit_order  # the cards' names under the rules
    for seat, hand in enumerate(game.hands):
        note = ""
        if game.is_over and seat == game.winner:
            note = "  <- winner"
        elif not game.is_over and seat == game.turn:
            note = "  <- to act" + (", leading" if game.table is None else "")
        lines.append(f"  seat {seat}: {hand.bit_count():>2} cards{note}")
        if seat == seat_shown:
            lines.append(f"          {format_cards(hand, symbols, suits)}")
    table = "(empty)" if game.table is None else _move_text(game.table, symbols, suits)
    owner = "" if game.table is None else f" by seat {game.table_seat}"
    lines.append(f"table: {table}{owner}")
    if moves and recent:
        last = "; ".join(f"{e.seat}: {_move_text(e.move, symbols, suits)}" for e in moves[-recent:])
        lines.append(f"recent: {last}")
    if game.is_over:
        lines.append(f"scores: {list(game.scores())}")
    return "\n".join(lines)


def _move_text(move: object, symbols: bool, suits: str) -> str:
    from big2.hand_ranking import HandRanking

    assert isinstance(move, HandRanking)
    if not move:
        return "pass"
    return f"{format_cards(move.cards, symbols, suits)} ({move.ranking.label})"
