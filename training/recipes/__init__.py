"""The recipes for the shipped agents, and the code that runs them.

- :mod:`~training.recipes.book`: the recipe book, as data (:data:`RECIPES`, the shipped
  agents', :data:`CANDIDATES`, their possible successors', :class:`Recipe`,
  :class:`Stage`, where each stage runs); it imports none of the code
  that runs it, so ``python -m training.train --recipe NAME`` reads it too.
- :mod:`~training.recipes.run`: a recipe trained, reported and exported.
- :mod:`~training.recipes.members`: its members side by side, each in a process of its
  own (:mod:`training.processes`).
- :mod:`~training.recipes.ship`: a finished run's agent shipped over ``training/agents/``.
- :mod:`~training.recipes.cli`: the command, ``python -m training.recipes NAME [--ship]``.

The package holds the book's names (``from training.recipes import RECIPES, Recipe,
Stage``). The other names it held when it was one module raise ImportError naming where
they are now (``training.recipes.ship`` is a module now: its function is
``training.recipes.ship.ship``):

>>> import training.recipes
>>> training.recipes.run_recipe
Traceback (most recent call last):
...
ImportError: training.recipes.run_recipe is training.recipes.run.run_recipe now
"""

from training.recipes.book import (
    AGENT_FILE,
    BOOK,
    CANDIDATES,
    MIN_STEPS,
    NETWORK,
    RECIPES,
    REPORT_FILE,
    REPORT_OPPONENTS,
    REPORT_SEED,
    SELF_PLAY,
    START_FILE,
    TABLES,
    VALIDATION_SEED,
    Recipe,
    Stage,
    member_dir,
    population,
    population_recipe,
    stage_dir,
    start_file,
)

__all__ = [
    "AGENT_FILE",
    "BOOK",
    "CANDIDATES",
    "MIN_STEPS",
    "NETWORK",
    "RECIPES",
    "REPORT_FILE",
    "REPORT_OPPONENTS",
    "REPORT_SEED",
    "SELF_PLAY",
    "START_FILE",
    "TABLES",
    "VALIDATION_SEED",
    "Recipe",
    "Stage",
    "member_dir",
    "population",
    "population_recipe",
    "stage_dir",
    "start_file",
]

# the names this package held before it held the book alone, by the module holding them now
MOVED = {
    "main": "cli",
    "run_recipe": "run",
    "train_member": "run",
    "agent_data": "run",
    "AGENTS": "ship",
}


def __getattr__(name: str) -> object:
    """A moved name raises ImportError naming where it is now (an unknown one, as usual,
    AttributeError): it is not imported from here, which the code running the book
    imports."""
    if name in MOVED:
        raise ImportError(f"training.recipes.{name} is training.recipes.{MOVED[name]}.{name} now")
    raise AttributeError(f"module 'training.recipes' has no attribute {name!r}")
