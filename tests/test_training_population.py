"""Training against a population: tables drawn per game through the rollout, prioritized
fictitious self-play (training.pfsp), checkpoints as batched opponents, and the
exploitability run (``python -m training.train --exploit AGENT``)."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from tianshou.utils.torch_utils import policy_within_training_step
from training_helpers import former_config

from big2.rules import CHARLESWORTH
from envs import duplicate
from envs.pools import Pool
from envs.vector import SELF_ALL, Big2VectorEnv
from training import checkpoint, pfsp
from training.build import make_algorithm, make_env, opponent_entry, scoped_seed
from training.config import Config
from training.recipes.book import REPORT_SEED
from training.rollout import Episodes, GreedyPolicy, Rollout, to_buffer
from training.shards import Shards
from training.spec import resolve
from training.train import exploit_settings, is_exploit, main, train

pytestmark = pytest.mark.usefixtures("one_thread")

MIX = ("self-all", "self-all", "heuristic", "random")  # half the games self-play


def tables_config(**settings) -> Config:
    mix = {"opponents": MIX, "opponent_draw": "game", "hidden": (16,), "envs": 16}
    return former_config(**{**mix, **settings})


def within_binomial(count: int, n: int, p: float, sigmas: float = 4.0) -> bool:
    return abs(count - n * p) <= sigmas * math.sqrt(n * p * (1 - p))


def collected(cfg: Config, steps: int, seed: int = 0):
    """``steps`` rollout steps of ``cfg``'s env: the chunks, the finished episodes, how
    often each lane was to act, and the rollout."""
    with scoped_seed(seed):
        algorithm = make_algorithm(cfg)
    env = make_env(cfg, seed)
    acted = np.zeros(env.num_envs, np.int64)
    step = env.step

    def counting_step(actions):
        acted[rollout.acting] += 1  # the rows the rollout answers for
        return step(actions)

    env.step = counting_step  # type: ignore[method-assign]
    rollout = Rollout(env, algorithm.policy, seed)
    chunks, episodes = [], Episodes()
    with policy_within_training_step(algorithm.policy), scoped_seed(seed):  # its sampling
        for _ in range(steps):
            new, finished = rollout.step()
            chunks += new
            episodes.extend(finished)
    return chunks, episodes, acted, rollout


GAMES, STEPS = 32, 600  # slots, rollout steps: about 450 games


@pytest.fixture(scope="module")
def tables_rollout():
    return collected(tables_config(envs=GAMES), steps=STEPS)


def test_each_table_kind_is_drawn_at_its_rate_and_self_play_credits_every_seat(tables_rollout):
    _, episodes, _, _ = tables_rollout
    tables, wins = np.array(episodes.tables), np.array(episodes.wins)
    self_play = np.isin(tables, [0, 1])
    games = {t: int((tables == t).sum()) for t in range(len(MIX))}
    assert self_play.sum() % 4 == 0  # each self-play game credits its four seats
    games_at = [(games[0] + games[1]) // 4, games[2], games[3]]
    n = sum(games_at)
    assert n > 300
    for count, rate in zip(games_at, (0.5, 0.25, 0.25), strict=True):
        assert within_binomial(count, n, rate), (games_at, n)
    assert wins[self_play].mean() == 0.25  # one winner among the four seats of every game
    assert wins[tables == 3].mean() > wins[tables == 2].mean()  # random players, then heuristic


def test_only_the_rows_that_act_reach_the_buffer(tables_rollout):
    chunks, _, acted, rollout = tables_rollout
    buffer = to_buffer(chunks, rollout.lanes, store_next=True)
    stored = np.array([len(buffer.buffers[lane]) for lane in range(rollout.lanes)])
    pending = np.isin(np.arange(rollout.lanes), list(rollout.pending))
    np.testing.assert_array_equal(stored + pending, acted)  # one transition per decision
    assert acted.sum() == STEPS * GAMES  # one row of each game acts at each step: never the others


def test_the_same_seed_draws_the_same_tables_and_another_seed_others():
    def draws(seed):
        return collected(tables_config(envs=8), steps=120, seed=seed)[1].tables

    assert draws(3) == draws(3) != draws(4)


def test_mixed_tables_with_seat_draws_are_refused_saying_what_to_give():
    with pytest.raises(ValueError, match=r"self-all with other entries .* give --opponent-draw"):
        Config(opponents=("self-all", "heuristic")).check()
    assert Config(opponents=("self-all", "self", "heuristic"), opponent_draw="game").tables


# ------------------------------------------------------------------ prioritized self-play


def test_snapshots_that_beat_the_learner_are_drawn_more_and_follow_its_results():
    even, beaten, beating = ({"epoch": e, "wins": 0.0, "games": 0.0} for e in range(3))
    snapshots = pfsp.credit([even, beaten, beating], wins=[0, 180, 20], games=[0, 200, 200])
    weights = pfsp.draw_weights(snapshots)
    assert weights[2] > weights[0] == 0.25 > weights[1] > 0  # new: even; none ever zero
    for _ in range(4):  # the learner overtakes the third: its old losses age away
        snapshots = pfsp.credit(snapshots, wins=[0, 180, 180], games=[0, 200, 200])
    later = pfsp.draw_weights(snapshots)
    assert later[2] < weights[2] / 10 and later[1] < later[2] < 2 * later[1]


def first(decisions):
    return decisions.legal[:, 0]


def test_a_pool_replaced_with_bad_weights_stays_as_it_was():
    pool = Pool([first], weights=[2.0])
    with pytest.raises(ValueError, match="weights must be 2 numbers"):
        pool.replace([first, first], weights=[1.0])
    assert len(pool) == 1 and pool.weights.tolist() == [2.0]


def test_a_run_draws_its_snapshots_by_the_learners_results_at_their_tables(tmp_path, monkeypatch):
    """Every epoch the pool's draw weights are those of the results saved with the
    snapshots, the first one the learner as it started, and each snapshot gains the
    learner's games at its tables while it is in the pool."""
    given = []
    set_pool = Shards.set_pool

    def recording(shards, snapshots, chances=None):
        given.append(chances)
        set_pool(shards, snapshots, chances)

    monkeypatch.setattr(Shards, "set_pool", recording)
    cfg = tables_config(  # three epochs, each with a few games at every snapshot's tables
        opponents=("self-all", "self", "self"),
        envs=8,
        steps=768,
        epoch_steps=256,
        collect_steps=128,
        batch_size=64,
        eval_deals=2,
        eval_opponents=("random",),
        run_dir=str(tmp_path / "run"),
    )
    train(cfg)
    snapshots = checkpoint.load(tmp_path / "run" / "latest.pt")["snapshots"]
    assert [s["epoch"] for s in snapshots] == [0, 1, 2, 3]
    assert [len(c) for c in given] == [1, 2, 3] and given[0] == [0.25]  # the start: even
    assert given[2] != [0.25] * 3  # results moved them
    assert all(s["games"] > 0 for s in snapshots[:-1]) and snapshots[-1]["games"] == 0


# ------------------------------------------------------------------ checkpoints at the table


def test_a_checkpoint_that_reads_the_runs_inputs_plays_batched_with_the_same_moves():
    spec = resolve(Config(rules="charlesworth"))
    seated = opponent_entry("trained-charlesworth", spec)
    assert isinstance(seated, GreedyPolicy)
    assert opponent_entry("heuristic", spec) == "heuristic"
    inputs = (CHARLESWORTH, spec.env.observer, spec.env.codec, spec.env.features)
    learner = GreedyPolicy(checkpoint.actor_from(checkpoint.load("trained-charlesworth")))
    batched = duplicate.deal_results(learner, seated, 3, 7, *inputs)
    asked = duplicate.deal_results(learner, "trained-charlesworth", 3, 7, *inputs)
    assert batched == asked
    older = resolve(Config(rules="charlesworth", observer="card_counting", reply_features=False))
    assert opponent_entry("trained-charlesworth", older) == "trained-charlesworth"  # by game


# ------------------------------------------------------------------ exploitability


TINY_EXPLOIT = [
    "--steps",
    "1024",
    "--epoch-steps",
    "512",
    "--envs",
    "4",
    "--hidden",
    "16",
    "--collect-steps",
    "256",
    "--batch-size",
    "64",
    "--eval-deals",
    "3",
    "--no-plan-features",
    "--no-reply-features",
    "--no-action-context",
]


def test_exploit_trains_against_three_of_the_agent_and_writes_the_best_it_reached(tmp_path, capsys):
    run = tmp_path / "exploit"
    main(["--exploit", "greedy", *TINY_EXPLOIT, "--run-dir", str(run)])
    out = capsys.readouterr().out
    cfg = Config.from_dict(json.loads((run / "config.json").read_text()))
    assert cfg.opponents == cfg.eval_opponents == ("greedy",) and cfg.opponent_draw == "game"
    assert cfg.eval_seed == REPORT_SEED and is_exploit(cfg) and cfg.init == ""
    report = json.loads((run / "exploit.json").read_text())
    history = checkpoint.load(run / "latest.pt")["history"]
    best = max(row["win_share"] for row in history)
    assert report["best"]["win_share"] == best and len(report["curve"]) == len(history) == 2
    assert (report["agent"], report["seed"], report["deals"]) == ("greedy", REPORT_SEED, 3)
    assert f"exploitability of greedy: a fresh learner reached a win share of {best:.3f}" in out


def test_exploit_settings_default_to_two_million_decisions_under_the_agents_rules():
    settings = exploit_settings("trained-charlesworth")
    assert settings["steps"] == 2_000_000 and settings["rules"] == "charlesworth"
    assert settings["run_dir"] == "runs/exploit/trained-charlesworth"
    assert exploit_settings("runs/a b/best.pt")["run_dir"] == "runs/exploit/runs_a_b_best.pt"
    assert not is_exploit(Config())


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["--exploit", "greedy", "--recipe", "trained"], "it takes no --recipe"),
        (["--exploit", "greedy", "--resume", "runs/x"], r"a resumed run keeps its config"),
        (["--exploit", "nosuch", "--steps", "8"], "unknown opponents"),
    ],
)
def test_exploit_refuses_what_cannot_be_measured(tmp_path, capsys, argv, error):
    with pytest.raises(SystemExit) as stopped:
        main([*argv, "--run-dir", str(tmp_path / "run")])
    assert re.search(error, f"{stopped.value} {capsys.readouterr().err}")
    assert not (tmp_path / "run").exists()


def test_an_entry_listed_again_moves_with_its_first_listing_in_one_call():
    """With tables drawn, a policy listed three times (drawn three times as often) is
    asked once per round for all its games, as if listed once."""
    calls = []

    def first_legal(decisions):
        calls.append(len(decisions.legal))
        return decisions.legal[:, 0]

    def rows_per_call(mix):
        env = Big2VectorEnv(64, opponents=mix, opponent_draw="game", seed=0)
        env.reset()
        calls.clear()
        kinds = set()
        for _ in range(50):
            env.step(env.sample_legal())
            kinds |= set(env.opponents.kind.ravel().tolist())
        return np.mean(calls), kinds

    once, _ = rows_per_call([SELF_ALL, first_legal])
    thrice, kinds = rows_per_call([SELF_ALL, first_legal, first_legal, first_legal])
    assert kinds == {-1, 1} and thrice > 1.2 * once  # 3/4 of the tables, not 1/4 a call
