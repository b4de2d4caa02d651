"""The one resume-or-start rule (training.train.resume_or_start) and what the recipe
stages and the study cells do with it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from training import checkpoint
from training.ablation.cell import resumable
from training.config import Config
from training.recipes import RECIPES
from training.recipes.run import _train_stage
from training.train import resume_or_start


def saved_run(run_dir: Path, cfg: Config, env_step: int = 100, **extra: object) -> Config:
    """A checkpoint of a run of ``cfg`` at ``env_step`` in ``run_dir`` (no networks: the
    rule reads its settings only); ``cfg`` as it runs there."""
    cfg = replace(cfg, run_dir=str(run_dir))
    run = {"epoch": 1, "env_step": env_step, "update_step": 1, "history": [], "snapshots": []}
    data = {"config": cfg.to_dict(), "state": {}, **run, **extra}
    checkpoint.save(run_dir / "latest.pt", data)
    return cfg


def files(folder: Path) -> dict[Path, tuple[bytes, int]]:
    return {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.rglob("*") if p.is_file()}


def test_no_checkpoint_starts(tmp_path):
    assert resume_or_start(Config(run_dir=str(tmp_path / "new"))) is None
    assert not (tmp_path / "new").exists()


def test_a_run_of_the_same_settings_resumes(tmp_path):
    cfg = saved_run(tmp_path, Config(lr=1e-4))
    assert resume_or_start(cfg)["env_step"] == 100


def test_what_a_resume_may_change_where_it_runs_and_its_init_still_resume(tmp_path):
    cfg = saved_run(tmp_path / "old", Config(init="old/best.pt", steps=1000))
    moved = tmp_path / "moved"
    (tmp_path / "old").rename(moved)
    where = {"run_dir": str(moved), "init": "moved/best.pt"}
    how = {"steps": 5000, "threads": 2, "max_minutes": 10.0, "device": "cpu"}
    assert resume_or_start(replace(cfg, **where, **how))["env_step"] == 100


def test_a_run_of_other_settings_is_refused_naming_them_and_nothing_is_written(tmp_path):
    cfg = saved_run(tmp_path, Config(lr=1e-4, seed=3))
    before = files(tmp_path)
    differ = r"other settings \(seed: 3 there, 4 here; lr: 0.0001 there, 0.0003 here\)"
    with pytest.raises(ValueError, match=differ):
        resume_or_start(replace(cfg, lr=3e-4, seed=4))
    assert files(tmp_path) == before


def test_kept_settings_must_match_too(tmp_path):
    cfg = saved_run(tmp_path, Config(steps=1000))
    with pytest.raises(ValueError, match=r"steps: 1000 there, 2000 here"):
        resume_or_start(replace(cfg, steps=2000), keep=("steps",))


def test_an_exported_agent_and_a_cut_checkpoint_are_refused(tmp_path):
    cfg = saved_run(tmp_path / "agent", Config(), exported=True)
    with pytest.raises(ValueError, match="is an exported agent, not a run to continue"):
        resume_or_start(cfg)
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / "latest.pt").write_bytes(b"half a checkpoint")
    with pytest.raises(checkpoint.CheckpointError, match="corrupt or not a checkpoint"):
        resume_or_start(Config(run_dir=str(cut)))


def test_a_recipe_stage_refuses_a_run_of_other_settings_before_training(tmp_path):
    cfg = RECIPES["trained"].scaled(0.0001).config(0, tmp_path)
    saved_run(Path(cfg.run_dir), replace(cfg, lr=1e-3))
    before = files(tmp_path)
    with pytest.raises(ValueError, match=r"other settings \(lr: 0.001 there, 0.0003 here\)"):
        _train_stage(cfg)
    assert files(tmp_path) == before


def test_a_recipe_stage_whose_run_is_done_trains_nothing(tmp_path):
    cfg = RECIPES["trained"].scaled(0.0001).config(0, tmp_path)
    saved_run(Path(cfg.run_dir), cfg, env_step=cfg.steps)
    before = files(tmp_path)
    assert _train_stage(cfg)
    assert files(tmp_path) == before


def test_a_cell_starts_again_where_the_rule_refuses(tmp_path):
    cfg = saved_run(tmp_path, Config(steps=1000, init=""))
    assert resumable(cfg)["env_step"] == 100
    assert resumable(replace(cfg, threads=2)) is not None  # where it computes: resumed
    assert resumable(replace(cfg, lr=1e-3)) is None  # a study that changed before a result
    assert resumable(replace(cfg, steps=2000)) is None  # a cell's budget is its result's
    assert resumable(replace(cfg, init="a.pt")) is None  # and so is what it started from
