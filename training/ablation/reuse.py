"""Cells another study has already trained: ``--reuse DIR`` (``reuse = [...]`` in a study file).

A cell is its config and seed: the same config (wherever it ran: the run directory aside),
the same seed and the same report deals give the same run and the same result, since
cells are deterministic (one torch thread, every seed from the config's). So a study that
shares settings with a finished one, say a second study with a grid axis whose first value
is the first study's default, need not train those cells again: :func:`reuse_cells` copies
the finished result of each such cell into the new study's directory, as its own
``result.json`` with ``reused_from`` naming the cell it came from. Running the study
without ``--reuse`` trains those cells instead, to the same results.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from training.ablation.cell import RESULT, SPEC, write_json
from training.ablation.runner import (
    STUDY_FILE,
    StudyMismatch,
    cell_lock,
    cell_spec,
    read_result,
    trained_as,
)
from training.ablation.study import Cell, Study
from training.config import Config


@dataclass(frozen=True)
class Reused:
    """What :func:`reuse_cells` did: the cells given a result, and how many cells of the
    study some source cell trains as (copied now or on an earlier run)."""

    copied: list[Cell]
    matching: int

    def describe(self, sources: str) -> str:
        """One line for the study's log.

        >>> Reused([], 3).describe("studies/a")
        'reused 0 finished cells of studies/a (3 more had been reused before)'
        """
        if not self.matching:
            return (
                f"reused no cell of {sources}: none of its finished cells trains as a "
                f"cell of this study (the same config and seed) on the same report "
                f"deals"
            )
        before = self.matching - len(self.copied)
        earlier = f" ({before} more had been reused before)" if before else ""
        cells = "cell" if len(self.copied) == 1 else "cells"
        return f"reused {len(self.copied)} finished {cells} of {sources}{earlier}"


def reuse_cells(cells: Sequence[Cell], study: Study, sources: Sequence[Path]) -> Reused:
    """Give every unfinished cell of ``cells`` the result of a finished cell of a study in
    ``sources`` that trained as it does and reported on the same deals.

    Raises :class:`~training.ablation.runner.StudyMismatch` (and copies nothing) when a
    source is not a study's run directory.
    """
    found: dict[str, tuple[Path, dict[str, Any]]] = {}
    for source in sources:
        if not (source / STUDY_FILE).is_file():
            raise StudyMismatch(
                f"--reuse {source}: no {STUDY_FILE} there; expected the run directory of a study"
            )
        for path in sorted(source.glob(f"cells/*/*/{RESULT}")):
            data = read_result(path, then="it is not reused")
            if data is not None:
                key = _key(data["config"], data["report_seed"], data["report_deals"])
                found.setdefault(key, (path, data))
    matches = [
        (cell, found.get(_key(cell.config, study.report_seed, study.report_deals)))
        for cell in cells
    ]
    copied = []
    for cell, match in matches:
        if match is None or read_result(cell.directory / RESULT) is not None:
            continue
        origin, result = match
        cell.directory.mkdir(parents=True, exist_ok=True)
        with cell_lock(cell):
            write_json(cell.directory / SPEC, cell_spec(cell, study))
            mine = {"setting": cell.setting.label, "reused_from": str(origin.parent)}
            write_json(cell.directory / RESULT, {**result, **mine})
        copied.append(cell)
    return Reused(copied, sum(match is not None for _, match in matches))


def _key(config: Config | dict[str, Any], report_seed: int, report_deals: int) -> str:
    """What makes two cells' results the same: the config (seed included, run directory
    aside) and the report deals."""
    return json.dumps([trained_as(config).to_dict(), report_seed, report_deals], sort_keys=True)
