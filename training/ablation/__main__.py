import signal
import sys

from training.ablation.cli import main


# a stopped study (kill, or a scheduler's SIGTERM) unwinds like Ctrl-C: the runner then
# stops the cells it started instead of leaving them training
def _stop(*_: object) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one must not cut the clean-up
    sys.exit(143)


signal.signal(signal.SIGTERM, _stop)
main()
