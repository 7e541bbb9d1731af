"""``python -m worldgen.cli``: the same as the ``worldgen`` command."""

from worldgen.cli import main

main()
