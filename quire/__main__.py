"""`python -m quire …` is the `quire` command, for when pip's scripts folder is not on PATH
(a `pip install --user`, some notebooks' kernels)."""

from quire.orchestrator.warm import main

main()
