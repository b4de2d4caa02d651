"""lab.critic_report: the critic's and a heuristic playout's share of the learner's return."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lab import critic_report
from training import checkpoint
from training.config import FORMER_DEFAULTS, Config
from training.export import export_agent
from training.train import train

TINY = {
    **FORMER_DEFAULTS,  # the defaults this experiment ran on
    "steps": 512,
    "epoch_steps": 256,
    "envs": 2,
    "collect_steps": 128,
    "batch_size": 64,
    "eval_deals": 2,
    "hidden": (64, 32),
    "threads": 1,
    "opponents": ("heuristic", "random"),
    "eval_opponents": ("random",),
    "reward": "win",
}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny PPO run against heuristic and random players, rewarded for winning."""
    out = tmp_path_factory.mktemp("critic") / "run"
    train(Config(**TINY, run_dir=str(out)))
    return out


def test_every_finished_decision_gets_its_return_value_and_playout(run: Path):
    data = checkpoint.load(run / "latest.pt")
    cfg = Config.from_dict({**data["config"], "envs": 4})
    got = critic_report.collect(cfg, data["state"], 80, seed=1)
    n = len(got["return"])
    assert n > 20 and all(len(v) == n for v in got.values())
    assert set(np.unique(got["playout"])) <= {0.0, 1.0} and np.isfinite(got["critic"]).all()
    last = got["to_go"] == 0  # a game's last decision: its return is the win reward itself
    assert np.isin(got["return"][last].round(5), [1.0, round(-1 / 3, 5)]).all()
    earlier = got["return"][~last]  # discounted, so strictly inside the rewards' range
    assert ((earlier > -1 / 3) & (earlier < 1)).all()


def test_the_report_prints_a_table_and_refuses_an_exported_agent(run: Path, tmp_path, capsys):
    capsys.readouterr()  # the run's own output
    critic_report.main([str(run / "latest.pt"), "--steps", "60", "--envs", "4"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("explained variance of the return:") and len(lines) == 3 + 5
    export_agent(run / "latest.pt", tmp_path / "agent.pt")
    with pytest.raises(SystemExit):
        critic_report.main([str(tmp_path / "agent.pt")])
    assert "holds no PPO critic" in capsys.readouterr().err
