"""Policies built by training.train.make_algorithm: legal actions only (PPO sampling, DQN
exploration, through Tianshou's Collector), and the per-epoch bookkeeping of
``_after_epoch`` (latest/best checkpoints, snapshots) under controlled evaluation scores."""

from __future__ import annotations

import dataclasses
import json
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.utils.torch_utils import policy_within_training_step

from training import checkpoint
from training import train as train_module
from training.env import Big2SingleAgentEnv, OpponentPool
from training.train import Config, acting_net, make_algorithm, make_env


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def sized(cfg: Config, env: Big2SingleAgentEnv) -> Config:
    cfg.obs_size, cfg.n_actions = env.observer.size, env.codec.n
    return cfg


class CheckedEnv(Big2SingleAgentEnv):
    """Records every action that its last observation's mask did not allow."""

    illegal: list[int]
    steps = 0

    def reset(self, **kwargs):
        obs, info = super().reset(**kwargs)
        self.mask = obs["mask"]
        return obs, info

    def step(self, action):
        self.steps += 1
        if not self.mask[int(action)]:
            self.illegal = [*getattr(self, "illegal", []), int(action)]
        out = super().step(action)
        self.mask = out[0]["mask"]
        return out


@pytest.mark.parametrize("algo", ["ppo", "dqn"])
def test_policies_only_choose_legal_actions(tmp_path, algo):
    """Training-mode collection (PPO sampling, DQN epsilon 0.5 exploring) stays within the mask."""
    cfg = Config(algo=algo, hidden=[64, 32], eps_train=0.5, run_dir=str(tmp_path))
    envs_ = [CheckedEnv(OpponentPool(["random", "greedy"]), observer=cfg.observer, seed=s)
             for s in range(2)]  # fmt: skip
    algorithm = make_algorithm(sized(cfg, envs_[0]), envs_[0])
    venv = DummyVectorEnv([lambda e=e: e for e in envs_])
    collector = Collector(algorithm, venv, VectorReplayBuffer(2000, 2), exploration_noise=True)
    collector.reset()
    with policy_within_training_step(algorithm.policy):
        stats = collector.collect(n_step=600 if algo == "ppo" else 300)
    assert stats.n_collected_episodes > 5
    assert sum(e.steps for e in envs_) >= 300
    assert not any(getattr(e, "illegal", []) for e in envs_)
    net = acting_net(algorithm)
    # the network itself puts illegal actions at -1e9 and legal ones above
    obs, _ = envs_[0].reset()
    logits = net.logits(obs["obs"][None], obs["mask"][None])[0].detach().numpy()
    legal = obs["mask"].astype(bool)
    assert (logits[~legal] == -1e9).all() and (logits[legal] > -1e8).all()


def test_after_epoch_keeps_latest_best_and_snapshots(tmp_path, monkeypatch):
    """best.pt follows strictly better evaluation scores; latest.pt every epoch."""
    cfg = Config(hidden=[16], opponents=["random", "self"], eval_opponents=["random", "greedy"],
                 snapshot_every=2, run_dir=str(tmp_path))  # fmt: skip
    env = make_env(cfg, OpponentPool(["random"]), 0)
    algorithm = make_algorithm(sized(cfg, env), env)
    scores = iter([1.0, 3.0, -1.0, 1.0, 2.0, 2.0, 1.0, 5.0])  # two opponents per epoch

    def fake_evaluation(cfg, net, step):
        return [{"env_step": step, "opponent": o, "win_share": 0.25, "win_share_ci": [0.1, 0.4],
                 "mean_score": next(scores), "mean_score_ci": [0, 0], "deals": 1}
                for o in cfg.eval_opponents]  # fmt: skip

    monkeypatch.setattr(train_module, "evaluate_policy", fake_evaluation)
    logged: list[tuple] = []
    writer = SimpleNamespace(add_scalar=lambda *args: logged.append(args))
    trainer = SimpleNamespace(params=SimpleNamespace(logger=SimpleNamespace(writer=writer)))
    pool = OpponentPool(cfg.opponents)
    state = {"epoch": 0, "env_step": 0, "update_step": 0, "history": [], "snapshots": []}
    best, best_epochs = -np.inf, []
    for epoch in range(1, 5):
        state.update(epoch=epoch, env_step=100 * epoch, update_step=epoch)
        best = train_module._after_epoch(cfg, tmp_path, algorithm, pool, state, best, trainer)
        best_epochs.append(checkpoint.load(tmp_path / "best.pt")["epoch"])
        assert checkpoint.load(tmp_path / "latest.pt")["epoch"] == epoch
    # epoch means: 2.0, 0.0, 2.0 (a tie is not better), 3.0
    assert best_epochs == [1, 1, 1, 4] and best == 3.0
    history = json.loads((tmp_path / "evaluations.json").read_text())
    assert train_module.epoch_scores(history) == {100: 2.0, 200: 0.0, 300: 2.0, 400: 3.0}
    assert len(logged) == 4 * 2 * 2 and logged[0] == ("eval/random/win_share", 0.25, 100)
    assert len(state["snapshots"]) == len(pool.snapshots) == 2  # epochs 2 and 4
    assert (tmp_path / "curve.png").stat().st_size > 0


def test_best_follows_win_share_under_the_win_reward(tmp_path, monkeypatch):
    """With --reward win, best.pt keeps the epoch with the best mean win share, not score."""
    cfg = Config(hidden=[16], eval_opponents=["random", "greedy"], reward="win",
                 run_dir=str(tmp_path))  # fmt: skip
    env = make_env(cfg, OpponentPool(["random"]), 0)
    algorithm = make_algorithm(sized(cfg, env), env)
    # (win share, mean score) per epoch: the score peaks at epoch 1, the win share at 2
    results = iter([(0.3, 9.0), (0.5, 1.0), (0.4, 2.0)])

    def fake_evaluation(cfg, net, step):
        share, score = next(results)
        return [{"env_step": step, "opponent": o, "win_share": share, "win_share_ci": [0, 1],
                 "mean_score": score, "mean_score_ci": [0, 0], "deals": 1}
                for o in cfg.eval_opponents]  # fmt: skip

    monkeypatch.setattr(train_module, "evaluate_policy", fake_evaluation)
    writer = SimpleNamespace(add_scalar=lambda *args: None)
    trainer = SimpleNamespace(params=SimpleNamespace(logger=SimpleNamespace(writer=writer)))
    state = {"epoch": 0, "env_step": 0, "update_step": 0, "history": [], "snapshots": []}
    best = -np.inf
    for epoch in range(1, 4):
        state.update(epoch=epoch, env_step=100 * epoch, update_step=epoch)
        best = train_module._after_epoch(
            cfg, tmp_path, algorithm, OpponentPool(["random"]), state, best, trainer
        )
    assert checkpoint.load(tmp_path / "best.pt")["epoch"] == 2 and best == 0.5
    assert train_module.selection_key(dataclasses.replace(cfg, reward="score")) == "mean_score"
