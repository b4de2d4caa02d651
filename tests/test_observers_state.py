"""The full state (``raw_env.state()``) as a declared layout: ``FullStateObserver``.

Its pieces are checked against the game itself at mid-game positions of both presets,
and the whole vector against the env's former hand-offset encoding (kept here as a
reference), so the layout can change only on purpose.
"""

from __future__ import annotations

import numpy as np
import pytest
from env_helpers import PRESETS, random_action

import envs.big2_env as big2_env
import observers
from big2 import cards as C
from big2.hand_ranking import Ranking
from big2.rules import get
from envs.big2_env import raw_env
from observers import FullStateObserver
from observers.base import card_rows


def reference_state(game):
    """``raw_env.state()`` as it was written before its layout was declared."""
    table = game.table
    out = np.zeros(489, dtype=np.float32)
    cards = [*game.hands, *game.view(0).played, table.cards if table else 0]
    out[:468] = card_rows(cards).ravel()
    if table is not None:
        out[468 + table.ranking - 1] = 1.0
        out[482 + (game.table_seat or 0)] = 1.0
        out[486 + min(game.passes, 2)] = 1.0
    if not game.is_over:
        out[478 + game.turn] = 1.0
    return out


def ones(a):
    return np.flatnonzero(a).tolist()


def check_state(aec, layout):
    game, state = aec.game, aec.state()
    assert state.dtype == np.float32 and state.shape == (layout.size,)
    assert set(np.unique(state)) <= {0.0, 1.0}
    parts = layout.split(state)
    assert [ones(row) for row in parts["hands"]] == [list(C.iter_cards(h)) for h in game.hands]
    played = [deal & ~hand for deal, hand in zip(game.log.deal, game.hands, strict=True)]
    assert [ones(row) for row in parts["played"]] == [list(C.iter_cards(m)) for m in played]
    table = game.table
    assert ones(parts["table"]) == (list(C.iter_cards(table.cards)) if table else [])
    assert ones(parts["table_ranking"]) == ([table.ranking - 1] if table else [])
    assert ones(parts["table_owner"]) == ([game.table_seat] if table else [])
    assert ones(parts["passes"]) == ([min(game.passes, 2)] if table else [])
    assert ones(parts["turn"]) == ([] if game.is_over else [game.turn])
    assert np.array_equal(state, reference_state(game))


@pytest.mark.parametrize("rules", PRESETS)
def test_state_pieces_match_mid_game_positions(rules):
    aec = raw_env(rules=rules)
    layout = FullStateObserver(get(rules))
    rng = np.random.default_rng(11)
    checked, passes_seen = 0, set()
    for seed in range(8):
        aec.reset(seed=seed)
        while not aec.game.is_over:
            if rng.random() < 0.3:
                check_state(aec, layout)
                checked += 1
                passes_seen.add(aec.game.passes if aec.game.table else None)
            aec.step(random_action(aec.observe(aec.agent_selection), rng))
        check_state(aec, layout)  # the end: no seat to act
    assert checked > 50 and passes_seen >= {None, 0, 1, 2}


def test_the_env_derives_its_state_space_and_docs_from_the_layout():
    layout = FullStateObserver()
    assert big2_env.STATE_SIZE == layout.size == 489
    assert [(p.name, p.shape) for p in layout.pieces] == [
        ("hands", (4, 52)),
        ("played", (4, 52)),
        ("table", (52,)),
        ("table_ranking", (len(Ranking) - 1,)),
        ("turn", (4,)),
        ("table_owner", (4,)),
        ("passes", (3,)),
    ]
    for rules in PRESETS:
        aec = raw_env(rules=rules)
        assert aec.state_space == layout.space and aec.state_observer.rules is get(rules)
    doc = big2_env.__doc__ or ""
    assert layout.layout() in doc and "STATE_LAYOUT" not in doc
    assert doc.index("## State") < doc.index(layout.layout()) < doc.index("## Version")


def test_the_full_state_cheats_openly_and_is_no_seats_observer():
    layout = FullStateObserver()
    assert layout.perfect_information and "full" in layout.name
    assert layout.name not in observers.REGISTRY
    assert FullStateObserver not in observers.REGISTRY.values()
    assert "FullStateObserver" in observers.__all__
    game = raw_env().game
    with pytest.raises(ValueError, match="full game"):
        layout.observe(game.view(0))
    views = [layout.observe(game.view(seat), game) for seat in range(4)]
    assert all(np.array_equal(v, layout.observe_game(game)) for v in views)  # absolute seats
