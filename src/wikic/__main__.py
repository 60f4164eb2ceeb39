from wikic.cli import main

main()
