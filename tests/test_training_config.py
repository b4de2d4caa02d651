"""training.config (the frozen Config and its flags), run-directory safety and scoped seeding."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

from training.build import scoped_seed
from training.config import Config, parse_args
from training.train import main, train

SMALL = {"steps": 8, "epoch_steps": 8, "envs": 1, "eval_deals": 1, "hidden": (8,)}


@pytest.mark.parametrize(
    ("overrides", "error"),
    [
        ({"algo": "sac"}, "algo must be 'ppo' or 'dqn'"),
        ({"steps": 0}, "steps must be positive"),
        ({"envs": 0}, "envs must be positive"),
        ({"device": "tpu"}, "device must be one of"),
        ({"opponents": ("nosuch",)}, "unknown opponents"),
        ({"eval_opponents": ("self", "nosuch")}, "unknown opponents"),
        ({"opponents": ("self-all", "random")}, "takes no other opponents"),
        ({"opponents": ()}, "needs at least one agent"),
        ({"observer": "oracle"}, "sees every hand"),
        ({"critic_observer": "x-ray"}, "unknown observer"),
        ({"actions": "cards"}, "unknown action codec"),
    ],
)
def test_bad_configs_fail_before_anything_is_written(tmp_path, overrides, error):
    with pytest.raises(ValueError, match=error):
        train(Config(**{**SMALL, "run_dir": str(tmp_path / "run"), **overrides}))
    assert not (tmp_path / "run").exists()


def test_a_run_directory_that_holds_a_run_is_refused_unless_overwritten(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / "latest.pt").write_text("an earlier run")
    cfg = Config(**{**SMALL, "run_dir": str(run)})
    with pytest.raises(
        ValueError, match=r"already holds files \(latest.pt\).*--resume.*--overwrite"
    ):
        train(cfg)
    assert (run / "latest.pt").read_text() == "an earlier run"  # nothing lost
    with pytest.raises(SystemExit, match="already holds files"):
        main(["--steps", "8", "--run-dir", str(run)])
    assert sorted(p.name for p in run.iterdir()) == ["latest.pt"]


def test_main_reports_bad_configs(tmp_path):
    with pytest.raises(SystemExit, match="training: algo must be"):
        main(["--algo", "sac", "--steps", "8", "--run-dir", str(tmp_path / "run")])
    assert not (tmp_path / "run").exists()


def test_parse_args_fills_a_frozen_config():
    argv = "--hidden 8 4 --opponents random self --lr 0.001 --eval-deals 7 --no-action-rest"
    given, resume, overwrite = parse_args(argv.split())
    cfg = Config.from_dict(given)
    assert (cfg.hidden, cfg.opponents, cfg.eval_deals) == ((8, 4), ("random", "self"), 7)
    assert cfg.lr == 1e-3 and not cfg.action_rest and resume is None and not overwrite
    assert parse_args([]) == ({}, None, False)
    assert parse_args(["--resume", "runs/x", "--steps", "10"]) == ({"steps": 10}, "runs/x", False)
    assert parse_args(["--overwrite"])[2] is True
    with pytest.raises(SystemExit):  # a resumed run keeps its configuration
        parse_args(["--resume", "runs/x", "--lr", "0.1"])
    with pytest.raises(AttributeError):
        cfg.steps = 5  # frozen
    assert Config.from_dict({**cfg.to_dict(), "obs_size": 161}) == cfg  # old keys ignored


def test_scoped_seed_is_reproducible_and_restores_global_states():
    def draw():
        return random.random(), np.random.rand(), torch.rand(1).item()

    random.seed(7), np.random.seed(7), torch.manual_seed(7)
    expected_after = draw()
    random.seed(7), np.random.seed(7), torch.manual_seed(7)
    with scoped_seed(3):
        inside = draw()
    with pytest.raises(RuntimeError), scoped_seed(3):
        assert draw() == inside
        raise RuntimeError
    assert draw() == expected_after
    with scoped_seed(4):
        assert draw() != inside
