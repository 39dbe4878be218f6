"""The trainer at the terminal: a full-screen Textual application.

Started by ``andar-bahar play``; see :class:`andar_bahar.tui.app.TrainerApp`.
"""

from __future__ import annotations

__all__ = ["run"]


def run(*, lang: str, db: str | None = None, seed: int | None = None) -> None:
    """Run the trainer until the user quits."""
    from andar_bahar.tui.app import TrainerApp

    TrainerApp(lang=lang, db_url=db, seed=seed).run()
