"""`python -m aftershock.cli`: the same entry point as the `aftershock` script."""

from aftershock.cli.main import main

main()
