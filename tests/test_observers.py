"""Observers in general: shapes and spaces, pieces, layouts, no hidden-card leaks, seat symmetry.

Semantic checks of each observer's pieces on hand-built positions are in
test_observers_semantics.py.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from env_helpers import OBSERVER_NAMES, PRESETS, game_from, random_game

import observers
from big2 import cards as C
from big2.rules import STANDARD, get
from observers.base import Observer, Piece, Pieces
from observers.encoders import HistoryObserver, SimpleObserver

VARIANTS = [(name, {}) for name in OBSERVER_NAMES] + [("history", {"k": 1}), ("history", {"k": 4})]
IDS = [name + "".join(f"-{k}{v}" for k, v in params.items()) for name, params in VARIANTS]


def make_all(rules):
    return [observers.make(name, rules, **params) for name, params in VARIANTS]


def positions(rules, count, seed):
    """Games stopped at random points (the start and finished games included)."""
    rng = random.Random(seed)
    for i in range(count):
        stop = None if i % 7 == 6 else (0 if i % 7 == 0 else rng.randrange(1, 60))
        yield random_game(rules, seed * 1000 + i, stop)


def observe(observer, game, seat):
    return observer.observe(game.view(seat), game)


@pytest.mark.parametrize("rules", PRESETS)
@pytest.mark.parametrize(("name", "params"), VARIANTS, ids=IDS)
def test_observe_shape_dtype_space_and_freshness(name, params, rules):
    observer = observers.make(name, get(rules), **params)
    assert observer.name == name and observer.rules is get(rules)
    assert observer.size == sum(p.size for p in observer.pieces)
    for game in positions(get(rules), 14, seed=1):
        for seat in range(4):
            flat = observe(observer, game, seat)
            assert flat.dtype == np.float32 and flat.shape == (observer.size,)
            assert observer.space.contains(flat)
            again = observe(observer, game, seat)
            assert again is not flat and not np.shares_memory(again, flat)
            flat[:] = 0.5
            assert np.array_equal(again, observe(observer, game, seat))


@pytest.mark.parametrize(("name", "params"), VARIANTS, ids=IDS)
def test_split_pieces_and_layout(name, params):
    observer = observers.make(name, **params)
    names = [p.name for p in observer.pieces]
    assert len(set(names)) == len(names)
    assert list(observer.shapes) == names and list(observer.offsets) == names
    game = random_game(STANDARD, 2, stop=20)
    flat = observe(observer, game, 1)
    parts = observer.split(flat)
    assert list(parts) == names
    for piece in observer.pieces:
        assert parts[piece.name].shape == piece.shape
        assert np.shares_memory(parts[piece.name], flat)
    assert np.array_equal(np.concatenate([parts[n].ravel() for n in names]), flat)
    layout = observer.layout()
    for piece in observer.pieces:
        start = observer.offsets[piece.name]
        assert f"`{piece.name}` | {piece.shape} | {start}..{start + piece.size - 1} |" in layout
    assert f"| total | ({observer.size},) |" in layout
    with pytest.raises(ValueError, match="shape"):
        observer.split(flat[:-1])


def test_pieces_cannot_be_rebound_but_write_through():
    observer = observers.make("simple")
    flat = np.zeros(observer.size, dtype=np.float32)
    pieces = Pieces(observer, flat)
    with pytest.raises(TypeError):
        pieces["hand"] = np.ones(52, dtype=np.float32)
    with pytest.raises(TypeError):
        del pieces["hand"]
    assert not flat.any()
    pieces["hand"][:] = 1.0
    pieces.one_hot("cards_left", 13 + 4)
    pieces.cards("table", C.parse_cards("3D 2S"))
    out = pieces.finish()
    assert out is flat and sorted(pieces) == sorted(observer.offsets) and len(pieces) == 7
    split = observer.split(out)
    assert split["hand"].all() and np.flatnonzero(split["table"]).tolist() == [0, 51]
    assert np.flatnonzero(split["cards_left"]).tolist() == [17]


def test_observer_construction_errors():
    class Twice(Observer):
        name = "twice"

        def declare(self):
            return [Piece("a", (2,), ""), Piece("a", (3,), "")]

        def write(self, view, pieces, game=None):
            pass

    with pytest.raises(ValueError, match="duplicate"):
        Twice()
    for k in (0, -1, "4", 2.5):
        with pytest.raises(ValueError, match="k"):
            HistoryObserver(k=k)
    with pytest.raises(ValueError, match="bad parameters"):
        observers.make("simple", k=3)
    with pytest.raises(ValueError, match="unknown observer"):
        observers.make("x-ray")
    oracle = observers.make("oracle")
    with pytest.raises(ValueError, match="game"):
        oracle.observe(random_game(STANDARD, 0, stop=3).view(0))
    assert isinstance(observers.make("simple"), SimpleObserver)


@pytest.mark.parametrize("rules", PRESETS)
def test_an_old_view_observes_the_same_after_more_moves(rules):
    every = make_all(get(rules))
    rng = random.Random(5)
    game = random_game(get(rules), 5, stop=12)
    views = [game.view(s) for s in range(4)]
    before = [[o.observe(v, game) for v in views] for o in every if not o.perfect_information]
    for _ in range(8):
        game.play(rng.choice(game.legal_moves()))
    after = [[o.observe(v, game) for v in views] for o in every if not o.perfect_information]
    for old, new in zip(before, after, strict=True):
        assert all(np.array_equal(a, b) for a, b in zip(old, new, strict=True))


def swap_hidden(game, a, b, rng):
    """The same game, but seats a and b exchange some of the cards they still hold."""
    held_a, held_b = list(C.iter_cards(game.hand(a))), list(C.iter_cards(game.hand(b)))
    k = rng.randint(1, min(len(held_a), len(held_b)))
    x = sum(1 << c for c in rng.sample(held_a, k))
    y = sum(1 << c for c in rng.sample(held_b, k))
    deal = list(game.log.deal)
    deal[a], deal[b] = deal[a] ^ x | y, deal[b] ^ y | x
    other = game_from(deal, game.rules, game.log.moves)
    assert other.log.moves == game.log.moves
    assert other.hand(a) == game.hand(a) ^ x | y and other.hand(b) == game.hand(b) ^ y | x
    return other


@pytest.mark.parametrize("rules", PRESETS)
def test_no_observer_but_the_oracle_sees_opponents_hidden_cards(rules):
    rules = get(rules)
    every = make_all(rules)
    rng = random.Random(3)
    checked = 0
    for i in range(60):
        game = random_game(rules, 3000 + i, stop=rng.randrange(2, 70))
        holding = [s for s in range(4) if game.hand(s)]
        for seat in range(4):
            opponents = [s for s in holding if s != seat]
            if len(opponents) < 2:
                continue
            a, b = rng.sample(opponents, 2)
            other = swap_hidden(game, a, b, rng)
            for observer in every:
                same = np.array_equal(observe(observer, game, seat), observe(observer, other, seat))
                assert same != observer.perfect_information, (observer.name, seat, a, b)
            checked += 1
    assert checked > 150
    assert [o.name for o in every if o.perfect_information] == ["oracle"]


@pytest.mark.parametrize("rules", PRESETS)
def test_observations_are_seat_relative(rules):
    rules = get(rules)
    every = make_all(rules)
    for i, game in enumerate(positions(rules, 30, seed=4)):
        shift = 1 + i % 3
        deal = [game.log.deal[(s - shift) % 4] for s in range(4)]
        rotated = game_from(deal, rules, game.log.moves)
        assert [e.seat for e in rotated.log.moves] == [(e.seat + shift) % 4 for e in game.log.moves]
        for seat in range(4):
            for observer in every:
                mine = observe(observer, game, seat)
                theirs = observe(observer, rotated, (seat + shift) % 4)
                assert np.array_equal(mine, theirs), (observer.name, seat, shift)


# ------------------------------------------------------------------ two and three players

SEATS = ["three-player", "two-player"]
SEAT_VARIANTS = [(n, p) for n, p in VARIANTS if n != "charlesworth"]
SEAT_IDS = [i for i, (n, _) in zip(IDS, VARIANTS, strict=True) if n != "charlesworth"]


@pytest.mark.parametrize("rules", SEATS)
@pytest.mark.parametrize(("name", "params"), SEAT_VARIANTS, ids=SEAT_IDS)
def test_two_and_three_players_size_pieces_by_seats_and_layouts_cover_the_vector(
    name, params, rules
):
    made = get(rules)
    observer = observers.make(name, made, **params)
    players, opponents = made.players, made.players - 1
    shapes = observer.shapes
    assert shapes.get("table_owner") == (players,) and shapes["passes"] == (opponents,)
    expected = {
        "cards_left": (opponents,) if name == "planes" else (opponents, made.largest_hand),
        "played": (players, 52),
        "opponent_hands": (opponents, 52),
        "planes": (players + 3, 4, 13),
        "history": (params.get("k", 16), players + 53),
    }
    assert {p: s for p, s in expected.items() if p in shapes} == {
        p: shapes[p] for p in expected if p in shapes
    }
    layout = observer.layout()
    for piece in observer.pieces:
        start = observer.offsets[piece.name]
        assert f"`{piece.name}` | {piece.shape} | {start}..{start + piece.size - 1} |" in layout
        assert piece.doc and all(f.doc for f in piece.fields)
        assert "across" not in piece.doc + "".join(f.doc for f in piece.fields)
    assert f"| total | ({observer.size},) |" in layout
    for game in positions(made, 8, seed=3):
        for seat in range(players):
            flat = observe(observer, game, seat)
            assert flat.shape == (observer.size,) and observer.space.contains(flat)
            parts = observer.split(flat)
            assert np.array_equal(np.concatenate([v.ravel() for v in parts.values()]), flat)


@pytest.mark.parametrize("rules", SEATS)
def test_two_and_three_player_pieces_say_what_each_seat_holds_and_played(rules):
    made = get(rules)
    counting, planes = observers.make("card_counting", made), observers.make("planes", made)
    oracle, history = observers.make("oracle", made), observers.make("history", made, k=60)
    for game in positions(made, 10, seed=5):
        left = [h.bit_count() for h in game.hands]
        for seat in range(made.players):
            view, others = game.view(seat), [(seat + k) % made.players for k in range(made.players)]
            parts = counting.split(observe(counting, game, seat))
            for row, opponent in enumerate(others[1:]):  # one-hot n-1, zeros for none
                hot = np.flatnonzero(parts["cards_left"][row]).tolist()
                assert hot == ([left[opponent] - 1] if left[opponent] else [])
            assert parts["played"].sum(axis=1).tolist() == [
                view.played[s].bit_count() for s in others
            ]
            assert parts["played"].sum() == 52 - sum(left)
            assert parts["unseen"].sum() == sum(left) - left[seat]
            flat = planes.split(observe(planes, game, seat))
            largest = made.largest_hand
            assert flat["cards_left"].tolist() == pytest.approx(
                [left[s] / largest for s in others[1:]]
            )
            assert (
                flat["planes"].sum(axis=(1, 2)).tolist()[2:-1]
                == parts["played"].sum(axis=1).tolist()
            )
            cheat = oracle.split(observe(oracle, game, seat))["opponent_hands"]
            assert cheat.sum(axis=1).tolist() == [left[s] for s in others[1:]]
            moves = history.split(observe(history, game, seat))["history"]
            seats = moves[:, : made.players]
            assert seats.sum() == min(len(view.history), 60)
            relative = [(e.seat - seat) % made.players for e in view.history[-60:]]
            assert np.argmax(seats[seats.any(axis=1)], axis=1).tolist() == relative


@pytest.mark.parametrize("rules", SEATS)
def test_the_2018_observer_refuses_other_deals_saying_what_to_use(rules):
    with pytest.raises(ValueError, match=r"four players of 13 cards.*use observer='simple'"):
        observers.make("charlesworth", rules)
