"""The observer ablation runner: study parsing, statistics, and tiny studies end to end."""

from __future__ import annotations

import csv
import json
import math
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from filelock import FileLock
from training_helpers import FORMER_SETS

from big2.evaluation.stats import normal_ci, t95, t_ci
from training import checkpoint
from training.ablation import runner
from training.ablation.cell import _attempt
from training.ablation.cli import main, parse
from training.ablation.report import summary
from training.ablation.reuse import reuse_cells
from training.ablation.runner import (
    OUTPUTS,
    Outcome,
    StudyMismatch,
    cell_spec,
    prepare,
    run_cells,
)
from training.ablation.stats import (
    DEALS_ONLY,
    DISTINGUISHABLE,
    NOT,
    detectable,
    late_slope,
    paired,
    per_setting,
)
from training.ablation.study import Study, coerce
from training.config import Config, parse_args
from training.processes import Child
from training.train import train

ROOT = Path(__file__).resolve().parent.parent
# the smallest cells that still train, evaluate and report
# (on the former defaults: training_helpers)
TINY = [*FORMER_SETS, "--steps", "200", "--report-deals", "2", "--set", "envs=4",
        "--set", "epoch_steps=100", "--set", "eval_deals=1", "--set", "collect_steps=64",
        "--set", "hidden=16", "--set", "eval_opponents=random greedy", "--no-progress"]  # fmt: skip


def study_args(root: Path, *extra: str) -> list[str]:
    return ["--observers", "simple", "planes", "--seeds", "2", "--run-dir", str(root),
            "--workers", "2", *TINY, *extra]  # fmt: skip


# ------------------------------------------------------------------ statistics


def test_intervals_match_textbook_values():
    # mean 2.5, sd 1.2910: normal half-width 1.96 * 1.2910 / 2; t(3) = 3.182446
    lo, hi = normal_ci([1.0, 2.0, 3.0, 4.0])
    assert (lo + hi) / 2 == pytest.approx(2.5) and hi - lo == pytest.approx(2 * 1.265, abs=1e-3)
    lo, hi = t_ci([1.0, 2.0, 3.0, 4.0])
    assert hi - lo == pytest.approx(2 * 3.182446 * 1.290994 / 2, rel=1e-6)
    assert t_ci([2.0]) == (2.0, 2.0)


def test_paired_differences_on_hand_made_deals():
    # two seeds x three deals each; "b" is "a" minus one on every deal, plus seed noise
    cells = {
        ("a", 0): [3.0, 1.0, 2.0], ("a", 1): [4.0, 0.0, 2.0],
        ("b", 0): [2.0, 0.0, 1.0], ("b", 1): [3.0, -1.0, 1.0],
    }  # fmt: skip
    d = paired(cells, "a", "b")
    assert d.mean == pytest.approx(1.0)
    assert d.over_deals == pytest.approx((1.0, 1.0))  # the same gap on every deal
    assert d.over_seeds == pytest.approx((1.0, 1.0))
    assert d.verdict == DISTINGUISHABLE
    e = per_setting(cells, "a")
    assert e.mean == pytest.approx(2.0) and e.ci == pytest.approx((2.0, 2.0))


def test_verdicts_separate_deal_noise_from_seed_noise():
    # per deal the gap is steady (+1, +1.2), but the seeds disagree (+2.1 and +0.1)
    cells = {("a", 0): [2.0, 2.2], ("a", 1): [0.0, 0.2], ("b", 0): [0.0, 0.0], ("b", 1): [0.0, 0.0]}
    d = paired(cells, "a", "b")
    by_deal = [1.0, 1.2]
    assert d.over_deals == pytest.approx(normal_ci(by_deal))
    assert d.over_seeds == pytest.approx(t_ci([2.1, 0.1]))
    assert d.verdict == DEALS_ONLY
    noisy = {
        ("a", 0): [1.0, -1.0],
        ("a", 1): [1.0, -1.0],
        ("b", 0): [0.0, 0.0],
        ("b", 1): [0.0, 0.0],
    }
    assert paired(noisy, "a", "b").verdict == NOT


def test_one_seed_never_makes_a_difference_distinguishable():
    cells = {("a", 0): [1.0, 1.1, 0.9], ("b", 0): [0.0, 0.1, -0.1]}
    d = paired(cells, "a", "b")
    assert d.over_seeds is None and d.over_deals is not None
    assert d.verdict == DEALS_ONLY
    assert per_setting(cells, "a").ci is None
    assert paired({("a", 0): [1.0], ("b", 0): [0.0]}, "a", "b").verdict == NOT


def test_paired_differences_use_seeds_both_settings_finished():
    cells = {("a", 0): [1.0], ("a", 1): [5.0], ("b", 0): [0.0]}
    assert paired(cells, "a", "b").mean == pytest.approx(1.0)
    with pytest.raises(ValueError, match="no seed finished"):
        paired(cells, "a", "c")


def test_the_detectable_difference_pools_the_per_seed_differences():
    # per-seed differences from "ref": a: +0.08, +0.10, +0.12 (sd 0.02); b: -0.01, +0.01,
    # +0.03 (sd 0.02): pooled sd 0.02, three seeds, t(2) = 4.302653: threshold 0.0497
    wins = {"ref": [0.20, 0.20, 0.20], "a": [0.28, 0.30, 0.32], "b": [0.19, 0.21, 0.23]}
    cells = {(name, seed): [v, v] for name, values in wins.items() for seed, v in enumerate(values)}
    power = detectable(cells, "ref")
    assert power.sd == pytest.approx(0.02) and (power.seeds, power.comparisons) == (3, 2)
    assert power.threshold == pytest.approx(4.302653 * 0.02 / math.sqrt(3))
    # with equal spreads it is each paired interval's half-width over seeds: a's +0.10
    # is beyond it, b's +0.01 is not
    lo, hi = paired(cells, "a", "ref").over_seeds
    assert (hi - lo) / 2 == pytest.approx(power.threshold)
    assert paired(cells, "a", "ref").verdict == DISTINGUISHABLE
    assert paired(cells, "b", "ref").verdict != DISTINGUISHABLE


def test_the_late_slope_reads_the_second_half_of_the_budget_only():
    def curve(points: list[tuple[int, float]]) -> list[dict[str, object]]:
        return [{"env_step": s, "opponent": "h", "win_share": w} for s, w in points]

    rising_early = curve([(500_000, 0.1), (1_000_000, 0.2), (2_000_000, 0.2)])
    assert late_slope(rising_early, "h", 2_000_000) == 0.0
    assert late_slope(rising_early, "greedy", 2_000_000) is None  # no such evaluations
    assert late_slope(curve([(500_000, 0.1), (2_000_000, 0.4)]), "h", 2_000_000) is None
    falling = curve([(1_000_000, 0.30), (1_500_000, 0.28), (2_000_000, 0.26)])
    assert late_slope(falling, "h", 2_000_000) == pytest.approx(-0.04)


def test_more_seeds_detect_smaller_differences_and_one_seed_detects_nothing():
    def cells(seeds: int) -> dict[tuple[str, int], list[float]]:
        gaps = [0.01 * (i % 3) for i in range(seeds)]  # the same spread at any count
        return {**{("ref", i): [0.25] for i in range(seeds)},
                **{("x", i): [0.25 + g] for i, g in enumerate(gaps)}}  # fmt: skip

    assert detectable(cells(10), "ref").threshold < detectable(cells(3), "ref").threshold
    with pytest.raises(ValueError, match="no setting has two seeds paired with 'ref'"):
        detectable(cells(1), "ref")
    with pytest.raises(ValueError, match="no setting has two seeds"):
        detectable({("ref", 0): [0.2], ("ref", 1): [0.3]}, "ref")  # nothing to compare


def test_cells_reported_on_other_deals_are_an_error_not_left_out_of_the_power():
    cells = {("ref", 0): [0.2, 0.3], ("ref", 1): [0.3, 0.2],
             ("a", 0): [0.3, 0.3], ("a", 1): [0.2, 0.4],
             ("b", 0): [0.3, 0.3], ("b", 1): [0.2, 0.4, 0.1]}  # fmt: skip
    message = "same report deals in every cell: 'b' seed 0 has 2, 'b' seed 1 has 3"
    with pytest.raises(ValueError, match=message):
        detectable(cells, "ref")
    with pytest.raises(ValueError, match=message):
        paired(cells, "b", "ref")
    del cells["b", 1]
    cells["c", 5] = [0.9, 0.9]  # no seed in common with the reference: left out, counted
    power = detectable(cells, "ref")
    assert (power.seeds, power.comparisons) == (2, 1)


def test_a_crossed_study_reads_each_axis_averaged_over_the_others():
    study = Study(observers=("history", "history body=gru"), seeds=2,
                  grid=(("critic_observer", ("oracle", "")),))  # fmt: skip
    # wins (of 4 seatings) on two deals, seeds 0 and 1: the GRU wins one more a deal
    # than the MLP, averaged over the critics; the critic changes nothing on average
    wins = {"history critic_observer=oracle": ([1, 1], [1, 1]),
            "history critic_observer=": ([1, 1], [2, 0]),
            "history body=gru critic_observer=oracle": ([2, 2], [3, 1]),
            "history body=gru critic_observer=": ([2, 2], [2, 2])}  # fmt: skip
    outcomes = []
    for cell in study.cells(Path("root")):
        report = {o: {"wins": wins[cell.setting.name][cell.seed], "scores": [0, 0]}
                  for o in study.eval_opponents}  # fmt: skip
        outcomes.append(Outcome(cell, {"report": report, "steps": 100, "wall_seconds": 1.0,
                                       "curve": []}))  # fmt: skip
    text = summary(study, outcomes).split("## Each axis, averaged over the others")[1]
    assert ("| observer | history body=gru | history | random | +0.250 | [+0.250, +0.250] | "
            "[+0.250, +0.250] | distinguishable |") in text  # fmt: skip
    assert ("| critic_observer | critic_observer= | critic_observer=oracle | heuristic | "
            "+0.000 |") in text and text.count("not distinguishable") == 3  # fmt: skip
    one_axis = Study(observers=("history",), seeds=2, grid=study.grid)
    kept = [o for o in outcomes if o.cell.setting.observer == "history"
            and "body" not in o.cell.setting.name]  # fmt: skip
    assert "## Each axis" not in summary(one_axis, kept)


def test_a_t_quantile_needs_a_degree_of_freedom():
    assert t95(1) == pytest.approx(12.706205) and t95(31) == pytest.approx(1.959964)
    with pytest.raises(ValueError, match="at least 1 degree of freedom, got 0"):
        t95(0)


# ------------------------------------------------------------------ studies and settings


def test_grid_settings_and_cells():
    study = Study(observers=("simple", "oracle"), seeds=2, grid=(("plan_features", ("no", "yes")),))
    assert [s.label for s in study.settings()] == [
        "simple plan_features=false", "simple plan_features=true",
        "oracle plan_features=false (cheating upper bound)",
        "oracle plan_features=true (cheating upper bound)",
    ]  # fmt: skip
    cells = study.cells(Path("root"))
    assert len(cells) == 8 and len({c.directory for c in cells}) == 8
    assert [c.config.upper_bound for c in cells] == [False] * 4 + [True] * 4
    assert {c.config.threads for c in cells} == {1}
    study.check()


def test_an_observer_entry_carries_its_own_options():
    study = Study(observers=("history", "history body=gru"), seeds=2,
                  grid=(("critic_observer", ("oracle", "")),))  # fmt: skip
    assert [s.name for s in study.settings()] == [
        "history critic_observer=oracle", "history critic_observer=",
        "history body=gru critic_observer=oracle", "history body=gru critic_observer=",
    ]  # fmt: skip
    assert [c.config.body for c in study.cells(Path("root"))] == ["auto"] * 4 + ["gru"] * 4
    study.check()
    with pytest.raises(ValueError, match="cell card_counting body=gru seed 0: --body gru"):
        Study(observers=("card_counting body=gru",)).check()  # no move history to read
    with pytest.raises(ValueError, match="sets 'body', which --set or --grid sets too"):
        Study(observers=("history body=gru",), grid=(("body", ("auto", "gru")),)).check()
    with pytest.raises(ValueError, match="options take KEY=VALUE, got 'gru'"):
        Study(observers=("history gru",)).check()
    with pytest.raises(ValueError, match="unknown training option 'speed'"):
        Study(observers=("history speed=2",)).check()
    with pytest.raises(ValueError, match="names no observer"):
        Study(observers=(" ",)).check()


def test_options_are_coerced_and_bad_ones_named():
    assert coerce("opponents", "random greedy") == ("random", "greedy")
    assert coerce("lr", "0.001") == 0.001 and coerce("action_rest", "off") is False
    with pytest.raises(ValueError, match="unknown training option 'speed'"):
        coerce("speed", "1")
    for own in ("seed", "threads", "max_minutes", "backend", "upper_bound"):
        with pytest.raises(ValueError, match="set by the study itself"):
            coerce(own, "1")
    with pytest.raises(ValueError, match="takes true or false"):
        coerce("plan_features", "maybe")
    with pytest.raises(ValueError, match="takes an integer"):
        coerce("envs", "many")


@pytest.mark.parametrize(
    ("study", "message"),
    [
        (Study(observers=("x-ray",)), "unknown observer"),
        (Study(grid=(("actions", ("catalog", "catalog")),)), "lists a value twice"),
        (Study(grid=(("init", ("a/b", "a_b")),)), "share a directory"),
        (Study(grid=(("eval_seed", (1, 2)),)), "how every cell is measured"),
        (Study(seeds=0), "seeds must be positive"),
        (Study(baseline="nobody"), "baseline 'nobody' is not a setting"),
        (Study(report_seed=12345), "nothing was chosen on"),
        (Study(fixed=(("actions", "hand"),), grid=(("plan_features", (True,)),)), "cell simple"),
    ],
)
def test_impossible_studies_are_refused(study, message):
    with pytest.raises(ValueError, match=message):
        study.check()


def test_a_study_file_reads_like_the_command_line(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text(
        'observers = ["simple", "planes"]\nseeds = 2\nsteps = 500\nrun_dir = "out"\n'
        '[fixed]\nhidden = [16]\n[grid]\ncritic_observer = ["oracle", ""]\n'
    )
    from_file, run = parse(["--study", str(path), "--workers", "2"])
    from_flags, _ = parse(["--observers", "simple", "planes", "--seeds", "2", "--steps", "500",
                            "--run-dir", "out", "--set", "hidden=16",
                            "--grid", "critic_observer=oracle,"])  # fmt: skip
    assert from_file == from_flags and run.run_dir == Path("out") and run.workers == 2
    assert run.backend == "local" and run.ray_address == ""
    path.write_text("observers = [")
    with pytest.raises(ValueError, match="cannot read study file"):
        parse(["--study", str(path)])
    path.write_text('run_dir = "out"\n[grid]\nenvs = "16"\n')
    with pytest.raises(ValueError, match="needs a list of values"):
        parse(["--study", str(path)])


def test_a_study_files_fixed_table_reaches_the_cells_and_the_record(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text(f'observers = ["simple"]\nrun_dir = "{tmp_path / "run"}"\n'
                    '[fixed]\nlr = 0.001\nhidden = [16]\nplan_features = true\n')  # fmt: skip
    study, run = parse(["--study", str(path), "--set", "envs=4"])
    assert dict(study.fixed) == {"lr": 0.001, "hidden": (16,), "plan_features": True, "envs": 4}
    assert {(c.config.lr, c.config.hidden, c.config.envs) for c in study.cells(run.run_dir)} == {
        (0.001, (16,), 4)
    }
    prepare(study, run.run_dir)
    saved = json.loads((run.run_dir / "study.json").read_text())["fixed"]
    assert saved == {"lr": 0.001, "hidden": [16], "plan_features": True, "envs": 4}


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ("[set]\nlr = 0.001", r"the table \[fixed\] \(as study.json keeps them\), not \[set\]"),
        ("[fixed]\nlearning_rate = 0.1", "unknown training option 'learning_rate'"),
        ('[fixed]\nlr = "fast"', "option 'lr' takes a number, not 'fast'"),
        ('[fixed]\nreward = "lose"', r"option 'reward' takes one of \['score'"),
        ("[fixed]\nenvs = true", "option 'envs' takes an integer, not True"),
        ("[fixed]\nenvs = 0", "option 'envs' must be at least 1, not 0"),
        ("[fixed]\nhidden = [16.5]", "option 'hidden' takes an integer, not 16.5"),
        ("[fixed]\nhidden = 16", "option 'hidden' takes a list"),
        ("[fixed]\nseed = 3", "set by the study itself"),
        ('workers = "2"', "study key 'workers' takes an integer"),
        ("worker = 2", r"unknown study keys \['worker'\]; expected some of \['backend'"),
        ("fixed = 3", "study key 'fixed' takes a table of options"),
    ],
)
def test_bad_study_file_keys_are_refused_before_anything_is_written(
    lines, message, tmp_path, monkeypatch
):
    def write_nothing(*_):
        raise AssertionError("the study got as far as writing its directory")

    monkeypatch.setattr("training.ablation.cli.prepare", write_nothing)
    path = tmp_path / "study.toml"
    path.write_text(f'observers = ["simple"]\nseeds = 1\nrun_dir = "{tmp_path / "run"}"\n{lines}\n')
    with pytest.raises(SystemExit, match=message):
        main(["--study", str(path), "--set", "eval_deals=1"])
    assert not (tmp_path / "run").exists()


def test_the_oracle_actor_is_only_for_studies():
    with pytest.raises(ValueError, match="sees every hand"):
        Config(observer="oracle").check()
    Config(observer="oracle", upper_bound=True).check()
    with pytest.raises(SystemExit):
        parse_args(["--upper-bound"])  # not a training.train flag


# ------------------------------------------------------------------ tiny studies end to end


@pytest.fixture
def tiny_study(shared_tmp: Path) -> Iterator[Path]:
    """One tiny study for the whole session, trained by the first test that asks for it.

    Every xdist worker shares it (it trained once per worker before, up to three times a
    suite); a test holds its lock throughout, since some take a cell apart and redo it.
    """
    root = shared_tmp / "tiny-study"
    with FileLock(str(shared_tmp / "tiny-study.lock")):
        if not (shared_tmp / "tiny-study.trained").exists():  # not in root: a foreign file
            main(study_args(root))
            (shared_tmp / "tiny-study.trained").touch()
        yield root


def rows(root: Path) -> list[dict[str, str]]:
    with (root / "results.csv").open() as f:
        return list(csv.DictReader(f))


@pytest.mark.slow
def test_a_tiny_study_writes_every_output(tiny_study):
    for name in OUTPUTS:
        assert (tiny_study / name).stat().st_size > 0, name
    table = rows(tiny_study)
    assert [(r["setting"], r["seed"], r["status"]) for r in table] == [
        ("simple", "0", "done"), ("simple", "1", "done"), ("planes", "0", "done"),
        ("planes", "1", "done"),
    ]  # fmt: skip
    for r in table:
        assert int(r["steps"]) >= 200 and r["report_deals"] == "2" and r["hidden"] == "16"
        slug = "simple" if r["setting"] == "simple" else "planes"
        result = json.loads((tiny_study / "cells" / slug / f"seed{r['seed']}" / "result.json")
                            .read_text())  # fmt: skip
        for opponent in ("random", "greedy"):
            wins = result["report"][opponent]["wins"]
            assert len(wins) == 2 and float(r[f"{opponent}_win_share"]) == round(sum(wins) / 8, 4)
            assert not math.isnan(float(r[f"{opponent}_mean_score"]))
    summary = (tiny_study / "summary.md").read_text()
    assert "python -m training.ablation --observers simple planes" in summary
    assert f"the cells ran on {result['machine']}; this report was built on" in summary
    assert "## Paired differences against simple" in summary
    assert "| planes | random | win share |" in summary
    assert "Of these 4 differences:" in summary  # 1 setting x 2 opponents x 2 metrics
    power = summary.split("## Power")[1]  # one row per opponent, from the two seeds
    assert "| random | " in power and "| greedy | " in power and "| 2 | 1 of 1 |" in power
    trends = summary.split("## Have the curves flattened?")[1]  # a slope per setting and opponent
    assert "| simple | " in trends and "| planes | " in trends and trends.count(" [") == 4


@pytest.mark.slow
def test_a_rerun_skips_finished_cells_and_redoes_the_interrupted_one(tiny_study):
    cells = sorted(tiny_study.glob("cells/*/seed*/result.json"))
    assert len(cells) == 4
    before = {p: p.stat().st_mtime_ns for p in cells}
    interrupted = cells[0]
    old = json.loads(interrupted.read_text())
    interrupted.unlink()  # as if its process was stopped before it finished
    (interrupted.parent / "run" / "latest.pt").write_bytes(b"half a checkpoint")
    main(study_args(tiny_study))
    for p in cells[1:]:
        assert p.stat().st_mtime_ns == before[p], f"{p} ran again"
    new = json.loads(interrupted.read_text())
    assert new["report"] == old["report"] and new["curve"] == old["curve"]  # same seed


@pytest.mark.slow
def test_a_cell_cut_short_continues_from_its_last_checkpoint(tiny_study):
    path = sorted(tiny_study.glob("cells/*/seed*/result.json"))[1]
    whole = json.loads(path.read_text())
    cfg = Config.from_dict(whole["config"])
    path.unlink()
    train(replace(cfg, max_minutes=1e-9), overwrite=True)  # stopped after its first epoch
    cut = checkpoint.load(Path(cfg.run_dir) / "latest.pt")["env_step"]
    assert 0 < cut < whole["steps"]
    main(study_args(tiny_study))
    resumed = json.loads(path.read_text())
    assert whole["resumed_from"] == [] and resumed["resumed_from"] == [cut]
    assert resumed["curve"] == whole["curve"] and resumed["report"] == whole["report"]
    assert resumed["steps"] == whole["steps"] and resumed["train_seconds"] > 0


def test_a_resumed_cell_counts_each_earlier_attempt_once(tmp_path):
    run = tmp_path / "cell" / "run"
    run.mkdir(parents=True)
    (run / "latest.pt").write_bytes(b"")
    assert _attempt(run, {"env_step": 100}) == {"seconds": 0.0, "resumed_from": [100],
                                                "counted": None}  # no config.json  # fmt: skip
    (run / "config.json").write_text("{}")
    os.utime(run / "config.json", (1000.0, 1000.0))  # the attempt started here...
    os.utime(run / "latest.pt", (1600.0, 1600.0))  # ...and saved this checkpoint
    assert _attempt(run, {"env_step": 200})["seconds"] == 600.0
    # died before training wrote config.json again: nothing more to count
    again = _attempt(run, {"env_step": 200})
    assert again["seconds"] == 600.0 and again["resumed_from"] == [100, 200, 200]
    assert _attempt(run, None) == {"seconds": 0.0, "resumed_from": [], "counted": None}


@pytest.mark.slow
def test_a_study_reuses_the_cells_another_trained_alike(tiny_study, tmp_path, capsys):
    # critic_observer=oracle is the default: those cells are tiny_study's simple cells (its
    # seed 0 here: the other setting's cell is trained)
    args = [*study_args(tmp_path / "s", "--grid", "critic_observer=oracle,"), "--observers",
            "simple", "--seeds", "1", "--reuse", str(tiny_study)]  # fmt: skip
    main(args)
    assert "reused 1 finished cell of" in capsys.readouterr().out
    for seed in (0,):
        mine = json.loads((tmp_path / "s" / "cells" / "simple__critic_observer=oracle" /
                           f"seed{seed}" / "result.json").read_text())  # fmt: skip
        theirs = json.loads((tiny_study / "cells" / "simple" / f"seed{seed}" / "result.json")
                            .read_text())  # fmt: skip
        assert mine["report"] == theirs["report"] and mine["curve"] == theirs["curve"]
        assert mine["reused_from"].endswith(f"simple/seed{seed}")
        assert mine["setting"] == "simple critic_observer=oracle"
        trained = json.loads((tmp_path / "s" / "cells" / "simple__critic_observer=" /
                              f"seed{seed}" / "result.json").read_text())  # fmt: skip
        assert "reused_from" not in trained
    summary = (tmp_path / "s" / "summary.md").read_text()
    assert "the 2 finished cells (1 of them trained by another study and reused) took" in summary
    with pytest.raises(SystemExit, match=r"no study\.json there"):
        main([*args[:-1], str(tmp_path)])
    main(args)  # again: nothing left to copy or to train
    assert "reused 0 finished cells of" in capsys.readouterr().out


def test_reuse_says_when_no_cell_trains_alike_and_skips_what_is_not_a_result(tmp_path, capsys):
    source, _ = parse(study_args(tmp_path / "a"))
    cells = prepare(source, tmp_path / "a")
    for cell, text in zip(cells, ["{not json", '{"seed": 0}'], strict=False):
        cell.directory.mkdir(parents=True)
        (cell.directory / "result.json").write_text(text)
    other, _ = parse(study_args(tmp_path / "b", "--report-deals", "3"))
    reused = reuse_cells(prepare(other, tmp_path / "b"), other, [tmp_path / "a"])
    assert reused.copied == [] and reused.matching == 0
    assert reused.describe("a").startswith("reused no cell of a: none of its finished cells")
    warnings = capsys.readouterr().err
    assert warnings.count("is not a cell result") == 2 and "; it is not reused" in warnings
    assert not list((tmp_path / "b").glob("cells/*/*/result.json"))


@pytest.mark.slow
def test_a_study_is_read_against_another_baseline_without_training(tiny_study, tmp_path, capsys):
    # docs/ablation.md pairs the observer study with `simple` this way
    main([*study_args(tmp_path / "v", "--baseline", "planes"), "--reuse", str(tiny_study)])
    assert "reused 4 finished cells" in capsys.readouterr().out
    assert not list((tmp_path / "v").glob("cells/*/seed*/run"))  # nothing trained
    summary = (tmp_path / "v" / "summary.md").read_text()
    assert "## Paired differences against planes" in summary
    assert "| simple | random | win share |" in summary
    mine, theirs = rows(tmp_path / "v"), rows(tiny_study)
    assert [r["random_win_share"] for r in mine] == [r["random_win_share"] for r in theirs]


@pytest.mark.slow
def test_a_moved_study_resumes_and_a_retrained_cell_is_refused(tiny_study, tmp_path):
    moved = tmp_path / "elsewhere"
    moved.symlink_to(tiny_study)  # the same study under another path
    results = sorted(tiny_study.glob("cells/*/seed*/result.json"))
    before = [p.stat().st_mtime_ns for p in results]
    main(study_args(moved))
    assert [p.stat().st_mtime_ns for p in results] == before  # every cell skipped
    saved = results[0].read_text()
    data = json.loads(saved)
    data["config"]["lr"] = 0.5
    results[0].write_text(json.dumps(data))
    try:
        with pytest.raises(SystemExit, match=r"trained with other options \(lr\)"):
            main(study_args(tiny_study))
    finally:
        results[0].write_text(saved)


@pytest.mark.slow
def test_a_summary_without_common_seeds_says_so(tiny_study):
    study, run = parse(study_args(tiny_study))
    outcomes = run_cells(prepare(study, run.run_dir), study, 1, progress=False)
    assert all(o.result is not None for o in outcomes)  # every cell skipped
    # simple (the reference) finished only seed 0, planes only seed 1
    for o in outcomes:
        if (o.cell.setting.name, o.cell.seed) in (("simple", 1), ("planes", 0)):
            o.result, o.error = None, "RuntimeError: lost"
    text = summary(study, outcomes)
    assert "no seed finished for both 'planes' and 'simple'" in text
    assert "## Failed cells" in text and "planes seed 0: RuntimeError: lost" in text


@pytest.mark.slow
def test_a_changed_setting_is_refused_and_nothing_is_touched(tiny_study):
    saved = (tiny_study / "study.json").read_text()
    csv_before = (tiny_study / "results.csv").read_text()
    with pytest.raises(SystemExit, match=r"other settings \(steps: 200 there, 300 here\)"):
        main([*study_args(tiny_study), "--steps", "300"])
    with pytest.raises(SystemExit, match="unknown training option 'learning_rate'"):
        main([*study_args(tiny_study), "--set", "learning_rate=0.1"])
    assert (tiny_study / "study.json").read_text() == saved
    assert (tiny_study / "results.csv").read_text() == csv_before


@pytest.mark.slow
def test_a_failing_cell_is_reported_and_the_others_finish(tmp_path, capsys):
    missing = tmp_path / "missing.pt"
    args = ["--observers", "simple", "--seeds", "1", "--run-dir", str(tmp_path / "s"),
            "--workers", "2", "--grid", f"init=,{missing}", *TINY]  # fmt: skip
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 1
    table = {r["setting"]: r for r in rows(tmp_path / "s")}
    assert table["simple init="]["status"] == "done"
    failed = table[f"simple init={missing}"]
    assert failed["status"] == "failed" and "missing.pt" in failed["error"]
    assert "1 cells failed" in capsys.readouterr().out
    summary = (tmp_path / "s" / "summary.md").read_text()
    assert "## Failed cells" in summary and "missing.pt" in summary


@pytest.mark.slow
def test_a_study_stopped_part_way_resumes_where_it_stopped(tmp_path):
    root = tmp_path / "stopped"
    # two cells, one at a time: stopped after the first
    args = [*study_args(root), "--seeds", "1", "--workers", "1"]
    command = [sys.executable, "-m", "training.ablation", *args]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)  # fmt: skip
    deadline = time.monotonic() + 300
    while not list(root.glob("cells/*/seed*/result.json")) and time.monotonic() < deadline:
        time.sleep(0.2)
    process.send_signal(signal.SIGTERM)
    assert process.wait(60) != 0
    finished = {p: p.stat().st_mtime_ns for p in root.glob("cells/*/seed*/result.json")}
    assert len(finished) == 1, "stop it part-way"
    assert not cell_processes(root), "the stopped study left cells running"
    main(args)
    assert all(p.stat().st_mtime_ns == t for p, t in finished.items())  # skipped
    assert [r["status"] for r in rows(root)] == ["done"] * 2


def cell_processes(root: Path) -> list[str]:
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    return [
        line for line in ps.splitlines() if "training.ablation.cell" in line and str(root) in line
    ]


def test_a_corrupt_study_record_is_refused_and_kept(tmp_path):
    (tmp_path / "study.json").write_text("{half a record")
    with pytest.raises(SystemExit, match="is not a study record"):
        main(study_args(tmp_path))
    assert (tmp_path / "study.json").read_text() == "{half a record"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["study.json"]


def finish(cell, study: Study, options: dict | None = None, **record) -> Path:
    """Give ``cell`` the spec and result a finished cell of ``study`` has, as if trained
    (its config with ``options`` changed, its result with ``record``); the result's path."""
    spec = cell_spec(cell, study)
    cell.directory.mkdir(parents=True, exist_ok=True)
    (cell.directory / "cell.json").write_text(json.dumps(spec))
    result = {**spec, "config": {**spec["config"], **(options or {})}, "seed": cell.seed,
              "steps": study.steps, "train_seconds": 1.0, "wall_seconds": 1.0, "curve": [],
              "report": {"random": {"wins": [1, 0], "scores": [3, -2]}}, **record}  # fmt: skip
    (cell.directory / "result.json").write_text(json.dumps(result))
    return cell.directory / "result.json"


def started_cells(monkeypatch) -> list[str]:
    """The names of the cells run_cells starts from now on (none is run)."""
    started = []

    class Finished:
        returncode = 0

        def poll(self) -> int:
            return 0

    def start(cell, _study):
        started.append(cell.name)
        log = cell.directory / runner.LOG
        return Child(Finished(), log, log.open("wb"))

    monkeypatch.setattr(runner, "_start", start)
    return started


def test_a_study_without_its_record_keeps_its_cells_and_writes_the_record_again(
    tmp_path, monkeypatch, capsys
):
    root = tmp_path / "s"
    study, _ = parse(study_args(root))
    cells = prepare(study, root)
    results = [finish(cell, study) for cell in cells[:3]]
    cells[3].directory.mkdir(parents=True)  # started: its spec written, no result
    (cells[3].directory / "cell.json").write_text(json.dumps(cell_spec(cells[3], study)))
    before = [p.read_bytes() for p in results]
    (root / "study.json").unlink()  # deleted, or never written
    (root / "summary.md").write_text("an earlier report")
    started = started_cells(monkeypatch)
    outcomes = run_cells(prepare(study, root), study, workers=1, progress=False)
    assert started == [cells[3].name]  # the finished cells are kept, the other continues
    assert [o.result is not None for o in outcomes] == [True] * 3 + [False]
    assert [p.read_bytes() for p in results] == before
    assert json.loads((root / "study.json").read_text()) == study.to_dict()
    assert "had no study.json; the 4 cells in it are this study's" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda c, s: finish(c[0], s, {"lr": 0.5}),
            r"simple seed 0 \(result.json\) trains with "
            r"other options \(lr\)",
        ),
        (
            lambda c, s: finish(c[1], s, report_deals=9),
            r"simple seed 1 \(result.json\) trains "
            r"with other options \(report_deals\)",
        ),
        (
            lambda c, s: (c[2].directory / "cell.json").write_text("{half"),
            "planes seed 0: its cell.json is not a record this study can read",
        ),
        (
            lambda c, s: (c[0].directory.parent / "seed7").mkdir(),
            "cells/simple/seed7 is not a cell of this study",
        ),
        (
            lambda c, s: (c[0].directory.parents[2] / "notes.txt").write_text("mine"),
            r"not only a study's \(notes.txt\)",
        ),
    ],
)
def test_a_study_without_its_record_refuses_cells_of_another_and_changes_nothing(
    make, message, tmp_path
):
    root = tmp_path / "s"
    study, _ = parse(study_args(root))
    cells = prepare(study, root)
    for cell in cells:
        finish(cell, study)
    (root / "study.json").unlink()
    make(cells, study)
    files = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    with pytest.raises(StudyMismatch, match=message):
        prepare(study, root)
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == files


def test_cells_start_seed_by_seed(tmp_path, monkeypatch):
    """Every setting's seed 0 runs before any seed 1: a study stopped early holds whole seeds."""
    from training.ablation import runner

    study, started = Study(observers=("simple", "planes"), seeds=2, steps=10), []

    class Finished:
        returncode = 0

        def poll(self) -> int:
            return 0

    def start(cell, _study):
        started.append((cell.setting.name, cell.seed))
        cell.directory.mkdir(parents=True)
        log = cell.directory / runner.LOG
        return Child(Finished(), log, log.open("wb"))

    monkeypatch.setattr(runner, "_start", start)
    outcomes = run_cells(study.cells(tmp_path), study, workers=1, progress=False)
    assert started == [("simple", 0), ("planes", 0), ("simple", 1), ("planes", 1)]
    assert [(o.cell.setting.name, o.cell.seed) for o in outcomes][:2] == [
        ("simple", 0),
        ("simple", 1),
    ]
    assert all(o.error and "exited with status 0" in o.error for o in outcomes)  # no result
