"""``python -m andar_bahar``: the command line."""

from andar_bahar.cli import main

main()
