"""`python -m courtroom.cli`."""

from courtroom.cli import main

main()
