"""training.tianshou_kernels: Tianshou's numba kernels compile once, not in every process."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from numba.core.dispatcher import Dispatcher
from tianshou.algorithm import algorithm_base

from tests.test_nothing_lost import ROOT
from training.tianshou_kernels import cache_kernels

# v_s, v_s_, rewards, ends, gamma, lambda: two one-step episodes, rewards 0 and 1
GAE_ARGS = (np.zeros(2), np.zeros(2), np.array([0.0, 1.0]), np.array([True, True]), 0.99, 0.95)

# builds a PPO policy and a vector buffer (each compiles kernels of Tianshou's on first
# use) and prints how many of Tianshou's functions numba compiled in this process
BUILD = """
from numba.core import event

compiled = []


class Compiles(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__module__)

    def on_end(self, ev):
        pass


event.register("numba:compile", Compiles())
from tianshou.data import VectorReplayBuffer

from training.build import make_algorithm
from training.config import FORMER_DEFAULTS, Config

make_algorithm(Config(**{**FORMER_DEFAULTS, "hidden": (8,), "envs": 2}))
VectorReplayBuffer(8, 2)
print(sum(module.startswith("tianshou.") for module in compiled))
"""


def tianshou_compiles() -> int:
    done = subprocess.run([sys.executable, "-c", BUILD], cwd=ROOT, capture_output=True,
                          text=True, check=True)  # fmt: skip
    return int(done.stdout.split()[-1])


def test_a_second_process_loads_tianshous_kernels_from_the_cache():
    # a process that compiles them (on a fresh machine, after an upgrade) caches them for
    # the next, which compiles none; where an earlier process did, the first compiles none
    if tianshou_compiles():
        assert tianshou_compiles() == 0


def test_without_a_place_for_the_cache_the_kernels_compile_as_before(monkeypatch):
    def no_locator(self):  # type: ignore[no-untyped-def]
        raise RuntimeError(f"cannot cache function {self.py_func.__name__!r}: no locator")

    monkeypatch.setattr(Dispatcher, "enable_caching", no_locator)
    cache_kernels.__wrapped__()  # not the cached call: this process's first may have run
    assert algorithm_base._gae(*GAE_ARGS).tolist() == pytest.approx([0.0, 1.0])
