"""Learning curves: win share against env steps, one line per evaluation opponent."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def plot_curve(history: Sequence[dict[str, Any]], path: Path | str | IO[bytes]) -> None:
    """Write a PNG of win share (with its 95% CI band, none where an evaluation had one
    deal) vs env steps per opponent, to a file or a binary stream."""
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for opponent in sorted({r["opponent"] for r in history}):
        rows = sorted(
            (r for r in history if r["opponent"] == opponent), key=lambda r: r["env_step"]
        )
        steps = [r["env_step"] for r in rows]
        ax.plot(steps, [r["win_share"] for r in rows], marker="o", label=f"vs 3x {opponent}")
        bands = [r["win_share_ci"] or (math.nan, math.nan) for r in rows]  # None: one deal
        ax.fill_between(steps, [lo for lo, _ in bands], [hi for _, hi in bands], alpha=0.2)
    ax.axhline(0.25, color="grey", linestyle="--", linewidth=1, label="parity (0.25)")
    ax.set_xlabel("env steps (learner decisions)")
    ax.set_ylabel("win share (duplicate deals)")
    ax.set_ylim(0, 1)
    ax.legend(loc="upper left")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110, format="png")
    plt.close(fig)
