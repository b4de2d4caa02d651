from training.ablation.cli import main

main()
