"""training.recipes: each recipe runs its first minute at a tiny budget and yields an agent
that loads and plays; a recipe cut by --max-minutes continues to the same weights."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from big2.game import Game
from big2.players import load_agent, play
from big2.rules import get as get_rules
from training import recipes
from training.recipes import RECIPES, run_recipe

TINY = 0.0005  # every stage at its minimum: 4,096 decisions, one epoch (one collection)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(RECIPES))
def test_each_recipe_trains_evaluates_and_exports_an_agent_that_plays(name, tmp_path):
    recipe = RECIPES[name].scaled(TINY)
    report = run_recipe(recipe, tmp_path / "run", export=tmp_path / "agent.pt")
    assert report is not None and report["seed"] == recipes.REPORT_SEED
    assert [r["opponent"] for r in report["results"]] == list(recipes.REPORT_OPPONENTS)
    assert json.loads((tmp_path / "run" / "report.json").read_text())["recipe"] == name
    rules = get_rules(recipe.rules)
    agent = load_agent(str(tmp_path / "agent.pt"), rules)
    game = play(Game(rules, seed=1), agent)
    assert game.is_over
    # every stage after the first started from the one before
    configs = [recipe.config(k, tmp_path / "run") for k in range(len(recipe.stages))]
    assert configs[0].init == "" and all(c.init.endswith("best.pt") for c in configs[1:])


def two_epochs(recipe: recipes.Recipe) -> recipes.Recipe:
    """``recipe`` with its last stage two PPO collections long, an epoch each: a cut
    after the first epoch leaves the second to run."""
    *done, last = recipe.stages
    collect = recipe.shared["collect_steps"]
    settings = {**last.settings, "steps": 2 * collect, "epoch_steps": collect}
    return replace(recipe, stages=(*done, replace(last, settings=settings)))


@pytest.mark.slow
def test_a_recipe_cut_short_continues_to_the_same_weights(tmp_path):
    recipe = two_epochs(RECIPES["trained"].scaled(TINY))
    whole = run_recipe(recipe, tmp_path / "whole", export=tmp_path / "whole.pt")
    cut = run_recipe(recipe, tmp_path / "cut", max_minutes=1e-4, export=tmp_path / "cut.pt")
    assert whole is not None and cut is None and not (tmp_path / "cut.pt").exists()
    latest = recipes.stage_dir(tmp_path / "cut", recipe, len(recipe.stages) - 1) / "latest.pt"
    assert torch.load(latest, weights_only=True)["epoch"] == 1  # cut after its first epoch
    again = run_recipe(recipe, tmp_path / "cut", export=tmp_path / "cut.pt")
    assert again is not None and torch.load(latest, weights_only=True)["epoch"] == 2
    a, b = (torch.load(tmp_path / f, weights_only=True)["state"] for f in ("whole.pt", "cut.pt"))
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert again["results"] == whole["results"]
    stamp = latest.stat().st_mtime_ns
    assert run_recipe(recipe, tmp_path / "cut", export=tmp_path / "cut.pt") is not None
    assert latest.stat().st_mtime_ns == stamp  # a finished stage is not trained again
    with pytest.raises(ValueError, match="holds a run of seed 0, not this recipe's 1000"):
        run_recipe(replace(recipe, seed=1), tmp_path / "cut", export=tmp_path / "other.pt")
    assert latest.stat().st_mtime_ns == stamp and not (tmp_path / "other.pt").exists()


def test_scaling_keeps_every_stage_at_least_the_minimum():
    for recipe in RECIPES.values():
        small = recipe.scaled(1e-9)
        assert all(s.settings["steps"] == recipes.MIN_STEPS for s in small.stages)
        assert small.report_deals < recipe.report_deals
        for k in range(len(small.stages)):
            small.config(k, Path("runs/x")).check()  # every stage's settings are valid


def test_the_command_refuses_a_bad_scale(capsys):
    with pytest.raises(SystemExit):
        recipes.main(["trained", "--scale", "0"])
    assert "--scale must be in (0, 1]" in capsys.readouterr().err


def test_another_seed_runs_and_exports_beside_the_shipped_agent(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(recipes, "run_recipe", lambda *a: calls.append(a))  # returns None
    recipes.main(["trained", "--seed", "3"])
    recipes.main(["trained"])
    recipes.main(["trained", "--seed", "3", "--run-dir", str(tmp_path), "--export", "x.pt"])
    (seeded, run_dir, _, export), (shipped, run_dir0, _, export0), (_, mine, _, x) = calls
    assert seeded.seed == 3 and seeded.config(0, run_dir).seed == 3000 and shipped.seed == 0
    assert run_dir == Path("runs/recipes/trained-seed3") and export == run_dir / "agent.pt"
    assert run_dir0 == Path("runs/recipes/trained") and export0 is None  # the shipped agent's
    assert mine == tmp_path and x == Path("x.pt")


def test_the_command_refuses_a_negative_seed(capsys):
    with pytest.raises(SystemExit):
        recipes.main(["trained", "--seed", "-1"])
    assert "--seed must be 0 or more" in capsys.readouterr().err
