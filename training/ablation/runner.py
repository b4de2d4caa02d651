"""Run a study's cells, up to ``workers`` at a time, each in its own process, or on Ray.

Locally, each cell is a process of its own (:mod:`training.ablation.cell`, with its
output in the cell's ``log.txt``: :mod:`training.processes`), so a cell that crashes hard
cannot take the others down (a process pool breaks as a whole when one worker dies); a
study that stops first (Ctrl-C, SIGTERM) stops the cells it started. On the Ray backend
each cell is a Ray task that declares the CPUs it needs (its torch threads); Ray retries a
task lost with its worker, and the study writes each result as it arrives.

A cell's ``result.json`` is written when it has finished, so a re-run skips finished
cells and continues the others from their runs' last checkpoints
(:mod:`training.ablation.cell`): an interrupted study, or one whose cluster went away,
loses at most an epoch of each cell that was running. Cells start seed by seed (every setting's
seed 0, then every setting's seed 1, ...), so a study stopped early holds whole seeds
to compare. A cell that fails (an exception, or a
process that dies) is reported with its error and the others go on. ``study.json``
records the study; a re-run whose settings differ is refused before anything runs. A
study directory that has lost its ``study.json`` is taken over when every cell in it
records that it trains as this study's cell there (and refused, naming the cells that do
not, otherwise).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from big2.evaluation.backends import Backend
from big2.evaluation.stats import mean
from training.ablation.cell import ATTEMPT, ERROR, LOG, RESULT, SPEC, run_spec, write_json
from training.ablation.stats import deal_values, seatings
from training.ablation.study import Cell, Study, differences
from training.config import Config
from training.lock import LOCK_FILE, DirectoryLock, Locked
from training.processes import Child, Children
from training.train import other_settings

STUDY_FILE = "study.json"
OUTPUTS = ("results.csv", "summary.md", "curves.png", "final.png")  # the report's files
# what a study writes in its directory (study.json.tmp: cut while it wrote study.json)
STUDY_ENTRIES = (STUDY_FILE, f"{STUDY_FILE}.tmp", "cells", LOCK_FILE, *OUTPUTS)
CELL_WAIT = 30.0  # seconds to wait for an earlier run's cell process to end
FAILURE_TAIL = 400  # characters of a cell's log its error shows when it died without a word


class StudyMismatch(ValueError):
    """The run directory holds a study with other settings."""


@dataclass
class Outcome:
    """How one cell ended: its result, or the error that stopped it."""

    cell: Cell
    result: dict[str, Any] | None = None
    error: str = ""

    @property
    def done(self) -> dict[str, Any]:
        """The result of a finished cell (a failed one raises ValueError)."""
        if self.result is None:
            raise ValueError(f"cell {self.cell.name} failed: {self.error}")
        return self.result


def prepare(study: Study, root: Path) -> list[Cell]:
    """Check the study against ``root`` and write ``study.json``; the cells to report.

    Raises :class:`StudyMismatch` (and writes nothing) when ``root`` holds a study with
    other settings, or a finished cell whose config differs from this study's, or (with
    no ``study.json``) anything but this study's files and cells.
    """
    study.check()
    saved_file = root / STUDY_FILE
    if saved_file.exists():
        try:
            saved = json.loads(saved_file.read_text(encoding="utf-8"))
        except ValueError as e:
            raise StudyMismatch(
                f"{saved_file} is not a study record ({e}); use another --run-dir"
            ) from None
        differ = differences(saved, study)
        if differ and any(root.glob(f"cells/*/*/{RESULT}")):
            raise StudyMismatch(
                f"{root} holds a study with other settings ({'; '.join(differ)}); use another "
                f"--run-dir, or the same settings to resume it"
            )
        # no cell of it finished: nothing is lost by taking the new settings
    elif root.exists() and any(p.name != LOCK_FILE for p in root.iterdir()):
        _take_over(study, root)
    cells = study.cells(root)
    for cell in cells:
        done = _finished(cell)
        if done is not None and _other_options(done["config"], cell):
            raise StudyMismatch(
                f"finished cell {cell.name} in {root} was trained with other options "
                f"({', '.join(_other_options(done['config'], cell))}); use another --run-dir"
            )
    root.mkdir(parents=True, exist_ok=True)
    write_json(saved_file, study.to_dict())
    return cells


def _other_options(config: dict[str, Any], cell: Cell) -> list[str]:
    """The options ``config`` (a cell's saved one) trains with other values than ``cell``."""
    return sorted(other_settings(Config.from_dict(config), cell.config, but=("run_dir",)))


def _take_over(study: Study, root: Path) -> None:
    """Check that ``root``, which holds files but no ``study.json`` (deleted, or never
    written), holds only this study's outputs and cells, each trained (or being trained)
    as its own saved config says this study's cell is; raise :class:`StudyMismatch`
    naming what does not fit otherwise. :func:`prepare` then writes ``study.json`` again,
    and the cells are reused (finished) or continued like any re-run's."""
    foreign = sorted(p.name for p in root.iterdir() if p.name not in STUDY_ENTRIES)
    if foreign:
        raise StudyMismatch(
            f"{root} holds files but no {STUDY_FILE}, and not only a study's "
            f"({', '.join(foreign)}); use another --run-dir"
        )
    cells = {cell.directory: cell for cell in study.cells(root)}
    found = _cell_directories(root)
    problems = [p for p in (_not_like(d, cells, study) for d in found) if p is not None]
    if problems:
        raise StudyMismatch(
            f"{root} has no {STUDY_FILE}, and its cells are not all this "
            f"study's: {'; '.join(problems)}; run the study they belong to, "
            f"or use another --run-dir (nothing was changed)"
        )
    print(
        f"ablation: {root} had no {STUDY_FILE}; the {len(found)} cells in it are this "
        f"study's: finished ones are kept, the others continue",
        file=sys.stderr,
    )


def _not_like(directory: Path, cells: dict[Path, Cell], study: Study) -> str | None:
    """Why ``directory`` is not the cell of ``cells`` it would be; None if it is."""
    if directory not in cells:
        return f"{directory.relative_to(directory.parents[2])} is not a cell of this study"
    return _unlike(cells[directory], study)


def _cell_directories(root: Path) -> list[Path]:
    """Every entry two levels below ``root/cells`` (a cell's directory, if it is one), and
    every entry one level below that is not a directory."""
    found = []
    for setting in sorted((root / "cells").glob("*")):
        found += sorted(setting.iterdir()) if setting.is_dir() else [setting]
    return found


def _unlike(cell: Cell, study: Study) -> str | None:
    """How what ``cell``'s directory records (its result, its spec, its run's config)
    differs from the cell ``study`` trains there, by the first record that differs;
    None if none does."""
    for name, record in _records(cell):
        if not isinstance(record, dict) or not isinstance(record.get("config"), dict):
            return f"{cell.name}: its {name} is not a record this study can read"
        keys = _other_options(record["config"], cell)
        measured = ("report_seed", "report_deals")
        keys += [k for k in measured if k in record and record[k] != getattr(study, k)]
        if keys:
            return f"{cell.name} ({name}) trains with other options ({', '.join(keys)})"
    return None


def _records(cell: Cell) -> list[tuple[str, Any]]:
    """What ``cell``'s directory says it trains as, by file: its result (if finished),
    its spec and its run's config (as a spec with a config alone); None for a file that
    cannot be read."""
    found: list[tuple[str, Any]] = []
    result = _finished(cell)  # a file that is not a result is named, and run again
    if result is not None:
        found.append((RESULT, result))
    for name in (SPEC, "run/config.json"):
        try:
            data = json.loads((cell.directory / name).read_text(encoding="utf-8"))
        except FileNotFoundError:
            continue
        except (OSError, ValueError):
            data = None
        found.append((name, {"config": data} if name.startswith("run/") else data))
    return found


def trained_as(config: Config | dict[str, Any]) -> Config:
    """What a cell's results depend on: its config, wherever its run directory is (the
    study may have moved), with options added since it ran read as their defaults."""
    cfg = config if isinstance(config, Config) else Config.from_dict(config)
    return replace(cfg, run_dir="")


RESULT_KEYS = (
    "setting",
    "seed",
    "config",
    "steps",
    "train_seconds",
    "wall_seconds",
    "curve",
    "report_seed",
    "report_deals",
    "report",
)


def _finished(cell: Cell) -> dict[str, Any] | None:
    """The cell's result, if it finished. A result.json that is unreadable or not a
    cell's result (edited by hand, say) does not count: the cell runs again, and a
    warning names the file."""
    return read_result(cell.directory / RESULT)


def read_result(path: Path, then: str = "the cell runs again") -> dict[str, Any] | None:
    """The cell result at ``path``; None if there is none, or (with a warning that ends
    with ``then``, what happens instead) if the file is not a cell's result."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        return _not_a_result(path, f"unreadable: {e}", then)
    if not isinstance(data, dict) or not all(k in data for k in RESULT_KEYS):
        return _not_a_result(path, f"expected the keys {', '.join(RESULT_KEYS)}", then)
    if not isinstance(data["report"], dict) or not isinstance(data["config"], dict):
        return _not_a_result(path, "its report or config is not a table", then)
    return data


def _not_a_result(path: Path, why: str, then: str) -> dict[str, Any] | None:
    """None (not finished), after saying why ``path`` is not a result."""
    print(f"ablation: {path} is not a cell result ({why}); {then}", file=sys.stderr)
    return None


def run_cells(
    cells: list[Cell],
    study: Study,
    workers: int,
    progress: bool = True,
    backend: Backend | None = None,
) -> list[Outcome]:
    """Run every unfinished cell (``workers`` at a time locally, or on ``backend``);
    every cell's outcome, in order."""
    if workers < 1:
        raise ValueError(f"workers must be positive, got {workers}")
    outcomes = {c.directory: Outcome(c) for c in cells}
    todo = []
    for cell in cells:
        done = _finished(cell)
        if done is None:
            todo.append(cell)
        else:
            outcomes[cell.directory] = Outcome(cell, done)
    todo.sort(key=lambda cell: cell.seed)  # stable: settings in order within a seed
    shown = {"disable": not progress, "dynamic_ncols": True}
    bar = tqdm(total=len(cells), initial=len(cells) - len(todo), desc="cells", unit="cell", **shown)
    try:
        if backend is not None and backend.name != "local":
            _run_on(backend, todo, study, outcomes, bar)
        else:
            _run_locally(todo, study, workers, outcomes, bar)
    finally:
        bar.close()
    return [outcomes[c.directory] for c in cells]


def _run_locally(
    todo: list[Cell], study: Study, workers: int, outcomes: dict[Path, Outcome], bar: Any
) -> None:
    """Each cell in a process of its own, ``workers`` at a time; stopped when this ends
    first (interrupted)."""
    cells = {cell.directory: cell for cell in todo}
    children: Children[Path] = Children()
    try:
        while todo or children:
            while todo and len(children) < workers:
                cell = todo.pop(0)
                try:
                    children.add(cell.directory, _start(cell, study))
                except Locked as e:  # an earlier run's process would not end
                    outcomes[cell.directory] = Outcome(cell, error=str(e))
                    bar.update(1)
            _show(bar, [cells[key] for key in children])
            time.sleep(0.2)
            for key, child in children.ended():
                outcomes[key] = _outcome(cells[key], child)
                bar.update(1)
                bar.write(_line(outcomes[key]))
    finally:
        children.stop()


def _run_on(
    backend: Backend, todo: list[Cell], study: Study, outcomes: dict[Path, Outcome], bar: Any
) -> None:
    """Each cell a task of ``backend`` (Ray), its result written here as it arrives."""
    specs = [_prepare_cell(cell, study) for cell in todo]  # Locked: the study stops here
    bar.set_postfix_str(f"{len(todo)} cells submitted to {backend.name}", refresh=True)
    finished: set[int] = set()
    try:
        for index, result in backend.as_completed(run_spec, specs, cpus=study.threads):
            finished.add(index)
            cell = todo[index]
            if isinstance(result, BaseException):
                error = f"{type(result).__name__}: {result}"
                trace = getattr(result, "traceback", "")  # a TaskFailed carries the worker's
                write_json(cell.directory / ERROR, {"error": error, "traceback": trace})
                outcomes[cell.directory] = Outcome(cell, error=error)
            else:
                write_json(cell.directory / RESULT, result)
                outcomes[cell.directory] = Outcome(cell, result)
            bar.update(1)
            bar.write(_line(outcomes[cell.directory]))
    except Exception as e:
        lost = f"{backend.name} backend stopped: {type(e).__name__}: {e}"
        for i, cell in enumerate(todo):
            if i not in finished:
                outcomes[cell.directory] = Outcome(cell, error=lost)


def _prepare_cell(cell: Cell, study: Study) -> dict[str, Any]:
    """Clear what an unfinished earlier run of the cell left, but for its training run,
    which the cell continues, and its log; write and return its spec.

    Waits (up to :data:`CELL_WAIT` seconds) for a process of an earlier study run still
    working in the cell to end (it ends with its runner: :mod:`big2.evaluation.processes`);
    raises :class:`training.lock.Locked` if it does not.
    """
    cell.directory.mkdir(parents=True, exist_ok=True)
    with cell_lock(cell):
        for entry in cell.directory.iterdir():
            if entry.name not in (LOCK_FILE, LOG, ATTEMPT, "run"):
                shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    spec = cell_spec(cell, study)
    write_json(cell.directory / SPEC, spec)
    return spec


def cell_spec(cell: Cell, study: Study) -> dict[str, Any]:
    """What ``cell.json`` holds: the setting, its training config and the report deals."""
    return {
        "setting": cell.setting.label,
        "config": cell.config.to_dict(),
        "report_deals": study.report_deals,
        "report_seed": study.report_seed,
    }


def cell_lock(cell: Cell) -> DirectoryLock:
    """The cell's lock, taken: waits while a dying process of an earlier run holds it."""
    lock, deadline = DirectoryLock(cell.directory, "cell"), time.monotonic() + CELL_WAIT
    while True:
        try:
            lock.acquire()
            return lock
        except Locked:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def _start(cell: Cell, study: Study) -> Child:
    """Launch the cell's process (it ends if this process does: it is given our pid)."""
    _prepare_cell(cell, study)
    arguments = [str(cell.directory), str(os.getpid())]
    command = [sys.executable, "-m", "training.ablation.cell", *arguments]
    return Child.start(command, cell.directory / LOG)


def _outcome(cell: Cell, child: Child) -> Outcome:
    """What a cell's process left, once it has ended: its result, or its error."""
    result = _finished(cell)
    if child.returncode == 0 and result is not None:
        return Outcome(cell, result)
    error_file = cell.directory / ERROR
    if error_file.exists():
        error = json.loads(error_file.read_text(encoding="utf-8"))["error"]
    else:  # the process died without a word (killed, out of memory, a crash in C)
        tail = child.tail(FAILURE_TAIL)
        error = f"process exited with status {child.returncode}: ...{tail}"
    return Outcome(cell, error=error)


def _show(bar: Any, running: list[Cell]) -> None:
    """Name the running cells beside the progress bar."""
    names = "; ".join(cell.name for cell in running)
    if names != getattr(bar, "running", None):  # redraw only when the running set changes
        bar.running = names
        bar.set_postfix_str("running: " + names if names else "", refresh=True)


def _line(outcome: Outcome) -> str:
    """One line for the log as a cell ends: its time and win shares, or its error."""
    if outcome.result is None:
        return f"FAILED {outcome.cell.name}: {outcome.error}"
    r = outcome.result
    shares = ", ".join(
        f"{opponent} {mean(deal_values(report, 'win_share', seatings(outcome.cell))):.3f}"
        for opponent, report in r["report"].items()
    )
    return f"done {outcome.cell.name} in {r['wall_seconds']:.0f} s: win share vs {shares}"
