"""training.rollout: legal actions only, lanes per learner trajectory, self-all crediting."""

from __future__ import annotations

import numpy as np
import pytest
from tianshou.utils.torch_utils import policy_within_training_step
from training_helpers import former_config

from training.build import make_algorithm, make_env
from training.config import Config
from training.rollout import Rollout, to_buffer

pytestmark = pytest.mark.usefixtures("one_thread")


def rollout_of(cfg: Config, seed: int = 0) -> tuple[Rollout, object]:
    algorithm = make_algorithm(cfg)
    env = make_env(cfg, seed)
    checked = {"actions": 0}
    step = env.step

    def checking_step(actions):  # every action the rollout sends must be legal there
        masks = env.action_masks()
        acting = np.flatnonzero(masks.any(axis=1))
        assert masks[acting, actions[acting]].all()
        checked["actions"] += len(acting)
        return step(actions)

    env.step = checking_step  # type: ignore[method-assign]
    return Rollout(env, algorithm.policy, seed), (algorithm, checked)


@pytest.mark.parametrize("algo", ["ppo", "dqn"])
@pytest.mark.parametrize("opponents", [("random", "greedy"), ("self-all",)])
def test_collection_plays_legal_actions_and_stores_legal_lists_only(algo, opponents):
    cfg = former_config(algo=algo, hidden=(32,), envs=6, opponents=opponents, eps_train=0.5)
    rollout, (algorithm, checked) = rollout_of(cfg)
    rng = np.random.default_rng(0)

    def explore(act, legal):  # DQN-style: random legal positions half the time
        counts = (legal >= 0).sum(axis=1)
        return np.where(rng.random(len(act)) < 0.5, rng.integers(counts), act)

    chunks = []
    with policy_within_training_step(algorithm.policy):
        for _ in range(120):
            chunks += rollout.step(explore if algo == "dqn" else None)[0]
    assert checked["actions"] == 120 * 6
    buffer = to_buffer(chunks, rollout.lanes, store_next=True)
    assert rollout.lanes == 6 * (4 if opponents == ("self-all",) else 1)
    legal, act = buffer.obs.legal, buffer.act
    assert legal.ndim == 2 and legal.shape[1] < 300 and np.issubdtype(legal.dtype, np.integer)
    assert (legal[np.arange(len(act)), act] >= 0).all()  # positions of real legal actions
    assert buffer.obs.observation.shape[1] == 421  # card_counting; and no full-width mask anywhere
    assert "mask" not in buffer.obs and all(v.shape[-1] < 1000 for v in buffer.obs.values())
    if algo == "ppo":
        assert buffer.obs.critic.shape[1] == 577  # the oracle critic's input
    assert buffer.terminated.sum() > 0


def lane_transitions(chunks, lane):
    out = []
    for c in chunks:
        for k in np.flatnonzero(c.lanes == lane):
            out.append((c.obs.observation[k], c.act[k], c.rew[k], c.terminated[k],
                        None if c.obs_next is None else c.obs_next.observation[k]))  # fmt: skip
    return out


def test_self_all_lanes_follow_one_seat_and_credit_its_own_final_score():
    cfg = former_config(hidden=(16,), envs=3, opponents=("self-all",), reward="score")
    rollout, (algorithm, _) = rollout_of(cfg, seed=2)
    chunks, finals = [], []
    with policy_within_training_step(algorithm.policy):
        for _ in range(300):
            new, episodes = rollout.step()
            chunks += new
            finals += episodes.returns
            assert all(c.lanes.max() < 12 for c in new) and len(rollout.acting) == 3
    assert len(finals) % 4 == 0 and finals
    for lane in range(12):
        transitions = lane_transitions(chunks, lane)
        assert transitions
        for (_, _, rew, ended, nxt), following in zip(
            transitions, [*transitions[1:], None], strict=True
        ):
            if not ended:
                assert rew == 0  # the score lands on the seat's last decision only
                if following is not None:  # the next decision's view is this one's next view
                    np.testing.assert_array_equal(nxt, following[0])
    terminal = [t for lane in range(12) for t in lane_transitions(chunks, lane) if t[3]]
    assert sorted(t[2] for t in terminal) == sorted(finals)  # each seat's own final score
    assert all(abs(sum(finals[i : i + 4])) < 1e-6 for i in range(0, len(finals), 4))


def test_with_opponents_each_lane_is_a_slots_learner():
    cfg = former_config(hidden=(16,), envs=4, opponents=("greedy",), reward="score")
    rollout, (algorithm, _) = rollout_of(cfg, seed=5)
    chunks, returns = [], []
    with policy_within_training_step(algorithm.policy):
        for _ in range(150):
            new, episodes = rollout.step()
            assert len(new) == 1 and (new[0].lanes == np.arange(4)).all()
            chunks += new
            returns += episodes.returns
    terminal = [c.rew[k] for c in chunks for k in np.flatnonzero(c.terminated)]
    assert sorted(terminal) == sorted(returns) and len(returns) >= 4


def test_dqn_with_gamma_1_and_a_long_horizon_targets_the_games_return():
    """Deep Monte-Carlo (--gamma 1 --n-step 64): a transition's target is the reward to the
    end of its game, never a bootstrapped value, wherever the game ended in the buffer."""
    from tianshou.data import VectorReplayBuffer

    from training.rollout import add
    from training.spec import resolve

    cfg = former_config(algo="dqn", gamma=1.0, n_step=64, hidden=(16,), envs=3,
                        opponents=("greedy",), reward="score")  # fmt: skip
    rollout, (algorithm, _) = rollout_of(cfg, seed=3)
    size = 3 * 2000
    buffer = VectorReplayBuffer(size, rollout.lanes, ignore_obs_next=True)
    chunks = []
    with policy_within_training_step(algorithm.policy):
        for _ in range(200):
            chunks += rollout.step()[0]
    for chunk in chunks:
        add(buffer, chunk, resolve(cfg).network.store_width, store_next=False)
    checked, nonzero = 0, 0
    for lane in range(rollout.lanes):
        transitions = lane_transitions(chunks, lane)
        rewards, ends = [t[2] for t in transitions], [t[3] for t in transitions]
        last_end = max(i for i, e in enumerate(ends) if e)  # later ones have no end yet
        indices = lane * (size // rollout.lanes) + np.arange(last_end + 1)
        targets = algorithm._preprocess_batch(buffer[indices], buffer, indices).returns
        to_go = 0.0
        for i in range(last_end, -1, -1):
            to_go = rewards[i] + (0.0 if ends[i] else to_go)
            assert float(targets[i]) == pytest.approx(to_go)
            checked, nonzero = checked + 1, nonzero + (to_go != 0)
    assert checked > 50 and nonzero > 0
