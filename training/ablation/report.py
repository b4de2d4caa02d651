"""A study's outputs: ``results.csv``, ``summary.md``, and the plots of
:mod:`training.ablation.plots` (``curves.png``, ``final.png``).

Everything is computed from the cells' ``result.json`` files, so the report of a
finished study can be rebuilt by re-running its command (every cell is skipped), and
the same results give the same files.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from big2.evaluation.stats import mean
from big2.rules import get as get_rules
from training.ablation.cell import machine
from training.ablation.plots import plot_curves, plot_final, settings_with_results
from training.ablation.runner import OUTPUTS, Outcome
from training.ablation.stats import (
    DEALS_ONLY,
    DISTINGUISHABLE,
    METRICS,
    NOT,
    CellValues,
    Difference,
    Estimate,
    Unpaired,
    cell_values,
    deal_values,
    detectable,
    late_slope,
    over_seeds,
    paired,
    per_cell,
    per_setting,
    pooled,
    seatings,
    text,
)
from training.ablation.study import CHEATING, Setting, Study, as_text
from training.config import Config


def write_report(
    study: Study, outcomes: Sequence[Outcome], root: Path, lost: Sequence[str] = ()
) -> list[Path]:
    """Write the four outputs into ``root`` (``lost``: tasks a backend retried); their paths."""
    finished = [o for o in outcomes if o.result is not None]
    paths = [root / name for name in OUTPUTS]
    write_csv(study, outcomes, paths[0])
    paths[1].write_text(summary(study, outcomes, lost), encoding="utf-8")
    plot_curves(study, finished, paths[2])
    plot_final(study, finished, paths[3])
    return paths


# ------------------------------------------------------------------ results.csv


def write_csv(study: Study, outcomes: Sequence[Outcome], path: Path) -> None:
    """One row per cell: its settings, seed, steps, time, and each opponent's figures
    (95% CIs over deals; empty from a single deal, and for failed cells)."""
    options = [k for k, _ in study.grid] + [k for k, _ in study.fixed]
    head = [
        "setting",
        "cheats",
        "observer",
        *options,
        "seed",
        "status",
        "steps",
        "wall_seconds",
        "report_seed",
        "report_deals",
    ]
    for opponent in study.eval_opponents:
        for metric in METRICS:
            head += [f"{opponent}_{metric}", f"{opponent}_{metric}_lo", f"{opponent}_{metric}_hi"]
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow([*head, "error"])
        for o in outcomes:
            config, setting = o.cell.config, o.cell.setting
            row: list[Any] = [
                setting.label,
                setting.cheats,
                setting.observer,
                *(as_text(getattr(config, k)) for k in options),
                o.cell.seed,
                "failed" if o.result is None else "done",
            ]
            if o.result is None:
                writer.writerow([*row, *[""] * (len(head) - len(row)), o.error])
                continue
            r = o.result
            row += [r["steps"], round(r["wall_seconds"], 1), r["report_seed"], r["report_deals"]]
            for opponent in study.eval_opponents:
                for metric in METRICS:
                    values = deal_values(r["report"][opponent], metric, seatings(o.cell))
                    e = per_cell(values)
                    row += [round(e.mean, 4), *(("", "") if e.ci is None else _rounded(e.ci))]
            writer.writerow([*row, ""])


def _rounded(ci: tuple[float, float]) -> tuple[float, float]:
    return round(ci[0], 4), round(ci[1], 4)


# ------------------------------------------------------------------ summary.md


def _copies(config: Config) -> str:
    """How many copies of an opponent sit at a table of ``config``'s rules, in words.

    >>> _copies(Config()), _copies(Config(rules="two-player"))
    ('three copies', 'one copy')
    """
    others = get_rules(config.rules).players - 1
    return {1: "one copy", 2: "two copies", 3: "three copies"}[others]


def summary(study: Study, outcomes: Sequence[Outcome], lost: Sequence[str] = ()) -> str:
    """The study's summary page: setup, ranked table, paired differences, failures."""
    finished = [o for o in outcomes if o.result is not None]
    lines = ["# Ablation study", "", "Command:", "", f"    {study.command or '(not recorded)'}", ""]
    lines += _setup(study, finished)
    settings = settings_with_results(study, finished)
    if settings:
        lines += _ranked(study, finished, settings)
        lines += _compared(study, finished, settings)
        lines += _trends(study, finished, settings)
    failed = [o for o in outcomes if o.result is None]
    if failed:
        lines += ["## Failed cells", "", "Re-running the same command retries them.", ""]
        lines += [f"- {o.cell.name}: {(o.error or '?').splitlines()[0]}" for o in failed]
        lines.append("")
    if lost:
        lines += ["## Tasks lost with their workers (and retried)", ""]
        lines += [f"- {message}" for message in lost]
        lines.append("")
    return "\n".join(lines)


def _compared(study: Study, finished: Sequence[Outcome], settings: list[Setting]) -> list[str]:
    """The paired differences against the reference and the study's power, if there are
    other settings to compare and the reference finished."""
    others = [s for s in settings if s.name != study.reference.name]
    if not others:
        return []
    if study.reference not in settings:
        return [
            f"## Paired differences against {study.reference.label}",
            "",
            "No cell of the reference setting finished, so there are none.",
            "",
        ]
    values = {(o, m): cell_values(finished, o, m) for o in study.eval_opponents for m in METRICS}
    pairings = _pairings(study, values, others)
    return [
        *_differences(study, pairings, others),
        *_power(study, values, pairings, others),
        *_axes(study, values),
    ]


def _setup(study: Study, finished: Sequence[Outcome]) -> list[str]:
    config = study.cells(Path("."))[0].config
    fixed = ", ".join(f"{k}={as_text(v)}" for k, v in study.fixed)
    hours = sum(o.done["wall_seconds"] for o in finished) / 3600
    return [
        "## Setup",
        "",
        f"- {len(study.settings())} settings x {study.seeds} seeds; {_trained(study, finished)} "
        f"learner decisions per cell, {config.algo.upper()}, trained against "
        f"{', '.join(config.opponents)}; options for every cell: {fixed or 'the defaults'}.",
        f"- Learning curves: each run's evaluations on {config.eval_deals} duplicate "
        f"validation deals of seed {config.eval_seed} after every epoch.",
        f"- Reported figures: the final policy of each cell (no best-epoch choice) on "
        f"{study.report_deals} duplicate deals of seed {study.report_seed}, against "
        f"{_copies(config)} of each of {', '.join(study.eval_opponents)}; nothing was chosen "
        f"on them.",
        f"- Settings marked *{CHEATING}* train an actor that sees every hand.",
        f"- Machine: {_machines(finished)}; {study.threads} torch thread(s) per cell; the "
        f"{len(finished)} finished cells{_reused(finished)} took {hours:.2f} hours of cell "
        f"time in total.",
        "",
    ]


def _trained(study: Study, finished: Sequence[Outcome]) -> str:
    """The decisions each finished cell trained on (a run stops at the first whole
    collection past its budget, so this can exceed ``study.steps``)."""
    counts = sorted({o.done["steps"] for o in finished})
    if not counts:
        return f"a budget of {study.steps:,}"
    trained = f"{counts[0]:,}" if len(counts) == 1 else f"{counts[0]:,} to {counts[-1]:,}"
    if counts == [study.steps]:
        return trained
    return (
        f"{trained} (budget {study.steps:,}; training stops after the first whole "
        f"collection past it)"
    )


def _reused(finished: Sequence[Outcome]) -> str:
    """How many finished cells came from another study (``--reuse``), if any."""
    reused = sum("reused_from" in o.done for o in finished)
    return f" ({reused} of them trained by another study and reused)" if reused else ""


def _machines(finished: Sequence[Outcome]) -> str:
    """Where the cells ran (each result names its machine) and where this report is built."""
    recorded = [o.done["machine"] for o in finished if "machine" in o.done]
    here = f"this report was built on {machine()}"
    if not recorded:
        return f"the cells did not record theirs; {here}"
    ran = "; ".join(sorted(set(recorded)))
    if len(recorded) < len(finished):
        ran += f" ({len(recorded)} of {len(finished)} cells recorded it)"
    return f"the cells ran on {ran}; {here}"


def _overall(study: Study, finished: Sequence[Outcome], setting: str, metric: str) -> Estimate:
    """The setting's metric averaged over opponents per seed, then over seeds (t)."""
    per_seed: dict[int, list[float]] = {}
    for opponent in study.eval_opponents:
        for (name, seed), v in cell_values(finished, opponent, metric).items():
            if name == setting:
                per_seed.setdefault(seed, []).append(mean(v))
    means = [mean(v) for v in per_seed.values()]
    return Estimate(mean(means), over_seeds(means))


def _ranked(study: Study, finished: Sequence[Outcome], settings: list[Setting]) -> list[str]:
    """The results table: each setting's mean score and win shares, ranked by score."""
    opponents = study.eval_opponents
    head = "| rank | setting | seeds | mean score (all opponents) | " + " | ".join(
        f"win share vs {o}" for o in opponents
    )
    lines = [
        "## Results",
        "",
        "Mean over seeds, with the 95% t interval across seeds in brackets (n/a from a single "
        "seed). Ranked by mean score averaged over the opponents.",
        "",
        head + " |",
        "|---" * (4 + len(opponents)) + "|",
    ]
    rows = []
    for s in settings:
        score = _overall(study, finished, s.name, "mean_score")
        seeds = sum(1 for o in finished if o.cell.setting.name == s.name)
        shares = []
        for opponent in opponents:
            e = per_setting(cell_values(finished, opponent, "win_share"), s.name)
            shares.append(f"{e.mean:.3f} {text(e.ci, '{:.3f}')}")
        cells = [s.label, str(seeds), f"{score.mean:+.2f} {text(score.ci)}", *shares]
        rows.append((score.mean, " | ".join(cells)))
    for rank, (_, row) in enumerate(sorted(rows, key=lambda r: -r[0]), 1):
        lines.append(f"| {rank} | {row} |")
    return [*lines, ""]


# (opponent, metric) -> every finished cell's per-deal values (stats.cell_values)
Values = dict[tuple[str, str], CellValues]
# (setting name, opponent, metric) -> the paired difference, or why there is none
Pairings = dict[tuple[str, str, str], Difference | str]


def _pairings(study: Study, values: Values, others: list[Setting]) -> Pairings:
    """Every other setting's paired difference from the reference, per opponent and metric."""
    found: Pairings = {}
    for (opponent, metric), cells in values.items():
        for s in others:
            try:
                found[s.name, opponent, metric] = paired(cells, s.name, study.reference.name)
            except Unpaired as e:
                found[s.name, opponent, metric] = str(e)
    return found


def _differences(study: Study, pairings: Pairings, others: list[Setting]) -> list[str]:
    """The table of paired differences against the reference, and a tally of verdicts."""
    lines = [
        f"## Paired differences against {study.reference.label}",
        "",
        "On the same report deals; seed i of each setting paired with seed i of the reference. 95% "
        "intervals over deals (these trained agents) and over seeds (another training seed).",
        "",
        "| setting | opponent | metric | difference | 95% CI over deals | 95% CI over seeds "
        "| verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    verdicts: dict[str, list[str]] = {}
    for s in others:
        for opponent in study.eval_opponents:
            for metric in METRICS:
                d, words = pairings[s.name, opponent, metric], metric.replace("_", " ")
                if isinstance(d, str):  # no seed finished on both sides
                    lines.append(f"| {s.label} | {opponent} | {words} | n/a | n/a | n/a | {d} |")
                    continue
                form = "{:+.3f}" if metric == "win_share" else "{:+.2f}"
                lines.append(
                    f"| {s.label} | {opponent} | {words} | {form.format(d.mean)} | "
                    f"{text(d.over_deals, form)} | {text(d.over_seeds, form)} | "
                    f"{d.verdict} |"
                )
                verdicts.setdefault(d.verdict, []).append(f"{s.name} vs {opponent} ({words})")
    return lines + _tally(verdicts)


def _tally(verdicts: dict[str, list[str]]) -> list[str]:
    """How many differences got each verdict, and how many chance alone would flag."""
    count = sum(len(v) for v in verdicts.values())
    lines = ["", f"Of these {count} differences:", ""]
    for verdict in (DISTINGUISHABLE, DEALS_ONLY, NOT):
        found = verdicts.get(verdict, [])
        lines.append(
            f"- **{verdict}** from zero ({len(found)}): {'; '.join(found) if found else 'none'}."
        )
    return [
        *lines,
        "",
        f"Each interval is a 95% interval on its own: among {count} "
        f"differences that were all truly zero, about {count / 20:.1f} would still "
        f"exclude zero by chance. Read single verdicts with that in mind.",
        "",
    ]


def _power(study: Study, values: Values, pairings: Pairings, others: list[Setting]) -> list[str]:
    """The smallest win-share difference the study could detect against each opponent,
    and the settings that differ from the reference by more (stats.detectable)."""
    ref = study.reference
    lines = [
        "## Power",
        "",
        f"The smallest difference in win share from {ref.label} that a paired interval "
        "over seeds would call distinguishable at 95%, from the spread of every setting's per-seed "
        "differences (pooled). A true difference of that size is called distinguishable a little "
        "over half the time; one 1.5 times as large, about 85% of the time.",
        "",
        "| opponent | detectable difference | pooled sd of per-seed differences | seeds "
        "| settings pooled | settings distinguishable from the reference |",
        "|---|---|---|---|---|---|",
    ]
    for opponent in study.eval_opponents:
        try:
            power = detectable(values[opponent, "win_share"], ref.name)
        except ValueError as e:
            lines.append(f"| {opponent} | n/a | n/a | n/a | n/a | {e} |")
            continue
        differ = [
            f"{s.label} ({d.mean:+.3f})"
            for s in others
            if isinstance(d := pairings[s.name, opponent, "win_share"], Difference)
            and d.verdict == DISTINGUISHABLE
        ]
        counted = f"{power.comparisons} of {len(others)}"
        lines.append(
            f"| {opponent} | {power.threshold:.3f} | {power.sd:.3f} | {power.seeds} "
            f"| {counted} | {'; '.join(differ) or 'none'} |"
        )
    return [*lines, ""]


def _axes(study: Study, values: Values) -> list[str]:
    """In a crossed study (two axes or more), each axis's effect on win share: each
    level against the reference's level, averaged over the other axes' levels
    (stats.pooled), paired over deals and over seeds."""
    axes = study.axes()
    if len(axes) < 2:
        return []
    lines = [
        "## Each axis, averaged over the others",
        "",
        "Win share of each level of an axis minus the reference's level, both averaged over every "
        "level of the other axes (seed by seed, over the seeds all of those cells finished), with "
        "95% intervals over deals and over seeds.",
        "",
        "| axis | level | against | opponent | difference | 95% CI over deals | 95% CI over seeds "
        "| verdict |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for axis in axes:
        ref = axis.level_of(study.reference)
        # opponent -> level -> the level's settings pooled into one (stats.pooled)
        pools = {}
        for o in study.eval_opponents:
            wins = values[o, "win_share"]
            pools[o] = {x: pooled(wins, [m.name for m in ms], x) for x, ms in axis.levels}
        for level in [level for level, _ in axis.levels if level != ref]:
            named = [x if axis.name == "observer" else f"{axis.name}={x}" for x in (level, ref)]
            for opponent, pool in pools.items():
                row = f"| {axis.name} | {named[0]} | {named[1]} | {opponent} |"
                try:
                    d = paired({**pool[level], **pool[ref]}, level, ref)
                except Unpaired:
                    lines.append(f"{row} n/a | n/a | n/a | no seed finished every cell of both |")
                    continue
                lines.append(
                    f"{row} {d.mean:+.3f} | {text(d.over_deals, '{:+.3f}')} | "
                    f"{text(d.over_seeds, '{:+.3f}')} | {d.verdict} |"
                )
    return [*lines, ""]


def _trends(study: Study, finished: Sequence[Outcome], settings: list[Setting]) -> list[str]:
    """Whether the validation curves have flattened: each setting's late slope
    (stats.late_slope) against each opponent, mean over seeds with its t interval."""
    lines = [
        "## Have the curves flattened?",
        "",
        "The change in validation win share per million learner decisions over the second half of "
        "the budget: a least-squares line through each cell's evaluations from "
        f"{study.steps // 2:,} decisions on, averaged over seeds, with the 95% t interval "
        "across seeds (n/a from one seed, or fewer than two evaluations in that half). An interval "
        "that holds zero: no rise or fall the seeds agree on.",
        "",
        "| setting | " + " | ".join(f"vs {o}" for o in study.eval_opponents) + " |",
        "|---" * (1 + len(study.eval_opponents)) + "|",
    ]
    for s in settings:
        row = [s.label]
        for opponent in study.eval_opponents:
            slopes = [
                late_slope(o.done["curve"], opponent, study.steps)
                for o in finished
                if o.cell.setting.name == s.name
            ]
            known = [x for x in slopes if x is not None]
            row.append(
                f"{mean(known):+.3f} {text(over_seeds(known), '{:+.3f}')}" if known else "n/a"
            )
        lines.append("| " + " | ".join(row) + " |")
    return [*lines, ""]
