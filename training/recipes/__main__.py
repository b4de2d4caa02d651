from training.recipes.cli import main

main()
