"""The opponents' rounds compiled (envs.kernels.opponents) against the same rounds in
Python (envs.opponents): the same moves, draws and games, step for step."""

from __future__ import annotations

import numpy as np
import pytest

from envs.vector import Big2VectorEnv
from tests.test_vector_buffers import assert_same, snapshot


@pytest.mark.parametrize(
    ("rules", "mix", "draw"),
    [
        ("standard", ["random", "greedy", "heuristic"], "seat"),
        ("standard", ["heuristic", "random"], "game"),
        ("charlesworth", ["greedy", "random", "random"], "seat"),
        ("standard", ["random", "self-all", "heuristic", "greedy"], "game"),
    ],
)
def test_compiled_rounds_play_the_python_rounds(rules, mix, draw):
    options = {"rules": rules, "opponents": mix, "opponent_draw": draw, "seed": 4}
    compiled, python = Big2VectorEnv(48, **options), Big2VectorEnv(48, **options)
    assert compiled.opponents._codes is not None
    python.opponents._codes = None  # the rounds in Python
    assert_same(snapshot(compiled.reset()), snapshot(python.reset()), "reset")
    rng, ended = np.random.default_rng(1), 0
    for step in range(300):
        actions = compiled.sample_legal(rng)
        out = compiled.step(actions)
        assert_same(snapshot(out), snapshot(python.step(actions)), f"step {step}")
        ended += int(out[2].sum())
    assert ended > 100
    assert compiled.opponents.rng.integers(2**62) == python.opponents.rng.integers(2**62)


def test_a_mix_with_other_players_keeps_the_python_rounds():
    env = Big2VectorEnv(8, opponents=["random", "search"], seed=0)
    assert env.opponents._codes is None
