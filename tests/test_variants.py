"""The rule variants in whole games of the Python engine, checked against the rules text.

Random games of every preset (and a few variants of one's own) run to the end under a
referee that keeps the turn rules apart from the engine (whose turn, the table, passes,
the opening card, the scores) and asks tests/reference.py, not big2.hand_ranking, which
plays beat the table. Then the deal (hand sizes, the leftover card), Taiwan's games as
Hong Kong's with other suit names, the errors of rules that cannot combine, rules files,
and logs of every preset through JSON and replay.
"""

from __future__ import annotations

import random
from dataclasses import replace
from itertools import permutations
from pathlib import Path

import pytest
from reference import ref_index, ref_plays, ref_stronger_than

from big2.app.cli import demo
from big2.board import Board
from big2.cards import DECK, format_cards, parse_cards
from big2.game import Game
from big2.hand_ranking import PASS
from big2.log import GameLog
from big2.players import RandomAgent, play
from big2.render import render_text
from big2.rules import (
    CHARLESWORTH,
    PRESETS,
    STANDARD,
    TAIWAN,
    THREE_PLAYER,
    TWO_PLAYER,
    Rules,
    get,
    load,
)

ROOT = Path(__file__).resolve().parent.parent
HOUSE = get(ROOT / "docs" / "house.toml")  # Taiwan's suits, three players, bombs on pairs
OWN = [
    HOUSE,
    replace(THREE_PLAYER, name="three-free", opening="free", penalty_steps=((1, 1), (9, 2))),
    replace(STANDARD, name="auto-4d-locks", opening="auto", opening_card="4D",
            pass_locks_out=True, suit_order="SHCD"),
    replace(TWO_PLAYER, name="two-wraps-fours", wrap_straights="high", four_card_plays=True,
            bombs=("quads",), bombs_beat=(1, 2, 3)),
    replace(CHARLESWORTH, name="fours-no-fives", five_card_hands=(), straights_to_two=False,
            bombs=("two_pair", "quads"), bombs_beat=(3,)),
]  # fmt: skip
GAME_RULES = [*PRESETS.values(), *OWN]
# per rule set: over 100 moves each, the bomb deal among them (seed 1); 4 cost make test
# 14 s, 10 s of it the reference listing the plays of 26-card hands in two-player games
GAMES = 3


def penalty(rules: Rules, cards: int) -> int:
    """What a loser holding ``cards`` pays: cards x the multiplier of the last step of
    ``penalty_steps`` whose threshold it reaches."""
    multiplier = 0
    for threshold, factor in rules.penalty_steps:
        if cards >= threshold:
            multiplier = factor
    return cards * multiplier


class Referee:
    """The turn rules of docs/rules.md, kept apart from big2.game: the hands, whose turn
    it is, the table (a mask; None when empty), consecutive passes and who is out."""

    def __init__(self, rules: Rules, hands: tuple[int, ...]) -> None:
        self.rules, self.hands = rules, list(hands)
        self.opening = opening_mask(rules)
        self.turn = next(s for s, h in enumerate(hands) if h & self.opening)
        self.first = rules.opening == "contains"
        self.table: int | None = None
        self.table_seat = self.winner = None
        self.passes, self.locked = 0, set()

    def legal(self) -> set[int]:
        """The masks of the moves the seat to act may make (0: a pass)."""
        hand = self.hands[self.turn]
        if self.table is None:
            plays = set(ref_plays(hand, range(1, 6), self.rules))
            return {m for m in plays if m & self.opening} if self.first else plays
        if self.turn in self.locked:
            return {0}
        return ref_stronger_than(hand, self.table, self.rules) | {0}

    def play(self, seat: int, move: int) -> None:
        assert seat == self.turn
        n = self.rules.players
        if move:
            self.hands[seat] ^= move
            self.table, self.table_seat, self.passes, self.first = move, seat, 0, False
            if not self.hands[seat]:
                self.winner = seat
            self.turn = (seat + 1) % n
            return
        self.passes += 1
        if self.rules.pass_locks_out:
            self.locked.add(seat)
        if self.passes == n - 1:  # every other seat passed: the last to play leads
            self.table, self.turn, self.passes, self.locked = None, self.table_seat, 0, set()
        else:
            self.turn = (seat + 1) % n


def opening_mask(rules: Rules) -> int:
    card = rules.opening_card  # "": the lowest card of the deck, index 0
    return 1 << (ref_index(card, rules.suit_order) if card else 0)


def check_deal(rules: Rules, hands: tuple[int, ...]) -> None:
    """The whole deck dealt: 13 cards each of four, 26 each of two, 17 each of three and
    the 52nd card to the opening card's holder (who holds it even when it was the 52nd)."""
    assert len(hands) == rules.players and sum(hands) == DECK
    assert all(not a & b for i, a in enumerate(hands) for b in hands[i + 1 :])
    sizes = [h.bit_count() for h in hands]
    if rules.players == 3:
        assert sorted(sizes) == [17, 17, 18]
        assert hands[sizes.index(18)] & opening_mask(rules)
    else:
        assert sizes == [52 // rules.players] * rules.players


def choose(rng: random.Random, legal):
    """A pass one time in five when allowed, else a play of a random size (so singles are
    led as often as five-card hands, and bombs get their chances)."""
    plays = [m for m in legal if m]
    if not plays or (not legal[-1] and rng.random() < 0.2):
        return legal[-1]
    size = rng.choice(sorted({m.size for m in plays}))
    return rng.choice([m for m in plays if m.size == size])


# every seat holds a four of a kind, two of them a straight flush too (odd games of rules
# with bombs: random deals seldom hold a bomb when a single is on the table)
BOMB_DEAL = ["2D 2C 2H 2S 3S 4S 5S 6S 7S", "AD AC AH AS 4H 5H 6H 7H 8H", "KD KC KH KS",
             "QD QC QH QS"]  # fmt: skip


def play_game(rules: Rules, seed: int) -> Game:
    """A random game to its end, every decision checked against the referee."""
    fixed = dict(enumerate(BOMB_DEAL[: rules.players])) if rules.bombs and seed % 2 else None
    rng, game = random.Random(f"{rules.name}:{seed}"), Game(rules, seed=seed, fixed=fixed)
    check_deal(rules, game.board.hands)
    ref = Referee(rules, game.board.hands)
    assert game.board.first_seat == ref.turn
    if rules.opening == "auto":  # the opening card was played for its holder
        (entry,) = game.log.moves
        assert (entry.seat, entry.move.cards, entry.table) == (ref.turn, ref.opening, None)
        ref.play(ref.turn, ref.opening)
    while not game.is_over:
        assert (game.turn, game.passes) == (ref.turn, ref.passes)
        assert (game.table and game.table.cards) == ref.table
        legal = game.legal_moves()
        where = f"{rules.name} seed {seed} move {len(game.log.moves)}"
        assert {m.cards for m in legal} == ref.legal(), where
        plays = [m for m in legal if m]
        assert [m.index for m in plays] == sorted(m.index for m in plays), where
        assert PASS not in legal[:-1], where  # a pass is the last move, when allowed
        move = choose(rng, legal)
        ref.play(game.turn, move.cards)
        game.play(move)
    assert game.winner == ref.winner and game.hands == tuple(ref.hands)
    return game


@pytest.mark.parametrize("rules", GAME_RULES, ids=lambda r: r.name)
def test_random_games_follow_the_rules(rules):
    moves = 0
    for seed in range(GAMES):
        game = play_game(rules, seed)
        moves += len(game.log.moves)
        first = next(e for e in game.log.moves if e.move)
        if rules.opening == "contains":
            assert first.move.cards & opening_mask(rules)
        penalties = [penalty(rules, h.bit_count()) for h in game.hands]
        scores = game.scores()
        assert sum(scores) == 0 and scores[game.winner] == sum(penalties)
        assert all(scores[s] == -penalties[s] for s in range(rules.players) if s != game.winner)
    assert moves >= 100


def test_penalties_of_the_presets():
    assert [penalty(PRESETS["standard"], n) for n in (1, 9, 10, 12, 13)] == [1, 9, 20, 24, 39]
    assert penalty(PRESETS["pusoy-dos"], 13) == penalty(PRESETS["charlesworth"], 13) == 13
    assert penalty(THREE_PLAYER, 18) == THREE_PLAYER.max_penalty == 54
    assert penalty(TWO_PLAYER, 26) == TWO_PLAYER.max_penalty == 78
    for rules in GAME_RULES:
        assert [rules.penalty(n) for n in range(27)] == [penalty(rules, n) for n in range(27)]


# ------------------------------------------------------------------ suit orders


@pytest.mark.parametrize("order", ["".join(p) for p in permutations("DCHS")])
def test_card_text_under_every_suit_order(order):
    """Index = 4 x rank + the suit's place in the order, for every card and order."""
    for rank in "3456789TJQKA2":
        for suit in "DCHS":
            text = rank + suit
            index = ref_index(text, order)
            assert parse_cards(text, order) == 1 << index
            assert parse_cards(text.lower(), order) == 1 << index
            assert format_cards(1 << index, suits=order) == text
    lowest = Rules(name="mine", suit_order=order)
    assert lowest.opening_index == 0 and format_cards(1, suits=order) == "3" + order[0]
    assert Rules(name="mine", suit_order=order, opening_card="2" + order[0]).opening_index == 48


def test_preset_suit_orders_in_text():
    assert [get(n).suit_order for n in ("standard", "taiwan", "pusoy-dos")] == [
        "DCHS",
        "CDHS",
        "CSHD",
    ]
    assert parse_cards("3C", "CDHS") == 1 and parse_cards("3D", "CDHS") == 2
    assert parse_cards("2D", "CSHD") == 1 << 51 and parse_cards("2S", "CSHD") == 1 << 49


def test_taiwan_plays_the_standard_games_with_other_suit_names():
    """Same seed, same index-level deal and game; the texts differ by D <-> C only."""
    swap = str.maketrans("DC", "CD")
    for seed in range(3):
        std, tw = Game(STANDARD, seed=seed), Game(TAIWAN, seed=seed)
        assert std.board.hands == tw.board.hands
        rng = random.Random(seed)
        while not std.is_over:
            a, b = std.legal_moves(), tw.legal_moves()
            assert [(m.cards, m.index) for m in a] == [(m.cards, m.index) for m in b]
            k = rng.randrange(len(a))
            std.play(a[k])
            tw.play(b[k])
        assert tw.is_over and (std.winner, std.scores()) == (tw.winner, tw.scores())
        index_log = [[(e.seat, e.move.cards, e.table and e.table.cards) for e in g.log.moves]
                     for g in (std, tw)]  # fmt: skip
        assert index_log[0] == index_log[1]
        s, t = std.log.to_dict(), tw.log.to_dict()
        assert t["deal"] == [h.translate(swap) for h in s["deal"]] != s["deal"]
        for ms, mt in zip(s["moves"], t["moves"], strict=True):
            assert mt["move"] == ms["move"].translate(swap)
            assert mt["table"] == (ms["table"] and ms["table"].translate(swap))
        assert s["rules"] | {"name": "taiwan", "suit_order": "CDHS"} == t["rules"]


# ------------------------------------------------------------------- the deal


def test_the_leftover_goes_to_the_opening_card_holder():
    for seed in range(30):
        board = Board(THREE_PLAYER, seed=seed)
        check_deal(THREE_PLAYER, board.hands)  # 17, 17 and 18 cards
        assert board.hands[board.holder(0)].bit_count() == 18
        assert Game.from_board(board).turn == board.first_seat == board.holder(0)


def deal_leaving(card: int, lowest_seat: int, lowest: int) -> dict[int, int]:
    """Three hands of 17 (masks), ``card`` dealt to nobody and ``lowest`` (the lowest
    card dealt) to ``lowest_seat``."""
    rest = [c for c in range(52) if c not in (card, lowest)]
    hands = {s: 0 for s in range(3)}
    hands[lowest_seat] |= 1 << lowest
    for c in rest:
        seat = next(s for s in range(3) if hands[s].bit_count() < 17)
        hands[seat] |= 1 << c
    return hands


@pytest.mark.parametrize(
    ("rules", "card", "lowest"),
    [
        (THREE_PLAYER, 0, 1),  # the 3D left over: to the holder of the 3C
        (replace(THREE_PLAYER, name="three-taiwan", suit_order="CDHS"), 0, 1),
        (replace(THREE_PLAYER, name="three-3s", opening_card="3S"), 3, 0),  # the 3S: 3D's
    ],
    ids=lambda x: x.name if isinstance(x, Rules) else str(x),
)
def test_a_leftover_opening_card_goes_to_the_lowest_card_holder(rules, card, lowest):
    assert rules.opening_index == card
    for seat in range(3):
        fixed = deal_leaving(card, seat, lowest)
        board = Board(rules, seed=0, fixed=fixed)
        assert board.hands[seat] == fixed[seat] | 1 << card
        assert [h.bit_count() for h in board.hands] == [18 if s == seat else 17 for s in range(3)]
        game = Game.from_board(board)
        assert game.turn == seat == board.first_seat
        assert game.legal_moves() and all(m.cards >> card & 1 for m in game.legal_moves())
        assert Board.from_hands(board.hands, rules) == board


def test_a_deal_against_the_leftover_rule_is_refused():
    fixed = deal_leaving(5, 0, 0)  # the 3D with seat 0, which would take the 5th card
    fixed[1] |= 1 << 5  # but seat 1 holds 18
    with pytest.raises(ValueError, match="17 cards per seat and 18 for the holder of the opening"):
        Board.from_hands([fixed[s] for s in range(3)], THREE_PLAYER)


# -------------------------------------------------------- rules that cannot combine


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"opening": "free", "opening_card": "3S"}, ["opening_card", "opening='free'"]),
        ({"straights_to_two": True, "wrap_straights": "low"}, ["straights_to_two",
                                                               "wrap_straights='low'"]),
        ({"wrap_straights": "high", "five_card_hands": ("flush", "full_house")},
         ["wrap_straights='high'", "five_card_hands"]),
        ({"bombs": ("four_of_a_kind",)}, ["bombs=", "bombs_beat="]),
        ({"bombs_beat": (1,)}, ["bombs=", "bombs_beat="]),
        ({"bombs": ("quads",), "bombs_beat": (1,)}, ["bombs", "four_card_plays"]),
        ({"bombs": ("flush",), "bombs_beat": (1,), "five_card_hands": ("straight",)},
         ["bombs", "five_card_hands"]),
        ({"five_card_hands": ("straight", "flush")}, ["five_card_hands", "straight_flush"]),
        ({"players": 4, "penalty_steps": ((1, 1), (14, 2))}, ["penalty_steps", "players"]),
    ],
)  # fmt: skip
def test_fields_that_cannot_combine_are_named(fields, named):
    with pytest.raises(ValueError) as error:
        Rules(name="mine", **fields)
    for name in named:
        assert name in str(error.value), f"{name!r} not in {error.value}"


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"players": 5}, "players must be 2, 3 or 4"),
        ({"suit_order": "DCH"}, "suit_order must be the four suit letters"),
        ({"opening_card": "3X"}, "opening_card '3X'"),
        ({"five_card_hands": ("straight", "straight")}, "names a category twice"),
        ({"five_card_hands": ("pairs",)}, "five_card_hands must name categories"),
        ({"bombs": ("straight",), "bombs_beat": (4,)}, "bombs_beat must be sizes of 1, 2 or 3"),
        ({"wrap_straights": "both"}, "wrap_straights must be one of"),
        ({"flush_order": "colour"}, "flush_order must be one of"),
    ],
)
def test_bad_fields_are_named(fields, named):
    with pytest.raises(ValueError, match=named):
        Rules(name="mine", **fields)


# ---------------------------------------------------------------- rules files


def test_a_rules_file(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('base = "pusoy-dos"\nplayers = 2\nwrap_straights = "low"\n')
    rules = load(path)
    assert (rules.name, rules.players, rules.suit_order, rules.wrap_straights) == (
        "mine", 2, "CSHD", "low",
    )  # fmt: skip
    assert get(str(path)) == rules == get(path)
    assert HOUSE.name == "house" and (HOUSE.players, HOUSE.bombs_beat) == (3, (1, 2))


@pytest.mark.parametrize(
    ("text", "wrong"),
    [
        ('base = "standard"\nseats = 5\n', "unknown rules fields ['seats']"),
        ("players = 4\nplayers = [\n", "is not valid TOML"),
        ('base = "hearts"\n', "unknown rules 'hearts'"),
        ('players = "four"\n', "players must be 2, 3 or 4"),
        ('straights_to_two = true\nwrap_straights = "high"\n', "cannot combine"),
        ("penalty_steps = 3\n", "penalty_steps 3 is malformed"),
    ],
)
def test_a_bad_rules_file_is_named_with_what_is_wrong(tmp_path, text, wrong):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ValueError) as error:
        load(path)
    assert str(path) in str(error.value) and wrong in str(error.value), str(error.value)


def test_a_missing_rules_file_is_named(tmp_path):
    path = tmp_path / "nowhere.toml"
    with pytest.raises(ValueError, match="cannot read rules file") as error:
        get(str(path))
    assert str(path) in str(error.value)


# ----------------------------------------------------------------------- logs


@pytest.mark.parametrize("rules", GAME_RULES, ids=lambda r: r.name)
def test_logs_round_trip_and_replay(rules):
    game = play(Game(rules, seed=100), RandomAgent(seed=100))
    text = game.log.to_json()
    log = GameLog.from_json(text)
    assert log == game.log and log.rules == rules and log.to_json() == text
    assert log.deal == game.board.hands
    assert log.to_dict()["deal"] == [format_cards(h, suits=rules.suit_order) for h in log.deal]
    again = Game.replay(log)
    assert (again.hands, again.winner, again.scores()) == (game.hands, game.winner, game.scores())
    assert again.log == game.log


# ------------------------------------------------------ card text at the edges


def test_render_names_cards_in_the_rules_suit_order():
    game = Game(TAIWAN, seed=0)
    seat = game.turn
    game.play(game.legal_moves()[0])  # a single: the 3C, Taiwan's lowest card
    text = render_text(game, show=seat)
    assert f"          {format_cards(game.hand(seat), suits='CDHS')}\n" in text
    assert "table: 3C (single) by seat" in text and "recent: " + f"{seat}: 3C (single)" in text


@pytest.mark.parametrize("name", ["taiwan", "pusoy-dos", "three-player", "two-player"])
def test_demo_of_a_variant(name):
    """The demo seats the rules' players and names the hands' cards as it names the moves."""
    rules = get(name)
    lines = demo(1, rules).splitlines()
    holds = [line.split(" holds ")[1] for line in lines if " holds " in line]
    deal = Board(rules, seed=random.Random(1)).hands  # the demo deals from Random(seed)
    assert holds == [format_cards(h, suits=rules.suit_order) for h in deal]
    first = next(line for line in lines if line.strip().startswith("1. seat"))
    seat = int(first.split("seat ")[1].split(":")[0])
    opening = format_cards(1, suits=rules.suit_order)  # the 3C under taiwan
    assert opening in holds[seat].split() and opening in first.split()
