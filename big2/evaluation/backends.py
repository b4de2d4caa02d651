"""Where parallel work runs: in this process or local processes (``local``), or on Ray.

Our heavy work is embarrassingly parallel (arena deals, study cells) or batched
(rollouts from env shards). A :class:`Backend` runs it and is the one place that knows
how: :meth:`~Backend.map` (results in input order), :meth:`~Backend.as_completed` (each
result, or the exception that stopped it, as it finishes), and :meth:`~Backend.actors`
with :meth:`~Backend.call` (stateful workers, such as env shards). Results never depend
on the backend: the work is split the same way and seeded per item.

This is the only module that imports ``ray`` (the ``distributed`` extra:
``pip install -e '.[distributed]'``). :class:`RayBackend` joins a cluster
(``address``) or starts a local Ray instance sized to the machine, declares the CPUs
each task and actor needs, submits a task lost with its worker again and reports it
(``retries`` times: done here rather than by Ray's silent ``max_retries``, so that every
loss is reported), stops with :class:`BackendError` when a stateful actor is lost (a
restarted one would have lost its state), and shuts down on :meth:`~Backend.close` what
it started.

>>> with make_backend("local") as backend:
...     list(backend.map(abs, [-2, 3]))
[2, 3]
"""

from __future__ import annotations

import builtins
import multiprocessing
import os
import socket
import sys
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, TypeVar

from big2.evaluation.processes import die_with_parent

T = TypeVar("T")
R = TypeVar("R")
BACKENDS = ("local", "ray")
EXTRA = "pip install -e '.[distributed]'"


class Backend:
    """Runs work in this process, or in ``workers`` local processes (spawned)."""

    name = "local"

    def __init__(self, workers: int = 1) -> None:
        if workers < 1:
            raise ValueError(f"workers must be positive, got {workers}")
        self.workers = workers  # how many items run at once (Ray: the cluster's CPUs)

    def map(self, fn: Callable[[T], R], items: Iterable[T], cpus: float = 1) -> Iterator[R]:
        """``fn(item)`` for every item, in order (``fn`` and items must pickle)."""
        if self.workers == 1:
            yield from builtins.map(fn, items)
            return
        with self._pool() as pool:
            yield from pool.map(fn, items)

    def as_completed(
        self, fn: Callable[[T], R], items: Sequence[T], cpus: float = 1
    ) -> Iterator[tuple[int, R | BaseException]]:
        """(index, ``fn(items[index])`` or the exception it raised), as each finishes."""
        if self.workers == 1:
            for i, item in enumerate(items):
                yield i, _attempt(fn, item)
            return
        with self._pool() as pool:
            futures: dict[Future[R | BaseException], int] = {
                pool.submit(_attempt, fn, item): i for i, item in enumerate(items)
            }
            while futures:
                done, _ = wait(futures, return_when=FIRST_COMPLETED)
                for future in done:
                    yield futures.pop(future), _outcome(future)

    def _pool(self) -> ProcessPoolExecutor:
        # spawn, not fork: forking a process that already runs torch's threads can deadlock;
        # each worker ends with this process, even one killed with SIGKILL
        context = multiprocessing.get_context("spawn")
        return ProcessPoolExecutor(
            self.workers, context, initializer=die_with_parent, initargs=(os.getpid(),)
        )

    def actors(self, cls: type, arguments: Sequence[tuple[Any, ...]], cpus: float = 1) -> list[Any]:
        """One ``cls(*args)`` per entry of ``arguments`` (in this process, for ``local``)."""
        return [cls(*args) for args in arguments]

    def call(
        self, actors: Sequence[Any], method: str, arguments: Sequence[tuple[Any, ...]]
    ) -> list[Any]:
        """``actor.method(*args)`` on every actor with its own arguments; the results."""
        return [getattr(a, method)(*args) for a, args in zip(actors, arguments, strict=True)]

    def release(self, actors: Sequence[Any]) -> None:
        """End actors made by :meth:`actors` (in this process: nothing to do)."""

    def close(self) -> None:
        """Release what the backend started."""

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class TaskFailed(Exception):
    """Work that raised ``cause``: ``str()`` is ``"Type: message"``, ``traceback`` the
    worker's."""

    def __init__(self, cause: Exception, traceback: str) -> None:
        super().__init__(f"{type(cause).__name__}: {cause}")
        self.cause, self.traceback = cause, traceback

    def __reduce__(self) -> tuple[Any, ...]:  # pickles across processes with its cause
        return (TaskFailed, (self.cause, self.traceback))


class BackendError(RuntimeError):
    """The backend lost what it could not replace (a stateful actor)."""


def _attempt(fn: Callable[[T], R], item: T) -> R | BaseException:
    """``fn(item)``, or a :class:`TaskFailed` for the exception it raised (reported by
    the caller, with the others going on)."""
    try:
        return fn(item)
    except Exception as e:
        return TaskFailed(e, traceback.format_exc())


def _outcome(future: Future[Any]) -> Any:
    try:
        return future.result()
    except BaseException as e:
        return e


def import_ray() -> Any:
    """The ``ray`` module, or an ImportError that names the extra to install."""
    try:
        import ray
    except ImportError:
        raise ImportError(f"the ray backend needs Ray: {EXTRA}") from None
    return ray


class RayBackend(Backend):
    """Runs work as Ray tasks and actors, on a cluster or a local instance it starts."""

    name = "ray"

    def __init__(
        self,
        address: str = "",
        num_cpus: int | None = None,
        retries: int = 2,
        connect_timeout: float = 10.0,
        call_timeout: float = 600.0,
    ) -> None:
        ray = self.ray = import_ray()
        self.retries, self.started = retries, not ray.is_initialized()
        self.call_timeout = call_timeout
        if self.started:
            if address and address != "auto":
                check_reachable(address, connect_timeout, _dialled(ray, address))
            local = {} if address else {"num_cpus": num_cpus or os.cpu_count()}
            ray.init(address=address or None, include_dashboard=False, log_to_driver=False, **local)
        self.workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
        self._apply = ray.remote(_attempt)
        self.lost: list[str] = []  # tasks lost with their workers, and retried

    def map(self, fn: Callable[[T], R], items: Iterable[T], cpus: float = 1) -> Iterator[R]:
        done: dict[int, Any] = {}
        upcoming = 0
        for index, value in self.as_completed(fn, list(items), cpus):
            done[index] = value
            while upcoming in done:  # in input order; an item's exception raises here
                value = done.pop(upcoming)
                upcoming += 1
                if isinstance(value, TaskFailed):
                    raise value.cause  # as the local backend raises it
                if isinstance(value, BaseException):
                    raise value
                yield value

    def release(self, actors: Sequence[Any]) -> None:
        """End actors made by :meth:`actors` (their resources return to the cluster)."""
        for actor in actors:
            self.ray.kill(actor)

    def as_completed(
        self, fn: Callable[[T], R], items: Sequence[T], cpus: float = 1
    ) -> Iterator[tuple[int, R | BaseException]]:
        """As for the local backend; a task lost with its worker or node is submitted
        again, up to ``retries`` times, and each loss is reported (on stderr and in
        :attr:`lost`)."""
        task = self._apply.options(num_cpus=cpus, max_retries=0)  # retried below, reported
        shared = self.ray.put(fn)  # once in the object store, not once per task
        pending = {task.remote(shared, item): (i, 0) for i, item in enumerate(items)}
        lost_worker = (self.ray.exceptions.WorkerCrashedError, self.ray.exceptions.NodeDiedError)
        while pending:
            ref = self._wait_one(list(pending))
            index, tries = pending.pop(ref)
            try:
                value = self.ray.get(ref)
            except lost_worker as e:
                if tries < self.retries:
                    self._report(
                        f"task {index} lost with its worker ({type(e).__name__}); "
                        f"retrying ({tries + 1} of {self.retries})"
                    )
                    pending[task.remote(shared, items[index])] = (index, tries + 1)
                    continue
                value = e
            except Exception as e:
                value = e
            yield index, value

    def _report(self, message: str) -> None:
        self.lost.append(message)
        print(f"ray backend: {message}", file=sys.stderr, flush=True)

    def actors(self, cls: type, arguments: Sequence[tuple[Any, ...]], cpus: float = 1) -> list[Any]:
        # not restarted: a restarted actor would lose its state (an env shard's games), so
        # a lost actor stops the work with BackendError instead of corrupting it
        remote = self.ray.remote(cls).options(num_cpus=cpus, max_restarts=0)
        return [remote.remote(*args) for args in arguments]

    def call(
        self, actors: Sequence[Any], method: str, arguments: Sequence[tuple[Any, ...]]
    ) -> list[Any]:
        refs = [getattr(a, method).remote(*args) for a, args in zip(actors, arguments, strict=True)]
        try:
            return list(self.ray.get(refs, timeout=self.call_timeout))
        except self.ray.exceptions.RayActorError as e:
            self._report(f"an actor was lost ({type(e).__name__})")
            raise BackendError(f"a Ray actor was lost with its worker: {e}") from None
        except self.ray.exceptions.GetTimeoutError:
            raise BackendError(
                f"{len(refs)} Ray actors gave no answer to {method!r} within "
                f"{self.call_timeout:g} s; check the cluster (ray status)"
            ) from None

    def _wait_one(self, refs: list[Any]) -> Any:
        """The first of ``refs`` to finish; while none does, the cluster is checked every
        :data:`HEARTBEAT` seconds, and a cluster with no live node raises BackendError."""
        while True:
            ready, _ = self.ray.wait(refs, num_returns=1, timeout=HEARTBEAT)
            if ready:
                return ready[0]
            if not any(node.get("Alive") for node in self.ray.nodes()):
                raise BackendError("the Ray cluster has no live node; check it (ray status)")

    def close(self) -> None:
        if self.started and self.ray.is_initialized():
            self.ray.shutdown()
            self.started = False


HEARTBEAT = 30.0  # seconds between checks of the cluster while tasks run


class ClusterUnreachable(ValueError):
    """No Ray cluster answers at the address given."""


def check_reachable(address: str, timeout: float, dialled: Sequence[str] = ()) -> None:
    """Raise :class:`ClusterUnreachable` unless a TCP connection to ``address`` (and to each
    of ``dialled``: where Ray itself will connect) opens within ``timeout`` seconds.

    Ray's own client retries an unreachable address without end, so it is tried here first.

    >>> check_reachable("127.0.0.1:1", 1.0)
    Traceback (most recent call last):
    ...
    big2.evaluation.backends.ClusterUnreachable: no Ray cluster answers at 127.0.0.1:1 ...
    """
    for target in dict.fromkeys([address, *dialled]):
        host, port = _host_port(target)
        try:
            socket.create_connection((host, port), timeout=timeout).close()
        except OSError as e:
            reason = "timed out" if isinstance(e, TimeoutError) else e.strerror or str(e)
            raise ClusterUnreachable(
                f"no Ray cluster answers at {address} (a TCP connection to {host}:{port} "
                f"failed within {timeout:g} s: {reason}); check that the head node runs "
                f"(ray start --head --port {port}) and that this host can reach that port"
            ) from None


def _host_port(address: str) -> tuple[str, int]:
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ValueError(f"--ray-address takes HOST:PORT, ray://HOST:PORT or auto, got {address!r}")
    return host.strip("[]"), int(port)


def _dialled(ray: Any, address: str) -> list[str]:
    """Where Ray will really connect for ``address`` (it replaces a loopback host with this
    machine's address); empty where that cannot be told."""
    if address.startswith("ray://"):
        return []
    _host_port(address)  # a malformed address is refused before Ray sees it
    try:
        found = ray._private.services.canonicalize_bootstrap_address(address)
    except Exception:
        return []
    return [found] if found else []


def add_arguments(parser: Any, default: Any = "") -> None:
    """Add ``--backend``, ``--ray-address`` and ``--workers`` to an argparse parser
    (``default=None``: leave unset flags None, for callers that merge other sources)."""
    unset = default is None
    parser.add_argument(
        "--backend",
        default=None if unset else "local",
        choices=BACKENDS,
        help=f"where the work runs (ray: {EXTRA})",
    )
    parser.add_argument(
        "--ray-address",
        default=None if unset else "",
        metavar="ADDR",
        help="join this Ray cluster (default: start a local one)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None if unset else 1,
        help="local processes at once (local backend; default 1)",
    )


def from_arguments(args: Any) -> Backend:
    """The backend that :func:`add_arguments`' flags ask for."""
    return make_backend(args.backend, args.workers, args.ray_address)


def make_backend(name: str = "local", workers: int = 1, address: str = "") -> Backend:
    """The backend called ``name``: ``local`` (``workers`` processes) or ``ray`` (the
    cluster at ``address``, or a local instance sized to the machine)."""
    if name == "local":
        if address:
            raise ValueError("--ray-address needs --backend ray")
        return Backend(workers)
    if name == "ray":
        return RayBackend(address)
    raise ValueError(f"unknown backend {name!r}; expected one of {list(BACKENDS)}")
