"""Named fields of pieces: declaration checks, views, fast paths, layouts, flat = pieces.

Every observer's flat array must be the concatenation of its pieces, and each piece the
concatenation (along its last axis) of its fields, whichever way the values are written.
"""

from __future__ import annotations

import numpy as np
import pytest
from env_helpers import OBSERVER_NAMES, random_game

import observers
from big2 import cards as C
from big2.rules import STANDARD
from observers import Field, FullStateObserver, Piece, Pieces

VARIANTS = [(name, {}) for name in OBSERVER_NAMES] + [("history", {"k": 1}), ("history", {"k": 3})]
IDS = [name + "".join(f"-{k}{v}" for k, v in params.items()) for name, params in VARIANTS]
EVERY = [observers.make(name, **params) for name, params in VARIANTS] + [FullStateObserver()]
EVERY_IDS = [*IDS, "full_state"]


def fields_of(piece):
    """(name, first column, width) of each field, computed here from the widths."""
    out, start = [], 0
    for field in piece.fields:
        out.append((field.name, start, field.width))
        start += field.width
    return out


@pytest.mark.parametrize("observer", EVERY, ids=EVERY_IDS)
def test_flat_is_the_concatenation_of_pieces_and_fields(observer):
    rng = np.random.default_rng(7)
    flat = np.zeros(observer.size, dtype=np.float32)
    pieces = Pieces(observer, flat)
    written = {}  # piece name -> the values written through its fields (or the piece)
    for piece in observer.pieces:
        if not piece.fields:
            written[piece.name] = rng.random(piece.shape, dtype=np.float32)
            pieces[piece.name][:] = written[piece.name]
            continue
        parts = []
        for name, _, width in fields_of(piece):
            values = rng.random((*piece.shape[:-1], width), dtype=np.float32)
            view = pieces[f"{piece.name}.{name}"]
            assert view.shape == values.shape and np.shares_memory(view, flat)
            view[:] = values
            parts.append(values)
        written[piece.name] = np.concatenate(parts, axis=-1)
    assert pieces.finish() is flat
    split = observer.split(flat)
    assert list(split) == [p.name for p in observer.pieces]
    for name, values in written.items():
        assert np.array_equal(split[name], values), name
    expected = np.concatenate([written[p.name].ravel() for p in observer.pieces])
    assert np.array_equal(flat, expected)


@pytest.mark.parametrize("observer", EVERY, ids=EVERY_IDS)
def test_fields_of_real_observations_tile_their_pieces(observer):
    for stop in (0, 9, 30, None):
        game = random_game(STANDARD, 11, stop=stop)
        for seat in range(4):
            flat = observer.observe(game.view(seat), game)
            split = observer.split(flat)
            for piece in observer.pieces:
                if not piece.fields:
                    continue
                parts = []
                for name, start, width in fields_of(piece):
                    part = observer.view_of(flat, f"{piece.name}.{name}")
                    assert np.array_equal(part, split[piece.name][..., start : start + width])
                    parts.append(part)
                assert np.array_equal(np.concatenate(parts, axis=-1), split[piece.name])


def test_field_widths_must_sum_to_the_last_axis():
    Piece("ok", (2, 5), "", (Field("seat", 4, ""), Field("pass", 1, "")))
    with pytest.raises(ValueError, match=r"\[4, 2\] wide \(6 in all\), but its last axis is 5"):
        Piece("move", (2, 5), "", (Field("seat", 4, ""), Field("pass", 2, "")))
    with pytest.raises(ValueError, match="last axis is 5"):
        Piece("move", (5,), "", (Field("seat", 4, ""),))
    with pytest.raises(ValueError, match="wide"):
        Piece("move", (5,), "", (Field("seat", 5, ""), Field("none", 0, "")))
    with pytest.raises(ValueError, match="distinct"):
        Piece("move", (5,), "", (Field("a", 4, ""), Field("a", 1, "")))
    with pytest.raises(ValueError, match="dot-free"):
        Piece("move", (5,), "", (Field("a.b", 5, ""),))


def test_a_field_view_cannot_be_rebound_but_writes_through():
    observer = observers.make("history", k=3)
    flat = np.zeros(observer.size, dtype=np.float32)
    pieces = Pieces(observer, flat)
    with pytest.raises(TypeError):
        pieces["history.cards"] = np.ones((3, 52), dtype=np.float32)
    with pytest.raises(TypeError):
        del pieces["history.cards"]
    with pytest.raises(KeyError):
        pieces["history.nothing"]
    assert not flat.any()
    view = pieces["history.cards"]
    assert view.shape == (3, 52) and view.flags.writeable and np.shares_memory(view, flat)
    view[1, :] = 1.0
    history = observer.split(pieces.finish())["history"]
    assert history[1, 5:].all() and not history[1, :5].any()
    assert not history[0].any() and not history[2].any()
    start = observer.offsets["history"]
    assert np.flatnonzero(flat).tolist() == list(range(start + 57 + 5, start + 2 * 57))


def test_fast_paths_address_fields_by_row():
    observer = observers.make("history", k=3)
    pieces = Pieces(observer, np.zeros(observer.size, dtype=np.float32))
    pieces.cards("history.cards", C.parse_cards("3D 2S"), row=2)
    pieces.one_hot("history.seat", 3, row=1)
    pieces.one_hot("history.pass", 0, row=0)
    pieces.ones("history.seat", [0, 2], row=0)
    pieces.one_hot("cards_left", 4, row=2)  # a piece without fields: rows of its last axis
    history = observer.split(pieces.finish())["history"]
    assert np.flatnonzero(history[2]).tolist() == [5, 56]
    assert np.flatnonzero(history[1]).tolist() == [3]
    assert np.flatnonzero(history[0]).tolist() == [0, 2, 4]
    assert np.flatnonzero(observer.split(pieces.finish())["cards_left"]).tolist() == [30]


def test_one_hot_rows_and_flags():
    observer = observers.make("charlesworth")
    pieces = Pieces(observer, np.zeros(observer.size, dtype=np.float32))
    pieces.one_hot_rows("hand_slots.rank", [0, 0, 12])
    pieces.one_hot_rows("hand_slots.suit", [3, 1, 0])
    pieces.flags("hand_slots.pair", [0, 1])
    pieces.flags("opponents.kinds", [2])
    slots = observer.split(pieces.finish())["hand_slots"]
    assert [np.flatnonzero(row).tolist() for row in slots[:4]] == [
        [0, 16, 17],
        [0, 14, 17],
        [12, 13],
        [],
    ]
    opponents = observer.split(pieces.finish())["opponents"]
    assert np.flatnonzero(opponents).tolist() == [2 * 27 + 21]


def test_charlesworth_fields_are_the_anchors():
    observer = observers.make("charlesworth")
    widths = {p.name: [(f.name, f.width) for f in p.fields] for p in observer.pieces}
    assert widths == {
        "hand_slots": [
            ("rank", 13),
            ("suit", 4),
            ("pair", 1),
            ("triple", 1),
            ("quads", 1),
            ("run", 1),
            ("flush", 1),
        ],
        "opponents": [("cards_left", 13), ("aces_twos", 8), ("kinds", 6)],
        "high_cards": [],
        "table": [("key_rank", 13), ("key_suit", 4), ("control", 1), ("type", 8), ("passes", 3)],
    }
    history = observers.make("history", k=5).pieces[-1]
    assert [(f.name, f.width) for f in history.fields] == [("seat", 4), ("pass", 1), ("cards", 52)]


@pytest.mark.parametrize("observer", EVERY, ids=EVERY_IDS)
def test_layout_lists_fields_under_their_piece(observer):
    layout = observer.layout()
    lines = layout.splitlines()
    names = [line.split("`")[1] for line in lines[2:-1]]
    expected = []
    for piece in observer.pieces:
        expected += [piece.name] + [f"{piece.name}.{f.name}" for f in piece.fields]
    assert names == expected
    for piece in observer.pieces:
        offset, stride = observer.offsets[piece.name], piece.shape[-1]
        for name, start, width in fields_of(piece):
            rows = [
                f"{offset + r * stride + start}..{offset + r * stride + start + width - 1}"
                for r in range(piece.rows)
            ]
            where = ", ".join(rows if len(rows) <= 3 else [*rows[:2], "...", rows[-1]])
            shape = (*piece.shape[:-1], width)
            assert f"| `{piece.name}.{name}` | {shape} | {where} |" in layout


def test_history_layout_row_ranges():
    layout = observers.make("history", k=16).layout()
    assert "| `history.seat` | (16, 4) | 161..164, 218..221, ..., 1016..1019 |" in layout
    assert "| `history.cards` | (16, 52) | 166..217, 223..274, ..., 1021..1072 |" in layout
    layout = observers.make("charlesworth").layout()
    assert "| `table.passes` | (3,) | 409..411 |" in layout


# ------------------------------------------------------------------ charlesworth faithful=True


def test_faithful_charlesworth_takes_a_straight_for_a_full_house():
    import observers
    from big2.board import Board
    from big2.cards import parse_cards
    from big2.game import Game
    from big2.hand_ranking import Ranking
    from big2.rules import CHARLESWORTH

    # seat 0 holds 3D (played by the rules), then leads the straight 4C 5D 6H 7S 8D
    fixed = {0: "3D 4C 5D 6H 7S 8D 9C TC JC QC KC AC 2C"}
    game = Game.from_board(Board(CHARLESWORTH, seed=1, fixed=fixed))
    while game.turn != 0:
        game.play(next(m for m in game.legal_moves() if not m))  # the others pass
    straight = next(m for m in game.legal_moves() if m and m.cards == parse_cards("4C 5D 6H 7S 8D"))
    assert straight.ranking == Ranking.STRAIGHT
    game.play(straight)
    view = game.view(game.turn)  # seat 1: seat 0 is "previous", the straight on the table
    plain = observers.make("charlesworth", CHARLESWORTH)
    faithful = observers.make("charlesworth", CHARLESWORTH, faithful=True)
    a, b = plain.split(plain.observe(view)), faithful.split(faithful.observe(view))
    assert repr(faithful) == "CharlesworthObserver(rules='charlesworth', faithful=True)"
    assert (a["hand_slots"] == b["hand_slots"]).all() and (a["high_cards"] == b["high_cards"]).all()
    prev_kinds_plain, prev_kinds_faithful = a["opponents"][2, -6:], b["opponents"][2, -6:]
    assert prev_kinds_plain.tolist() == [0, 0, 0, 1, 0, 0]  # straight only
    assert prev_kinds_faithful.tolist() == [0, 0, 0, 1, 0, 1]  # straight and "full house"
    table_plain, table_faithful = a["table"], b["table"]
    rank6 = 3  # ranks 3 4 5 6: the middle card 6H has rank index 3
    assert table_plain[:13].argmax() == 5 and table_plain[13:17].argmax() == 0  # top card 8D
    assert table_faithful[:13].tolist() == [1.0 if r == rank6 else 0.0 for r in range(13)]
    assert not table_faithful[13:17].any()  # no suit
    types_plain, types_faithful = table_plain[18:26], table_faithful[18:26]
    assert types_plain.tolist() == [0, 0, 0, 0, 0, 1, 0, 0]
    assert types_faithful.tolist() == [0, 0, 0, 0, 0, 1, 0, 1]
