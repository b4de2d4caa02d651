from big2.evaluation.processes import stop_on_sigterm
from training.ablation.cli import main

# a stopped study (kill, or a scheduler's SIGTERM) unwinds like Ctrl-C: the runner then
# stops the cells it started instead of leaving them training
stop_on_sigterm()
main()
