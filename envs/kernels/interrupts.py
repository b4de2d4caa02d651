"""Ctrl-C (and SIGTERM) that wait for numba's compiler.

An exception raised inside numba's compiler (the first call of a kernel, or any call
after the cache was cleared) by a signal handler, such as the ``KeyboardInterrupt`` of
Ctrl-C, can leave the compiler half-built: the process then dies of a segmentation fault,
or numba raises a ``RuntimeError`` of its own ("no compiled object yet"), instead of the
interrupt that the command lines turn into a one-line message and exit status. Inside
:func:`signals_after_compiling`, such a signal on the main thread while it compiles is
held until its outermost compilation ends, and its handler runs there.

A signal can also land while the main thread runs a finalizer (a ``__del__``, such as
llvmlite's, which the garbage collector calls at any moment): Python prints the
exception raised there as "Exception ignored" and goes on, so the Ctrl-C would be lost
and training would run on. Such a signal is sent again a moment later
(:data:`RESEND_AFTER`), until it lands outside any finalizer. At any other moment the
handler runs at once, as usual.

>>> import signal
>>> _ = signal.signal(signal.SIGINT, signal.default_int_handler)  # Python's own Ctrl-C
>>> with signals_after_compiling():
...     signal.getsignal(signal.SIGINT) is signal.default_int_handler
False
>>> signal.getsignal(signal.SIGINT) is signal.default_int_handler
True
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

from numba.core import event

COMPILE = "numba:compile"  # the event numba's dispatchers trigger around each compilation
RESEND_AFTER = 0.05  # seconds before a signal that landed in a finalizer is sent again


def in_finalizer(frame: FrameType | None) -> bool:
    """Whether ``frame`` runs inside a ``__del__``, where a raised exception is ignored."""
    while frame is not None:
        if frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


def _resend(signum: int) -> None:
    """Send ``signum`` to this process again after :data:`RESEND_AFTER` seconds."""
    timer = threading.Timer(RESEND_AFTER, os.kill, (os.getpid(), signum))
    timer.daemon = True
    timer.start()


class _Compiling(event.Listener):
    """How deep the main thread is in numba compilations, and the handler call held."""

    def __init__(self) -> None:
        self.depth = 0
        self.held: Callable[[], object] | None = None  # the first signal's handler call

    def on_start(self, ev: event.Event) -> None:
        if threading.current_thread() is threading.main_thread():
            self.depth += 1

    def on_end(self, ev: event.Event) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        self.depth -= 1
        if self.depth == 0 and self.held is not None:
            held, self.held = self.held, None
            held()  # raises what the handler raises, out of the finished compilation


@contextmanager
def signals_after_compiling(
    signums: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM),
) -> Iterator[None]:
    """Hold ``signums`` while the main thread compiles a numba kernel, and send them again
    when they land in a finalizer (module docstring).

    Only signals whose handler is a Python function are held: one that is ignored (Ctrl-C
    in a background job of a non-interactive shell) or left to the system stays so. Off
    the main thread, where handlers cannot be set, it changes nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: h for s in signums if callable(h := signal.getsignal(s))}
    compiling = _Compiling()

    def handler(signum: int, frame: FrameType | None) -> None:
        run = previous[signum]
        if compiling.depth:
            if compiling.held is None:
                compiling.held = lambda: run(signum, frame)
        elif in_finalizer(frame):
            _resend(signum)
        else:
            run(signum, frame)

    event.register(COMPILE, compiling)
    for signum in previous:
        signal.signal(signum, handler)
    try:
        yield
    finally:
        for signum, original in previous.items():
            if signal.getsignal(signum) is handler:  # not if a handler changed it (to ignore)
                signal.signal(signum, original)
        event.unregister(COMPILE, compiling)
