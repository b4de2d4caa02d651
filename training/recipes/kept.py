"""A recipe's finished stages kept in the repository, so that a new machine continues.

A recipe of several stages may take longer than one session on one machine (the
candidates' eight stages of about an hour: :data:`training.recipes.book.CANDIDATES`). Its run
directory is not committed (it holds the optimizers and the snapshot pools, tens of
megabytes a member); what the next stage needs is: the networks it starts from (the
actor and the critic, 3.1 MB a member). ``python -m training.recipes NAME --keep``
writes them, for every member's newest finished stage, to
``training/recipes/stages/NAME/memberM/stageK-STAGE.pt`` (:func:`kept_file`), and removes
that member's older kept stages, which nothing reads once a later one is there; commit
them. When the recipe runs again on another machine, :func:`restore` puts the newest
kept stage's networks where the next stage reads them, and the member goes on from
there: the stages before it count as finished.

Only the recipe itself is kept and restored (the book's, seed 0, full scale: a trial
must never pick up, or replace, the recipe's networks), and a kept file that does not
hold the stage's settings is refused, naming the settings that differ. The files are
not package data (``pyproject.toml``): the wheel has no use for them.

>>> from training.recipes.book import CANDIDATES
>>> kept_file(CANDIDATES["population"], 2, member=1).relative_to(STORE).as_posix()
'population/member1/stage3-population.pt'
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from training import checkpoint
from training.config import RESUME_CHANGES, Config
from training.recipes.book import BOOK, Recipe, stage_dir
from training.train import other_settings

STORE = Path(__file__).with_name("stages")  # training/recipes/stages, in the repository
KEPT_WEIGHTS = ("policy.actor.", "critic.")  # what the next stage starts from (--init)
# settings that say where and how a session ran, not what the stage trained
PLACE = ("run_dir", "init", *(key for key in RESUME_CHANGES if key != "steps"))


def kept_file(recipe: Recipe, k: int, member: int = 0) -> Path:
    """Where stage ``k`` (from 0) of ``member`` is kept: ``STORE/NAME/memberM/stageK-STAGE.pt``."""
    return STORE / recipe.name / f"member{member}" / f"stage{k + 1}-{recipe.stages[k].name}.pt"


def handoff(recipe: Recipe, k: int) -> str:
    """The file of stage ``k``'s run that the recipe reads after it: the next stage's
    ``start`` (``best.pt`` or ``latest.pt``), or the last stage's ``best.pt`` (its agent)."""
    return f"{recipe.stages[k + 1].start}.pt" if k + 1 < len(recipe.stages) else "best.pt"


def is_the_recipe(recipe: Recipe) -> bool:
    """Whether ``recipe`` is the book's own (seed 0, full scale), the only one kept."""
    return recipe.name in BOOK and recipe.to_json() == BOOK[recipe.name].to_json()


def newest(recipe: Recipe, member: int) -> int | None:
    """The newest stage of ``member`` kept in the repository (from 0), or None."""
    if not is_the_recipe(recipe):
        return None
    kept = [k for k in range(len(recipe.stages)) if kept_file(recipe, k, member).is_file()]
    return max(kept, default=None)


def finished_stages(recipe: Recipe, member: int) -> int:
    """How many of ``member``'s stages are finished by the kept ones (0 when none is)."""
    k = newest(recipe, member)
    return 0 if k is None else k + 1


def restore(recipe: Recipe, run_dir: Path, member: int) -> int:
    """Put ``member``'s newest kept stage where the recipe reads it in ``run_dir`` (unless
    it is there: a run that finished that stage here); how many stages are finished.

    A kept file of other settings raises ValueError naming them, as does a run in
    ``run_dir`` that trained that stage only in part (it is not overwritten: move it)."""
    k = newest(recipe, member)
    if k is None:
        return 0
    path, cfg = kept_file(recipe, k, member), recipe.config(k, run_dir, member)
    data = _stage_data(path, cfg)
    target = stage_dir(run_dir, recipe, k, member) / handoff(recipe, k)
    trained = _trained(cfg)
    if trained is not None and trained < cfg.steps:
        raise ValueError(
            f"{path} keeps stage {k + 1} of member {member} finished, and {cfg.run_dir} holds "
            f"an unfinished run of it: move that directory away to continue from the kept one"
        )
    if not target.is_file():
        checkpoint.save(target, data)
    return k + 1


def keep(recipe: Recipe, run_dir: Path) -> list[Path]:
    """Keep every member's newest finished stage of ``run_dir`` in the repository (and
    remove that member's older kept stages); the files written. ValueError for another
    recipe than the book's, a run of other settings (another seed's, say, in ``run_dir``),
    or when no member has finished a stage; nothing is written then."""
    if not is_the_recipe(recipe):
        raise ValueError(
            f"only the recipe itself is kept (seed 0, full scale): {run_dir} holds a trial "
            f"or another seed"
        )
    todo = []  # (the kept file, what it keeps), every one checked before any is written
    for member in range(recipe.members):
        k = _newest_finished(recipe, run_dir, member)
        if k is None or k + 1 <= finished_stages(recipe, member):
            continue  # nothing finished here, or kept already
        source = stage_dir(run_dir, recipe, k, member) / handoff(recipe, k)
        data = _stage_data(source, recipe.config(k, run_dir, member))
        todo.append((kept_file(recipe, k, member), kept_data(data)))
    if not todo and not any(finished_stages(recipe, m) for m in range(recipe.members)):
        raise ValueError(f"no stage of {recipe.name} has finished in {run_dir}: nothing to keep")
    for target, data in todo:
        checkpoint.save(target, data)
        for older in target.parent.glob("stage*.pt"):
            if older != target:
                older.unlink()
    return [target for target, _ in todo]


def kept_data(data: dict[str, Any]) -> dict[str, Any]:
    """What is kept of a stage's checkpoint ``data``: its config, evaluations and counts,
    and the actor's and the critic's weights (no optimizer, no snapshots)."""
    weights = {k: v for k, v in data["state"].items() if k.startswith(KEPT_WEIGHTS)}
    return {**data, "state": weights, "snapshots": []}


def _stage_data(path: Path, cfg: Config) -> dict[str, Any]:
    """Checkpoint ``path``, which must hold a run of stage config ``cfg``'s settings (but
    where and how a session ran: :data:`PLACE`); ValueError naming those that differ."""
    data = checkpoint.load(path)
    differ = other_settings(checkpoint.config_of(data), cfg, PLACE)
    if differ:
        named = "; ".join(f"{key}: {a!r} there, {b!r} here" for key, (a, b) in differ.items())
        raise ValueError(f"{path} was not trained by this stage ({named})")
    return data


def _newest_finished(recipe: Recipe, run_dir: Path, member: int) -> int | None:
    """The newest stage of ``member`` whose run in ``run_dir`` trained all its steps."""
    for k in reversed(range(len(recipe.stages))):
        cfg = recipe.config(k, run_dir, member)
        trained = _trained(cfg)
        if trained is not None and trained >= cfg.steps:
            return k
    return None


def _trained(cfg: Config) -> int | None:
    """The decisions the run of stage config ``cfg`` has trained (its ``latest.pt``), or
    None when there is no run."""
    latest = Path(cfg.run_dir) / "latest.pt"
    return int(checkpoint.load(latest)["env_step"]) if latest.is_file() else None
