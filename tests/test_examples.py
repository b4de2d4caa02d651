"""The examples in examples/ run end to end (a few seconds each, at tiny budgets)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUNS = {
    "cleanrl one seat": ["cleanrl_ppo.py", "--total-steps", "1500", "--games", "8",
                         "--rollout", "32", "--eval-deals", "3"],
    "cleanrl all seats": ["cleanrl_ppo.py", "--mode", "all-seats", "--total-steps", "1500",
                          "--games", "8", "--rollout", "32", "--eval-deals", "3"],
    "sb3 maskable ppo": ["sb3_maskable_ppo.py", "--steps", "256", "--envs", "2", "--rollout",
                         "64", "--batch", "64", "--eval-deals", "3"],
    "sb3 pettingzoo tutorial": ["sb3_pettingzoo_tutorial.py", "--steps", "256", "--eval-deals",
                                "3"],
    "tianshou pettingzoo": ["tianshou_pettingzoo.py", "--epochs", "1", "--epoch-steps", "300",
                            "--envs", "2", "--eval-deals", "3"],
}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("name", list(RUNS))
def test_the_example_runs_and_reports_its_win_share(name):
    if name.startswith("sb3"):
        pytest.importorskip("sb3_contrib")
    script, *flags = RUNS[name]
    # one torch thread: the suite's workers already use every core (under make test the
    # tutorial took 38 s with torch's default threads; alone, with one thread, 8 s)
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, str(ROOT / "examples" / script), *flags], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("win share vs three random players") and "deals of seed 2026" in last
    share = float(last.split(": ")[1].split()[0])
    assert 0.0 <= share <= 1.0
