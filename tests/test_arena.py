"""big2.evaluation.arena: duplicate deals, seat rotation, summaries, CIs, reproducibility."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest

from big2.board import Board
from big2.cards import DECK
from big2.evaluation.arena import evaluate, play_game
from big2.evaluation.stats import share_ci
from big2.log import GameLog
from big2.players import GreedyAgent, RandomAgent
from big2.players.heuristic import HeuristicAgent
from big2.rules import CHARLESWORTH, STANDARD
from big2.rules import get as get_rules


class Recorder:
    """Wraps an agent; per game (the arena resets agents before each) records its seat,
    the hand it was dealt, whether it went out and, if so, every seat's cards left then."""

    def __init__(self, inner, name=None) -> None:
        self.inner = inner
        self.name = name or inner.name
        self.games: list[dict] = []

    def reset(self, seed: int) -> None:
        self.games.append({"seat": None, "dealt": None, "won": False, "left": None})
        if hasattr(self.inner, "reset"):
            self.inner.reset(seed)

    def act(self, view, legal_moves):
        game = self.games[-1]
        dealt = view.hand | view.played[view.seat]
        assert game["dealt"] in (None, dealt) and game["seat"] in (None, view.seat)
        game["seat"], game["dealt"] = view.seat, dealt
        move = self.inner.act(view, legal_moves)
        if move and move.cards == view.hand:
            game["won"], game["left"] = True, view.cards_left
        return move


def recorders():
    return [Recorder(GreedyAgent()), Recorder(RandomAgent(), "r1"), Recorder(RandomAgent(), "r2"),
            Recorder(HeuristicAgent())]  # fmt: skip


def stats(result):
    return [(a.wins, a.win_share, a.win_share_ci, a.mean_score, a.mean_score_ci)
            for a in result.agents]  # fmt: skip


def test_play_game_puts_agent_i_in_seat_i():
    board = Board(seed=21)
    players = recorders()
    seats = [2, 0, 3, 1]
    scores, winner = play_game(board, players, seats, seed="x")
    for agent, seat in zip(players, seats, strict=True):
        (game,) = agent.games
        assert game["seat"] == seat and game["dealt"] == board.hands[seat]
        assert game["won"] == (seat == winner)
    assert sum(scores) == 0 and scores[winner] > 0
    assert scores == play_game(board, recorders(), seats, seed="x")[0]  # reseeded: same game


@pytest.mark.parametrize("rules", [STANDARD, CHARLESWORTH])
def test_duplicate_deals_every_agent_plays_every_hand_once(rules):
    players = recorders()
    n = 6
    result = evaluate(players, n, seed=4, rules=rules)
    assert result.games == 4 * n and result.deals == n and result.rules == rules.name
    assert all(len(p.games) == 4 * n for p in players)
    deals = []
    for d in range(n):
        games = range(4 * d, 4 * d + 4)
        hands = {players[0].games[g]["dealt"] for g in games}
        assert len(hands) == 4 and sum(hands) == DECK  # the four hands of one deal
        for p in players:
            assert {p.games[g]["dealt"] for g in games} == hands  # each hand once per agent
            assert sorted(p.games[g]["seat"] for g in games) == [0, 1, 2, 3]
        for g in games:  # in one game the agents hold the four different hands
            assert len({p.games[g]["dealt"] for p in players}) == 4
        deals.append(frozenset(hands))
    assert len(set(deals)) == n  # the deals differ


def test_summary_matches_the_games_played():
    players = recorders()
    n = 12
    result = evaluate(players, n, seed=8)
    wins = [[0.0] * n for _ in players]
    scores = [[0.0] * n for _ in players]
    for g in range(4 * n):
        winner = next(p for p in players if p.games[g]["won"])
        left = winner.games[g]["left"]
        pay = [STANDARD.penalty(c) for c in left]
        pay[winner.games[g]["seat"]] = 0
        for i, p in enumerate(players):
            seat = p.games[g]["seat"]
            wins[i][g // 4] += (p is winner) / 4
            scores[i][g // 4] += (sum(pay) if p is winner else -pay[seat]) / 4
    for i, a in enumerate(result.agents):
        assert a.games == 4 * n and a.wins == round(sum(wins[i]) * 4)
        assert a.win_share == pytest.approx(sum(wins[i]) / n)
        assert a.win_share_ci == pytest.approx(share_ci(wins[i], 4 * n))  # Wilson: test_stats
        m = sum(scores[i]) / n
        half = 1.959964 * math.sqrt(sum((v - m) ** 2 for v in scores[i]) / (n - 1) / n)
        assert a.mean_score == pytest.approx(m)
        assert a.mean_score_ci == pytest.approx((m - half, m + half))


def test_win_shares_wins_and_scores_are_consistent():
    result = evaluate(["heuristic", "greedy", "random", "random"], 25, seed=2)
    assert sum(a.win_share for a in result.agents) == pytest.approx(1)
    assert sum(a.wins for a in result.agents) == result.games == 100
    for a in result.agents:
        assert isinstance(a.wins, int) and a.win_share == pytest.approx(a.wins / a.games)
        lo, hi = a.win_share_ci
        assert lo <= a.win_share <= hi and lo < hi
        lo, hi = a.mean_score_ci
        assert lo <= a.mean_score <= hi and lo < hi
    assert sum(a.mean_score for a in result.agents) == pytest.approx(0, abs=1e-9)


def test_confidence_intervals_shrink_with_more_deals():
    def widths(n):
        result = evaluate(["greedy", "random", "random", "random"], n, seed=5)
        return [(a.win_share_ci[1] - a.win_share_ci[0], a.mean_score_ci[1] - a.mean_score_ci[0])
                for a in result.agents]  # fmt: skip

    for (w_few, s_few), (w_many, s_many) in zip(widths(16), widths(256), strict=True):
        assert w_many < w_few / 2 and s_many < s_few / 2
    one = evaluate(["greedy", "random", "random", "random"], 1, seed=5).agents[0]
    assert one.win_share_ci is None  # one deal: no interval (test_stats)


def test_workers_do_not_change_results_but_seeds_do():
    agents = ["random", "greedy", "heuristic", "random"]
    one = evaluate(agents, 20, seed=3, workers=1)
    two = evaluate(agents, 20, seed=3, workers=2)
    assert one == two
    assert stats(evaluate(agents, 20, seed=4)) != stats(one)


def test_random_agents_are_reseeded_every_game():
    def run(seed_a, seed_b):
        agents = [RandomAgent(seed_a), RandomAgent(seed_b), GreedyAgent(), "random"]
        return evaluate(agents, 15, seed=6)

    first = run(1, 2)
    assert run(1, 2) == first
    assert stats(run(98, 99)) == stats(first)  # the agents' own seeds are overridden
    shared = RandomAgent(0)  # one object in two seats is still reproducible
    same = [evaluate([shared, shared, "greedy", "greedy"], 10, seed=1) for _ in range(2)]
    assert same[0] == same[1]


def test_agent_objects_and_names_give_the_same_results():
    by_name = evaluate(["heuristic", "greedy", "random", "random"], 10, seed=9)
    by_object = evaluate([HeuristicAgent(), GreedyAgent(), RandomAgent(), RandomAgent(7)], 10, 9)
    assert by_object == by_name
    assert [a.name for a in by_name.agents] == ["heuristic", "greedy", "random#1", "random#2"]


@pytest.mark.parametrize(
    ("agents", "names"),
    [
        (["random"] * 4, ["random#1", "random#2", "random#3", "random#4"]),
        (["random", "greedy", "random", "heuristic"],
         ["random#1", "greedy", "random#2", "heuristic"]),
        ([HeuristicAgent(), "heuristic", GreedyAgent(), "random"],
         ["heuristic#1", "heuristic#2", "greedy", "random"]),
        ([Recorder(GreedyAgent(), "mine"), "greedy", "random", "heuristic"],
         ["mine", "greedy", "random", "heuristic"]),
    ],
)  # fmt: skip
def test_display_names(agents, names):
    assert [a.name for a in evaluate(agents, 1, seed=0).agents] == names


@pytest.mark.parametrize(
    ("agents", "n_deals", "message"),
    [
        (["random"] * 3, 5, r"needs 4 agents \(one per seat of the standard rules\), got 3"),
        (["random"] * 5, 5, r"needs 4 agents \(one per seat of the standard rules\), got 5"),
        (["random"] * 4, 0, "n_deals must be at least 1, got 0"),
        (["random"] * 4, -2, "n_deals must be at least 1"),
        (["random", "greedy", "alphago", "random"], 5,
         r"unknown agent 'alphago'; expected one of \['greedy', 'heuristic', 'random', 'search'\]"),
    ],
)  # fmt: skip
def test_errors(agents, n_deals, message):
    with pytest.raises(ValueError, match=message):
        evaluate(agents, n_deals)


@pytest.fixture(scope="module")
def result():
    return evaluate(["heuristic", "greedy", "random", "random"], 30, seed=12)


def test_table_lists_every_agent_and_its_numbers(result):
    lines = result.table().splitlines()
    assert len(lines) == 2 + 4 + 1 and set(lines[1]) == {"-"}
    for line, a in zip(lines[2:6], result.agents, strict=True):
        assert line.startswith(a.name)
        for number in (f"{a.games}", f"{a.win_share:.3f}", f"{a.mean_score:+.2f}",
                       f"[{a.win_share_ci[0]:.3f}, {a.win_share_ci[1]:.3f}]",
                       f"[{a.mean_score_ci[0]:+.2f}, {a.mean_score_ci[1]:+.2f}]"):  # fmt: skip
            assert number in line
    assert lines[-1] == "30 duplicate deals x 4 seatings, seed 12, standard rules"


def test_to_json_round_trips(result):
    data = json.loads(result.to_json())
    assert (data["deals"], data["games"], data["seed"], data["rules"]) == (30, 120, 12, "standard")
    assert len(data["agents"]) == 4
    for row, a in zip(data["agents"], result.agents, strict=True):
        assert row["name"] == a.name and row["wins"] == a.wins and row["games"] == a.games
        assert row["win_share"] == a.win_share and row["mean_score"] == a.mean_score
        assert tuple(row["win_share_ci"]) == a.win_share_ci
        assert tuple(row["mean_score_ci"]) == a.mean_score_ci


def test_to_csv_has_a_header_and_one_row_per_agent(result):
    rows = list(csv.reader(io.StringIO(result.to_csv())))
    assert rows[0] == ["agent", "games", "wins", "win_share", "win_share_lo", "win_share_hi",
                       "mean_score", "mean_score_lo", "mean_score_hi"]  # fmt: skip
    assert len(rows) == 5
    for row, a in zip(rows[1:], result.agents, strict=True):
        assert row[0] == a.name and int(row[1]) == a.games and int(row[2]) == a.wins
        numbers = [float(x) for x in row[3:]]
        assert numbers == [a.win_share, *a.win_share_ci, a.mean_score, *a.mean_score_ci]


def test_the_arena_can_save_every_game_for_replays(tmp_path):
    from big2.app.table import frames
    from big2.log import GameLog

    result = evaluate(["greedy", "random:1", "random:2", "heuristic"], 2, seed=3, log_dir=tmp_path)
    saved = sorted(tmp_path.glob("*.json"))
    assert [p.name for p in saved][:2] == ["deal-00000-seating-0.json", "deal-00000-seating-1.json"]
    assert len(saved) == result.games == 8
    winners = [frames(GameLog.from_json(p.read_text()))[-1]["winner"] for p in saved]
    assert all(w in range(4) for w in winners)


@pytest.mark.parametrize("name", ["three-player", "two-player"])
def test_a_deal_is_played_once_in_each_rotation_over_the_rules_seats(name, tmp_path):
    rules = get_rules(name)
    agents = ["heuristic", *["random"] * (rules.players - 1)]
    result = evaluate(agents, 3, seed=4, rules=rules, log_dir=tmp_path)
    assert result.games == 3 * rules.players and result.agents[0].games == 3 * rules.players
    logs = sorted(tmp_path.glob("deal-*.json"))
    assert len(logs) == 3 * rules.players
    for path in logs:
        log = GameLog.from_json(path.read_text(encoding="utf-8"))
        assert log.rules == rules and len(log.players) == rules.players
        assert sorted(log.players) == sorted(agents)
    with pytest.raises(ValueError, match=rf"needs {rules.players} agents \(one per seat"):
        evaluate(["random"] * 4, 1, rules=rules)
