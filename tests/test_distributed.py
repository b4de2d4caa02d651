"""The Ray backend: the same results as the local backend, and nothing left running.

The Ray tests are slow (a Ray instance takes seconds to start) and need the
``distributed`` extra, which ``make test`` installs. Each test that starts a Ray instance
holds a lock file shared by pytest-xdist's workers (:func:`one_instance`) while it runs:
with ``--dist worksteal`` a worker may take a test of this module while the other runs
the module's shared instance, and the two instances would see each other.

The local backend's spawned workers import this module to find :func:`_inverse`, so its
top imports stay light: torch and ``training`` (seconds of import each time) are imported
by the tests that use them.
"""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from filelock import FileLock

from big2.evaluation import evaluate
from big2.evaluation.backends import Backend, RayBackend, TaskFailed, make_backend

ROOT = Path(__file__).resolve().parent.parent
RAY_PROCESSES = ("raylet", "gcs_server", "ray::")


def test_without_ray_the_backend_names_the_extra():
    code = (
        "import sys; sys.modules['ray'] = None\n"
        "from big2.evaluation.backends import make_backend\n"
        "try:\n    make_backend('ray')\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert "pip install -e '.[distributed]'" in out.stdout


def test_only_the_backends_module_imports_ray():
    importers = [
        p.relative_to(ROOT).as_posix()
        for package in ("big2", "observers", "envs", "training", "bench", "lab")
        for p in (ROOT / package).rglob("*.py")
        if re.search(r"^\s*(import ray|from ray\b)", p.read_text(encoding="utf-8"), re.M)
    ]
    assert importers == ["big2/evaluation/backends.py"]


def test_backend_flags_are_checked():
    from training.config import Config

    with pytest.raises(ValueError, match="unknown backend 'spark'"):
        make_backend("spark")
    with pytest.raises(ValueError, match="needs --backend ray"):
        make_backend("local", address="10.0.0.1:6379")
    with pytest.raises(ValueError, match="needs --backend ray"):
        Config(ray_address="10.0.0.1:6379").check()
    with pytest.raises(ValueError, match="shards must be between 1 and envs"):
        Config(envs=4, shards=5).check()


def test_local_as_completed_reports_each_failure_and_goes_on():
    def results(backend: Backend) -> dict[int, object]:
        return dict(backend.as_completed(_inverse, [1, 0, 4]))

    for backend in (Backend(1), Backend(2)):
        out = results(backend)
        assert out[0] == 1.0 and out[2] == 0.25
        failed = out[1]
        assert isinstance(failed, TaskFailed) and isinstance(failed.cause, ZeroDivisionError)
        assert str(failed) == "ZeroDivisionError: division by zero"
        assert "return 1 / x" in failed.traceback


def _inverse(x: int) -> float:
    return 1 / x


# ------------------------------------------------------------------ a real Ray instance


def ray_processes() -> list[str]:
    out = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if any(p in line for p in RAY_PROCESSES)]


@pytest.fixture(scope="module")
def one_instance(shared_tmp: Path) -> Iterator[None]:
    """Hold the lock on Ray instances (a file in the session's temporary folder, which
    every xdist worker shares) for this worker's tests of the module."""
    with FileLock(str(shared_tmp / "ray-instance.lock")):
        yield


def wait_until_gone() -> list[str]:
    for _ in range(100):  # shutdown signals the processes; give them a moment to exit
        if not ray_processes():
            break
        time.sleep(0.2)
    return ray_processes()


@pytest.mark.slow
def test_the_ray_backend_starts_and_stops_its_own_instance(one_instance):
    """Runs before the module's shared instance starts (tests run in file order)."""
    pytest.importorskip("ray")
    assert not ray_processes(), "a Ray instance is already running"
    with make_backend("ray") as backend:
        assert backend.workers == os.cpu_count() and ray_processes()
        assert list(backend.map(abs, [-1, -2])) == [1, 2]
    assert not wait_until_gone(), "Ray processes left behind"


@pytest.fixture(scope="module")
def ray_backend(one_instance):
    ray = pytest.importorskip("ray")
    assert not ray_processes(), "a Ray instance is already running"
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             _node_ip_address="127.0.0.1")  # fmt: skip
    backend = RayBackend()  # joins the instance above, and leaves it running on close
    yield backend
    backend.close()
    ray.shutdown()
    assert not wait_until_gone(), "Ray processes left behind"


@pytest.mark.slow
def test_a_ray_arena_matches_the_local_arena(ray_backend):
    agents = ["greedy", "random", "heuristic", "random:3"]
    local = evaluate(agents, 20, seed=7)
    remote = evaluate(agents, 20, seed=7, backend=ray_backend)
    assert remote == local and ray_backend.workers == 2


@pytest.mark.slow
def test_a_ray_study_matches_the_local_study(ray_backend, tmp_path):
    from training.ablation.cli import main as ablation

    # one epoch: each run's cell is a process of its own, which is most of the time
    args = ["--observers", "oracle", "--seeds", "1", "--steps", "100",
            "--report-deals", "2", "--set", "envs=4", "--set", "epoch_steps=100",
            "--set", "eval_deals=1", "--set", "collect_steps=64", "--set", "hidden=16",
            "--set", "eval_opponents=random greedy", "--no-progress"]  # fmt: skip
    ablation([*args, "--run-dir", str(tmp_path / "local")])
    ablation([*args, "--run-dir", str(tmp_path / "ray"), "--backend", "ray"])
    tables = []
    for name in ("local", "ray"):
        with (tmp_path / name / "results.csv").open() as f:
            rows = list(csv.DictReader(f))
        tables.append([{k: v for k, v in r.items() if k != "wall_seconds"} for r in rows])
    assert tables[0] == tables[1] and len(tables[0]) == 1
    assert all(r["status"] == "done" for r in tables[1])


@pytest.mark.slow
def test_ray_rollouts_collect_what_local_shards_collect(ray_backend, tmp_path):
    """Same seed and shards: the same experience, so the same curve and the same weights."""
    import torch
    from training_helpers import former_config

    from training import checkpoint
    from training.train import train

    runs = []
    for backend in ("local", "ray"):
        cfg = former_config(steps=400, epoch_steps=200, envs=6, shards=2, collect_steps=128,
                            hidden=(16,), eval_deals=1, eval_opponents=("random",), threads=1,
                            opponents=("random", "self"), backend=backend,
                            run_dir=str(tmp_path / backend))  # fmt: skip
        state = train(cfg)
        weights = checkpoint.load(tmp_path / backend / "latest.pt")["state"]
        runs.append((state.env_step, state.history, weights))
    (steps_a, history_a, weights_a), (steps_b, history_b, weights_b) = runs
    assert steps_a == steps_b >= 400 and history_a == history_b
    assert weights_a.keys() == weights_b.keys()
    tensors = [k for k, v in weights_a.items() if isinstance(v, torch.Tensor)]
    assert any(k.startswith("policy.actor.") for k in tensors)
    differ = [k for k in tensors if not torch.equal(weights_a[k], weights_b[k])]
    assert not differ, differ


@pytest.mark.slow
def test_a_task_lost_with_its_worker_is_retried_and_reported(ray_backend, tmp_path, capsys):
    def dies_once(marker: str) -> str:  # local, so Ray pickles it by value
        """Kill the worker process the first time (a lost worker), succeed the second."""
        import os
        from pathlib import Path

        path = Path(marker)
        if not path.exists():
            path.write_text("died once")
            os._exit(1)
        return "second attempt"

    out = dict(ray_backend.as_completed(dies_once, [str(tmp_path / "marker")]))
    assert out == {0: "second attempt"}
    assert "task 0 lost with its worker" in capsys.readouterr().err
    assert len(ray_backend.lost) == 1


@pytest.mark.slow
def test_a_task_lost_every_time_is_reported_and_the_others_finish(ray_backend):
    ray = pytest.importorskip("ray")

    def inverse_or_die(x: object) -> float:  # local, so Ray pickles it by value
        if x == "die":
            import os

            os._exit(1)
        assert isinstance(x, int)
        return 1 / x

    before = len(ray_backend.lost)
    out = dict(ray_backend.as_completed(inverse_or_die, [2, "die", 4]))
    assert out[0] == 0.5 and out[2] == 0.25
    assert isinstance(out[1], ray.exceptions.WorkerCrashedError)
    assert len(ray_backend.lost) - before == ray_backend.retries
