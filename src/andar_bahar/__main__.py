"""``python -m andar_bahar`` and the ``andar-bahar`` script: the command line."""

import gc


def run() -> None:
    """The command line, its imports made with the garbage collector off (they make tens
    of thousands of objects and free almost none; the collector is back on once the
    command's module is loaded: :func:`andar_bahar.cli.lazy.load`)."""
    gc.disable()
    from andar_bahar.cli import main

    main()


if __name__ == "__main__":
    run()
