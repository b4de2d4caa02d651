"""95% confidence intervals: of a mean over many deals (normal) or a few seeds (Student t),
and of a win share over deals (Wilson, inside [0, 1]).

Pure Python, so the arena, the league and the ablation studies share one definition.

**Win shares** (:func:`share_ci`). A deal's value is an agent's share of its four games
won, in [0, 1]; the normal interval of their mean leaves [0, 1] on a few deals
(``0.750 [0.467, 1.033]`` on 3). Wilson's score interval stays inside, but it is made for a
count of independent trials, and a deal's games are not independent (the duplicate
seatings make them less variable than as many separate games). So Wilson is taken with
the *effective* number of trials, ``n_eff = n p (1 - p) / s²`` for n deals of mean share p
and sample variance s²: the number of independent games whose binomial variance of the
mean equals the one the deals show (n_eff / games is one over the design effect). The
interval is then Wilson's for a share p out of n_eff trials. On many deals it is the
normal interval (the same centre and width to within a fraction of a percent); on few it
shrinks towards the middle and never leaves [0, 1]. When the deals show no spread
(s² = 0: every deal won, none, or the same share each), the design effect cannot be
measured and the games are taken as independent (n_eff = the games played). One deal
gives no spread at all: its interval is undefined (None, shown ``n/a (1 deal)``).

>>> normal_ci([1.0, 2.0, 3.0, 4.0])
(1.234..., 3.765...)
>>> t_ci([1.0, 2.0, 3.0])  # three seeds: t with 2 degrees of freedom
(-0.484..., 4.484...)
>>> t_ci([5.0])  # one value: no spread to measure
(5.0, 5.0)
>>> share_ci([0.5, 0.75, 1.0], games=12)  # three deals; the normal interval: 0.467, 1.033
(0.426..., 0.923...)
>>> print(share_ci([0.75], games=4))
None
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Interval = tuple[float, float]

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


def share_ci(shares: Sequence[float], games: int) -> Interval | None:
    """Wilson 95% interval of a mean share (values in [0, 1], one per deal, measured on
    ``games`` games in all) with the effective number of trials: see the module
    docstring. None from a single share, which gives no interval.

    >>> share_ci([1.0, 1.0, 1.0], games=12)  # no spread: the 12 games as independent
    (0.757..., 1.0)
    """
    if games < len(shares):
        raise ValueError(f"{len(shares)} shares need at least as many games, not {games}")
    if any(not 0.0 <= x <= 1.0 for x in shares):
        raise ValueError(f"a share is in [0, 1]; got {min(shares)} to {max(shares)}")
    p = mean(shares)
    if len(shares) < 2:
        return None
    n = len(shares)
    variance = sum((x - p) ** 2 for x in shares) / (n - 1)
    trials = n * p * (1 - p) / variance if variance > 0 else games
    return wilson(p, trials)


def wilson(p: float, n: float) -> Interval:
    """Wilson's 95% score interval of a share ``p`` observed in ``n`` trials (n may be a
    fraction: an effective number).

    >>> wilson(0.0, 10)
    (0.0, 0.277...)
    """
    if n <= 0:
        raise ValueError(f"a Wilson interval needs a positive number of trials, not {n}")
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    low = 0.0 if p == 0 else max(0.0, centre - half)  # exact ends where rounding errs
    return (low, 1.0 if p == 1 else min(1.0, centre + half))


def interval_text(ci: Interval | None, deals: int, form: str = "{:.3f}") -> str:
    """An interval as the tables show it, ``[lo, hi]`` with ``form``, or why there is
    none.

    >>> interval_text((0.25, 0.5), 3), interval_text(None, 1)
    ('[0.250, 0.500]', 'n/a (1 deal)')
    """
    if ci is None:
        return f"n/a ({deals} deal{'s' if deals != 1 else ''})"
    return f"[{form.format(ci[0])}, {form.format(ci[1])}]"
