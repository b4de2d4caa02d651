"""training.config (the frozen Config and its flags), run-directory safety and scoped seeding."""

from __future__ import annotations

import importlib
import random
import re
from dataclasses import replace

import numpy as np
import pytest
import torch

from training import checkpoint
from training.build import scoped_seed
from training.config import FORMER_DEFAULTS, Config, parse_args
from training.recipes import RECIPES
from training.train import main, train

SMALL = {
    **FORMER_DEFAULTS,
    "steps": 8,
    "epoch_steps": 8,
    "envs": 1,
    "eval_deals": 1,
    "hidden": (8,),
}


@pytest.mark.parametrize(
    ("overrides", "error"),
    [
        ({"algo": "sac"}, r"algo must be one of \['ppo', 'dqn'\], got 'sac'"),
        ({"steps": 0}, "steps must be at least 1, got 0"),
        ({"envs": 0}, "envs must be at least 1"),
        ({"device": "tpu"}, "device must be one of"),
        # each of these once failed only after an epoch, or was accepted and meaningless
        ({"eval_deals": 0}, "eval_deals must be at least 1"),
        ({"snapshot_every": 0, "opponents": ("self",)}, "snapshot_every must be at least 1"),
        ({"algo": "dqn", "buffer_size": 0}, "buffer_size must be at least 1"),
        ({"algo": "dqn", "buffer_size": 8, "batch_size": 16}, "must hold at least one batch"),
        ({"algo": "dqn", "n_step": 0}, r"n_step must be in \[1, 1024\], got 0"),
        ({"seed": -1}, r"seed must be in \[0, "),
        ({"hidden": (0,)}, r"hidden must be in \[1, 65536\], got 0"),
        ({"hidden": ()}, "at least one layer"),
        ({"ppo_repeat": 0}, "ppo_repeat must be at least 1"),
        ({"gamma": 5.0}, r"gamma must be in \(0, 1\], got 5.0"),
        ({"eps_train": 2.0}, r"eps_train must be in \[0, 1\]"),
        ({"lr": float("nan")}, "lr must be in"),
        ({"max_minutes": -1.0}, "max_minutes must be at least 0"),
        ({"steps": "100"}, "steps must be an integer, got '100'"),
        ({"action_rest": 1}, "action_rest must be true or false"),
        ({"shards": 2, "envs": 1}, "shards must be between 1 and envs"),
        ({"opponents": ("nosuch",)}, "unknown opponents"),
        ({"eval_opponents": ("self", "nosuch")}, "unknown opponents"),
        ({"opponents": ("self-all", "random")}, "give --opponent-draw game"),
        ({"opponents": ("self-all",), "opponent_draw": "game"}, "self-all alone has none"),
        ({"opponents": ("self-all", "nosuch"), "opponent_draw": "game"}, "unknown opponents"),
        ({"opponent_draw": "table"}, "opponent_draw must be one of"),
        ({"opponents": ()}, "needs at least one agent"),
        ({"observer": "oracle"}, "sees every hand"),
        ({"critic_observer": "x-ray"}, "unknown observer"),
        ({"actions": "cards"}, "unknown action codec"),
    ],
)
def test_bad_configs_fail_before_anything_is_written(tmp_path, overrides, error):
    with pytest.raises(ValueError, match=error):
        train(Config(**{**SMALL, "run_dir": str(tmp_path / "run"), **overrides}))
    assert not (tmp_path / "run").exists()


def test_a_run_directory_that_holds_a_run_is_refused_unless_overwritten(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / "latest.pt").write_text("an earlier run")
    cfg = Config(**{**SMALL, "run_dir": str(run)})
    with pytest.raises(
        ValueError, match=r"already holds files \(latest.pt\).*--resume.*--overwrite"
    ):
        train(cfg)
    assert (run / "latest.pt").read_text() == "an earlier run"  # nothing lost
    with pytest.raises(SystemExit, match="already holds files"):
        main(["--steps", "8", "--run-dir", str(run)])
    assert sorted(p.name for p in run.iterdir()) == ["latest.pt"]


def test_a_run_killed_before_its_first_checkpoint_is_refused_with_overwrite_as_the_remedy(
    tmp_path,
):
    """SIGKILL before the first checkpoint leaves config.json and tb/ and nothing to resume:
    the refusal says --overwrite, not --resume; with a file no run writes, both."""
    run = tmp_path / "run"
    (run / "tb").mkdir(parents=True)
    (run / "config.json").write_text("{}")
    cfg = Config(**{**SMALL, "run_dir": str(run)})
    with pytest.raises(ValueError, match=r"\(config.json, tb\); pass --overwrite to start") as e:
        train(cfg)
    assert "--resume" not in str(e.value)
    (run / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match=r"pass --resume .* or --overwrite"):
        train(cfg)
    assert sorted(p.name for p in run.iterdir()) == ["config.json", "notes.txt", "tb"]


@pytest.mark.skipif(torch.cuda.is_available(), reason="this torch has CUDA and a GPU")
def test_device_cuda_without_cuda_is_refused_before_the_run(tmp_path):
    said = r"--device cuda: this torch \(.*\) has no CUDA .*; use --device cpu or auto$"
    with pytest.raises(ValueError, match=said):
        train(Config(**{**SMALL, "device": "cuda", "run_dir": str(tmp_path / "run")}))
    with pytest.raises(SystemExit, match="^training: " + said):
        main(["--device", "cuda", "--steps", "8", "--run-dir", str(tmp_path / "run")])
    assert not (tmp_path / "run").exists()


def test_main_reports_bad_configs(tmp_path):
    with pytest.raises(SystemExit):  # argparse refuses what is not among the choices
        main(["--algo", "sac", "--steps", "8", "--run-dir", str(tmp_path / "run")])
    for flags in (["--seed", "-1"], ["--eval-deals", "0"], ["--gamma", "5"]):
        with pytest.raises(SystemExit, match=r"training: (seed|eval_deals|gamma) must be"):
            main([*flags, "--steps", "8", "--run-dir", str(tmp_path / "run")])
    assert not (tmp_path / "run").exists()


def test_help_lists_every_flag_with_its_group_and_range(capsys):
    with pytest.raises(SystemExit):
        parse_args(["--help"])
    text = capsys.readouterr().out
    assert ">>>" not in text  # not the module docstring's doctests
    for group in ("env:", "opponents:", "network:", "ppo:", "dqn:", "evaluation:", "run:"):
        assert group in text
    assert "--gamma GAMMA" in text and "discount factor; in (0, 1] (default: 0.99)" in text
    assert "--upper-bound" not in text
    assert "The defaults are the shipped agent's first stage (recipe 'trained'" in " ".join(
        text.split()
    )


def test_parse_args_fills_a_frozen_config():
    argv = "--hidden 8 4 --opponents random self --lr 0.001 --eval-deals 7 --no-action-rest"
    given, resume, overwrite = parse_args(argv.split())
    cfg = Config.from_settings(given)
    assert (cfg.hidden, cfg.opponents, cfg.eval_deals) == ((8, 4), ("random", "self"), 7)
    assert cfg.lr == 1e-3 and not cfg.action_rest and resume is None and not overwrite
    assert parse_args([]) == ({}, None, False)
    assert parse_args(["--resume", "runs/x", "--steps", "10"]) == ({"steps": 10}, "runs/x", False)
    assert parse_args(["--overwrite"])[2] is True
    with pytest.raises(SystemExit):  # a resumed run keeps its configuration
        parse_args(["--resume", "runs/x", "--lr", "0.1"])
    with pytest.raises(AttributeError):
        cfg.steps = 5  # frozen
    assert Config.from_dict({**cfg.to_dict(), "obs_size": 161}) == cfg  # old keys ignored


def test_the_bare_defaults_are_the_shipped_agents_first_stage(tmp_path):
    """``python -m training.train`` with no flags trains as the recipe ``trained`` trains
    its first stage (self-play), but for what the recipe sets per member and stage."""
    stage = RECIPES["trained"].config(0, tmp_path)
    bare = Config.from_args([])
    assert bare == Config() == replace(stage, seed=bare.seed, init=bare.init, run_dir=bare.run_dir)
    assert RECIPES["trained"].stages[0].name == "self-play"


def test_a_config_saved_before_the_defaults_changed_keeps_its_meaning():
    """A saved config lacks only keys its version did not have: they read as the values
    its run had (the former defaults), not as today's; new settings start from today's."""
    saved = Config(**FORMER_DEFAULTS).to_dict()
    for key in ("action_context", "reply_features", "eval_engine", "threads"):
        del saved[key]
    assert Config.from_dict(saved) == Config(**FORMER_DEFAULTS)
    assert Config.from_dict({}) == Config(**FORMER_DEFAULTS)
    assert Config.from_settings({}) == Config() != Config(**FORMER_DEFAULTS)
    assert Config.from_settings({"hidden": [8]}).hidden == (8,)


def test_a_removed_option_is_dropped_at_its_old_default_and_refused_otherwise():
    """``critic_outlook`` left the product with its experiment (lab/outlook.py): an old
    run's config.json holding it at False, as every kept run did, still reads."""
    old = {**Config().to_dict(), "critic_outlook": False}
    assert "critic_outlook" not in Config().to_dict() and Config.from_dict(old) == Config()
    with pytest.raises(ValueError, match=r"critic_outlook is true: .*not kept.*lab/outlook\.py"):
        Config.from_dict({**old, "critic_outlook": True})


def test_resuming_a_run_of_a_removed_option_is_refused_saying_why(tmp_path):
    data = checkpoint.load("trained")
    del data["exported"]
    data["config"]["critic_outlook"] = True
    checkpoint.save(tmp_path / "latest.pt", data)
    with pytest.raises(SystemExit, match="training: bad configuration: critic_outlook is true"):
        main(["--resume", str(tmp_path)])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latest.pt"]


def test_recipe_flag_starts_from_the_recipes_first_stage(tmp_path, capsys):
    recipes = {name: recipe.settings() for name, recipe in RECIPES.items()}
    given, _, _ = parse_args(["--recipe", "trained", "--steps", "100"], recipes)
    stage = RECIPES["trained"].config(0, tmp_path)  # member 0's: seed 0, no init
    assert Config.from_settings(given) == replace(stage, steps=100, run_dir="runs/default")
    given, _, _ = parse_args(["--recipe", "trained-charlesworth", "--opponents", "random"],
                             recipes)  # fmt: skip
    assert (given["rules"], given["opponents"], given["hidden"]) == (
        "charlesworth", ["random"], (512, 256))  # fmt: skip
    with pytest.raises(SystemExit):  # a resumed run keeps its configuration
        parse_args(["--resume", "runs/x", "--recipe", "trained"], recipes)
    assert "--recipe" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--recipe", "nonesuch", "--run-dir", str(tmp_path / "run")])
    book = "'population', 'trained', 'trained-charlesworth'"
    assert f"invalid choice: 'nonesuch' (choose from {book})" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_scoped_seed_is_reproducible_and_restores_global_states():
    def draw():
        return random.random(), np.random.rand(), torch.rand(1).item()

    random.seed(7), np.random.seed(7), torch.manual_seed(7)
    expected_after = draw()
    random.seed(7), np.random.seed(7), torch.manual_seed(7)
    with scoped_seed(3):
        inside = draw()
    with pytest.raises(RuntimeError), scoped_seed(3):
        assert draw() == inside
        raise RuntimeError
    assert draw() == expected_after
    with scoped_seed(4):
        assert draw() != inside


@pytest.mark.parametrize(
    "module",
    ["evaluate", "export", "recipes.cli", "ablation.cli"],
)
def test_every_training_command_helps_with_its_docstring_as_written(module, capsys):
    """Each command's help is its module docstring: paragraphs kept, doctests left out."""
    mod = importlib.import_module(f"training.{module}")
    with pytest.raises(SystemExit) as stop:
        mod.main(["--help"])
    text = capsys.readouterr().out
    assert stop.value.code == 0 and ">>>" not in text
    first = mod.__doc__.strip().splitlines()[0]
    assert first in text  # its first line, unwrapped
    description = re.split(r"\n(?:positional arguments|options):", text)[0].split(first, 1)[1]
    assert "\n\n" in description  # its paragraphs apart
