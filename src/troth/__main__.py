"""``python -m troth`` runs the command line."""

from troth.cli import main

main()
