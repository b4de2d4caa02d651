"""A study's statistics, from each cell's per-deal results on the report deals.

A cell's value on a deal is its mean over the deal's seatings, one a seat (win share:
wins / 4 and score: total / 4 under four-player rules; / 3 and / 2 under three and two),
against copies of one opponent at the other seats.

- **Per cell**: the mean over deals with a normal 95% CI over deals.
- **Per setting**: the mean over seeds of the cells' means, with a Student-t 95% interval
  across seeds (what another training seed would likely give).
- **Paired differences** against the reference setting, on the same deals, two ways:
  *over deals*, the CI of the per-deal differences of the seed-averaged values (these
  trained agents, with the luck of the deal paired away); and *over seeds*, the t
  interval of the per-seed differences (seed i of each setting, on the same deals),
  which also counts training-seed variation. A difference is called *distinguishable*
  when its interval over seeds excludes zero; *on these deals only* when only the
  interval over deals does; else *not distinguishable*.

An interval needs two values or more: from one seed (or one deal) it is ``None``
(printed "n/a"), so a single seed can never make a difference distinguishable.

- **Each axis** of a crossed study: the settings at one level of an axis pooled deal by
  deal, seed by seed (:func:`pooled`), then paired against the reference's level.

- **Late trend**: whether the curves have flattened: each cell's least-squares slope of
  validation win share over the evaluations of the second half of its budget
  (:func:`late_slope`, per million decisions), its mean over seeds with a t interval.

- **Power**: the smallest difference the study could detect, paired over seeds at 95%
  (:func:`detectable`): the half-width of a paired interval over ``n`` seeds, from the
  per-seed differences of every setting against the reference, their variances pooled.
  A true difference of that size is called distinguishable a little over half the time
  (52-61% for 10 to 3 seeds, simulated with normal per-seed differences); one 1.5 times
  as large, 85-88% of the time.

>>> cells = {("a", 0): [1.0, 2.0], ("a", 1): [3.0, 2.0], ("b", 0): [0.0, 1.0], ("b", 1): [1.0, 2.0]}
>>> d = paired(cells, "a", "b")
>>> d.mean, d.over_seeds, d.verdict  # seed by seed, "a" is 1.0 ahead
(1.0, (1.0, 1.0), 'distinguishable')
>>> detectable(cells, "b").threshold  # no spread across seeds: any difference shows
0.0
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from big2.evaluation.stats import mean, normal_ci, t95, t_ci
from big2.rules import get as get_rules

METRICS = ("win_share", "mean_score")
DISTINGUISHABLE, DEALS_ONLY, NOT = "distinguishable", "on these deals only", "not distinguishable"

# (setting name, seed) -> one value per report deal
CellValues = Mapping[tuple[str, int], Sequence[float]]


Interval = tuple[float, float] | None  # None: fewer than two values, no spread to measure


class Unpaired(ValueError):
    """Two settings have no seed that both finished: there is nothing to pair."""


@dataclass(frozen=True)
class Estimate:
    """A mean with its 95% interval."""

    mean: float
    ci: Interval


@dataclass(frozen=True)
class Difference:
    """A setting minus the reference, paired on the same deals."""

    mean: float
    over_deals: Interval
    over_seeds: Interval

    @property
    def verdict(self) -> str:
        """:data:`DISTINGUISHABLE`, :data:`DEALS_ONLY` or :data:`NOT` (module docstring)."""
        if _excludes_zero(self.over_seeds):
            return DISTINGUISHABLE
        return DEALS_ONLY if _excludes_zero(self.over_deals) else NOT


def _excludes_zero(ci: Interval) -> bool:
    return ci is not None and not ci[0] <= 0.0 <= ci[1]


def over_deals(values: Sequence[float]) -> Interval:
    """The normal 95% CI of the mean over deals (None from a single deal)."""
    return normal_ci(values) if len(values) > 1 else None


def over_seeds(values: Sequence[float]) -> Interval:
    """The Student-t 95% interval of the mean over seeds (None from a single seed)."""
    return t_ci(values) if len(values) > 1 else None


def text(ci: Interval, form: str = "{:+.2f}") -> str:
    """An interval for tables: ``[lo, hi]``, or ``n/a`` (fewer than two values).

    >>> text((0.25, 0.5), "{:.3f}"), text(None)
    ('[0.250, 0.500]', 'n/a')
    """
    return "n/a" if ci is None else f"[{form.format(ci[0])}, {form.format(ci[1])}]"


def deal_values(report: Mapping[str, Sequence[int]], metric: str, seatings: int = 4) -> list[float]:
    """A cell's per-deal values of ``metric`` from its report (``seatings`` a deal: the
    rules' players).

    >>> deal_values({"wins": [3, 1]}, "win_share"), deal_values({"wins": [3]}, "win_share", 3)
    ([0.75, 0.25], [1.0])
    """
    key = "wins" if metric == "win_share" else "scores"
    return [v / seatings for v in report[key]]


def seatings(cell: Any) -> int:
    """The games a report deal of ``cell`` (:class:`training.ablation.study.Cell`) was
    played in: one for each of its rules' seats."""
    return get_rules(cell.config.rules).players


def cell_values(outcomes: Sequence[Any], opponent: str, metric: str) -> CellValues:
    """(setting name, seed) -> per-deal values of ``metric`` against ``opponent``, for the
    finished cells among ``outcomes`` (:class:`training.ablation.runner.Outcome`)."""
    return {
        (o.cell.setting.name, o.cell.seed): deal_values(
            o.result["report"][opponent], metric, seatings(o.cell)
        )
        for o in outcomes
        if o.result is not None
    }


def per_cell(values: Sequence[float]) -> Estimate:
    """A cell's mean over deals, with its normal 95% CI over deals."""
    return Estimate(mean(values), over_deals(values))


def per_setting(cells: CellValues, setting: str) -> Estimate:
    """The mean over seeds of the setting's cell means, with a t interval across seeds."""
    means = [mean(v) for (name, _), v in sorted(cells.items()) if name == setting]
    return Estimate(mean(means), over_seeds(means))


def paired(cells: CellValues, setting: str, reference: str) -> Difference:
    """``setting`` minus ``reference`` on the same deals (seeds paired by index).

    Seeds that only one of the two settings finished are left out; :class:`Unpaired`
    when none is left, ``ValueError`` when two cells were reported on different deals.
    """
    mine, theirs = _pairs(cells, setting, reference)
    n_deals = len(mine[0])
    by_deal = [mean([m[d] for m in mine]) - mean([t[d] for t in theirs]) for d in range(n_deals)]
    return Difference(mean(by_deal), over_deals(by_deal), over_seeds(_by_seed(mine, theirs)))


def _pairs(
    cells: CellValues, setting: str, reference: str
) -> tuple[list[Sequence[float]], list[Sequence[float]]]:
    """The per-deal values of the seeds both settings finished: (setting's, reference's)."""
    seeds = sorted(s for (n, s) in cells if n == setting and (reference, s) in cells)
    if not seeds:
        raise Unpaired(f"no seed finished for both {setting!r} and {reference!r}")
    deals = len(cells[setting, seeds[0]])
    for name, seed in [(n, s) for s in seeds for n in (setting, reference)]:
        if len(cells[name, seed]) != deals:
            raise ValueError(
                f"paired differences need the same report deals in every cell: {setting!r} "
                f"seed {seeds[0]} has {deals}, {name!r} seed {seed} has "
                f"{len(cells[name, seed])}"
            )
    return [cells[setting, s] for s in seeds], [cells[reference, s] for s in seeds]


def _by_seed(mine: Sequence[Sequence[float]], theirs: Sequence[Sequence[float]]) -> list[float]:
    """Each paired seed's difference of cell means (setting minus reference)."""
    return [mean(m) - mean(t) for m, t in zip(mine, theirs, strict=True)]


def pooled(cells: CellValues, members: Sequence[str], name: str) -> CellValues:
    """The settings ``members`` as one, ``name``: per seed that all of them finished,
    the per-deal mean over them. Paired against another pool over the same levels of the
    other axes, it gives an axis's effect averaged over those (a crossed study's main
    effect).

    >>> cells = {("a", 0): [1.0, 0.0], ("b", 0): [0.0, 0.0], ("a", 1): [1.0, 1.0]}
    >>> pooled(cells, ["a", "b"], "a+b")  # seed 1: b did not finish
    {('a+b', 0): [0.5, 0.0]}
    """
    seeds = sorted({s for n, s in cells if n == members[0]})
    both = [s for s in seeds if all((m, s) in cells for m in members)]
    return {
        (name, s): [mean(v) for v in zip(*(cells[m, s] for m in members), strict=True)]
        for s in both
    }


def late_slope(curve: Sequence[Mapping[str, Any]], opponent: str, budget: int) -> float | None:
    """A cell's late trend: the least-squares slope of its validation win share against
    ``opponent`` over the evaluations from half the ``budget`` on, in win share per
    million learner decisions; None with fewer than two such evaluations.

    >>> shares = [(500_000, 0.20), (1_000_000, 0.25), (1_500_000, 0.26), (2_000_000, 0.27)]
    >>> curve = [{"env_step": s, "opponent": "h", "win_share": w} for s, w in shares]
    >>> round(late_slope(curve, "h", 2_000_000), 6)  # 0.25, 0.26, 0.27 at 1M, 1.5M, 2M
    0.02
    """
    points = [
        (e["env_step"] / 1e6, e["win_share"])
        for e in curve
        if e["opponent"] == opponent and e["env_step"] >= budget / 2
    ]
    if len(points) < 2:
        return None
    mx, my = mean([x for x, _ in points]), mean([y for _, y in points])
    sxx = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else None


@dataclass(frozen=True)
class Power:
    """What a study's paired comparisons over seeds can detect (see :func:`detectable`)."""

    threshold: float  # the smallest |difference| whose interval over seeds excludes zero
    sd: float  # the pooled standard deviation of the per-seed differences
    seeds: int  # seeds per comparison (the fewest any comparison had)
    comparisons: int  # settings whose differences were pooled


def detectable(cells: CellValues, reference: str) -> Power:
    """The smallest difference from ``reference`` that the study would call
    distinguishable: t(97.5%, n - 1) x sd / sqrt(n), with ``sd`` pooled over every other
    setting's per-seed differences (each weighted by its n - 1) and ``n`` the fewest
    seeds a comparison had.

    Settings with no seed in common with ``reference`` are left out (``comparisons``
    counts the pooled ones); ``ValueError`` when no comparison has two seeds (no spread to
    measure) or two cells were reported on different deals.

    >>> cells = {("ref", 0): [0.2], ("ref", 1): [0.3], ("x", 0): [0.3], ("x", 1): [0.2]}
    >>> round(detectable(cells, "ref").threshold, 3)  # differences +0.1, -0.1: sd 0.141
    1.271
    """
    squares, df, fewest, count = 0.0, 0, 0, 0
    for setting in sorted({n for n, _ in cells} - {reference}):
        try:
            diffs = _by_seed(*_pairs(cells, setting, reference))
        except Unpaired:
            continue
        if len(diffs) < 2:
            continue
        m = mean(diffs)
        squares += sum((d - m) ** 2 for d in diffs)
        df += len(diffs) - 1
        fewest = len(diffs) if not count else min(fewest, len(diffs))
        count += 1
    if not count:
        raise ValueError(
            f"no setting has two seeds paired with {reference!r}: no spread to measure"
        )
    sd = math.sqrt(squares / df)
    return Power(t95(fewest - 1) * sd / math.sqrt(fewest), sd, fewest, count)
