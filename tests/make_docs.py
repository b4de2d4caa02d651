"""Regenerate the documentation pages made from the code (checked by tests/test_docs.py).

    .venv/bin/python tests/make_docs.py           # rewrite the files
    .venv/bin/python tests/make_docs.py --check   # exit 1 if a file is stale

- ``docs/env.md``: the module docstring of ``envs/big2_env.py``, which is the env's
  documentation page (its layout tables are filled in when the module is imported);
- ``docs/single.md``: the module docstring of ``envs/single.py``, the one-seat env's page;
- ``docs/observers.md``: a table of sizes (four, three and two players), how pieces
  size with the player count, then one section per registered observer
  (``observers.REGISTRY``, each built by ``observers.make(name)`` with the default rules
  and parameters): its class docstring and its ``layout()`` table;
- ``docs/vector.md``: the module docstring of ``envs/vector.py`` (``Big2VectorEnv``'s
  documentation page), then the docstring of its ``BatchPolicy`` protocol, with
  reStructuredText roles and literals turned into Markdown code.

Edit the docstrings and the observers' pieces, then run this script; never edit the
generated pages by hand.
"""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import envs.big2_env
import envs.single
import envs.vector
import observers

DIR = Path(__file__).resolve().parent.parent / "docs"
COMMAND = ".venv/bin/python tests/make_docs.py"


def header(source: str) -> str:
    """The line that opens every generated page: what it comes from, and how to remake it."""
    return (
        f"> Generated from {source} by `{COMMAND}` (also run by `make golden`); "
        f"edit the code, not this file.\n\n"
    )


def markdown(doc: str) -> str:
    """A docstring's reStructuredText markup as Markdown: roles and ``literals`` as code."""

    def role(match: re.Match[str]) -> str:
        target = match["target"]
        return f"`{target.rsplit('.', 1)[-1] if match['short'] else target}`"

    doc = re.sub(r":[a-z]+:`(?P<short>~?)(?P<target>[^`]+)`", role, doc)
    return doc.replace("``", "`")


def module_page(module: ModuleType) -> str:
    """A page that is ``module``'s docstring, as it is (Markdown already)."""
    doc = inspect.cleandoc(module.__doc__ or "")
    path = module.__name__.replace(".", "/") + ".py"
    return header(f"the module docstring of `{path}`") + doc + "\n"


def env_page() -> str:
    """``docs/env.md``: the env module's docstring."""
    return module_page(envs.big2_env)


def single_page() -> str:
    """``docs/single.md``: the one-seat env module's docstring."""
    return module_page(envs.single)


def vector_page() -> str:
    """``docs/vector.md``: the vector env module's docstring, then ``BatchPolicy``'s."""
    doc = markdown(inspect.cleandoc(envs.vector.__doc__ or ""))
    policy = markdown(inspect.getdoc(envs.vector.BatchPolicy) or "")
    return (
        header("the docstrings of `envs/vector.py` (the module and `BatchPolicy`)")
        + f"# Vector environment\n\n{doc}\n\n## `BatchPolicy`\n\n{policy}\n"
    )


def observer_section(name: str) -> str:
    """One observer's section: its class docstring and its layout table."""
    observer = observers.make(name)
    doc = markdown(inspect.getdoc(type(observer)) or "")
    cheat = " It sees every hand." if observer.perfect_information else ""
    return (
        f"## `{name}`\n\n{doc}\n\n"
        f"`observers.make({name!r})`: {observer.size} values.{cheat}\n\n"
        f"{observer.layout()}\n"
    )


def size_for(name: str, rules: str) -> str:
    """The size of observer ``name`` under preset ``rules``, or a dash if it refuses them."""
    try:
        return str(observers.make(name, rules).size)
    except ValueError:
        return "-"


PLAYER_COUNTS = (
    "## Two and three players\n\n"
    "Every observer but `charlesworth` follows the rules' `players` (the `three-player` and "
    "`two-player` presets, docs/rules.md): a piece per seat has a row (or a column) for "
    "each, in the order me, next, across, previous (of three players me, next, previous; of "
    "two me, next), a piece per opponent a row for each of the `players - 1` opponents, the "
    "cards-left one-hots are as long as the largest hand (`rules.largest_hand`: 13 of four "
    "players, 18 of three, 26 of two), `planes` divides the cards left by it, and `passes` "
    "counts 0 to `players - 2` (one more pass clears the table). Under four players the "
    "layouts are those below. `charlesworth`, the 2018 code's observation, is defined for "
    "four players of 13 cards and refuses other deals (use `simple`). The full state of "
    "`raw_env.state()` has a row per seat likewise. "
    "`observers.make('simple', 'three-player')`:\n\n"
)


def observers_page() -> str:
    """``docs/observers.md``: a summary table, how pieces size with the player count, then
    one section per registered observer."""
    names = list(observers.REGISTRY)  # registration order: simple first
    rows = [
        "| observer | size (4 players) | 3 players | 2 players | sees every hand |",
        "|---|---|---|---|---|",
    ]
    for name in names:
        observer = observers.make(name)
        every = "yes" if observer.perfect_information else "no"
        three, two = size_for(name, "three-player"), size_for(name, "two-player")
        rows.append(f"| [`{name}`](#{name}) | {observer.size} | {three} | {two} | {every} |")
    intro = (
        "# Observers\n\n"
        "An observer turns what one seat may see (`Game.view(seat)`) into one flat float32 "
        "array made of named pieces, seat-relative (me, next, across, previous; a row per "
        "seat of the rules' `players`). "
        "`observers.make(name, rules, **params)` builds one; `observer.layout()` prints its "
        "table and `observer.split(flat)` cuts an observation into its pieces. The layouts "
        "below are those of the STANDARD rules with default parameters. The layout of "
        "`raw_env.state()` is on the [environment page](env.md).\n\n"
    )
    counts = PLAYER_COUNTS + observers.make("simple", "three-player").layout() + "\n\n"
    sections = "\n".join(observer_section(name) for name in names)
    table = "\n".join(rows) + "\n\n"
    return header("`observers.REGISTRY`") + intro + table + counts + sections


PAGES: dict[str, Callable[[], str]] = {
    "env.md": env_page,
    "observers.md": observers_page,
    "single.md": single_page,
    "vector.md": vector_page,
}


def path_of(name: str, directory: Path = DIR) -> Path:
    return directory / name


def main(argv: list[str] | None = None, directory: Path = DIR) -> int:
    argv = sys.argv[1:] if argv is None else argv
    check = "--check" in argv
    stale = []
    for name, page in PAGES.items():
        path, text = path_of(name, directory), page()
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(name)
        if not check:
            directory.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    verb = "stale" if check else "written"
    print(f"{len(stale)} of {len(PAGES)} generated pages {verb}: {', '.join(stale) or '-'}")
    if check and stale:
        print(f"run {COMMAND} to regenerate them")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
