"""big2.game: turns, tricks, the opening, the end, scores, illegal moves, views, copies.

Deals are written as card text; moves are scripted as text for the seat to act.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from big2.board import Board
from big2.cards import DECK, parse_cards
from big2.game import Game, IllegalMove, View
from big2.hand_ranking import PASS, catalog, combinations_in
from big2.log import LogEntry
from big2.rules import CHARLESWORTH, STANDARD

# Each seat holds one suit: singles of equal rank compare by suit (D < C < H < S).
SUITED = [" ".join(r + s for r in "3456789TJQKA2") for s in "DCHS"]
# Pairs and triples to spare, so sizes can be mixed.
MIXED = [
    "3D 3C 4D 4C 5D 5C 6D 6C 7D 7C 8D 8C 9D",
    "3H 3S 4H 4S 5H 5S 6H 6S 7H 7S 8H 8S 9C",
    "9H 9S TD TC TH TS JD JC JH JS QD QC QH",
    "QS KD KC KH KS AD AC AH AS 2D 2C 2H 2S",
]
LOCKS = replace(STANDARD, name="locks", pass_locks_out=True)


def mv(game: Game, text: str):
    return PASS if text == "pass" else catalog(game.rules).find(text)


def run(game: Game, *moves: str) -> Game:
    for text in moves:
        game.play(mv(game, text))
    return game


def dealt(hands: list[str], rules=STANDARD) -> Game:
    return Game.from_board(Board.from_hands(hands, rules))


VIEW_FIELDS = (
    "seat", "hand", "turn", "table", "table_seat", "passes",
    "cards_left", "played", "history", "rules",
)  # fmt: skip


def seen(view: View) -> dict:
    """Every public attribute of a view, by value (``history`` as a tuple of log entries)."""
    out = {}
    for name in dir(view):
        value = getattr(view, name)
        if not name.startswith("_") and not callable(value):
            out[name] = tuple(value) if name == "history" else value
    assert set(VIEW_FIELDS) <= set(out)
    return out


def snapshot(game: Game) -> tuple:
    return (
        game.hands,
        game.turn,
        game.table,
        game.table_seat,
        game.passes,
        game.winner,
        list(game.log.moves),
        game.legal_moves(),
        tuple(seen(game.view(s)) for s in range(4)),
    )


# ----------------------------------------------------------------- leading and opening


def test_holder_of_3d_leads_and_cannot_pass():
    game = dealt(MIXED[1:] + MIXED[:1])  # 3D is with seat 3
    assert game.turn == 3 and game.table is None and game.passes == 0
    assert PASS not in game.legal_moves()
    with pytest.raises(IllegalMove, match="leader must play"):
        game.play(PASS)


def test_first_play_must_contain_3d():
    game = dealt(MIXED)
    hand = parse_cards(MIXED[0])
    expected = tuple(c for c in combinations_in(hand) if c.cards & 1)
    assert game.legal_moves() == expected
    assert "3D 3C" in {str(m) for m in expected}
    with pytest.raises(IllegalMove, match="first play must contain 3D"):
        run(game, "4D")


def test_free_opening_allows_any_lead():
    game = dealt(MIXED, replace(STANDARD, name="free", opening="free"))
    assert game.legal_moves() == tuple(combinations_in(parse_cards(MIXED[0]), rules=game.rules))
    run(game, "4D 4C")
    assert str(game.table) == "4D 4C"


def test_later_leads_need_not_contain_3d():
    game = run(dealt(SUITED), "3D", "pass", "pass", "pass")
    assert game.table is None and game.turn == 0
    assert game.legal_moves() == tuple(combinations_in(game.hands[0]))
    run(game, "9D")
    assert str(game.table) == "9D"


def test_charlesworth_plays_3d_automatically():
    hands = MIXED[2:] + MIXED[:2]  # 3D is with seat 2
    game = dealt(hands, CHARLESWORTH)
    three = catalog(CHARLESWORTH).find("3D")
    assert game.log.moves == [LogEntry(2, three, None)]
    assert game.turn == 3 and game.table is three and game.table_seat == 2
    assert game.hands[2] == parse_cards(hands[2]) & ~1
    assert game.view(0).played == (0, 0, 1, 0)
    # seat 3 holds only cards above 3D: every single, then PASS
    singles = [c for c in combinations_in(game.hands[3], rules=CHARLESWORTH) if c.size == 1]
    assert game.legal_moves() == (*singles, PASS)
    run(game, "pass", "pass", "pass")
    assert game.table is None and game.turn == 2 and PASS not in game.legal_moves()


# ----------------------------------------------------------------- passing and tricks


def test_passed_player_may_play_again_in_the_trick():
    game = run(dealt(SUITED), "3D", "pass", "4H", "pass", "5D")
    assert game.turn == 1 and game.passes == 0
    assert mv(game, "6C") in game.legal_moves()
    run(game, "6C")
    assert str(game.table) == "6C" and game.table_seat == 1


def test_three_passes_clear_the_table_and_last_player_leads():
    game = run(dealt(SUITED), "3D", "4C")
    for passes in (1, 2):
        run(game, "pass")
        assert game.passes == passes and str(game.table) == "4C"
    run(game, "pass")
    assert game.table is None and game.turn == 1 and game.passes == 0
    assert game.legal_moves() == tuple(combinations_in(game.hands[1]))
    run(game, "5C 6C 7C 8C 9C")
    assert game.log.moves[-1].table is None


def test_passes_must_be_consecutive_to_clear():
    game = run(dealt(SUITED), "3D", "pass", "pass", "4S", "pass", "pass")
    assert str(game.table) == "4S" and game.turn == 2 and game.passes == 2
    run(game, "pass")
    assert game.table is None and game.turn == 3


def test_pass_locks_out_still_clears_after_three_passes():
    game = run(dealt(SUITED, LOCKS), "3D", "pass", "pass", "pass")
    assert game.table is None and game.turn == 0 and PASS not in game.legal_moves()


def test_pass_locks_out_keeps_a_passer_out_until_the_table_clears():
    game = run(dealt(SUITED, LOCKS), "3D", "pass", "4H", "4S", "5D")
    assert game.turn == 1 and str(game.table) == "5D"
    assert game.legal_moves() == (PASS,)
    with pytest.raises(IllegalMove, match="locked out"):
        run(game, "6C")


# ----------------------------------------------------------------- the end and scores

WINS_AT_ONCE = "3D 4D 5D 6D 7D TS JS QS KS AS 2D 2C 2H"
P3 = ("pass", "pass", "pass")


def test_game_end():
    game = Game(fixed={0: WINS_AT_ONCE}, seed=3)
    run(game, "3D 4D 5D 6D 7D", *P3, "TS JS QS KS AS", *P3)
    assert not game.is_over and game.winner is None
    with pytest.raises(ValueError, match="not over"):
        game.scores()
    run(game, "2D 2C 2H")
    assert game.is_over and game.winner == 0 and game.turn == 0 and game.hands[0] == 0
    assert game.legal_moves() == ()
    before = snapshot(game)
    for move in (PASS, catalog().find("3C"), catalog().find("2S")):
        with pytest.raises(IllegalMove, match=r"game is over \(seat 0 won\)"):
            game.play(move)
    assert snapshot(game) == before


def test_scores_all_losers_hold_13_pay_triple():
    game = Game(fixed={0: WINS_AT_ONCE}, seed=3)
    run(game, "3D 4D 5D 6D 7D", *P3, "TS JS QS KS AS", *P3, "2D 2C 2H")
    assert game.scores() == (117, -39, -39, -39)


def test_scores_single_and_double_multipliers():
    fixed = {
        0: "3D 4C 4H 7C 2D 2C 2H 2S TS JS QS KS AS",
        1: "4D 5C 5H 8C",
        2: "5D 6C 6H",
        3: "6D",
    }
    game = Game(fixed=fixed, seed=8)
    run(game, "3D", "4D", "5D", "6D", "2S", *P3)
    run(game, "4C 4H", "5C 5H", "6C 6H", "pass", "2D 2C", *P3)
    run(game, "7C", "8C", "pass", "pass", "2H", *P3, "TS JS QS KS AS")
    assert [h.bit_count() for h in game.hands] == [0, 9, 10, 12]
    assert game.scores() == (9 + 20 + 24, -9, -20, -24)


def test_scores_charlesworth_multiplier_is_always_one():
    fixed = {0: "3D QD QC QH KD KC KH KS AD AC AH AS 2S", 1: "4D", 2: "5D"}
    game = Game(CHARLESWORTH, fixed=fixed, seed=4)
    run(game, "4D", "5D", "pass", "2S", *P3, "QD QC QH", *P3, "KD KC KH KS", *P3)
    run(game, "AD AC AH AS")
    assert game.winner == 0
    assert [h.bit_count() for h in game.hands] == [0, 12, 12, 13]
    assert game.scores() == (37, -12, -12, -13)
    # the same cards left under STANDARD would cost 24, 24 and 39
    assert [STANDARD.penalty(n) for n in (12, 12, 13)] == [24, 24, 39]


# ----------------------------------------------------------------- illegal moves

AFTER_9C = ("3D", "9C", "pass", "pass")  # seat 0 to act on 9C (played by seat 1)
CASES = [
    ((), lambda g: PASS, "pass", "the leader must play"),
    ((), lambda g: mv(g, "4D"), "4D", "first play must contain 3D"),
    ((), lambda g: catalog(CHARLESWORTH).find("3D"), "3D", "not a combination of the standard"),
    ((), lambda g: "3D", "'3D'", "expected a HandRanking or PASS"),
    ((), lambda g: 3, "3", "expected a HandRanking or PASS"),
    (AFTER_9C, lambda g: mv(g, "TD"), "TD", "seat 0 does not hold TD"),
    (AFTER_9C, lambda g: mv(g, "4D 4C"), "4D 4C", "the table holds 1 card, not 2"),
    (AFTER_9C, lambda g: mv(g, "9D"), "9D", "does not beat the table"),
    (AFTER_9C, lambda g: mv(g, "8C"), "8C", "does not beat the table"),
    (("3D",), lambda g: mv(g, "3H 3S"), "3H 3S", "the table holds 1 card, not 2"),
]


@pytest.mark.parametrize(("prefix", "make", "text", "reason"), CASES)
def test_illegal_moves_are_refused_and_change_nothing(prefix, make, text, reason):
    game = run(dealt(MIXED), *prefix)
    move = make(game)
    before = snapshot(game)
    with pytest.raises(IllegalMove) as info:
        game.play(move)
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    table = "the table 9C" if prefix == AFTER_9C else "the table 3D" if prefix else "an empty table"
    assert f"illegal move {text} by seat {game.turn} on {table}" in message
    assert reason in message
    assert snapshot(game) == before


def test_only_pass_when_nothing_beats_the_table():
    game = run(dealt(MIXED), *AFTER_9C)
    assert game.legal_moves() == (PASS,)
    run(game, "pass")
    assert game.turn == 1 and game.table is None


# ----------------------------------------------------------------- views and copies


def test_view_fields_and_own_hand():
    game = run(dealt(MIXED), "3D", "9C")
    table = game.log.moves[0].move
    for seat in range(4):
        view = game.view(seat)
        assert view.seat == seat and view.hand == game.hands[seat]
        assert (view.turn, view.table, view.table_seat, view.passes) == (2, game.table, 1, 0)
        assert view.cards_left == (12, 12, 13, 13)
        assert view.played == (parse_cards("3D"), parse_cards("9C"), 0, 0)
        assert tuple(view.history) == tuple(game.log.moves) and view.rules is STANDARD
        assert len(view.history) == 2 and view.history[-1] == LogEntry(1, mv(game, "9C"), table)
        assert view.leading is False and view.relative((seat + 1) % 4) == 1
        others = DECK & ~game.hands[seat] & ~parse_cards("3D 9C")
        assert view.unseen == others
    with pytest.raises(ValueError, match="unknown seat 4"):
        game.view(4)


def test_view_does_not_depend_on_other_hands():
    mine = MIXED[0]
    a, b = Game(fixed={0: mine}, seed=1), Game(fixed={0: mine}, seed=2)
    assert a.hands[0] == b.hands[0] and a.hands[1] != b.hands[1]
    for moves in [(), ("3D",), P3, ("4D 4C",), ("pass",)]:
        run(a, *moves)
        run(b, *moves)
        assert seen(a.view(0)) == seen(b.view(0))
        assert seen(a.view(1)) != seen(b.view(1))


def test_a_view_is_a_snapshot():
    game = run(dealt(MIXED), "3D")
    view = game.view(1)
    before = seen(view)
    run(game, "9C", "pass", "pass", "pass", "3H 3S")
    assert seen(view) == before
    assert len(view.history) == 1 and list(view.history) == game.log.moves[:1]
    with pytest.raises(IndexError):
        view.history[1]


def test_views_of_the_same_position_are_equal():
    game = run(dealt(MIXED), "3D")
    assert game.view(1) == game.view(1)


def test_copy_is_independent():
    game = Game(seed=5)
    game.play(game.legal_moves()[0])
    before = snapshot(game)
    twin = game.copy()
    assert snapshot(twin) == before and twin.log is not game.log
    while not twin.is_over:
        twin.play(twin.legal_moves()[-1] if twin.table else twin.legal_moves()[0])
    assert snapshot(game) == before
    finished = snapshot(twin)
    game.play(game.legal_moves()[0])
    assert snapshot(twin) == finished and len(game.log.moves) == 2


def test_rules_sent_to_another_process_hash_as_its_own():
    """A worker (the arena's, the league's) unpickles rules hashed by its parent; the
    parent's cached hash is wrong there (str hashes are salted per process), so it is not
    sent, and caches keyed by rules find the worker's own entries."""
    import os
    import subprocess
    import sys

    send = "import pickle, sys; from big2.rules import STANDARD; hash(STANDARD); "
    send += "sys.stdout.buffer.write(pickle.dumps(STANDARD))"
    check = "import pickle, sys; from big2.rules import get; r = pickle.load(sys.stdin.buffer); "
    check += "print(hash(r) == hash(get('standard')))"

    def run(code: str, seed: str, data: bytes = b"") -> bytes:
        env = {**os.environ, "PYTHONHASHSEED": seed}
        return subprocess.run(
            [sys.executable, "-c", code], input=data, capture_output=True, env=env, check=True
        ).stdout

    assert run(check, "2", run(send, "1")).strip() == b"True"
