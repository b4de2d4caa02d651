"""The compiled (numba) side of the batched engine and observers; :mod:`envs.engine` and
:mod:`envs.batch_observers` are their Python faces."""
