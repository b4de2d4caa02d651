"""A recipe trained, reported and exported: :func:`run_recipe` (``python -m
training.recipes NAME``, :mod:`training.recipes.cli`).

Each member's stages train one after the other (:func:`train_member`), or the members
side by side in processes of their own (:mod:`training.recipes.members`); every stage is
a training run that continues its directory's run by the one rule of
:func:`training.train.resume_or_start`. The agent is the last stages' best networks (of
several members: their ensemble), reported on :data:`~training.recipes.book.REPORT_SEED`'s
deals and exported to ``RUN_DIR/agent.pt``. A finished recipe run again keeps its report
when its agent is the one reported (:func:`agent_digest`).
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from big2.evaluation import evaluate
from big2.players import Agent
from big2.rules import get as get_rules
from training import checkpoint, export
from training.config import Config
from training.loop import figures
from training.recipes import kept
from training.recipes.book import (
    AGENT_FILE,
    REPORT_FILE,
    REPORT_OPPONENTS,
    REPORT_SEED,
    Recipe,
    stage_dir,
    start_file,
)
from training.recipes.members import train_in_processes
from training.recipes.ship import is_shipped_place
from training.rundir import RunDirectory
from training.train import MAY_CHANGE_ON_RESUME, other_settings, resume_or_start, train


def run_recipe(
    recipe: Recipe,
    run_dir: Path,
    max_minutes: float = 0.0,
    export: Path | None = None,
    jobs: int = 1,
) -> dict[str, Any] | None:
    """Train, evaluate and export ``recipe`` in ``run_dir``, its members ``jobs`` at a time
    (each in a process of its own when more than one) and then the report's deals in
    ``jobs`` processes; the report, or None when ``max_minutes`` ran out first (run again
    to continue). The agent goes to ``run_dir/agent.pt``, and to ``export`` too if given;
    ValueError, before anything is trained, if ``export`` is a shipped agent's place (only
    ``--ship`` writes there: :func:`training.recipes.ship.ship`)."""
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    if export is not None and is_shipped_place(export):
        raise ValueError(
            f"--export {export} is where the shipped agents are: training "
            f"never writes them; export elsewhere, and replace a shipped "
            f"agent with `python -m training.recipes {recipe.name} --ship` "
            f"once its run has finished"
        )
    if jobs == 1 or recipe.members == 1:
        start = time.monotonic()
        for member in range(recipe.members):
            if member and _spent(max_minutes, start):
                return None  # as in processes, no member starts once the budget is spent
            if not train_member(recipe, run_dir, member, _left(max_minutes, start)):
                return None
    elif not train_in_processes(recipe, run_dir, max_minutes, jobs):
        return None
    data = agent_data(recipe, run_dir)
    report = _reported(recipe, run_dir, data)
    if report is None:
        text = json.dumps({**_report(recipe, data, jobs), "agent": agent_digest(data)}, indent=2)
        (run_dir / REPORT_FILE).write_text(text, encoding="utf-8")
        report = json.loads(text)  # as a run again reads it
    targets = [run_dir / AGENT_FILE, *([export] if export is not None else [])]
    for target in targets:
        checkpoint.save(target, data)
    report["exported"] = " and ".join(map(str, targets))
    return report


def _left(max_minutes: float, start: float) -> float:
    """The minutes left of ``max_minutes`` since ``start`` (0: no limit; else at least a
    trace, so that a budget spent is not read as none)."""
    if not max_minutes:
        return 0.0
    return max(max_minutes - (time.monotonic() - start) / 60, 1e-6)


def _spent(max_minutes: float, start: float) -> bool:
    """Whether a budget of ``max_minutes`` (0: none) since ``start`` has run out."""
    return bool(max_minutes) and _left(max_minutes, start) <= 1e-6


def train_member(recipe: Recipe, run_dir: Path, member: int, max_minutes: float = 0.0) -> bool:
    """Train (or continue) ``member``'s stages; whether all are done.

    ``max_minutes`` is checked between stages, never before the first stage a call
    trains: each stage stops after the epoch past the minutes left, so every call makes
    an epoch of progress however small its budget, rather than none when setting up
    (restoring kept stages, a busy machine) took longer than the budget."""
    start = time.monotonic()
    if recipe.start:
        export_start(recipe, run_dir, member)
    finished = kept.restore(recipe, run_dir, member)  # stages kept in the repository
    trained = False
    for k, stage in enumerate(recipe.stages):
        if k < finished:
            continue
        cfg = recipe.config(k, run_dir, member)
        if trained and _spent(max_minutes, start):
            return False
        cfg = replace(cfg, max_minutes=_left(max_minutes, start))
        who = f" member {member}" if recipe.members > 1 else ""
        print(
            f"{recipe.name}{who}: stage {k + 1}/{len(recipe.stages)} ({stage.name}, "
            f"{cfg.steps:,} decisions) in {cfg.run_dir}",
            file=sys.stderr,
        )
        if not _train_stage(cfg):
            return False
        trained = True
    return True


def export_start(recipe: Recipe, run_dir: Path, member: int) -> Path:
    """Member ``member`` of ``recipe.start`` as a network of its own (``--init`` takes one),
    in the member's :func:`~training.recipes.book.start_file`, unless it is there already;
    that file. An agent without such a member raises ValueError saying so."""
    path = start_file(run_dir, recipe, member)
    if not path.is_file():
        try:
            export.write(path, export.member_data(recipe.start, member))
        except checkpoint.CheckpointError as e:
            raise ValueError(f"{recipe.name} starts from {recipe.start}'s members: {e}") from None
    return path


def _train_stage(cfg: Config) -> bool:
    """Run (or continue) one stage; whether it has trained all its steps. A stage
    directory that holds a run of other settings (another seed, say) is refused, not
    continued: :func:`training.train.resume_or_start` raises ValueError naming them."""
    resume = resume_or_start(cfg)
    if resume is not None and resume["env_step"] >= cfg.steps:
        return True
    state = train(cfg, resume, overwrite=resume is None and _killed_unsaved(cfg))
    return state.env_step >= cfg.steps


def _killed_unsaved(cfg: Config) -> bool:
    """Whether ``cfg``'s stage directory holds a run of ``cfg``'s settings that was killed
    before its first checkpoint (SIGKILL, a machine taken away: no handler could clean up).
    It holds nothing to continue, so the stage starts again over it; :func:`train`'s
    ``overwrite`` still refuses a file no run writes. A stage of other settings is left
    to :func:`train`'s refusal, which names the directory."""
    directory = RunDirectory(cfg.run_dir)
    config = directory.path / "config.json"
    if directory.checkpointed or not config.is_file():
        return False
    try:
        saved = Config.from_dict(json.loads(config.read_text()))
    except (OSError, TypeError, ValueError):  # cut short, or of another version
        return False
    return not other_settings(saved, cfg, but=MAY_CHANGE_ON_RESUME)


def agent_data(recipe: Recipe, run_dir: Path) -> dict[str, Any]:
    """The recipe's agent, as the checkpoint it exports: the last stage's best networks
    (of every member: their ensemble)."""
    last = len(recipe.stages) - 1
    bests = [stage_dir(run_dir, recipe, last, m) / "best.pt" for m in range(recipe.members)]
    return export.agent_data(bests[0]) if len(bests) == 1 else export.ensemble_data(bests)


def agent_digest(data: dict[str, Any]) -> str:
    """``sha256 `` and 12 hex digits of agent checkpoint ``data``'s weights (names,
    shapes and values): the same for the same agent, whenever exported.

    >>> import torch
    >>> agent_digest({"state": {"w": torch.zeros(2)}})
    'sha256 ...'
    """
    digest = hashlib.sha256()
    for name, tensor in sorted(data["state"].items()):
        digest.update(f"{name}:{tuple(tensor.shape)}:{tensor.dtype}".encode())
        digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return f"sha256 {digest.hexdigest()[:12]}"


def _reported(recipe: Recipe, run_dir: Path, data: dict[str, Any]) -> dict[str, Any] | None:
    """``run_dir``'s report, when it reports this agent on the recipe's deals and
    opponents (a finished recipe run again); else None."""
    try:
        report = json.loads((run_dir / REPORT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    same = (
        isinstance(report, dict)
        and report.get("agent") == agent_digest(data)
        and (report.get("recipe"), report.get("deals"), report.get("seed"))
        == (recipe.name, recipe.report_deals, REPORT_SEED)
        and [r.get("opponent") for r in report.get("results", [])] == list(REPORT_OPPONENTS)
    )
    return report if same else None


def _report(recipe: Recipe, data: dict[str, Any], workers: int = 1) -> dict[str, Any]:
    """The agent's win share and mean score against three copies of each report
    opponent, on ``report_deals`` duplicate deals of :data:`REPORT_SEED` (played in
    ``workers`` processes: the same results, sooner)."""
    rules = get_rules(recipe.rules)
    agent = checkpoint.agent_of(data, recipe.name)
    rows = []
    for name in REPORT_OPPONENTS:
        players: list[Agent | str] = [agent, name, name, name]
        result = evaluate(players, recipe.report_deals, REPORT_SEED, rules, workers, progress=True)
        rows.append({"opponent": name, **figures(result.agents[0])})
    return {
        "recipe": recipe.name,
        "rules": recipe.rules,
        "deals": recipe.report_deals,
        "seed": REPORT_SEED,
        "members": recipe.members,
        "results": rows,
    }
