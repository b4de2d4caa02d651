"""The lab's shape: each experiment one module that opens with its question, its command
and its finding, runs as ``python -m lab.NAME`` and helps with ``--help``; the lab's pages
link only to what exists."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import pytest

LAB = Path(__file__).resolve().parents[1]
EXPERIMENTS = sorted(p.stem for p in LAB.glob("*.py") if p.stem != "__init__")
PAGES = sorted(LAB.glob("*.md"))


def prose(path: Path) -> str:
    """A Markdown page without its code blocks."""
    return re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)


def links(path: Path) -> list[str]:
    """The relative link targets of a Markdown page, outside code."""
    text = re.sub(r"`[^`\n]*`", "", prose(path))
    return [t for t in re.findall(r"\]\(([^)\s]+)\)", text) if not re.match(r"[a-z]+:", t)]


def anchors(path: Path) -> set[str]:
    """GitHub's anchors for the headings of a Markdown page."""
    headings = re.findall(r"^#+ (.+)$", prose(path), flags=re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def test_the_lab_holds_the_moved_experiments():
    moved = {
        "critic_report",
        "distill",
        "faithful",
        "oracle_teacher",
        "outlook",
        "probe",
        "rollout_members",
        "search_settings",
        "true_deals",
    }
    assert moved <= set(EXPERIMENTS)


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_each_experiment_opens_with_its_question_command_and_finding(name):
    doc = importlib.import_module(f"lab.{name}").__doc__
    opening = doc.split("\n\n")[0]
    assert "?" in opening, f"lab.{name} does not open with its question"
    assert f"python -m lab.{name}" in opening, f"lab.{name} does not name its command"
    assert "\nFound (" in doc, f"lab.{name} does not say what it found"


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_each_experiment_helps_with_its_question(name, monkeypatch, capsys):
    module = importlib.import_module(f"lab.{name}")
    monkeypatch.setattr(sys, "argv", [f"lab.{name}", "--help"])
    with pytest.raises(SystemExit) as stop:
        module.main()
    assert stop.value.code == 0
    assert module.__doc__.strip().splitlines()[0] in capsys.readouterr().out


def test_the_readme_names_every_experiment():
    readme = (LAB / "README.md").read_text(encoding="utf-8")
    assert [n for n in EXPERIMENTS if f"python -m lab.{n}" not in readme] == []


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_the_lab_pages_links_resolve(page):
    root = LAB.parent
    for target in links(page):
        file, _, anchor = target.partition("#")
        resolved = (page.parent / file).resolve() if file else page
        assert resolved.is_relative_to(root) and resolved.exists(), f"{page.name}: {target}"
        if anchor and resolved.suffix == ".md":
            assert anchor in anchors(resolved), f"{page.name}: no heading for {target}"
