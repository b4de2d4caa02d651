"""Tests of the lab's experiments: ``make lab-test``, not part of ``make test``."""
