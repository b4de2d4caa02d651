"""training.tianshou_kernels: Tianshou's numba kernels compile once, not in every process."""

from __future__ import annotations

import subprocess
import sys

from tests.test_nothing_lost import ROOT

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
from training.config import Config

make_algorithm(Config(hidden=(8,), envs=2))
VectorReplayBuffer(8, 2)
print(sum(module.startswith("tianshou.") for module in compiled))
"""


def tianshou_compiles() -> int:
    done = subprocess.run([sys.executable, "-c", BUILD], cwd=ROOT, capture_output=True,
                          text=True, check=True)  # fmt: skip
    return int(done.stdout.split()[-1])


def test_a_second_process_loads_tianshous_kernels_from_the_cache():
    tianshou_compiles()  # the first may compile them (on a fresh machine)
    assert tianshou_compiles() == 0
