"""The lab: finished experiments and diagnostics, one module each (lab/README.md).

Not installed and imported by nothing in ``big2``, ``observers``, ``envs`` or
``training``; each module runs as ``python -m lab.NAME``.
"""
