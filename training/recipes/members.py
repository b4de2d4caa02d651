"""A recipe's members trained side by side, each in a process of its own.

``python -m training.recipes NAME`` trains a recipe of several members (networks trained
alike from different seeds, played as their ensemble) ``--jobs`` at a time, by default one
per core. Each member runs as ``python -m training.recipes NAME --run-dir RUN --member M
--parent PID``, which reads the recipe from ``RUN/recipe.json`` (written here: the recipe
as last run, scale and seed included), trains that member's stages and exits 0 when they
are done, or :data:`OUT_OF_TIME` when ``--max-minutes`` ran out first.

Each member's output (its training progress bars included) goes to
``RUN/memberM/log.txt``; the bar here counts the decisions in every member's checkpoints,
so it moves an epoch at a time. The members' processes end with this one
(:func:`big2.evaluation.processes.die_with_parent`). Ctrl-C here reaches them too (one
process group) and each stops as a training run does, after its last checkpoint; this
process waits for them (:data:`GRACE` seconds), then sends SIGTERM to any still running
(:mod:`training.processes`). Running the same command again continues every member where
it stopped.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from tqdm import tqdm

from training import checkpoint
from training.processes import Child, Children
from training.recipes import kept
from training.recipes.book import Recipe

OUT_OF_TIME = 75  # a member's exit status when --max-minutes ran out (EX_TEMPFAIL)
RECIPE_FILE = "recipe.json"
LOG = "log.txt"
POLL = 2.0  # seconds between looks at the members
GRACE = 30.0  # seconds an interrupted member has to stop on its own before SIGTERM
FAILURE_TAIL = 600  # characters of a failed member's log its error shows


class MemberFailed(RuntimeError):
    """A member's process ended with an error; its log says what."""


def train_in_processes(recipe: Recipe, run_dir: Path, max_minutes: float, jobs: int) -> bool:
    """Train every member of ``recipe`` in ``run_dir``, ``jobs`` processes at a time;
    whether all finished (False: ``max_minutes`` ran out). A member that fails raises
    :class:`MemberFailed` with the end of its log, after the others are stopped."""
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / RECIPE_FILE).write_text(recipe.to_json(), encoding="utf-8")
    progress = Progress(recipe, run_dir)
    start = time.monotonic()
    todo = [m for m in range(recipe.members) if not progress.finished(m)]
    children: Children[int] = Children()
    total, shown = recipe.members * recipe.steps, {"unit_scale": True, "dynamic_ncols": True}
    bar = tqdm(total=total, initial=progress.total(), desc=recipe.name, unit="step", **shown)
    finished, interrupted = True, False
    try:
        while todo or children:
            left = max_minutes - (time.monotonic() - start) / 60 if max_minutes else 0.0
            while todo and len(children) < jobs and (not max_minutes or left > 0):
                member = todo.pop(0)
                command = member_command(recipe, run_dir, member, left)
                children.add(member, Child.start(command, log_path(run_dir, member)))
            if max_minutes and left <= 0 and todo:
                finished, todo = False, []  # out of time before these began
            bar.set_postfix_str("running: " + ", ".join(f"member {m}" for m in children), False)
            bar.update(progress.total() - bar.n)  # one redraw a poll, postfix included
            time.sleep(POLL)
            for member, child in children.ended():
                if child.returncode == OUT_OF_TIME:
                    finished = False
                elif child.returncode != 0:
                    raise MemberFailed(_failure(recipe, member, child))
        bar.update(progress.total() - bar.n)
    except KeyboardInterrupt:
        interrupted = True  # Ctrl-C reached the members too: they stop on their own
        raise
    finally:
        children.stop(GRACE if interrupted else 0.0)
        bar.close()
    return finished


def member_command(recipe: Recipe, run_dir: Path, member: int, max_minutes: float) -> list[str]:
    """The command line that trains ``member`` (its parent: this process)."""
    which = ["--run-dir", str(run_dir), "--member", str(member), "--parent", str(os.getpid())]
    budget = ["--max-minutes", repr(max(max_minutes, 0.0))]
    return [sys.executable, "-m", "training.recipes", recipe.name, *which, *budget]


def log_path(run_dir: Path, member: int) -> Path:
    return run_dir / f"member{member}" / LOG


def _failure(recipe: Recipe, member: int, child: Child) -> str:
    return (
        f"{recipe.name} member {member} failed (exit status {child.returncode}); "
        f"{child.log} ends:\n{child.tail(FAILURE_TAIL)}"
    )


class Progress:
    """The decisions trained by every member, read from their stages' checkpoints (each
    read again only when its file changes); the stages kept in the repository
    (:mod:`training.recipes.kept`) count whole."""

    def __init__(self, recipe: Recipe, run_dir: Path) -> None:
        self.stages = {
            m: [recipe.config(k, run_dir, m) for k in range(len(recipe.stages))]
            for m in range(recipe.members)
        }
        self.kept_stages = {m: kept.finished_stages(recipe, m) for m in range(recipe.members)}
        self.seen: dict[Path, tuple[int, int]] = {}  # path -> (mtime, decisions)

    def total(self) -> int:
        """The decisions in every member's checkpoints."""
        return sum(
            self._stage(m, k) for m, stages in self.stages.items() for k in range(len(stages))
        )

    def finished(self, member: int) -> bool:
        """Whether ``member`` has trained every stage's steps."""
        stages = self.stages[member]
        return all(self._stage(member, k) >= cfg.steps for k, cfg in enumerate(stages))

    def _stage(self, member: int, k: int) -> int:
        """The decisions stage ``k`` of ``member`` has trained."""
        cfg = self.stages[member][k]
        if k < self.kept_stages[member]:
            return cfg.steps
        return self._decisions(Path(cfg.run_dir) / "latest.pt")

    def _decisions(self, path: Path) -> int:
        try:
            mtime = path.stat().st_mtime_ns
        except FileNotFoundError:
            return 0
        if path not in self.seen or self.seen[path][0] != mtime:
            try:
                steps = int(checkpoint.load(path)["env_step"])
            except checkpoint.CheckpointError:  # being replaced: count it next time
                return self.seen.get(path, (0, 0))[1]
            self.seen[path] = (mtime, steps)
        return self.seen[path][1]
