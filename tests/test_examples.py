"""The examples in examples/ run end to end (a few seconds each, at tiny budgets).

Each runs as ``python examples/NAME.py`` would run it (``runpy``, under the name
``__main__``, with its flags in ``sys.argv``), in the test's own process: a fresh
interpreter per example spent most of its time importing torch and the RL libraries and,
for Tianshou's, compiling Tianshou's numba kernels, all of which this process has done.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# one update each (cleanrl: a rollout of 8 games x 32 steps = 256 decisions; sb3: one
# rollout of 64 steps; Tianshou: its first collection and one epoch): every line runs
RUNS = {
    "cleanrl one seat": ["cleanrl_ppo.py", "--total-steps", "256", "--games", "8",
                         "--rollout", "32", "--eval-deals", "3"],
    "cleanrl all seats": ["cleanrl_ppo.py", "--mode", "all-seats", "--total-steps", "256",
                          "--games", "8", "--rollout", "32", "--eval-deals", "3"],
    "sb3 maskable ppo": ["sb3_maskable_ppo.py", "--steps", "64", "--envs", "1", "--rollout",
                         "64", "--batch", "64", "--eval-deals", "3"],
    # the tutorial's MaskablePPO collects 2,048 steps (SB3's default) whatever --steps says
    "sb3 pettingzoo tutorial": ["sb3_pettingzoo_tutorial.py", "--steps", "256", "--eval-deals",
                                "3"],
    "tianshou pettingzoo": ["tianshou_pettingzoo.py", "--epochs", "1", "--epoch-steps", "128",
                            "--envs", "2", "--eval-deals", "3"],
}  # fmt: skip


# one torch thread: the suite's workers already use every core (under make test the
# tutorial took 38 s with torch's default threads; alone, with one thread, 8 s)
@pytest.mark.slow
@pytest.mark.usefixtures("one_thread")
@pytest.mark.parametrize("name", list(RUNS))
def test_the_example_runs_and_reports_its_win_share(name, monkeypatch, capsys):
    if name.startswith("sb3"):
        pytest.importorskip("sb3_contrib")
    script, *flags = RUNS[name]
    path = ROOT / "examples" / script
    monkeypatch.setattr(sys, "argv", [str(path), *flags])
    runpy.run_path(str(path), run_name="__main__")
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("win share vs three random players") and "deals of seed 2026" in last
    share = float(last.split(": ")[1].split()[0])
    assert 0.0 <= share <= 1.0
