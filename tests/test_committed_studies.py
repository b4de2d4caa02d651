"""The committed studies' figures follow from their committed cells.

docs/ablation.md and the README quote the tables of each study's ``summary.md``. Rebuilt
from the cells' committed ``result.json`` files (``--reuse``: nothing is trained), every
study must give those tables again, number for number, so anyone can re-derive them and
a change to the statistics that would move a committed figure is caught here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from training.ablation.cli import parse
from training.ablation.report import summary
from training.ablation.reuse import reuse_cells
from training.ablation.runner import STUDY_FILE, prepare, run_cells
from training.ablation.study import differences

ROOT = Path(__file__).resolve().parent.parent
# the tables the docs quote; sections added to the report later may be missing from an
# older committed summary, and are not compared
TABLES = ("## Results", "## Paired differences")


def committed_studies() -> list[tuple[Path, Path]]:
    """(study file, its run directory) of every study whose report is committed."""
    found = []
    for study in sorted((ROOT / "studies").glob("*.toml")):
        run_dir = ROOT / parse(["--study", str(study)])[1].run_dir  # the study file's own
        if (run_dir / "summary.md").exists():
            found.append((study, run_dir))
    return found


STUDIES = committed_studies()


def section(summary: str, title: str) -> str:
    """The text of ``summary``'s section that starts with the heading ``title``, without
    the blank lines around it.

    >>> section("# S\\n## A x\\n1\\n\\n## B\\n2\\n", "## A")
    '## A x\\n1'
    """
    start = summary.index(f"\n{title}") + 1
    end = summary.find("\n## ", start)
    return summary[start : None if end < 0 else end].strip()


def test_every_study_with_a_report_is_found():
    names = {study.stem for study, _ in STUDIES}
    assert {"observers", "known-answer", "observers-recipe", "sequence-critic"} <= names


@pytest.mark.parametrize(("study", "run_dir"), STUDIES, ids=[s.stem for s, _ in STUDIES])
def test_a_committed_study_file_is_the_study_its_directory_records(study, run_dir):
    """Re-running a study file in its own directory resumes it: the file says what its
    ``study.json`` recorded (the options it relied on pinned when defaults change)."""
    plan, _ = parse(["--study", str(study)])
    assert differences(json.loads((run_dir / STUDY_FILE).read_text()), plan) == []


@pytest.mark.parametrize(("study", "run_dir"), STUDIES, ids=[s.stem for s, _ in STUDIES])
def test_a_committed_study_rebuilds_to_its_tables(study, run_dir, tmp_path):
    plan, _ = parse(["--study", str(study), "--run-dir", str(tmp_path)])
    cells = prepare(plan, tmp_path)
    # every cell from the committed results, or run_cells below would train it
    assert reuse_cells(cells, plan, [run_dir]).matching == len(cells)
    rebuilt = summary(plan, run_cells(cells, plan, workers=1, progress=False))
    committed = (run_dir / "summary.md").read_text()
    for title in TABLES:
        assert section(rebuilt, title) == section(committed, title), (study.name, title)
