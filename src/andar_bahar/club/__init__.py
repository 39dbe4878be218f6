"""The club tables' service: tables, seats, rounds, the cashier, the ledger and the audit
log, in one database — no HTTP in it (the web and the command line use it alike).

- :mod:`~andar_bahar.club.service` — the :class:`~andar_bahar.club.service.TableService`,
  made of the parts below, each action one database transaction;
- :mod:`~andar_bahar.club.store` — the :class:`~andar_bahar.club.store.Store` every part
  shares: its transactions (:mod:`~andar_bahar.club.transactions`), what it keeps in
  memory with each table's version (:mod:`~andar_bahar.club.kept`), the rows, the checks
  of who asks;
- the parts: :mod:`~andar_bahar.club.seats` (tables, the dealer, seats),
  :mod:`~andar_bahar.club.cashier` (chips in and out, the statement),
  :mod:`~andar_bahar.club.rounds` (a round from opening to settlement),
  :mod:`~andar_bahar.club.reads` (what pages and the API show);
- :mod:`~andar_bahar.club.values` — what the service hands out (a table's state, a
  round's public face, a placed bet …), never an undealt card;
- :mod:`~andar_bahar.club.limits` — sizes, guessing counted, the refusals;
- :mod:`~andar_bahar.club.events` — a table's changes, across processes (LISTEN/NOTIFY);
- :mod:`~andar_bahar.club.health` — whether the database answers;
- :mod:`~andar_bahar.club.history` — the hold report's read of the club's nights;
- :mod:`~andar_bahar.club.learners` — the trainer's learners: enrolling, coming back with
  a learner code, their exercises' tickets.
"""
