"""Golden playthroughs (tests/data/playthrough_*.txt, written by tests/make_playthrough.py).

The text is regenerated in memory and must match the file exactly; a mismatch prints a
unified diff. Independently of the script, the file's actions and rewards are checked
against a lowest-legal-action game played here.
"""

from __future__ import annotations

import difflib
import re

import make_playthrough
import numpy as np
import pytest

from envs.big2_env import raw_env

SPECS = make_playthrough.PLAYTHROUGHS
IDS = [spec[0] for spec in SPECS]


def golden(spec):
    return make_playthrough.path_of(spec[0]).read_text(encoding="utf-8")


def test_one_playthrough_per_preset():
    assert sorted(IDS) == ["charlesworth", "standard"]
    assert {(s[0], s[1], s[2]) for s in SPECS} == {
        ("standard", "simple", "catalog"),
        ("charlesworth", "charlesworth", "hand"),
    }


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_playthrough_matches_the_golden_file(spec):
    expected, actual = golden(spec), make_playthrough.playthrough(*spec)
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                fromfile=str(make_playthrough.path_of(spec[0])),
                tofile="regenerated",
            )
        )
        print(diff)
        pytest.fail(
            f"the {spec[0]} playthrough is stale (run .venv/bin/python tests/make_playthrough.py"
            f" if the change is intended):\n{diff[:4000]}"
        )


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_golden_file_records_a_lowest_legal_action_game(spec):
    rules, observer, actions, seed = spec
    text = golden(spec)
    aec = raw_env(rules=rules, observer=observer, actions=actions)
    aec.reset(seed=seed)
    played = []
    while not aec.game.is_over:
        action = int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0])
        played.append((aec.agent_selection, aec.game.turn, action))
        aec.step(action)
    steps = re.findall(r"^step (\d+): (player_\d) \(seat (\d)\)$", text, re.MULTILINE)
    chosen = [int(a) for a in re.findall(r"^  action: (\d+)$", text, re.MULTILINE)]
    assert [int(n) for n, _, _ in steps] == list(range(len(played)))
    assert [(agent, int(seat)) for _, agent, seat in steps] == [(a, s) for a, s, _ in played]
    assert chosen == [a for _, _, a in played]
    rewards = ", ".join(f"{a}={aec.rewards[a]:g}" for a in aec.possible_agents)
    assert text.rstrip().endswith(f"rewards: {rewards}")
    assert sum(aec.game.scores()) == 0 and text.count("  observation:") == len(played)


def test_check_mode_reports_stale_files(tmp_path, capsys):
    assert make_playthrough.main(["--check"]) == 0
    assert make_playthrough.main(["--check"], directory=tmp_path) == 1  # missing files
    assert make_playthrough.main([], directory=tmp_path) == 0
    assert make_playthrough.main(["--check"], directory=tmp_path) == 0
    path = make_playthrough.path_of("standard", tmp_path)
    path.write_text(path.read_text(encoding="utf-8").replace("action: 0", "action: 1", 1))
    assert make_playthrough.main(["--check"], directory=tmp_path) == 1
    assert "playthrough_standard.txt" in capsys.readouterr().out
