"""95% confidence intervals of a mean: over many deals (normal) or a few seeds (Student t).

Pure Python, so the arena and the ablation studies share one definition.

>>> normal_ci([1.0, 2.0, 3.0, 4.0])
(1.234..., 3.765...)
>>> t_ci([1.0, 2.0, 3.0])  # three seeds: t with 2 degrees of freedom
(-0.484..., 4.484...)
>>> t_ci([5.0])  # one value: no spread to measure
(5.0, 5.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Z95 = 1.959964  # two-sided 95% normal quantile
# two-sided 95% Student t quantiles for 1..30 degrees of freedom (beyond: the normal's),
# five to a row; the rows and columns name the degrees of freedom, so the layout is kept
T95 = (
    12.706205,  4.302653,  3.182446,  2.776445,  2.570582,  # df  1-5
     2.446912,  2.364624,  2.306004,  2.262157,  2.228139,  # df  6-10
     2.200985,  2.178813,  2.160369,  2.144787,  2.131450,  # df 11-15
     2.119905,  2.109816,  2.100922,  2.093024,  2.085963,  # df 16-20
     2.079614,  2.073873,  2.068658,  2.063899,  2.059539,  # df 21-25
     2.055529,  2.051831,  2.048407,  2.045230,  2.042272,  # df 26-30
)  # fmt: skip


def t95(df: int) -> float:
    """The two-sided 95% Student t quantile for ``df`` degrees of freedom (the normal's
    beyond 30).

    >>> t95(2)
    4.302653
    """
    if df < 1:
        raise ValueError(f"a t quantile needs at least 1 degree of freedom, got {df}")
    return T95[df - 1] if df <= len(T95) else Z95


def mean(xs: Sequence[float]) -> float:
    """The mean of ``xs`` (at least one value)."""
    if not xs:
        raise ValueError("the mean of no values is undefined")
    return sum(xs) / len(xs)


def _half_width(xs: Sequence[float], quantile: float) -> float:
    m = mean(xs)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))
    return quantile * sd / math.sqrt(len(xs))


def normal_ci(xs: Sequence[float]) -> tuple[float, float]:
    """Normal-approximation 95% interval of the mean (many values: one per deal)."""
    m = mean(xs)
    if len(xs) < 2:
        return (m, m)
    half = _half_width(xs, Z95)
    return (m - half, m + half)


def t_ci(xs: Sequence[float]) -> tuple[float, float]:
    """Student-t 95% interval of the mean (few values: one per training seed)."""
    m = mean(xs)
    if len(xs) < 2:
        return (m, m)
    df = len(xs) - 1
    half = _half_width(xs, t95(df))
    return (m - half, m + half)
