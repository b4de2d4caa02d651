"""The documentation: generated pages are current, examples run, links resolve.

``docs/env.md``, ``docs/observers.md`` and ``docs/vector.md`` are written by
``tests/make_docs.py`` from the code; they are regenerated in memory here and must match
the files exactly (a mismatch prints a unified diff). Every ``>>>`` example in
``README.md`` and ``docs/*.md`` runs as a doctest (pytest's ``--doctest-glob=*.md``, see
pyproject.toml), and every relative link in ``README.md`` and ``docs/`` must name a file
of the repository (and a heading of it, for ``#anchors``).
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import make_docs
import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted(make_docs.DIR.glob("*.md"))
PAGES = [ROOT / "README.md", *DOCS]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


@pytest.mark.parametrize("name", sorted(make_docs.PAGES))
def test_generated_page_is_current(name):
    path = make_docs.path_of(name)
    expected = path.read_text(encoding="utf-8") if path.exists() else ""
    actual = make_docs.PAGES[name]()
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                fromfile=str(path),
                tofile="regenerated",
            )
        )
        pytest.fail(f"docs/{name} is stale; run {make_docs.COMMAND}:\n{diff[:4000]}")


def test_check_mode_reports_stale_pages(tmp_path, capsys):
    assert make_docs.main(["--check"], directory=tmp_path) == 1  # missing pages
    assert make_docs.main([], directory=tmp_path) == 0
    assert make_docs.main(["--check"], directory=tmp_path) == 0
    path = make_docs.path_of("observers.md", tmp_path)
    path.write_text(path.read_text(encoding="utf-8").replace("| total |", "| all |", 1))
    assert make_docs.main(["--check"], directory=tmp_path) == 1
    assert "observers.md" in capsys.readouterr().out


def test_generated_pages_cover_the_code():
    env_page, observers_page = make_docs.env_page(), make_docs.observers_page()
    assert "Generated from" in env_page.splitlines()[0]
    assert "Generated from" in observers_page.splitlines()[0]
    assert "SIMPLE_LAYOUT" not in env_page and "| piece |" in env_page
    for name in make_docs.observers.REGISTRY:
        assert f"## `{name}`" in observers_page
        assert make_docs.observers.make(name).layout() in observers_page


def test_vector_page_is_the_vector_env_docstring_in_markdown():
    page = make_docs.vector_page()
    assert "Generated from" in page.splitlines()[0]
    assert "| Import | `from envs.vector import Big2VectorEnv`" in page
    assert "## `BatchPolicy`" in page
    sections = re.findall(r"\*\*[^*]+\*\*", make_docs.envs.vector.__doc__ or "")
    assert len(sections) >= 4 and all(s in page for s in sections)  # **Who acts.** ...
    assert "``" not in page and ":class:" not in page and ":meth:" not in page


def test_markdown_turns_rst_roles_into_code():
    text = "See :class:`~big2.game.View` and :func:`observers.make`, or ``simple``."
    assert make_docs.markdown(text) == "See `View` and `observers.make`, or `simple`."


def links(path: Path) -> list[str]:
    """The link targets of a Markdown page, outside code blocks and code spans."""
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    text = re.sub(r"`[^`\n]*`", "", text)
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]


def anchors(path: Path) -> set[str]:
    """GitHub's anchors for the headings of a Markdown page."""
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    headings = re.findall(r"^#+ (.+)$", text, flags=re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_relative_links_resolve_inside_the_repository(page):
    for target in links(page):
        file, _, anchor = target.partition("#")
        resolved = (page.parent / file).resolve() if file else page
        assert resolved.is_relative_to(ROOT), f"{page.name} links outside the repo: {target}"
        assert resolved.exists(), f"{page.name} links to a missing file: {target}"
        if anchor and resolved.suffix == ".md":
            assert anchor in anchors(resolved), f"{page.name}: no heading for {target}"


def test_readme_links_every_docs_page_and_the_license():
    targets = {t.partition("#")[0] for t in links(ROOT / "README.md")}
    assert {f"docs/{p.name}" for p in DOCS} <= targets
    assert "LICENSE" in targets and (ROOT / "LICENSE").read_text().startswith("MIT License")
