"""training.recipes.kept: a recipe's finished stages kept in the repository continue on
another machine to the same agent; trials, other settings and unfinished runs are refused."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import torch

from training import checkpoint, recipes
from training.recipes import RECIPES, cli, kept, members
from training.recipes.run import run_recipe

TINY = 0.0005


def tiny() -> recipes.Recipe:
    """``trained`` at one small collection a stage and one member, its second stage
    continuing the first's latest networks (as the candidates' stages do), under a name of
    its own."""
    base = RECIPES["trained"].scaled(TINY)
    first, second = base.stages
    stages = (first, replace(second, start="latest"))
    return replace(base, name="tiny", stages=stages, members=1)


@pytest.fixture
def recipe(monkeypatch, tmp_path) -> recipes.Recipe:
    """The tiny recipe in the book, its stages kept under ``tmp_path/stages``."""
    tiny_recipe = tiny()
    monkeypatch.setitem(kept.BOOK, "tiny", tiny_recipe)
    monkeypatch.setattr(kept, "STORE", tmp_path / "stages")
    return tiny_recipe


def weights(path: Path) -> dict[str, torch.Tensor]:
    return checkpoint.load(path)["state"]


@pytest.mark.slow
def test_a_kept_stage_continues_on_another_machine_to_the_same_agent(recipe, tmp_path):
    # the first stage only, on this machine: the same runs as the recipe's first stage
    assert run_recipe(replace(recipe, stages=recipe.stages[:1]), tmp_path / "here") is not None
    written = kept.keep(recipe, tmp_path / "here")
    assert written == [kept.kept_file(recipe, 0, m) for m in range(recipe.members)]
    for m, path in enumerate(written):
        data = checkpoint.load(path)
        assert data["snapshots"] == [] and data["env_step"] >= recipe.stages[0].settings["steps"]
        names = data["state"].keys()
        assert any(k.startswith("critic.") for k in names)  # the next stage starts from it too
        assert all(k.startswith(kept.KEPT_WEIGHTS) for k in names)  # no optimizer
        latest = recipes.stage_dir(tmp_path / "here", recipe, 0, m) / "latest.pt"
        full = weights(latest)
        assert all(torch.equal(full[k], v) for k, v in data["state"].items())
        assert path.stat().st_size < latest.stat().st_size / 2
    assert kept.keep(recipe, tmp_path / "here") == []  # kept already

    progress = members.Progress(recipe, tmp_path / "there")
    assert progress.total() == recipe.members * recipe.stages[0].settings["steps"]
    assert not any(progress.finished(m) for m in range(recipe.members))

    # this machine goes on from its own run; another from the kept stage only
    here, there = (run_recipe(recipe, tmp_path / d) for d in ("here", "there"))
    assert here is not None and there is not None and there["results"] == here["results"]
    a, b = (weights(tmp_path / d / recipes.AGENT_FILE) for d in ("here", "there"))
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    first = recipes.stage_dir(tmp_path / "there", recipe, 0, 0)
    assert sorted(p.name for p in first.iterdir()) == ["latest.pt"]  # restored, not trained

    # its last stage kept in turn replaces the first in the repository
    assert kept.keep(recipe, tmp_path / "there") == [
        kept.kept_file(recipe, 1, m) for m in range(recipe.members)
    ]
    for m in range(recipe.members):
        assert sorted(kept.kept_file(recipe, 1, m).parent.iterdir()) == [
            kept.kept_file(recipe, 1, m)
        ]
    progress = members.Progress(recipe, tmp_path / "elsewhere")
    assert all(progress.finished(m) for m in range(recipe.members))


def kept_stage(recipe: recipes.Recipe, run_dir: Path, env_step: int, **changes) -> dict:
    """Checkpoint data of stage 0 of member 0 as :func:`kept.kept_data` writes it, its
    config changed by ``changes``."""
    config = {**recipe.config(0, run_dir, 0).to_dict(), **changes}
    return {"config": config, "state": {}, "epoch": 1, "env_step": env_step,
            "update_step": 1, "history": [], "snapshots": []}  # fmt: skip


def test_a_kept_stage_of_other_settings_is_refused_naming_them(recipe, tmp_path):
    steps = recipe.stages[0].settings["steps"]
    checkpoint.save(kept.kept_file(recipe, 0), kept_stage(recipe, tmp_path, steps, lr=0.5))
    with pytest.raises(ValueError, match=r"was not trained by this stage \(lr: 0.5 there, "):
        kept.restore(recipe, tmp_path / "run", 0)
    assert not (tmp_path / "run").exists()
    with pytest.raises(ValueError, match=r"not trained by this stage \(lr: 0.5 there"):
        run_recipe(recipe, tmp_path / "run")


def test_a_kept_stage_never_overwrites_an_unfinished_run_of_it(recipe, tmp_path):
    steps = recipe.stages[0].settings["steps"]
    checkpoint.save(kept.kept_file(recipe, 0), kept_stage(recipe, tmp_path, steps))
    latest = recipes.stage_dir(tmp_path / "run", recipe, 0, 0) / "latest.pt"
    checkpoint.save(latest, kept_stage(recipe, tmp_path, steps // 2))
    before = latest.read_bytes()
    with pytest.raises(ValueError, match="holds an unfinished run of it: move that directory"):
        kept.restore(recipe, tmp_path / "run", 0)
    assert latest.read_bytes() == before
    assert kept.restore(recipe, tmp_path / "run", 1) == 0  # member 1 has nothing kept


def test_a_finished_run_of_a_kept_stage_is_left_as_it_is(recipe, tmp_path):
    steps = recipe.stages[0].settings["steps"]
    checkpoint.save(kept.kept_file(recipe, 0), kept_stage(recipe, tmp_path, steps))
    latest = recipes.stage_dir(tmp_path / "run", recipe, 0, 0) / "latest.pt"
    checkpoint.save(latest, kept_stage(recipe, tmp_path, steps + 7))
    before = latest.read_bytes()
    assert kept.restore(recipe, tmp_path / "run", 0) == 1
    assert latest.read_bytes() == before


def test_only_the_recipe_itself_is_kept_or_restored(recipe, tmp_path):
    with pytest.raises(ValueError, match="no stage of tiny has finished in"):
        kept.keep(recipe, tmp_path / "nothing")
    steps = recipe.stages[0].settings["steps"]
    checkpoint.save(kept.kept_file(recipe, 0), kept_stage(recipe, tmp_path, steps))
    for trial in (replace(recipe, seed=1), recipe.scaled(0.5)):
        assert kept.restore(trial, tmp_path / "run", 0) == 0
        with pytest.raises(ValueError, match=r"only the recipe itself is kept \(seed 0"):
            kept.keep(trial, tmp_path / "run")
    assert kept.keep(recipe, tmp_path / "nothing") == []  # the kept stage is not undone


def test_a_run_of_another_seed_is_not_kept_as_the_recipes(recipe, tmp_path):
    steps = recipe.stages[0].settings["steps"]
    latest = recipes.stage_dir(tmp_path / "run", recipe, 0, 0) / "latest.pt"
    checkpoint.save(latest, kept_stage(recipe, tmp_path, steps, seed=5))
    with pytest.raises(ValueError, match=r"not trained by this stage \(seed: 5 there, 0 here\)"):
        kept.keep(recipe, tmp_path / "run")
    assert not kept.STORE.exists()


def test_the_command_keeps_nothing_of_a_trial(capsys):
    with pytest.raises(SystemExit):
        cli.main(["population", "--keep", "--seed", "1"])
    assert "--keep keeps the recipe's own finished stages" in capsys.readouterr().err


def test_the_population_recipes_continue_their_stages_latest_networks():
    populations = [r for r in recipes.BOOK.values() if r.stages[0].name == "population"]
    assert {r.name for r in populations} == {"population", "trained-charlesworth"}
    for recipe in populations:
        assert len(recipe.stages) > 1 and all(s.start == "latest" for s in recipe.stages)
        configs = [recipe.config(k, Path("runs/x")) for k in range(len(recipe.stages))]
        assert all(c.init.endswith(f"stage{k}-population/latest.pt") for k, c in
                   enumerate(configs[1:], start=1))  # fmt: skip
        assert kept.handoff(recipe, 0) == "latest.pt"
        assert kept.handoff(recipe, len(recipe.stages) - 1) == "best.pt"
    with pytest.raises(ValueError, match="a stage starts from best or latest, not 'last'"):
        recipes.Stage("population", {}, start="last")
