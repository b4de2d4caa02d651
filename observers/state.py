"""The full game state as named pieces: every hand, by absolute seat (it cheats by design).

``raw_env.state()`` returns :meth:`FullStateObserver.observe_game` for centralised
critics. Unlike the seat-relative observers, rows are absolute seats (0..3 of four
players, a row per seat of the rules' ``players``) and the observer ignores whose view it
is given. It is not in ``observers.REGISTRY``: it is no
seat's observation.

>>> from big2.game import Game
>>> state = FullStateObserver().observe_game(Game(seed=0))
>>> state.shape, int(state.sum())
((489,), 53)
>>> from big2.rules import TWO_PLAYER
>>> FullStateObserver(TWO_PLAYER).shapes["hands"]
(2, 52)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import numpy as np

from big2.cards import N_CARDS
from big2.hand_ranking import Ranking
from observers.base import Observer, Piece, Pieces, card_rows

if TYPE_CHECKING:
    from big2.game import Game, View

_RANKINGS = len(Ranking) - 1  # every category but PASS


class FullStateObserver(Observer):
    """CHEATS: the whole game (every seat's hand) in absolute seats, for centralised critics."""

    name: ClassVar[str] = "full_state"
    perfect_information: ClassVar[bool] = True

    def declare(self) -> list[Piece]:
        n = self.rules.players
        seats = ", ".join(str(s) for s in range(n))
        passes = ", ".join(str(p) for p in range(n - 1))
        return [
            Piece("hands", (n, N_CARDS), f"CHEAT: the hand of seat {seats}"),
            Piece("played", (n, N_CARDS), f"cards played so far by seat {seats}"),
            Piece("table", (N_CARDS,), "cards of the combination to beat (zeros when leading)"),
            Piece("table_ranking", (_RANKINGS,), "one-hot Ranking of the table (SINGLE..)"),
            Piece("turn", (n,), "one-hot seat to act (zeros once the game is over)"),
            Piece("table_owner", (n,), "one-hot seat that played the table"),
            Piece(
                "passes",
                (n - 1,),
                f"one-hot consecutive passes since the table's play ({passes})",
            ),
        ]

    def write(self, view: View, pieces: Pieces, game: Game | None = None) -> None:
        if game is None:
            raise ValueError("the full state needs the game")
        n = self.rules.players
        rows = card_rows([*game.hands, *view.played])  # one lookup for both pieces
        pieces["hands"][:] = rows[:n]
        pieces["played"][:] = rows[n:]
        table = game.table
        if table is not None:
            pieces.cards("table", table.cards)
            pieces.one_hot("table_ranking", table.ranking - 1)
            pieces.one_hot("table_owner", game.table_seat or 0)
            pieces.one_hot("passes", min(game.passes, n - 2))
        if not game.is_over:
            pieces.one_hot("turn", game.turn)

    def observe_game(self, game: Game) -> np.ndarray:
        """The state of ``game`` (any seat's view would do: the rows are absolute)."""
        return self.observe(game.view(0), game)
