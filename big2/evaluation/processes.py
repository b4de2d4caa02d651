"""Child processes that end with their parent, and SIGTERM that unwinds like Ctrl-C.

Our commands start worker processes (the arena's pool, a study's cells). If the parent is
killed they must not go on alone, holding memory, CPUs and the files they write:

- :func:`die_with_parent` is called first thing in a child. On Linux it asks the kernel
  to send the child SIGTERM when its parent dies (``PR_SET_PDEATHSIG``), which covers
  ``kill -9``; elsewhere a daemon thread checks once a second whether the parent is gone.
- :func:`stop_on_sigterm` makes SIGTERM raise :class:`SystemExit` (status 143) in the
  main thread, so ``with`` blocks and ``finally`` clauses run: a pool is shut down, the
  cells a study started are stopped, a lock is released.

>>> SIGTERM_STATUS  # the exit status of a command stopped by SIGTERM
143
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from types import FrameType

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
SIGTERM_STATUS = 128 + signal.SIGTERM


def die_with_parent(parent: int) -> None:
    """End this process (SIGTERM) when process ``parent``, its parent, ends."""
    if not _kernel_watch():
        threading.Thread(target=_watch, args=(parent,), daemon=True, name="parent-watch").start()
    if os.getppid() != parent:  # the parent died before the watch began
        os.kill(os.getpid(), signal.SIGTERM)


def _kernel_watch() -> bool:
    """Ask Linux for SIGTERM at the parent's death; False where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    os.kill(os.getpid(), signal.SIGTERM)


def stop_on_sigterm() -> None:
    """From now on, SIGTERM raises ``SystemExit(143)`` in the main thread (a second SIGTERM
    during the clean-up that follows is ignored, so the clean-up finishes)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _stop)


def _stop(signum: int, frame: FrameType | None) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise SystemExit(SIGTERM_STATUS)
