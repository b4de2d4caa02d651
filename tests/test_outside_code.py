"""What outside code meets: the wheel carries the shipped agents, agents of one's own are
named on the command line, and a loader that does not know a file lets the next one try."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from big2.app.cli import main as big2_main
from big2.players import load_agent
from big2.rules import STANDARD
from training import checkpoint, loader, shipped

ROOT = Path(__file__).resolve().parent.parent

MY_AGENTS = '''
from big2.players import GreedyAgent, RandomAgent


class Cautious(GreedyAgent):
    """Plays like greedy; a user's own agent."""

    name = "cautious"


def seeded(rules, seed=0):
    return RandomAgent(seed)

ready = Cautious()
'''


@pytest.fixture
def my_agents(tmp_path, monkeypatch):
    (tmp_path / "my_agents.py").write_text(MY_AGENTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "my_agents"
    sys.modules.pop("my_agents", None)


def test_an_agent_of_ones_own_is_named_module_colon_attribute(my_agents, capsys):
    assert type(load_agent(f"{my_agents}:Cautious")).__name__ == "Cautious"
    assert load_agent(f"{my_agents}:ready").act  # an agent object as it is
    assert load_agent(f"{my_agents}:seeded:4").rng.random() == load_agent("random:4").rng.random()
    big2_main(["arena", "--agents", f"{my_agents}:Cautious", "random", "random", "random",
               "--deals", "2"])  # fmt: skip
    assert "cautious" in capsys.readouterr().out.lower()
    with pytest.raises(ValueError, match="has no 'Nobody'"):
        load_agent(f"{my_agents}:Nobody")
    with pytest.raises(ValueError, match="takes no seed"):
        load_agent(f"{my_agents}:Cautious:3")


def test_a_loader_that_does_not_know_a_file_lets_the_next_one_try(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("not an agent")
    assert loader.agent_loader(str(notes), STANDARD) is None  # not its kind: next loader
    with pytest.raises(ValueError, match="no agent loader recognises the file"):
        load_agent(str(notes))
    broken = tmp_path / "broken.pt"
    broken.write_text("half a checkpoint")
    with pytest.raises(checkpoint.CheckpointError, match="corrupt or not a checkpoint"):
        loader.agent_loader(str(broken), STANDARD)  # its kind (.pt), but broken
    assert loader.agent_loader("trained", STANDARD) is not None


def test_a_name_not_its_own_is_passed_on_without_importing_torch():
    """A baseline, a typo or another loader's agent costs no torch import (seconds), and
    the shipped agents are listed without loading one (``big2 agents``)."""
    code = (
        "import sys; from big2.rules import STANDARD; from training.loader import agent_loader;"
        " assert agent_loader('no-such-agent', STANDARD) is None;"
        " print(len(agent_loader.catalog()), 'torch' in sys.modules)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.split() == [str(len(shipped.HISTORY)), "False"]


def test_a_missing_shipped_agent_says_what_is_missing(monkeypatch):
    monkeypatch.setitem(checkpoint.SHIPPED, "trained", "gone.pt")
    with pytest.raises(checkpoint.CheckpointError, match="missing from this installation"):
        load_agent("trained")


@pytest.mark.slow
def test_the_wheel_carries_the_shipped_agent_and_it_loads_from_there(tmp_path):
    wheels, target, source = tmp_path / "wheels", tmp_path / "site", tmp_path / "source"
    # a copy of the checkout (builds write in place), with what must stay out of the wheel
    for name in ("big2", "observers", "envs", "training", "lab", "bench"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels),
                    str(source)], check=True)  # fmt: skip
    (wheel,) = wheels.glob("big2-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert not [n for n in names if n.startswith(("lab/", "bench/"))]  # experiments stay out
    assert {f"training/agents/{f}" for f in checkpoint.SHIPPED.values()} <= set(names)
    assert not [n for n in names if n.startswith("training/agents/past")]  # the repository's
    assert not [n for n in names if n.startswith("training/recipes/stages")]  # kept stages too
    assert "big2/py.typed" in names
    page = {f"big2/app/static/{f}" for f in ("play.html", "replay.html", "big2.css", "cards.js",
                                             "play.js", "replay.js")}  # fmt: skip
    assert page <= set(names)  # big2 serve's page ships in the package
    subprocess.run([*pip, "install", "--no-deps", "--target", str(target), str(wheel)],
                   check=True)  # fmt: skip
    # one process for both agents: each import of torch costs seconds
    code = ("import training, big2.players as p; "
            "a = p.load_agent('trained'); print(training.__file__, a.name); "
            "p.load_agent('trained@2026-11-21')")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, text=True,
                          capture_output=True, env={"PYTHONPATH": str(target)})  # fmt: skip
    assert done.stdout.startswith(str(target)) and done.stdout.split()[-1] == "trained"
    assert "is a past agent, kept in the big2 repository" in done.stderr
