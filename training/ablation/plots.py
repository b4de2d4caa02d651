"""A study's plots: ``curves.png`` (learning curves) and ``final.png`` (final results)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from big2.evaluation.stats import mean
from training.ablation.runner import Outcome
from training.ablation.stats import METRICS, cell_values, over_seeds, per_setting, seatings
from training.ablation.study import Setting, Study


def settings_with_results(study: Study, finished: Sequence[Outcome]) -> list[Setting]:
    """The study's settings with at least one finished cell, in study order."""
    names = {o.cell.setting.name for o in finished}
    return [s for s in study.settings() if s.name in names]


def curve(
    finished: Sequence[Outcome], setting: str, opponent: str
) -> list[tuple[float, list[float]]]:
    """(mean env step, each seed's validation win share) per evaluation, in order.

    Evaluations are matched by their index (the epoch), not their exact step: runs whose
    epochs end a few steps apart (``self-all``) still line up.
    """
    by_epoch: dict[int, list[tuple[int, float]]] = {}
    for o in finished:
        if o.cell.setting.name != setting:
            continue
        rows = sorted(
            (r for r in o.done["curve"] if r["opponent"] == opponent), key=lambda r: r["env_step"]
        )
        for epoch, row in enumerate(rows):
            by_epoch.setdefault(epoch, []).append((row["env_step"], row["win_share"]))
    return [
        (mean([step for step, _ in points]), [share for _, share in points])
        for _, points in sorted(by_epoch.items())
    ]


def even_share(finished: Sequence[Outcome]) -> float | None:
    """The win share of one seat at an even table (1 / players), drawn as a dotted line
    when every cell plays the same number of players; None otherwise."""
    counts = {seatings(o.cell) for o in finished}
    return 1 / counts.pop() if len(counts) == 1 else None


def plot_curves(study: Study, finished: Sequence[Outcome], path: Path) -> None:
    """Validation win share against env steps: one line per setting (mean over seeds),
    shaded with the 95% t interval across seeds; one panel per evaluation opponent."""
    opponents, chance = study.eval_opponents, even_share(finished)
    fig, axes = plt.subplots(1, len(opponents), figsize=(5 * len(opponents), 4.2), squeeze=False)
    for ax, opponent in zip(axes[0], opponents, strict=True):
        for setting in settings_with_results(study, finished):
            points = curve(finished, setting.name, opponent)
            steps = [step for step, _ in points]
            style = "--" if setting.cheats else "-"
            ax.plot(steps, [mean(s) for _, s in points], style, marker=".", label=setting.label)
            bands = [(step, over_seeds(shares)) for step, shares in points]
            known = [(step, ci) for step, ci in bands if ci is not None]
            if known:
                low, high = [ci[0] for _, ci in known], [ci[1] for _, ci in known]
                ax.fill_between([s for s, _ in known], low, high, alpha=0.15)
        if chance is not None:
            ax.axhline(chance, color="grey", linestyle=":", linewidth=1)
        ax.set_title(f"vs {opponent} at the other seats (validation deals)")
        ax.set_xlabel("env steps (learner decisions)")
        ax.set_ylabel("win share")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_final(study: Study, finished: Sequence[Outcome], path: Path) -> None:
    """Final win share and mean score on the report deals per setting, with 95% t
    intervals across seeds (error bars) and each seed's value (crosses)."""
    settings = settings_with_results(study, finished)
    opponents = study.eval_opponents
    rows = len(opponents) + 1  # a gap between settings
    fig, axes = plt.subplots(1, 2, figsize=(12, 1.2 + 0.55 * len(settings) * len(opponents)))
    for ax, metric in zip(axes, METRICS, strict=True):
        for j, opponent in enumerate(opponents):
            values = cell_values(finished, opponent, metric)
            for i, setting in enumerate(settings):
                y = i * rows + j
                e = per_setting(values, setting.name)
                bar = None if e.ci is None else [[e.mean - e.ci[0]], [e.ci[1] - e.mean]]
                label = opponent if i == 0 else None
                ax.errorbar(e.mean, y, xerr=bar, fmt="o", color=f"C{j}", capsize=3, label=label)
                seeds = [mean(v) for (n, _), v in values.items() if n == setting.name]
                ax.plot(seeds, [y] * len(seeds), "x", color=f"C{j}", alpha=0.5)
        ticks = [i * rows + (len(opponents) - 1) / 2 for i in range(len(settings))]
        ax.set_yticks(ticks, [s.label for s in settings], fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel(f"{metric.replace('_', ' ')} (report deals, seed {study.report_seed})")
        ax.grid(alpha=0.3, axis="x")
    if (chance := even_share(finished)) is not None:
        axes[0].axvline(chance, color="grey", linestyle=":", linewidth=1)
    axes[1].axvline(0.0, color="grey", linestyle=":", linewidth=1)
    axes[0].legend(title="vs (other seats)", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
