"""Ctrl-C and SIGTERM wait for numba's compiler (envs.kernels.interrupts), which the
training, recipe and study command lines run inside; tests/test_nothing_lost.py
interrupts those command lines."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

import numba
import pytest
from numba.core import event

from envs.kernels.interrupts import COMPILE, signals_after_compiling


@pytest.fixture(autouse=True)
def ctrl_c_raises() -> Iterator[None]:
    """Ctrl-C raising KeyboardInterrupt, as in a terminal, even where pytest inherited it
    ignored (started in the background of a non-interactive shell)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


class SignalAtCompileStart(event.Listener):
    """Sends ``signum`` to this process as each compilation starts."""

    def __init__(self, signum: int) -> None:
        self.signum, self.sent = signum, 0

    def on_start(self, ev: event.Event) -> None:
        self.sent += 1
        signal.raise_signal(self.signum)

    def on_end(self, ev: event.Event) -> None:
        pass


@contextmanager
def signalling(signum: int) -> Iterator[SignalAtCompileStart]:
    """``signum`` sent to this process at every compilation's start."""
    listener = SignalAtCompileStart(signum)
    event.register(COMPILE, listener)
    try:
        yield listener
    finally:
        event.unregister(COMPILE, listener)


@contextmanager
def sending(signum: int) -> Iterator[SignalAtCompileStart]:
    """Inside :func:`signals_after_compiling`, ``signum`` at every compilation's start."""
    with signals_after_compiling(), signalling(signum) as listener:  # after its own listener
        yield listener


def fresh_kernel():  # type: ignore[no-untyped-def]
    """A kernel nothing has compiled yet, calling another (nested compilations)."""

    @numba.njit(cache=False)
    def inner(x):  # type: ignore[no-untyped-def]
        return x * 2

    @numba.njit(cache=False)
    def outer(x):  # type: ignore[no-untyped-def]
        return inner(x) + 1

    return outer


def test_ctrl_c_during_a_compilation_is_raised_once_it_has_finished():
    kernel = fresh_kernel()
    with sending(signal.SIGINT) as listener, pytest.raises(KeyboardInterrupt):
        kernel(20)
    assert listener.sent == 2  # the outer and the nested compilation
    assert len(kernel.overloads) == 1  # compiled whole: the next call runs it
    assert kernel(20) == 41


def test_ctrl_c_outside_a_compilation_is_raised_at_once():
    with signals_after_compiling(), pytest.raises(KeyboardInterrupt):
        signal.raise_signal(signal.SIGINT)
        pytest.fail("the interrupt did not come at once")


def test_sigterm_runs_its_own_handler_after_the_compilation():
    def stop(signum, frame):  # type: ignore[no-untyped-def]
        raise SystemExit(143)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        kernel = fresh_kernel()
        with sending(signal.SIGTERM) as listener, pytest.raises(SystemExit) as exit_:
            kernel(1)
        assert exit_.value.code == 143
        assert listener.sent == 2  # not stopped at the first
        assert kernel(1) == 3
        assert signal.getsignal(signal.SIGTERM) is stop  # given back
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_handlers_are_given_back_and_an_ignored_signal_stays_ignored():
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with signals_after_compiling():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            signal.raise_signal(signal.SIGINT)  # ignored, as before
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
    with signals_after_compiling():
        assert signal.getsignal(signal.SIGINT) is not previous
    assert signal.getsignal(signal.SIGINT) is previous


class InterruptedWhileFinalised:
    """Sends Ctrl-C to this process from its finalizer and runs on there, as llvmlite's
    finalizers do when the garbage collector calls them mid-training."""

    def __del__(self) -> None:
        signal.raise_signal(signal.SIGINT)  # the handler runs inside this __del__
        sum(range(1000))


def test_ctrl_c_that_lands_in_a_finalizer_is_not_lost():
    # Python ignores an exception raised in __del__: the first delivery cannot stop the
    # program, so the signal comes again once the finalizer is over
    with signals_after_compiling(), pytest.raises(KeyboardInterrupt):
        InterruptedWhileFinalised()  # finalised at once: nothing refers to it
        time.sleep(5)
        pytest.fail("the interrupt was lost in the finalizer")


class CompilingAgent:
    """An agent whose first move compiles a fresh kernel, a Ctrl-C arriving as each of its
    compilations starts (``big2 arena --agents test_interrupts:CompilingAgent ...``)."""

    kernels: ClassVar[list[Any]] = []  # every kernel an instance compiled, for the test to read

    def act(self, view, legal_moves):  # type: ignore[no-untyped-def]
        kernel = fresh_kernel()
        CompilingAgent.kernels.append(kernel)
        with signalling(signal.SIGINT):
            kernel(1)
        return legal_moves[0]


def test_the_big2_command_line_holds_ctrl_c_until_a_compilation_ends():
    from big2.app.cli import main

    CompilingAgent.kernels.clear()
    with pytest.raises(SystemExit) as exit_:
        main(["arena", "--agents", "test_interrupts:CompilingAgent", "heuristic", "heuristic",
              "heuristic", "--deals", "1"])  # fmt: skip
    assert exit_.value.code == 130  # the command line's Ctrl-C, not a crash in numba
    assert len(CompilingAgent.kernels) == 1  # stopped at its first move
    kernel = CompilingAgent.kernels[0]
    assert len(kernel.overloads) == 1 and kernel(1) == 3
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # given back
