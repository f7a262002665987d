from quire.orchestrator.cli import main

main()
