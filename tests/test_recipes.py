"""training.recipes: each recipe runs its first minute at a tiny budget and yields an agent
that loads and plays; a recipe cut by --max-minutes continues to the same weights."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from big2.game import Game
from big2.players import load_agent, play
from big2.rules import get as get_rules
from tests.test_nothing_lost import python, wait_for
from training import checkpoint, export, recipes
from training.build import make_algorithm, scoped_seed
from training.ensemble import Ensemble
from training.recipes import RECIPES, cli, members
from training.recipes import run as recipe_run
from training.recipes import ship as shipping
from training.recipes.run import run_recipe
from training.seeds import seed_of

TINY = 0.0005  # every stage at its minimum: 1,024 decisions, one epoch (one collection)

# The initial networks of the `trained` recipe's member 0, as their seed builds them: the
# weights the shipped agents grew from (the recipe at 4b2af86 gives the same digest).
INITIAL_WEIGHTS = "e45cb28927192aa3"


def test_a_recipe_starts_from_the_weights_its_seed_gave_the_shipped_agents(tmp_path):
    """Building the networks another way (modules created in another order, as 634fe69 did
    until it was undone) draws other initial weights from the same seed, and the recipes
    would no longer train the shipped agents: a change that does so on purpose updates the
    digest and retrains them (``make agents``)."""
    cfg = RECIPES["trained"].config(0, tmp_path)
    with scoped_seed(seed_of(cfg.seed, "init")):
        state = make_algorithm(cfg).policy.state_dict()
    digest = hashlib.sha256()
    for name in sorted(state):
        digest.update(name.encode())
        digest.update(state[name].numpy().tobytes())
    assert digest.hexdigest()[:16] == INITIAL_WEIGHTS


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(RECIPES))
def test_each_recipe_trains_evaluates_and_exports_an_agent_that_plays(name, tmp_path):
    recipe = RECIPES[name].scaled(TINY)
    # two stages show the hand-off (the population recipe's eight are alike)
    recipe = replace(recipe, stages=recipe.stages[:2])
    report = run_recipe(recipe, tmp_path / "run", export=tmp_path / "agent.pt")
    assert report is not None and report["seed"] == recipes.REPORT_SEED
    assert [r["opponent"] for r in report["results"]] == list(recipes.REPORT_OPPONENTS)
    assert json.loads((tmp_path / "run" / "report.json").read_text())["recipe"] == name
    rules = get_rules(recipe.rules)
    agent = load_agent(str(tmp_path / "agent.pt"), rules)
    game = play(Game(rules, seed=1), agent)
    assert game.is_over
    # the agent is the members' ensemble, each member trained from its own seed
    members = checkpoint.load(tmp_path / "agent.pt")["member_runs"]
    assert len(members) == recipe.members == 2 and isinstance(agent.net, Ensemble)
    assert [m["seed"] for m in members] == [1, 1001]  # their last stage's (the second)
    assert [Path(m["run_dir"]).parent.name for m in members] == ["member0", "member1"]
    # the first stage starts from scratch or the start's member, every other one from the
    # stage before (its networks that the stage names)
    for m in range(recipe.members):
        configs = [recipe.config(k, tmp_path / "run", m) for k in range(len(recipe.stages))]
        start = str(recipes.start_file(tmp_path / "run", recipe, m)) if recipe.start else ""
        assert configs[0].init == start
        assert configs[1].init.endswith(
            f"stage1-{recipe.stages[0].name}/{recipe.stages[1].start}.pt"
        )


def two_epochs(recipe: recipes.Recipe) -> recipes.Recipe:
    """``recipe`` with its first stage two small PPO collections long (512 decisions, each
    an epoch): a cut after the first epoch leaves the second to run, and the later stages.
    Whether a cut run continues to the same weights does not hang on the sizes."""
    first, *rest = recipe.stages
    collect = 512
    sizes = {"steps": 2 * collect, "epoch_steps": collect, "collect_steps": collect,
             "batch_size": 256}  # fmt: skip
    return replace(recipe, stages=(replace(first, settings={**first.settings, **sizes}), *rest))


@pytest.mark.slow
def test_a_recipe_cut_short_continues_to_the_same_weights_in_processes(tmp_path):
    """Whole in one process; cut in one process (member 0 after its first epoch, member 1
    not begun), then continued with the members in processes of their own: the same
    weights and results."""
    recipe = two_epochs(RECIPES["trained"].scaled(TINY))
    whole = run_recipe(recipe, tmp_path / "whole", export=tmp_path / "whole.pt")
    cut = run_recipe(recipe, tmp_path / "cut", max_minutes=1e-4, export=tmp_path / "cut.pt")
    assert whole is not None and cut is None and not (tmp_path / "cut.pt").exists()
    latest = [recipes.stage_dir(tmp_path / "cut", recipe, 0, m) / "latest.pt" for m in (0, 1)]
    assert torch.load(latest[0], weights_only=True)["epoch"] == 1  # cut after its first epoch
    assert not latest[1].exists()
    again = run_recipe(recipe, tmp_path / "cut", export=tmp_path / "cut.pt", jobs=2)
    assert again is not None and torch.load(latest[0], weights_only=True)["epoch"] == 2
    a, b = (torch.load(tmp_path / f, weights_only=True)["state"] for f in ("whole.pt", "cut.pt"))
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert again["results"] == whole["results"]
    logs = [members.log_path(tmp_path / "cut", m) for m in (0, 1)]
    for m, log in enumerate(logs):  # each member's process wrote its own log
        assert f"trained member {m}: stage 1/2 (self-play" in log.read_text()
        assert f"trained member {m}: stage 2/2 (tables" in log.read_text()
    stamps, sizes = [p.stat().st_mtime_ns for p in latest], [p.stat().st_size for p in logs]
    report = tmp_path / "cut" / recipes.REPORT_FILE
    reported = report.stat().st_mtime_ns
    for jobs in (1, 2):  # finished members are not trained again, nor started
        again = run_recipe(recipe, tmp_path / "cut", export=tmp_path / "cut.pt", jobs=jobs)
        assert again is not None and again["results"] == whole["results"]
    assert [p.stat().st_mtime_ns for p in latest] == stamps
    assert report.stat().st_mtime_ns == reported  # the same agent's report is kept
    first = json.loads(report.read_text())
    report.write_text(json.dumps({**first, "agent": "sha256 000000000000"}))
    assert run_recipe(recipe, tmp_path / "cut") is not None  # another agent's: reported again
    assert json.loads(report.read_text()) == first
    assert [p.stat().st_size for p in logs] == sizes
    with pytest.raises(ValueError, match=r"a run of other settings \(seed: 0 there, 2000 here\)"):
        run_recipe(replace(recipe, seed=1), tmp_path / "cut", export=tmp_path / "other.pt")
    assert [p.stat().st_mtime_ns for p in latest] == stamps
    assert not (tmp_path / "other.pt").exists()


def test_a_budget_spent_while_setting_up_still_trains_an_epoch(tmp_path, monkeypatch):
    """On a busy machine setting up can take longer than a tiny ``--max-minutes``: the
    call still trains its first stage's first epoch (and stops there), rather than
    nothing. Here every reading of the recipe's clock is an hour after the last."""
    hours = iter(range(0, 10**6, 3600))
    monkeypatch.setattr(recipe_run, "time", SimpleNamespace(monotonic=lambda: next(hours)))
    recipe = two_epochs(RECIPES["trained"].scaled(TINY))
    assert not recipe_run.train_member(recipe, tmp_path, 0, max_minutes=1e-4)
    latest = recipes.stage_dir(tmp_path, recipe, 0, 0) / "latest.pt"
    assert torch.load(latest, weights_only=True)["epoch"] == 1
    assert not recipes.stage_dir(tmp_path, recipe, 1, 0).exists()  # nor the next stage
    # a member that finished with the budget spent: the next one is not started
    tiny = RECIPES["trained"].scaled(TINY)  # its stages one epoch each
    one_stage = replace(tiny, stages=tiny.stages[:1])
    assert run_recipe(one_stage, tmp_path / "two", max_minutes=1e-4) is None
    assert (recipes.stage_dir(tmp_path / "two", one_stage, 0, 0) / "best.pt").exists()
    assert not recipes.stage_dir(tmp_path / "two", one_stage, 0, 1).exists()


def test_a_stage_killed_before_its_first_checkpoint_starts_again(tmp_path):
    """SIGKILL (a machine taken away) before a stage's first checkpoint leaves its
    config.json and TensorBoard file and nothing to continue: the same command starts the
    stage again. A stage of other settings, or with a file no run writes, is refused."""
    tiny = RECIPES["trained"].scaled(TINY)
    recipe = replace(tiny, stages=tiny.stages[:1])

    def killed(run_dir: Path, seed_change: int = 0) -> Path:
        cfg = recipe.config(0, run_dir, 0)
        stage = Path(cfg.run_dir)
        (stage / "tb").mkdir(parents=True)
        (stage / "tb" / "events.out.tfevents.1.host").write_bytes(b"")
        saved = replace(cfg, seed=cfg.seed + seed_change).to_dict()
        (stage / "config.json").write_text(json.dumps(saved))
        return stage

    stage = killed(tmp_path / "same")
    assert recipe_run.train_member(recipe, tmp_path / "same", 0)
    assert torch.load(stage / "latest.pt", weights_only=True)["epoch"] == 1
    killed(tmp_path / "other", seed_change=1)
    with pytest.raises(ValueError, match=r"already holds files \(config.json, tb\)"):
        recipe_run.train_member(recipe, tmp_path / "other", 0)
    stage = killed(tmp_path / "mine")
    (stage / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match=r"also holds notes.txt"):
        recipe_run.train_member(recipe, tmp_path / "mine", 0)
    assert (stage / "notes.txt").read_text() == "mine" and (stage / "config.json").exists()


@pytest.mark.slow
def test_a_member_that_fails_stops_the_recipe_saying_why(tmp_path):
    recipe = RECIPES["trained"].scaled(TINY)
    taken = recipes.stage_dir(tmp_path / "run", recipe, 0, member=1)
    taken.mkdir(parents=True)
    (taken / "notes.txt").write_text("mine")
    started = time.monotonic()
    with pytest.raises(members.MemberFailed, match=r"trained member 1 failed \(exit status 1\)"
                       r"(.|\n)*already holds files \(notes.txt\)"):  # fmt: skip
        run_recipe(recipe, tmp_path / "run", export=tmp_path / "agent.pt", jobs=2)
    assert time.monotonic() - started < members.GRACE  # member 0 was stopped, not awaited
    assert (taken / "notes.txt").read_text() == "mine" and not (tmp_path / "agent.pt").exists()
    assert not members_running(tmp_path / "run")


def members_running(run_dir: Path) -> list[int]:
    """The processes whose command line names ``run_dir`` (members of a recipe there)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and str(run_dir) in (proc / "cmdline").read_text():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


@pytest.mark.slow
def test_ctrl_c_stops_every_member_after_its_checkpoint_and_says_how_to_go_on(tmp_path):
    run = tmp_path / "run"
    process = python("-m", "training.recipes", "trained", "--scale", "0.004", "--jobs", "2",
                     "--run-dir", str(run), "--export", str(tmp_path / "agent.pt"),
                     start_new_session=True)  # fmt: skip
    recipe = RECIPES["trained"].scaled(0.004)
    latest = [recipes.stage_dir(run, recipe, 0, m) / "latest.pt" for m in range(2)]
    wait_for(lambda: all(p.exists() for p in latest), seconds=300, what="both checkpoints")
    os.killpg(process.pid, signal.SIGINT)  # as a terminal does: the whole process group
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err[-2000:]
    assert "Traceback" not in err
    assert err.rstrip().endswith("recipes: interrupted; run the same command to continue")
    assert not members_running(run) and not (tmp_path / "agent.pt").exists()
    assert all(checkpoint.load(p)["env_step"] > 0 for p in latest)  # kept, to continue from


@pytest.mark.slow
def test_a_candidate_starts_from_the_shipped_members_and_is_never_shipped(tmp_path, capsys):
    """The candidate's first minute: each member starts from its member of the shipped
    agent (also its first snapshot) at tables drawn from the population, and its agent is
    reported and exported, never shipped."""
    scaled = recipes.CANDIDATES["population"].scaled(TINY)
    stage = scaled.stages[0]
    one = {"collect_steps": 2048, "envs": 16, "steps": 2048, "epoch_steps": 2048}
    settings = {**stage.settings, **one}  # one epoch of one small collection
    # one member is enough to see a member start from its shipped member (two train twice)
    recipe = replace(scaled, stages=(replace(stage, settings=settings),), members=1)
    run = tmp_path / "run"
    report = run_recipe(recipe, run, jobs=1)
    assert report is not None and (run / "agent.pt").is_file()
    for m in range(recipe.members):
        start = checkpoint.load(recipes.start_file(run, recipe, m))["state"]
        shipped = export.member_data(recipe.start, m)["state"]
        assert start.keys() == shipped.keys() and all(
            torch.equal(start[k], shipped[k]) for k in start
        )
        stage = recipes.stage_dir(run, recipe, 0, m)
        latest = checkpoint.load(stage / "latest.pt")
        assert latest["config"]["init"] == str(recipes.start_file(run, recipe, m))
        first = latest["snapshots"][0]
        assert first["epoch"] == 0 and first["games"] > 0  # the start, played against
        actor = {k.removeprefix("policy.actor."): v for k, v in start.items()}
        assert all(torch.equal(first["weights"][k], v) for k, v in actor.items())
    with pytest.raises(SystemExit, match="nothing shipped: population is a candidate"):
        cli.main(["population", "--ship", "--run-dir", str(run)])
    with pytest.raises(ValueError, match="no shipped agent's recipe"):
        shipping.ship("population", run)


def test_scaling_keeps_every_stage_at_least_the_minimum():
    for recipe in recipes.BOOK.values():
        small = recipe.scaled(1e-9)
        assert all(s.settings["steps"] == recipes.MIN_STEPS for s in small.stages)
        assert small.report_deals < recipe.report_deals
        for k in range(len(small.stages)):
            small.config(k, Path("runs/x")).check()  # every stage's settings are valid


def test_the_command_refuses_a_bad_scale(capsys):
    with pytest.raises(SystemExit):
        cli.main(["trained", "--scale", "0"])
    assert "--scale must be in (0, 1]" in capsys.readouterr().err


def test_another_seed_and_a_trial_run_in_directories_of_their_own(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # the default run directories are relative
    calls = []
    monkeypatch.setattr(cli, "run_recipe", lambda *a: calls.append(a))  # returns None
    cli.main(["trained", "--seed", "3", "--jobs", "2"])
    cli.main(["trained"])
    cli.main(["trained", "--seed", "3", "--run-dir", "mine", "--export", "x.pt"])
    cli.main(["trained", "--seed", "3", "--scale", "0.01"])
    (seeded, run_dir, _, export, jobs), (shipped, run_dir0, _, export0, _), mine, trial = calls
    assert seeded.seed == 3 and shipped.seed == 0 and jobs == 2
    assert [seeded.config(0, run_dir, m).seed for m in range(2)] == [6000, 7000]
    assert run_dir == Path("runs/recipes/trained-seed3") and export is None  # RUN_DIR/agent.pt
    assert run_dir0 == Path("runs/recipes/trained") and export0 is None
    assert mine[1:4:2] == (Path("mine"), Path("x.pt"))
    assert trial[1] == Path("runs/recipes/trained-seed3-scale0.01")
    assert not (tmp_path / "runs/recipes/trained").exists()  # made for the lock, removed


def test_the_command_refuses_a_negative_seed(capsys):
    with pytest.raises(SystemExit):
        cli.main(["trained", "--seed", "-1"])
    assert "--seed must be 0 or more" in capsys.readouterr().err


# ------------------------------------------------------------------ exporting and shipping


@pytest.fixture
def agents(monkeypatch, tmp_path):
    """The shipped agents' folder, a copy in ``tmp_path/agents`` for ship to write in;
    its files' bytes as they were."""
    folder = tmp_path / "agents"
    folder.mkdir()
    for name in checkpoint.SHIPPED.values():
        shutil.copy(shipping.AGENTS / name, folder / name)
    monkeypatch.setattr(shipping, "AGENTS", folder)
    return {p.name: p.read_bytes() for p in folder.iterdir()}


@pytest.fixture
def trained_at_once(monkeypatch, tmp_path):
    """Recipes train and report at once: each member's last stage gets the shipped agent's
    member (its config the recipe's, scaled or seeded as it is), and the report plays
    nothing. The default run directories are under ``tmp_path``."""
    monkeypatch.chdir(tmp_path)

    def train_member(recipe, run_dir, member, max_minutes=0.0):
        last = len(recipe.stages) - 1
        data = export.member_data(f"{recipe.name}", member)
        data["config"] = recipe.config(last, run_dir, member).to_dict()
        checkpoint.save(recipes.stage_dir(run_dir, recipe, last, member) / "best.pt", data)
        return True

    def report(recipe, data, workers=1):
        return {"recipe": recipe.name, "deals": recipe.report_deals,
                "seed": recipes.REPORT_SEED, "results": []}  # fmt: skip

    monkeypatch.setattr(recipe_run, "train_member", train_member)
    monkeypatch.setattr(recipe_run, "_report", report)


def shipped_bytes() -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in shipping.AGENTS.iterdir()}


def test_a_trial_exports_to_its_run_directory_never_over_a_shipped_agent(
    agents, trained_at_once, tmp_path, capsys
):
    cli.main(["trained", "--scale", "0.0001", "--jobs", "1"])
    assert shipped_bytes() == agents
    trial = tmp_path / "runs/recipes/trained-scale0.0001/agent.pt"
    assert checkpoint.load(trial)["config"]["steps"] == recipes.MIN_STEPS
    out = capsys.readouterr().out
    assert f"exported to {Path('runs/recipes/trained-scale0.0001/agent.pt')}" in out
    assert "never shipped" in out
    with pytest.raises(SystemExit):
        cli.main(["trained", "--scale", "0.0001", "--export", str(shipping.AGENTS / "x.pt")])
    assert "is where the shipped agents are" in capsys.readouterr().err
    with pytest.raises(ValueError, match="is where the shipped agents are"):
        run_recipe(RECIPES["trained"], tmp_path / "r", export=shipping.AGENTS / "trained.pt")
    assert shipped_bytes() == agents and not (tmp_path / "r").exists()


def test_ship_replaces_a_shipped_agent_with_its_recipes_finished_run(
    agents, trained_at_once, tmp_path, capsys
):
    run = tmp_path / "runs/recipes/trained-charlesworth"
    cli.main(["trained-charlesworth", "--jobs", "1"])
    assert shipped_bytes() == agents  # trained, not shipped
    assert "--ship` replaces it with this one" in capsys.readouterr().out
    cli.main(["trained-charlesworth", "--ship"])
    new = (run / "agent.pt").read_bytes()
    assert (
        shipped_bytes() == {**agents, "trained-charlesworth.pt": new}
        and new != agents["trained-charlesworth.pt"]
    )
    (kept,) = run.glob("replaced-trained-charlesworth-*.pt")  # what it replaced, kept
    assert kept.read_bytes() == agents["trained-charlesworth.pt"]
    said = capsys.readouterr().out
    assert said.startswith(f"replaced {shipping.AGENTS / 'trained-charlesworth.pt'} (sha256 ")
    assert f"kept as {kept.relative_to(tmp_path)}) with {kept.parent.relative_to(tmp_path)}" in said
    cli.main(["trained-charlesworth", "--ship"])  # again: nothing to do
    assert "nothing replaced" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("train", "ship", "message"),
    [
        (
            ["--scale", "0.0001"],
            ["--run-dir", "runs/recipes/trained-scale0.0001"],
            r"is not the trained recipe's agent \(steps 1024, the recipe's 2000000",
        ),
        (
            ["--seed", "2"],
            ["--run-dir", "runs/recipes/trained-seed2"],
            r"seed 4001, the recipe's 1(.|\n)*members of seeds \[4001, 5001\], the recipe's "
            r"\[1, 1001\]",
        ),
        ([], ["--scale", "0.5"], "--ship ships the recipe's own finished run"),
        ([], ["--seed", "1"], "--ship ships the recipe's own finished run"),
    ],
)
def test_ship_refuses_a_trial_or_another_seed_and_replaces_nothing(
    train, ship, message, agents, trained_at_once, capsys
):
    cli.main(["trained", "--jobs", "1", *train])
    with pytest.raises(SystemExit) as stop:
        cli.main(["trained", "--ship", *ship])
    assert re.search(message, f"{stop.value.code}{capsys.readouterr().err}")
    assert shipped_bytes() == agents


def test_ship_refuses_an_unfinished_run(agents, trained_at_once, tmp_path, capsys):
    (tmp_path / "runs/recipes/trained/member0").mkdir(parents=True)  # begun, not finished
    with pytest.raises(SystemExit, match=r"holds no finished trained run \(no report.json"):
        cli.main(["trained", "--ship"])
    with pytest.raises(SystemExit, match="no run directory nowhere: train the recipe"):
        cli.main(["trained", "--ship", "--run-dir", "nowhere"])
    assert shipped_bytes() == agents
