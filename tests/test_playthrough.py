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
from env_helpers import CODECS, OBSERVER_NAMES, PRESETS

from envs.big2_env import raw_env

SPECS = make_playthrough.PLAYTHROUGHS
IDS = [spec.name for spec in SPECS]


def golden(spec):
    return make_playthrough.path_of(spec.name).read_text(encoding="utf-8")


def test_one_playthrough_per_observer_and_one_for_the_state():
    assert sorted(IDS) == [
        "card_counting",
        "charlesworth",
        "history",
        "oracle",
        "planes",
        "standard",
        "state",
    ]
    observed = sorted(s.observer for s in SPECS if not s.state)
    assert observed == sorted(OBSERVER_NAMES)
    assert [s.name for s in SPECS if s.state] == ["state"]
    assert {(s.name, s.rules, s.observer, s.actions, s.seed) for s in SPECS[:2]} == {
        ("standard", "standard", "simple", "catalog", 0),
        ("charlesworth", "charlesworth", "charlesworth", "hand", 0),
    }
    assert {s.rules for s in SPECS} == set(PRESETS) and {s.actions for s in SPECS} == set(CODECS)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_playthrough_matches_the_golden_file(spec):
    expected, actual = golden(spec), make_playthrough.playthrough(spec)
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                fromfile=str(make_playthrough.path_of(spec.name)),
                tofile="regenerated",
            )
        )
        print(diff)
        pytest.fail(
            f"the {spec.name} playthrough is stale (run .venv/bin/python tests/make_playthrough.py"
            f" if the change is intended):\n{diff[:4000]}"
        )


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_golden_file_records_a_lowest_legal_action_game(spec):
    text = golden(spec)
    aec = raw_env(rules=spec.rules, observer=spec.observer, actions=spec.actions)
    aec.reset(seed=spec.seed)
    played, observations = [], []
    while not aec.game.is_over:
        obs = aec.observe(aec.agent_selection)
        action = int(np.flatnonzero(obs["action_mask"])[0])
        played.append((aec.agent_selection, aec.game.turn, action))
        observations.append(aec.state() if spec.state else obs["observation"])
        aec.step(action)
    steps = re.findall(r"^step (\d+): (player_\d) \(seat (\d)\)$", text, re.MULTILINE)
    chosen = [int(a) for a in re.findall(r"^  action: (\d+)$", text, re.MULTILINE)]
    assert [int(n) for n, _, _ in steps] == list(range(len(played)))
    assert [(agent, int(seat)) for _, agent, seat in steps] == [(a, s) for a, s, _ in played]
    assert chosen == [a for _, _, a in played]
    rewards = ", ".join(f"{a}={aec.rewards[a]:g}" for a in aec.possible_agents)
    assert text.rstrip().endswith(f"rewards: {rewards}")
    label = "  state:" if spec.state else "  observation:"
    assert sum(aec.game.scores()) == 0 and text.count(label) == len(played)
    assert text.count("final state:") == spec.state
    encoder = aec.state_observer if spec.state else aec.observer
    size = "state" if spec.state else "observation"
    assert f"; {size} size: {encoder.size}\n" in text
    recorded = re.findall(rf"^{label}\n((?:    \w+: .*\n)*)", text, re.MULTILINE)
    assert recorded == [_nonzero_lines(encoder, flat) for flat in observations]


def _nonzero_lines(encoder, flat):
    """The playthrough's lines for ``flat``, computed here from flat indices and offsets."""
    out = []
    for piece in encoder.pieces:
        start = encoder.offsets[piece.name]
        ones = [i - start for i in np.flatnonzero(flat) if start <= i < start + piece.size]
        if ones:
            text = " ".join(str(i) if flat[start + i] == 1 else f"{i}={flat[start + i]:.6g}"
                            for i in ones)  # fmt: skip
            out.append(f"    {piece.name}: {text}\n")
    return "".join(out)


def test_check_mode_reports_stale_files(tmp_path, capsys):
    assert make_playthrough.main(["--check"]) == 0
    assert make_playthrough.main(["--check"], directory=tmp_path) == 1  # missing files
    assert make_playthrough.main([], directory=tmp_path) == 0
    assert make_playthrough.main(["--check"], directory=tmp_path) == 0
    path = make_playthrough.path_of("standard", tmp_path)
    path.write_text(path.read_text(encoding="utf-8").replace("action: 0", "action: 1", 1))
    assert make_playthrough.main(["--check"], directory=tmp_path) == 1
    assert "playthrough_standard.txt" in capsys.readouterr().out
