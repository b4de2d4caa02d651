"""Shipping: a recipe's finished run replaces its shipped agent
(``python -m training.recipes NAME --ship``).

Training never writes the shipped agents (:data:`AGENTS`, the package's
``training/agents/``); :func:`ship` is the one step that does, after checking that the
run is the recipe itself (its seed, its full budget, its report), keeping the agent it
replaces in the run directory (``replaced-NAME-SHA.pt``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from training import checkpoint
from training.config import Config
from training.recipes.book import AGENT_FILE, RECIPES, REPORT_FILE, REPORT_SEED, Recipe
from training.rundir import write_whole
from training.train import other_settings

AGENTS = Path(__file__).parent.parent / "agents"  # the shipped agents: only ship() writes here


def is_shipped_place(path: Path) -> bool:
    """Whether ``path`` is in the folder of the shipped agents."""
    return path.resolve().parent == AGENTS.resolve()


def ship(name: str, run_dir: Path) -> str:
    """Replace the shipped agent ``name`` with the agent of the finished run of its recipe
    in ``run_dir``, keeping the one it replaces there; what was done, in words.

    Raises ValueError, replacing nothing, unless ``run_dir`` holds the recipe's own
    finished run: its report and agent, trained with the recipe's seed 0 and full budget
    (not a ``--scale`` trial, nor another ``--seed``).
    """
    if name not in RECIPES:
        raise ValueError(
            f"{name} is no shipped agent's recipe (those are {sorted(RECIPES)}): a candidate "
            f"ships by taking a shipped agent's name in training/recipes/book.py"
        )
    recipe, source = RECIPES[name], run_dir / AGENT_FILE
    if not (run_dir / REPORT_FILE).is_file() or not source.is_file():
        raise ValueError(
            f"{run_dir} holds no finished {name} run (no {REPORT_FILE} and "
            f"{AGENT_FILE}): train it with `python -m training.recipes {name}"
            f"` (run again to continue), then ship it"
        )
    differ = _not_the_recipe(recipe, run_dir, checkpoint.load(source))
    if differ:
        raise ValueError(
            f"{source} is not the {name} recipe's agent ({'; '.join(differ)}): "
            f"a trial (--scale), another --seed or a run of other settings is "
            f"never shipped; nothing was replaced"
        )
    target = AGENTS / checkpoint.SHIPPED.get(name, f"{name}.pt")
    new = source.read_bytes()
    old = target.read_bytes() if target.is_file() else None
    if old == new:
        return f"{target} is {source} already: nothing replaced"
    try:
        kept = _keep(old, run_dir / f"replaced-{name}") if old is not None else None
        write_whole(target, new)
    except OSError as e:
        raise ValueError(
            f"cannot ship {source} as {target}: {e.strerror or e}; nothing was replaced"
        ) from None
    replaced = f"replaced {target} ({_digest(old)}, kept as {kept})" if kept else f"wrote {target}"
    return f"{replaced} with {source} ({_digest(new)})"


def _not_the_recipe(recipe: Recipe, run_dir: Path, data: dict[str, Any]) -> list[str]:
    """How agent checkpoint ``data`` and ``run_dir``'s report differ from what ``recipe``
    (seed 0, full budget) trains and reports: the settings of its last stage, its members
    and their seeds, the report's deals."""
    last = len(recipe.stages) - 1
    want = [recipe.config(last, run_dir, m) for m in range(recipe.members)]
    got = Config.from_dict(data["config"])
    where = ("run_dir", "init", "max_minutes")  # where it ran, how long a session went
    differ = [
        f"{k} {theirs!r}, the recipe's {mine!r}"
        for k, (theirs, mine) in other_settings(got, want[0], but=where).items()
    ]
    runs = data.get("member_runs", [{"seed": got.seed}])
    if [r["seed"] for r in runs] != [c.seed for c in want]:
        differ.append(
            f"members of seeds {[r['seed'] for r in runs]}, the recipe's {[c.seed for c in want]}"
        )
    report = json.loads((run_dir / REPORT_FILE).read_text(encoding="utf-8"))
    if (report.get("deals"), report.get("seed")) != (recipe.report_deals, REPORT_SEED):
        differ.append(
            f"reported on {report.get('deals')} deals of seed {report.get('seed')}, "
            f"the recipe on {recipe.report_deals} of {REPORT_SEED}"
        )
    return differ


def _keep(data: bytes, stem: Path) -> Path:
    """Write ``data`` to ``stem-SHA.pt`` (the start of its SHA-256); that path."""
    path = stem.with_name(f"{stem.name}-{_digest(data)[7:]}.pt")
    write_whole(path, data)
    return path


def _digest(data: bytes | None) -> str:
    """``sha256 `` and the first 12 hex digits of ``data``'s SHA-256.

    >>> _digest(b"")
    'sha256 e3b0c44298fc'
    """
    return f"sha256 {hashlib.sha256(data or b'').hexdigest()[:12]}"
