"""big2.board (dealing), big2.log (JSON logs, replay) and big2.players (baseline players)."""

from __future__ import annotations

import json
import random
import re
from dataclasses import replace

import pytest

from big2.board import Board
from big2.cards import DECK, format_cards, parse_cards
from big2.game import Game, IllegalMove, View
from big2.hand_ranking import PASS, catalog, combinations_in, stronger_than
from big2.log import GameLog, LogEntry
from big2.players import GreedyAgent, RandomAgent, play
from big2.rules import CHARLESWORTH, STANDARD

LOCKS = replace(STANDARD, name="locks", pass_locks_out=True, penalty_steps=((1, 2), (5, 3)))


def is_deal(hands) -> bool:
    return [h.bit_count() for h in hands] == [13] * 4 and sum(hands) == DECK


def finished(rules=STANDARD, seed=0) -> Game:
    return play(Game(rules, seed=seed), RandomAgent(seed))


# ----------------------------------------------------------------- Board


def test_same_seed_same_deal_and_seeds_differ():
    deals = [Board(seed=s).hands for s in range(10)]
    assert all(is_deal(d) for d in deals)
    assert deals == [Board(seed=s).hands for s in range(10)]
    assert len(set(deals)) == 10
    assert Board(seed=4) == Board(seed=4) and hash(Board(seed=4)) == hash(Board(seed=4))
    assert Board(CHARLESWORTH, seed=4) != Board(seed=4)  # same cards, other rules


def test_random_generator_is_advanced():
    rng = random.Random(9)
    state = rng.getstate()
    first = Board(seed=rng)
    assert rng.getstate() != state
    second = Board(seed=rng)
    assert first != second and is_deal(second.hands)
    replay = random.Random(9)
    assert Board(seed=replay) == first and Board(seed=replay) == second


def test_no_seed_deals_fresh_hands_and_bad_seed_type():
    assert is_deal(Board().hands) and is_deal(Board(seed=None).hands)
    with pytest.raises(TypeError, match="seed must be"):
        Board(seed=1.5)  # type: ignore[arg-type]


def test_fixed_cards_are_honoured_and_the_rest_is_random():
    fixed = {0: "3D 2S", 2: parse_cards("4H 5H 6H"), 3: "ah kh qh jh th 9h 8h 7h 3h 2h 3s 4s 5s"}
    boards = [Board(seed=s, fixed=fixed) for s in range(6)]
    for board in boards:
        assert is_deal(board.hands)
        assert board.hands[0] & parse_cards("3D 2S") == parse_cards("3D 2S")
        assert board.hands[2] & fixed[2] == fixed[2]
        assert board.hands[3] == parse_cards(fixed[3])
        assert board.first_seat == 0 and board.holder(51) == 0 and board.holder(6) == 2  # 4H
    assert len({b.hands for b in boards}) == 6
    assert Board(seed=3, fixed=fixed) == boards[3]


@pytest.mark.parametrize(
    ("fixed", "message"),
    [
        ({0: "3D 4D", 2: "4D 5D"}, "card(s) 4D given to both seat 0 and seat 2"),
        ({1: "3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD 2D 3C"}, "seat 1 is given 14 cards"),
        ({4: "3D"}, "unknown seat 4"),
        ({-1: "3D"}, "unknown seat -1"),
        ({"0": "3D"}, "unknown seat '0'"),
        ({0: "3D 1X"}, "bad card '1X'"),
        ({0: "3D 3d"}, "appears twice"),
        ({0: 1 << 52}, "is not a card mask"),
        (["3D", "4D"], "fixed cards must be a mapping from seat (0..3) to cards"),
        ([], "got list []"),
        ("3D", "got str '3D'"),
    ],
)
def test_board_errors(fixed, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        Board(seed=0, fixed=fixed)
    with pytest.raises(ValueError, match=re.escape(message)):
        Game(fixed=fixed, seed=0)


def test_from_hands():
    board = Board(seed=12)
    texts = [format_cards(h) for h in board.hands]
    assert Board.from_hands(texts) == board == Board.from_hands(list(board.hands))
    assert eval(repr(board)) == board  # the repr is a from_hands call
    assert Board.from_hands(texts, CHARLESWORTH).rules is CHARLESWORTH
    short = " ".join(texts[0].split()[1:])
    with pytest.raises(ValueError, match="seat 0 holds 12, seat 1 holds 13"):
        Board.from_hands([short, *texts[1:]])
    with pytest.raises(ValueError, match=r"needs 4 hands \(standard rules\), got 3"):
        Board.from_hands(texts[:3])
    with pytest.raises(ValueError, match="given to both"):
        Board.from_hands([texts[0], texts[0], texts[2], texts[3]])


# ----------------------------------------------------------------- GameLog


@pytest.mark.parametrize("rules", [STANDARD, CHARLESWORTH, LOCKS], ids=lambda r: r.name)
def test_log_round_trip(rules):
    game = finished(rules, seed=21)
    text = game.log.to_json(indent=1)
    data = json.loads(text)
    assert data["format"] == "big2-log/3"
    assert data["deal"] == [format_cards(h) for h in game.board.hands]
    assert data["moves"][0] == {
        "seat": game.board.first_seat,
        "move": str(game.log.moves[0].move),
        "table": None,
    }
    log = GameLog.from_json(text)
    assert log == game.log and log.rules == rules and log.deal == game.board.hands
    assert all(a.move is b.move for a, b in zip(log.moves, game.log.moves, strict=True))
    assert GameLog.from_dict(game.log.to_dict()) == game.log
    again = Game.replay(log)
    assert (again.hands, again.winner, again.scores()) == (
        game.hands,
        game.winner,
        game.scores(),
    )


def corrupt(edit) -> str:
    data = finished(seed=2).log.to_dict()
    edit(data)
    return json.dumps(data)


def _set(path, value):
    def edit(data):
        *head, last = path
        for key in head:
            data = data[key]
        data[last] = value

    return edit


def _delete(path):
    def edit(data):
        *head, last = path
        for key in head:
            data = data[key]
        del data[last]

    return edit


CORRUPT = [
    ("{not json", "not JSON"),
    ("[1, 2]", "expected a JSON object"),
    (corrupt(_set(["format"], "big2-log/0")), "format is 'big2-log/0'"),
    (corrupt(_delete(["format"])), "format is None"),
    (corrupt(_delete(["rules"])), "missing field 'rules'"),
    (corrupt(_delete(["deal"])), "missing field 'deal'"),
    (corrupt(_delete(["moves"])), "missing field 'moves'"),
    (corrupt(_delete(["moves", 0, "table"])), "missing field 'table'"),
    (corrupt(_delete(["moves", 3, "seat"])), "missing field 'seat'"),
    (corrupt(_set(["deal", 1], "3D ZZ")), "bad card 'ZZ'"),
    (corrupt(_set(["moves", 0, "move"], "3D 9S")), "not a combination"),
    (corrupt(_set(["moves", 2, "table"], "pass")), "table cannot be a pass"),
    (corrupt(_set(["rules", "colour"], "red")), "unknown rules fields ['colour']"),
    (corrupt(_set(["rules", "opening"], "whoever")), "opening must be one of"),
    (corrupt(_set(["rules", "penalty_steps"], [[2, 1]])), "penalty_steps"),
    (corrupt(_set(["rules"], None)), "corrupt game log"),
    (corrupt(_set(["moves", 1, "seat"], 4)), "seat 4 is not a seat"),
    (corrupt(_set(["moves", 1, "seat"], -1)), "seat -1 is not a seat"),
    (corrupt(_set(["moves", 1, "seat"], "1")), "seat '1' is not a seat"),
    (corrupt(_set(["moves", 1], "3D")), "corrupt game log"),
]


@pytest.mark.parametrize(("text", "message"), CORRUPT)
def test_corrupt_logs_are_refused(text, message):
    with pytest.raises(ValueError, match=r"^corrupt game log: ") as info:
        GameLog.from_json(text)
    assert message in str(info.value)


def test_replay_refuses_illegal_moves():
    log = finished(seed=2).log
    seat0 = log.moves[0].seat
    no_3d = next(c for c in catalog() if c.cards & log.deal[seat0] and not c.cards & 1)
    bad = replace(log, moves=[LogEntry(seat0, no_3d, None), *log.moves[1:]])
    with pytest.raises(IllegalMove, match="first play must contain 3D"):
        Game.replay(bad)
    wrong_seat = log.moves[1]._replace(seat=(log.moves[1].seat + 1) % 4)
    with pytest.raises(IllegalMove, match="log move 1 is by seat"):
        Game.replay(replace(log, moves=[log.moves[0], wrong_seat, *log.moves[2:]]))
    after_end = LogEntry(log.moves[-1].seat, PASS, None)
    with pytest.raises(IllegalMove, match="game is over"):
        Game.replay(replace(log, moves=[*log.moves, after_end]))
    with pytest.raises(ValueError, match="13 cards per seat"):
        Game.replay(replace(log, deal=(log.deal[0] & (log.deal[0] - 1), *log.deal[1:])))


def test_replay_checks_the_automatic_3d_entry():
    log = finished(CHARLESWORTH, seed=2).log
    holder = log.moves[0].seat
    other = catalog(CHARLESWORTH).find(format_cards(1 << 51))  # 2S, a single
    bad = replace(log, moves=[LogEntry((holder + 1) % 4, other, None), *log.moves[1:]])
    with pytest.raises(IllegalMove):
        Game.replay(bad)


def test_replay_checks_the_logged_table():
    log = finished(seed=2).log
    k = next(i for i, e in enumerate(log.moves) if e.table is not None)
    bad = replace(
        log, moves=[*log.moves[:k], log.moves[k]._replace(table=None), *log.moves[k + 1 :]]
    )
    with pytest.raises(ValueError):
        Game.replay(bad)


# ----------------------------------------------------------------- agents


def view_of(hand: str, table: str | None = None, rules=STANDARD):
    mask = parse_cards(hand)
    top = None if table is None else catalog(rules).find(table)
    view = View(0, mask, 0, top, None if top is None else 3, 0, (13,) * 4, (0,) * 4, (), rules)
    if top is None:
        return view, tuple(combinations_in(mask, rules=rules))
    legal = (*stronger_than(mask, top, rules), PASS)
    return view, legal


@pytest.mark.parametrize(
    ("hand", "table", "expected"),
    [
        ("3D 3C 4D 5H 6S 7C 9D 9H 9S KD KH 2S 2D", None, "3D 4D 5H 6S 7C"),
        ("4D 4C 4H 9S JC QD", None, "4D 4C 4H"),
        ("5D 5S 7C 7H KD", None, "5D 5S"),
        ("9H 2S", None, "9H"),
        ("3C 9D TC 2S", "8D", "9D"),
        ("3C 8C TC 2S", "8D", "8C"),
        ("3C 3H 8C 8S", "5D 5S", "8C 8S"),
        ("6D 7D 8C 9C TS 4H 7H 8H 9H JH KD KC KS", "3D 4D 5H 6S 7C", "6D 7D 8C 9C TS"),
        ("3C 3H 9C", "5D 5S", "pass"),
        ("2S", "2S 2H", "pass"),
    ],
)
def test_greedy_choices(hand, table, expected):
    view, legal = view_of(hand, table)
    assert str(GreedyAgent().act(view, legal)) == expected


def test_greedy_follows_its_rule_in_whole_games():
    for seed in range(30):
        game = Game(CHARLESWORTH if seed % 2 else STANDARD, seed=seed)
        greedy, other = GreedyAgent(), RandomAgent(seed)
        while not game.is_over:
            legal, seat = game.legal_moves(), game.turn
            if seat % 2:
                game.play(other.act(game.view(seat), legal))
                continue
            move = greedy.act(game.view(seat), legal)
            plays = [m for m in legal if m]
            if not plays:
                assert move is PASS
            elif game.table is None:
                longest = max(m.size for m in plays)
                assert move is min((m for m in plays if m.size == longest), key=lambda m: m.index)
            else:
                assert move is min(plays, key=lambda m: m.index)
            game.play(move)


def test_random_agent_is_reproducible_and_uniform():
    view, legal = view_of("3C 9D TC 2S", "8D")  # four choices
    a, b = RandomAgent(5), RandomAgent(5)
    picks = [a.act(view, legal) for _ in range(400)]
    assert picks == [b.act(view, legal) for _ in range(400)]
    assert set(picks) == set(legal)
    assert picks != [RandomAgent(6).act(view, legal) for _ in range(400)]
    shared = random.Random(5)
    assert [RandomAgent(shared).act(view, legal) for _ in range(400)] == picks


def test_random_agents_replay_identically_and_stay_legal():
    def play(seed):
        game, agents = Game(seed=seed), [RandomAgent(seed * 4 + s) for s in range(4)]
        while not game.is_over:
            legal = game.legal_moves()
            move = agents[game.turn].act(game.view(game.turn), legal)
            assert move in legal
            game.play(move)
        return game.log

    logs = [play(seed) for seed in range(5)]
    assert logs == [play(seed) for seed in range(5)]
    assert len({json.dumps(log.to_dict()) for log in logs}) == 5
