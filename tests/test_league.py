"""big2.evaluation.league and big2 league: head-to-head matches, OpenSkill ratings,
resuming, and what is refused before any game."""

from __future__ import annotations

import json

import pytest

from big2.app.cli import main as big2_main
from big2.evaluation.arena import evaluate
from big2.evaluation.league import matches, run_league
from big2.evaluation.ratings import Ratings
from big2.rules import CHARLESWORTH

AGENTS = ["random", "greedy", "heuristic"]


class Stop(Exception):
    """Stands for an interruption (Ctrl-C, a killed process) between two matches."""


def test_ratings_order_random_below_greedy_and_heuristic():
    result = run_league(AGENTS, deals=4, seed=0)
    rating = {a.spec: a.rating for a in result.agents}
    assert rating["random"] < min(rating["greedy"], rating["heuristic"])
    assert result.agents[-1].spec == "random"  # ranked by rating
    assert [a.games for a in result.agents] == [2 * 2 * 4 * 4] * 3  # 4 matches x 4 deals x 4


def test_same_seed_same_league_json_whatever_the_workers(tmp_path):
    run_league(AGENTS, deals=3, seed=5, out=tmp_path / "a")
    run_league(AGENTS, deals=3, seed=5, out=tmp_path / "b", workers=2)
    run_league(AGENTS, deals=3, seed=6, out=tmp_path / "c")
    league = {d: (tmp_path / d / "league.json").read_text() for d in "abc"}
    assert league["a"] == league["b"] != league["c"]
    data = json.loads(league["a"])
    assert (data["rules"], data["deals"], data["seed"]) == ("standard", 3, 5)
    assert set(data["agents"][0]) >= {"spec", "rating", "sigma", "win_share", "mean_score", "games"}
    assert len(data["head_to_head"]) == 6
    rows = (tmp_path / "a" / "leaderboard.md").read_text().splitlines()
    assert [r[:5] for r in rows if r[2:3].isdigit()] == ["| 1 |", "| 2 |", "| 3 |"]
    assert len([r for r in rows if r.startswith("| `")]) == 3  # the head-to-head table
    assert (tmp_path / "a" / "league.png").stat().st_size > 0


def test_an_interrupted_league_resumes_to_the_same_result(tmp_path):
    run_league(AGENTS, deals=2, seed=1, out=tmp_path / "whole")
    played: list[tuple[int, int]] = []

    def stop_after_two(match: tuple[int, int]) -> None:
        played.append(match)
        if len(played) == 2:
            raise Stop

    with pytest.raises(Stop):
        run_league(AGENTS, deals=2, seed=1, out=tmp_path / "cut", on_match=stop_after_two)
    assert len(list((tmp_path / "cut" / "matches").glob("*.json"))) == 2
    assert not (tmp_path / "cut" / "league.json").exists()
    played.clear()
    run_league(AGENTS, deals=2, seed=1, out=tmp_path / "cut", on_match=played.append)
    assert len(played) == len(matches(3)) - 2  # only the matches missing were played
    whole, cut = ((tmp_path / d / "league.json").read_text() for d in ("whole", "cut"))
    assert cut == whole


def test_a_folder_of_another_league_is_refused_naming_the_difference(tmp_path):
    run_league(AGENTS, deals=2, seed=1, out=tmp_path)
    with pytest.raises(ValueError, match="deals 2 there, 3 here"):
        run_league(AGENTS, deals=3, seed=1, out=tmp_path)
    with pytest.raises(
        ValueError, match="agents random greedy heuristic there, random greedy here"
    ):
        run_league(AGENTS[:2], deals=2, seed=1, out=tmp_path)


def test_agents_added_after_a_leagues_own_extend_it_playing_only_their_matches(tmp_path):
    run_league(AGENTS, deals=2, seed=1, out=tmp_path / "whole")
    run_league(AGENTS[:2], deals=2, seed=1, out=tmp_path / "grown")
    first = {p.name: p.read_text() for p in (tmp_path / "grown" / "matches").iterdir()}
    played: list[tuple[int, int]] = []
    run_league(AGENTS, deals=2, seed=1, out=tmp_path / "grown", on_match=played.append)
    assert sorted(played) == [(0, 2), (1, 2), (2, 0), (2, 1)]  # the new agent's only
    for name, text in first.items():
        assert (tmp_path / "grown" / "matches" / name).read_text() == text
    whole, grown = ((tmp_path / d / "league.json").read_text() for d in ("whole", "grown"))
    assert grown == whole
    settings = json.loads((tmp_path / "grown" / "settings.json").read_text())
    assert settings["agents"] == AGENTS


@pytest.mark.parametrize(
    ("agents", "deals", "message"),
    [
        (["greedy", "random", "heuristic"], 2, "agents random greedy there, greedy random"),
        (["random", "greedy", "heuristic"], 3, "deals 2 there, 3 here"),
    ],
)
def test_only_agents_added_after_its_own_extend_a_league(tmp_path, agents, deals, message):
    run_league(AGENTS[:2], deals=2, seed=1, out=tmp_path)
    before = {p.name: p.read_text() for p in tmp_path.rglob("*.json")}
    with pytest.raises(ValueError, match=message):
        run_league(agents, deals=deals, seed=1, out=tmp_path)
    assert {p.name: p.read_text() for p in tmp_path.rglob("*.json")} == before


def test_a_match_is_the_arenas_one_against_three():
    result = run_league(["greedy", "random"], deals=3, seed=2)
    duel = result.head_to_head[0]
    arena = evaluate(["greedy", "random", "random", "random"], 3, seed=2).agents[0]
    assert (duel.one, duel.three) == ("greedy", "random")
    assert (duel.win_share, duel.mean_score, duel.games) == (
        arena.win_share,
        arena.mean_score,
        arena.games,
    )
    assert duel.win_share_ci == arena.win_share_ci


def test_a_bad_spec_is_refused_before_any_game_and_nothing_is_written(tmp_path):
    out = tmp_path / "league"
    with pytest.raises(ValueError, match="league agent 'nosuch' does not load: unknown agent"):
        run_league(["random", "nosuch"], deals=1, out=out)
    with pytest.raises(
        ValueError, match=r"trained-charlesworth' does not load: .*charlesworth rules, not standard"
    ):
        run_league(["random", "trained-charlesworth"], deals=1, out=out)
    assert not out.exists()


@pytest.mark.parametrize(
    ("agents", "deals", "message"),
    [
        (["random"], 1, "at least two agents, got 1"),
        (["random", "greedy", "random"], 1, r"named more than once: \['random'\]"),
        (["random", "greedy"], 0, "at least 1 deal, got 0"),
    ],
)
def test_a_league_that_cannot_be_played_is_refused(tmp_path, agents, deals, message):
    with pytest.raises(ValueError, match=message):
        run_league(agents, deals=deals, out=tmp_path / "league")
    assert not (tmp_path / "league").exists()


def test_an_unwritable_out_is_refused_before_any_game(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(ValueError, match=r"cannot write the league in .*choose another --out"):
        run_league(["random", "greedy"], deals=1, out=blocker / "league", on_match=pytest.fail)


def test_copies_at_one_table_count_once():
    one, three = Ratings(["a", "b"]), Ratings(["a", "b"])
    one.rate(["a", "b", "b", "b"], (30, -10, -8, -12), 0)
    three.rate(["a", "b", "b", "b"], (30, -8, -10, -12), 0)
    assert one.mu("b") == three.mu("b")  # the copies' places among themselves do not matter
    assert one.mu("a") > 25 > one.mu("b") and one.sigma("a") < 25 / 3


def test_the_cli_plays_writes_and_prints_the_leaderboard(tmp_path, capsys):
    out = tmp_path / "league"
    big2_main(["league", "--agents", "random", "heuristic", "--deals", "2", "--out", str(out)])
    printed = capsys.readouterr().out
    assert "| 1 | `heuristic` |" in printed and str(out) in printed
    assert {p.name for p in out.iterdir()} >= {"league.json", "leaderboard.md", "league.png"}


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--agents", "random"], "big2 league: a league needs at least two agents"),
        (["--agents", "random", "alphago"], "big2 league: league agent 'alphago' does not load"),
    ],
)
def test_the_cli_says_what_is_wrong(tmp_path, arguments, message):
    with pytest.raises(SystemExit, match=message):
        big2_main(["league", *arguments, "--deals", "1", "--out", str(tmp_path / "x")])


def test_charlesworth_leagues_rate_charlesworth_agents(tmp_path):
    result = run_league(["trained-charlesworth", "random"], CHARLESWORTH, deals=1, seed=0)
    assert result.rules == "charlesworth" and result.agents[0].spec == "trained-charlesworth"
