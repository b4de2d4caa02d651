"""The per-epoch bookkeeping of training.train.Run (latest/best checkpoints, snapshots,
TensorBoard rows) under controlled evaluation scores."""

from __future__ import annotations

import dataclasses
import json

import pytest
from training_helpers import former_config

from training import checkpoint
from training import loop as train_module
from training.build import make_algorithm
from training.config import Config
from training.loop import Run, RunState
from training.spec import resolve

pytestmark = pytest.mark.usefixtures("one_thread")


def scripted(monkeypatch, results):
    """Make evaluate_policy return (win share, mean score) pairs from ``results``."""

    def fake_evaluation(spec, net, step):
        share, score = next(results)
        return [{"env_step": step, "opponent": o, "win_share": share, "win_share_ci": [0, 1],
                 "mean_score": score, "mean_score_ci": [0, 0], "deals": 1}
                for o in spec.config.eval_opponents]  # fmt: skip

    monkeypatch.setattr(train_module, "evaluate_policy", fake_evaluation)


class Writer:
    def __init__(self):
        self.rows = []

    def add_scalar(self, *args):
        self.rows.append(args)

    def close(self):
        pass


def epochs(cfg: Config, tmp_path, n: int) -> tuple[Run, list[int]]:
    spec = resolve(cfg)
    run = Run(spec, tmp_path, make_algorithm(spec), RunState())
    run.writer = Writer()  # type: ignore[assignment]
    best_epochs = []
    for epoch in range(1, n + 1):
        run.state.epoch, run.state.env_step = epoch, 100 * epoch
        run._after_epoch()
        best_epochs.append(checkpoint.load(tmp_path / "best.pt")["epoch"])
        assert checkpoint.load(tmp_path / "latest.pt")["epoch"] == epoch
    return run, best_epochs


def test_after_epoch_keeps_latest_best_and_snapshots(tmp_path, monkeypatch):
    """best.pt follows strictly better evaluation scores; latest.pt every epoch."""
    cfg = former_config(hidden=(16,), envs=2, opponents=("random", "self"),
                        eval_opponents=("random", "greedy"), snapshot_every=2)  # fmt: skip
    # mean scores per epoch (two opponents each): 2.0, 0.0, 2.0 (a tie is not better), 3.0
    scripted(monkeypatch, iter([(0.25, 2.0), (0.25, 0.0), (0.25, 2.0), (0.25, 3.0)]))
    run, best_epochs = epochs(cfg, tmp_path, 4)
    assert best_epochs == [1, 1, 1, 4] and run.best == 3.0
    history = json.loads((tmp_path / "evaluations.json").read_text())
    assert train_module.epoch_scores(history) == {100: 2.0, 200: 0.0, 300: 2.0, 400: 3.0}
    logged = [r for r in run.writer.rows if r[0].startswith("eval/")]
    assert len(logged) == 4 * 2 * 2 and logged[0] == ("eval/random/win_share", 0.25, 100)
    assert ("info/epoch", 4, 400) in run.writer.rows
    run._start_epoch()  # the next epoch plays against the pool
    pool = run.env.shards[0].pool  # the local shard's self-play opponents
    assert [s["epoch"] for s in run.state.snapshots] == [2, 4] and len(pool) == 2
    assert (
        checkpoint.load(tmp_path / "latest.pt")["snapshots"][-1]["weights"].keys()
        == pool[-1].net.state_dict().keys()
    )
    assert (tmp_path / "curve.png").stat().st_size > 0


def test_best_follows_win_share_under_the_win_reward(tmp_path, monkeypatch):
    """With --reward win, best.pt keeps the epoch with the best mean win share, not score."""
    cfg = former_config(hidden=(16,), envs=2, eval_opponents=("random", "greedy"), reward="win")
    # (win share, mean score) per epoch: the score peaks at epoch 1, the win share at 2
    scripted(monkeypatch, iter([(0.3, 9.0), (0.5, 1.0), (0.4, 2.0)]))
    run, best_epochs = epochs(cfg, tmp_path, 3)
    assert best_epochs == [1, 2, 2] and run.best == 0.5
    assert train_module.selection_key(dataclasses.replace(cfg, reward="score")) == "mean_score"
