"""Big2VectorEnv's buffers, made once and written in place: ``copy=False`` hands them out
and they hold exactly what ``copy=True`` copies; ``copy=True`` output is the caller's."""

from __future__ import annotations

import numpy as np
import pytest

from envs.decisions import PAD
from envs.opponents import Opponents
from envs.vector import Big2VectorEnv

SETTINGS = {
    "every seat": {},
    "every seat, critic": {"observer": "card_counting", "critic_observer": "oracle"},
    "every seat, next step": {"autoreset_mode": "NextStep"},
    "learner": {"opponents": ["random", "greedy", "heuristic"]},
    "learner, shaped": {"opponents": ["random"], "reward": "shaped"},
    "tables": {"opponents": ["self-all", "heuristic", "random"], "opponent_draw": "game"},
    "tables, next step": {
        "opponents": ["self-all", "greedy"],
        "opponent_draw": "game",
        "autoreset_mode": "NextStep",
    },
}


def snapshot(value):
    """A deep copy of an env output (dicts, arrays, object arrays of dicts)."""
    if isinstance(value, dict):
        return {k: snapshot(v) for k, v in value.items()}
    if isinstance(value, np.ndarray) and value.dtype == object:
        return [None if v is None else snapshot(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, tuple):
        return tuple(snapshot(v) for v in value)
    return value


def assert_same(a, b, where=""):
    if isinstance(a, dict):
        assert sorted(a) == sorted(b), where
        for key in a:
            assert_same(a[key], b[key], f"{where}/{key}")
    elif isinstance(a, list | tuple):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, where
        np.testing.assert_array_equal(a, b, err_msg=where)
    else:
        assert a == b, where


def agents_per_game(env):
    return 4 if env.all_seats else 1


@pytest.mark.parametrize("name", list(SETTINGS))
def test_the_buffers_hold_what_copies_hold_step_after_step(name):
    n = 32
    copying = Big2VectorEnv(n, seed=3, **SETTINGS[name])
    buffered = Big2VectorEnv(n, seed=3, copy=False, **SETTINGS[name])
    first, second = copying.reset(), buffered.reset()
    assert_same(snapshot(first), snapshot(second), "reset")
    rng, ended = np.random.default_rng(0), 0
    for step in range(400):
        actions = copying.sample_legal(rng)
        got = buffered.step(actions)
        assert_same(snapshot(copying.step(actions)), snapshot(got), f"step {step}")
        ended += int(got[2].sum())
        obs, info = got[0], got[4]
        # rows with no decision: zero and PAD (NEXT_STEP: a finished agent sees its end)
        idle = ~info["acting"] & ~got[2] if buffered.all_seats else np.zeros(n, np.bool_)
        assert not obs["observation"][idle].any() and (info["legal"][idle] == PAD).all()
    assert ended >= 10 * agents_per_game(buffered)  # many games ended on the way


def test_copy_false_hands_out_the_same_arrays_and_copies_do_not_change():
    env = Big2VectorEnv(16, seed=1, copy=False)
    obs, info = env.reset()
    rng = np.random.default_rng(0)
    again, *_, info_again = env.step(env.sample_legal(rng))
    assert again["observation"] is obs["observation"]
    assert np.shares_memory(info["legal"], info_again["legal"])
    copying = Big2VectorEnv(16, seed=1)
    obs, info = copying.reset()
    kept = snapshot((obs, info))
    for _ in range(60):
        out = copying.step(copying.sample_legal(rng))
        if out[2].any():
            final = out[4]["final_obs"]
            kept_final, row = snapshot(final), int(np.flatnonzero(out[2])[0])
            copying.step(copying.sample_legal(rng))
            assert_same(kept_final, snapshot(final))  # the next step left it alone
            assert final[row]["observation"].any()
            break
    assert_same(kept, snapshot((obs, info)))  # later steps left the first output alone
    obs["observation"][:] = 7  # the caller's to change: the env is not affected
    assert (copying.step(copying.sample_legal(rng))[0]["observation"] <= 1).all()


@pytest.mark.parametrize("draw", ["seat", "game"])
def test_a_plain_mix_is_seated_at_once_as_one_game_at_a_time(draw):
    env = Big2VectorEnv(64, opponents=["random", "greedy", "heuristic"], opponent_draw=draw)
    at_once = env.opponents
    assert at_once is not None and at_once._plain
    mix = ["random", "greedy", "heuristic"]
    one_by_one = Opponents(env.maker, mix, np.random.default_rng(9), draw)
    one_by_one._plain = False
    at_once.rng.bit_generator.state = np.random.default_rng(9).bit_generator.state
    slots, learners = np.arange(0, 64, 3), np.arange(22) % 4
    for opponents in (at_once, one_by_one):
        opponents.start(slots, learners)
    for name in ("kind", "learner", "member", "drawn"):
        np.testing.assert_array_equal(getattr(at_once, name), getattr(one_by_one, name))
    assert at_once.rng.integers(2**62) == one_by_one.rng.integers(2**62)
