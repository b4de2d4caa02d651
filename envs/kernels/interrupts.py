"""Ctrl-C (and SIGTERM) that wait for numba's compiler.

An exception raised inside numba's compiler (the first call of a kernel, or any call
after the cache was cleared) by a signal handler, such as the ``KeyboardInterrupt`` of
Ctrl-C, can leave the compiler half-built: the process then dies of a segmentation fault,
or numba raises a ``RuntimeError`` of its own ("no compiled object yet"), instead of the
interrupt that the command lines turn into a one-line message and exit status. Inside
:func:`signals_after_compiling`, such a signal on the main thread while it compiles is
held until its outermost compilation ends, and its handler runs there; at any other
moment the handler runs at once, as usual.

>>> import signal
>>> with signals_after_compiling():
...     signal.getsignal(signal.SIGINT) is signal.default_int_handler
False
>>> signal.getsignal(signal.SIGINT) is signal.default_int_handler
True
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

from numba.core import event

COMPILE = "numba:compile"  # the event numba's dispatchers trigger around each compilation


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
    """Hold ``signums`` while the main thread compiles a numba kernel (module docstring).

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
        if not compiling.depth:
            run(signum, frame)
        elif compiling.held is None:
            compiling.held = lambda: run(signum, frame)

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
