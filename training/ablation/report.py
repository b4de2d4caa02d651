"""A study's outputs: ``results.csv``, ``summary.md``, ``curves.png`` and ``final.png``.

Everything is computed from the cells' ``result.json`` files, so the report of a
finished study can be rebuilt by re-running its command (every cell is skipped).
"""

from __future__ import annotations

import csv
import os
import platform
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from big2.evaluation.stats import mean, t_ci
from training.ablation.runner import Outcome
from training.ablation.stats import METRICS, CellValues, deal_values, paired, per_cell, per_setting
from training.ablation.study import Setting, Study

OUTPUTS = ("results.csv", "summary.md", "curves.png", "final.png")


def write_report(study: Study, outcomes: Sequence[Outcome], root: Path) -> list[Path]:
    """Write the four outputs into ``root``; their paths."""
    finished = [o for o in outcomes if o.result is not None]
    paths = [root / name for name in OUTPUTS]
    write_csv(study, outcomes, paths[0])
    paths[1].write_text(summary(study, outcomes), encoding="utf-8")
    plot_curves(study, finished, paths[2])
    plot_final(study, finished, paths[3])
    return paths


def cell_values(outcomes: Sequence[Outcome], opponent: str, metric: str) -> CellValues:
    """(setting name, seed) -> per-deal values, for the finished cells."""
    return {
        (o.cell.setting.name, o.cell.seed): deal_values(o.done["report"][opponent], metric)
        for o in outcomes
        if o.result is not None
    }


# ------------------------------------------------------------------ results.csv


def write_csv(study: Study, outcomes: Sequence[Outcome], path: Path) -> None:
    """One row per cell: its settings, seed, steps, time, and each opponent's figures."""
    varied = [k for k, _ in study.grid]
    fixed = [k for k, _ in study.fixed]
    head = ["setting", "cheats", "observer", *varied, *fixed, "seed", "status", "steps",
            "wall_seconds", "report_seed", "report_deals"]  # fmt: skip
    for opponent in study.eval_opponents:
        for metric in METRICS:
            head += [f"{opponent}_{metric}", f"{opponent}_{metric}_lo", f"{opponent}_{metric}_hi"]
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow([*head, "error"])
        for o in outcomes:
            config, result = o.cell.config.to_dict(), o.result
            row: list[Any] = [o.cell.setting.label, o.cell.setting.cheats, o.cell.setting.observer,
                   *(_cell_text(config[k]) for k in varied + fixed), o.cell.seed,
                   "failed" if result is None else "done"]  # fmt: skip
            if result is None:
                row += [""] * (len(head) - len(row)) + [o.error]
            else:
                row += [result["steps"], round(result["wall_seconds"], 1), study.report_seed,
                        study.report_deals]  # fmt: skip
                for opponent in study.eval_opponents:
                    for metric in METRICS:
                        e = per_cell(deal_values(result["report"][opponent], metric))
                        row += [round(e.mean, 4), round(e.ci[0], 4), round(e.ci[1], 4)]
                row.append("")
            writer.writerow(row)


def _cell_text(value: Any) -> str:
    return " ".join(map(str, value)) if isinstance(value, list) else str(value)


# ------------------------------------------------------------------ summary.md


def summary(study: Study, outcomes: Sequence[Outcome]) -> str:
    """The study's summary page: setup, ranked table, paired differences, failures."""
    finished = [o for o in outcomes if o.result is not None]
    lines: list[str] = [f"# Ablation study ({date.today().isoformat()})", "", "Command:", "",
             f"    {study.command or '(not recorded)'}", ""]  # fmt: skip
    lines += _setup(study, finished)
    settings = _settings_with_results(study, finished)
    if settings:
        lines += _ranked(study, finished, settings)
        lines += _differences(study, finished, settings)
    failed = [o for o in outcomes if o.result is None]
    if failed:
        lines += ["## Failed cells", ""]
        lines += [f"- {o.cell.name}: {o.error.splitlines()[0] if o.error else '?'}" for o in failed]
        lines.append("")
    return "\n".join(lines)


def _setup(study: Study, finished: Sequence[Outcome]) -> list[str]:
    config = finished[0].done["config"] if finished else study.cells(Path("."))[0].config.to_dict()
    fixed = ", ".join(f"{k}={_cell_text(v)}" for k, v in study.to_dict()["fixed"].items())
    walls = [o.done["wall_seconds"] for o in finished]
    cpu = _cpu()
    return [
        "## Setup", "",
        f"- {len(study.settings())} settings x {study.seeds} seeds; {study.steps:,} learner "
        f"decisions per cell, {config['algo'].upper()}, trained against "
        f"{', '.join(config['opponents'])}; options for every cell: {fixed or 'the defaults'}.",
        f"- Learning curves: each run's evaluations on {config['eval_deals']} duplicate "
        f"validation deals of seed {config['eval_seed']} after every epoch.",
        f"- Reported figures: the final policy of each cell (no best-epoch choice) on "
        f"{study.report_deals} duplicate deals of seed {study.report_seed}, against three "
        f"copies of each of {', '.join(study.eval_opponents)}; nothing was chosen on them.",
        f"- Settings marked *{'cheating upper bound'}* train an actor that sees every hand.",
        f"- Machine: {cpu}; cells ran with {study.threads} torch thread(s) each; "
        f"{len(finished)} cells took {sum(walls) / 3600:.2f} CPU-hours of wall time in total.",
        "",
    ]  # fmt: skip


def _cpu() -> str:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {model}, Python {platform.python_version()}"


def _settings_with_results(study: Study, finished: Sequence[Outcome]) -> list[Setting]:
    names = {o.cell.setting.name for o in finished}
    return [s for s in study.settings() if s.name in names]


def _overall(study: Study, finished: Sequence[Outcome], setting: str, metric: str) -> Any:
    """The setting's metric averaged over opponents, per seed, then across seeds (t)."""
    per_seed: dict[int, list[float]] = {}
    for opponent in study.eval_opponents:
        for (name, seed), v in cell_values(finished, opponent, metric).items():
            if name == setting:
                per_seed.setdefault(seed, []).append(mean(v))
    means = [mean(v) for v in per_seed.values()]
    return mean(means), t_ci(means)


def _ranked(study: Study, finished: Sequence[Outcome], settings: list[Setting]) -> list[str]:
    opponents = study.eval_opponents
    head = "| rank | setting | seeds | mean score (all opponents) | " + " | ".join(
        f"win share vs {o}" for o in opponents
    )
    lines = ["## Results", "",
             "Mean over seeds, with a 95% t interval across seeds in brackets. Ranked by mean "
             "score averaged over the opponents.", "", head + " |",
             "|---" * (4 + len(opponents)) + "|"]  # fmt: skip
    rows = []
    for s in settings:
        score, score_ci = _overall(study, finished, s.name, "mean_score")
        seeds = sum(1 for o in finished if o.cell.setting.name == s.name)
        cells = []
        for opponent in opponents:
            e = per_setting(cell_values(finished, opponent, "win_share"), s.name)
            cells.append(f"{e.mean:.3f} [{e.ci[0]:.3f}, {e.ci[1]:.3f}]")
        rows.append((score, f"| {s.label} | {seeds} | {score:+.2f} [{score_ci[0]:+.2f}, "
                            f"{score_ci[1]:+.2f}] | " + " | ".join(cells) + " |"))  # fmt: skip
    for rank, (_, row) in enumerate(sorted(rows, key=lambda r: -r[0]), 1):
        lines.append(f"| {rank} {row}")
    return [*lines, ""]


def _differences(study: Study, finished: Sequence[Outcome], settings: list[Setting]) -> list[str]:
    ref = study.reference
    others = [s for s in settings if s.name != ref.name]
    if not others or ref not in settings:
        return []
    lines = [f"## Paired differences against {ref.label}", "",
             "On the same report deals; seed i of each setting paired with seed i of the "
             "reference. 95% intervals over deals (these trained agents) and over seeds "
             "(another training seed).", "",
             "| setting | opponent | metric | difference | 95% CI over deals | 95% CI over seeds "
             "| verdict |", "|---|---|---|---|---|---|---|"]  # fmt: skip
    verdicts: dict[str, list[str]] = {}
    for s in others:
        for opponent in study.eval_opponents:
            for metric in METRICS:
                d = paired(cell_values(finished, opponent, metric), s.name, ref.name)
                f = "{:+.3f}" if metric == "win_share" else "{:+.2f}"
                deals = f"[{f.format(d.over_deals[0])}, {f.format(d.over_deals[1])}]"
                seeds = f"[{f.format(d.over_seeds[0])}, {f.format(d.over_seeds[1])}]"
                lines.append(f"| {s.label} | {opponent} | {metric.replace('_', ' ')} | "
                             f"{f.format(d.mean)} | {deals} | {seeds} | {d.verdict} |")  # fmt: skip
                verdicts.setdefault(d.verdict, []).append(f"{s.name} vs {opponent} ({metric})")
    lines.append("")
    for verdict in ("distinguishable", "on these deals only", "not distinguishable"):
        found = verdicts.get(verdict, [])
        lines.append(f"- **{verdict.capitalize()}** from zero ({len(found)}): "
                     f"{'; '.join(found) if found else 'none'}.")  # fmt: skip
    return [*lines, ""]


# ------------------------------------------------------------------ plots


def plot_curves(study: Study, finished: Sequence[Outcome], path: Path) -> None:
    """Validation win share against env steps: one line per setting (mean over seeds),
    shaded with the 95% t interval across seeds; one panel per evaluation opponent."""
    opponents = study.eval_opponents
    fig, axes = plt.subplots(1, len(opponents), figsize=(5 * len(opponents), 4.2), squeeze=False)
    for ax, opponent in zip(axes[0], opponents, strict=True):
        for setting in _settings_with_results(study, finished):
            by_step: dict[int, list[float]] = {}
            for o in finished:
                if o.cell.setting.name != setting.name:
                    continue
                for row in o.done["curve"]:
                    if row["opponent"] == opponent:
                        by_step.setdefault(row["env_step"], []).append(row["win_share"])
            steps = sorted(by_step)
            means = [mean(by_step[s]) for s in steps]
            cis = [t_ci(by_step[s]) for s in steps]
            style = "--" if setting.cheats else "-"
            ax.plot(steps, means, style, marker=".", label=setting.label)
            ax.fill_between(steps, [c[0] for c in cis], [c[1] for c in cis], alpha=0.15)
        ax.axhline(0.25, color="grey", linestyle=":", linewidth=1)
        ax.set_title(f"vs 3x {opponent} (validation deals)")
        ax.set_xlabel("env steps (learner decisions)")
        ax.set_ylabel("win share")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_final(study: Study, finished: Sequence[Outcome], path: Path) -> None:
    """Final win share and mean score on the report deals per setting, with 95% t
    intervals across seeds (error bars) and each seed's value (dots)."""
    settings = _settings_with_results(study, finished)
    opponents = study.eval_opponents
    fig, axes = plt.subplots(1, 2, figsize=(12, 1.2 + 0.55 * len(settings) * len(opponents)))
    for ax, metric in zip(axes, METRICS, strict=True):
        for j, opponent in enumerate(opponents):
            values = cell_values(finished, opponent, metric)
            for i, setting in enumerate(settings):
                y = i * (len(opponents) + 1) + j
                e = per_setting(values, setting.name)
                bar = [[e.mean - e.ci[0]], [e.ci[1] - e.mean]]
                ax.errorbar(e.mean, y, xerr=bar, fmt="o", color=f"C{j}", capsize=3,
                            label=opponent if i == 0 else None)  # fmt: skip
                seeds = [mean(v) for (n, _), v in values.items() if n == setting.name]
                ax.plot(seeds, [y] * len(seeds), "x", color=f"C{j}", alpha=0.5)
        ticks = [i * (len(opponents) + 1) + (len(opponents) - 1) / 2 for i in range(len(settings))]
        ax.set_yticks(ticks, [s.label for s in settings], fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel(f"{metric.replace('_', ' ')} (report deals, seed {study.report_seed})")
        ax.grid(alpha=0.3, axis="x")
    axes[0].axvline(0.25, color="grey", linestyle=":", linewidth=1)
    axes[1].axvline(0.0, color="grey", linestyle=":", linewidth=1)
    axes[0].legend(title="vs 3x", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
