"""Observers over many games at once: numba kernels that write exactly what the observers do.

:func:`batch_encoder` returns, for an :class:`observers.Observer`, a function
``encode(games, slots, seats, out, rows=None)`` that writes the observation of seat
``seats[i]`` in game ``slots[i]`` of a :class:`envs.engine.Games` into row ``rows[i]`` of
``out`` (default row ``i``; zeroed float32), so the vector env writes each acting seat's
observation straight into its agent's row of the buffer it returns. Every registered
observer has a kernel below, keyed by its exact type (a subclass may write something else),
and is encoded in one compiled call, for two to four players; any other observer (a
user's own, say) falls back to building each seat's
:class:`big2.game.View` from the arrays and calling ``observer.observe``: exact, but
Python-speed. The kernels read the piece offsets from the observer's declared layout
(``observer.targets``), so they follow its named pieces, and the tests check every kernel,
bit for bit, against its observer on every seat of thousands of positions.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from big2.game import View
from big2.hand_ranking import catalog
from envs.engine import Games, reference_game
from envs.kernels.charlesworth import charlesworth_encoder
from envs.kernels.observers import (
    Encoder,
    counting_encoder,
    history_encoder,
    planes_encoder,
    rows_of,
    simple_encoder,
)
from observers.base import Observer
from observers.charlesworth import CharlesworthObserver
from observers.encoders import (
    CardCountingObserver,
    HistoryObserver,
    OracleObserver,
    PlanesObserver,
    SimpleObserver,
)


def batch_encoder(observer: Observer) -> tuple[Encoder, bool]:
    """``(encode, vectorised)`` for ``observer`` (see the module docstring)."""
    make = _KERNELS.get(type(observer))
    if make is None:
        return _fallback(observer), False
    return make(observer), True


def view_of(games: Games, slot: int, seat: int) -> View:
    """The :class:`~big2.game.View` of ``seat`` in game ``slot``, built from the arrays."""
    cat = catalog(games.tables.rules)
    table = int(games.table[slot])
    table_seat = int(games.table_seat[slot])
    hands = [int(h) for h in games.hands[slot]]
    return View(
        seat=seat,
        hand=hands[seat],
        turn=int(games.turn[slot]),
        table=cat[table] if table >= 0 else None,
        table_seat=table_seat if table_seat >= 0 else None,
        passes=int(games.passes[slot]),
        cards_left=tuple(h.bit_count() for h in hands),
        played=tuple(int(p) for p in games.played[slot]),
        history=games.history(slot),
        rules=games.tables.rules,
        played_rankings=tuple(int(k) for k in games.kinds[slot]),
    )


def _fallback(observer: Observer) -> Encoder:
    def encode(
        games: Games,
        slots: np.ndarray,
        seats: np.ndarray,
        out: np.ndarray,
        rows: np.ndarray | None = None,
    ) -> None:
        places = rows_of(slots, rows).tolist()
        for i, (slot, seat) in enumerate(zip(slots.tolist(), seats.tolist(), strict=True)):
            full = observer.perfect_information  # replaying the game is slow: only if needed
            game = reference_game(games, slot) if full else None
            out[places[i]] = observer.observe(view_of(games, slot, seat), game)

    return encode


_KERNELS: dict[type[Observer], Callable[[Observer], Encoder]] = {
    SimpleObserver: simple_encoder,
    CardCountingObserver: counting_encoder,
    HistoryObserver: history_encoder,
    PlanesObserver: planes_encoder,
    CharlesworthObserver: charlesworth_encoder,
    OracleObserver: counting_encoder,
}
