"""big2.evaluation.stats' win-share intervals (Wilson, with the deals' effective number of
trials) on 1, 3 and 1,000 deals, and the tables that show them."""

from __future__ import annotations

import csv
import io
import json
import random

import pytest

from big2.evaluation.arena import evaluate, summarise
from big2.evaluation.league import run_league
from big2.evaluation.stats import interval_text, normal_ci, share_ci, wilson
from big2.rules import STANDARD


def deals_of(wins):
    """Per-deal results (wins, score) of agent 0 winning ``wins[d]`` of deal d's four
    games, the other three sharing the rest."""
    out = []
    for w in wins:
        rest = [(4 - w) // 3 + (k < (4 - w) % 3) for k in range(3)]
        out.append([(w, 10 * w), *((r, 10 * r) for r in rest)])
    return out


def share_interval(wins):
    return summarise(["a", "b", "c", "d"], deals_of(wins), 0, STANDARD).agents[0].win_share_ci


def test_one_deal_has_no_interval_and_says_so():
    result = evaluate(["greedy", "random", "random", "random"], 1, seed=5)
    assert all(a.win_share_ci is None for a in result.agents)
    assert result.agents[0].mean_score_ci == (result.agents[0].mean_score,) * 2  # as before
    lines = result.table().splitlines()[2:6]
    assert all("n/a (1 deal)" in line for line in lines)
    assert [a["win_share_ci"] for a in json.loads(result.to_json())["agents"]] == [None] * 4
    rows = list(csv.DictReader(io.StringIO(result.to_csv())))
    assert [(r["win_share_lo"], r["win_share_hi"]) for r in rows] == [("", "")] * 4
    assert float(rows[0]["mean_score_lo"]) == result.agents[0].mean_score


@pytest.mark.parametrize(
    ("wins", "expected"),
    [
        ([2, 3, 4], (0.4269, 0.9236)),  # normal: 0.750 [0.467, 1.033]
        ([4, 4, 4], (0.7575, 1.0)),  # all won, no spread: 12 independent games
        ([0, 0, 0], (0.0, 0.2425)),
        ([1, 1, 1], (0.0889, 0.5323)),  # the same share each deal: not zero width
    ],
)
def test_three_deals_stay_in_0_1_and_have_a_width(wins, expected):
    lo, hi = share_interval(wins)
    assert (lo, hi) == pytest.approx(expected, abs=1e-4)
    assert 0.0 <= lo < sum(wins) / 12 or lo == 0.0
    assert lo < hi <= 1.0


def test_on_1000_deals_it_is_the_normal_interval_and_stays_inside():
    rng = random.Random(0)
    wins = [rng.choice([0, 0, 1, 1, 1, 2, 3]) for _ in range(1000)]
    shares = [w / 4 for w in wins]
    lo, hi = share_interval(wins)
    n_lo, n_hi = normal_ci(shares)
    assert (lo + hi) / 2 == pytest.approx((n_lo + n_hi) / 2, rel=0.01)
    assert hi - lo == pytest.approx(n_hi - n_lo, rel=0.01)
    never = share_interval([0] * 1000)  # normal: [0, 0]
    assert never[0] == 0.0 and 0.0 < never[1] < 0.001
    always = share_interval([4] * 1000)
    assert 0.999 < always[0] < 1.0 and always[1] == 1.0


def test_wilson_and_bad_input():
    assert wilson(0.5, 1e9) == pytest.approx((0.5, 0.5), abs=1e-4)
    assert wilson(1.0, 3)[1] == 1.0 and wilson(1.0, 3)[0] == pytest.approx(0.4385, abs=1e-4)
    with pytest.raises(ValueError, match=r"a share is in \[0, 1\]; got -0.5 to 1.0"):
        share_ci([-0.5, 1.0], games=8)
    with pytest.raises(ValueError, match="2 shares need at least as many games, not 1"):
        share_ci([0.5, 1.0], games=1)
    with pytest.raises(ValueError, match="positive number of trials, not 0"):
        wilson(0.5, 0)
    assert interval_text(None, 1) == "n/a (1 deal)" and interval_text(None, 0) == "n/a (0 deals)"
    assert interval_text((-1.5, 2.0), 3, "{:+.2f}") == "[-1.50, +2.00]"


def test_a_league_of_one_deal_shows_its_tables():
    result = run_league(["greedy", "random"], deals=1, seed=2)
    assert all(d.win_share_ci is None for d in result.head_to_head)
    for a in result.agents:  # two (match, deal) pairs each: an interval inside [0, 1]
        assert a.win_share_ci is not None and 0.0 <= a.win_share_ci[0] < a.win_share_ci[1] <= 1.0
    text = result.markdown()
    assert "| 1 | `" in text and "n/a" not in text
    assert json.loads(result.to_json())["head_to_head"][0]["win_share_ci"] is None
