"""The club's pages and its JSON API, their view models, and what they share.

- :mod:`~andar_bahar.web.pages.shared` — the :class:`~andar_bahar.web.pages.shared.Club`
  every page route gets (the table service, the cookies' signers, the live renderer);
- the pages, one module each with a ``register(app, club)``:
  :mod:`~andar_bahar.web.pages.player` (home, join, the phone),
  :mod:`~andar_bahar.web.pages.new_table`, :mod:`~andar_bahar.web.pages.dealer`,
  :mod:`~andar_bahar.web.pages.display`, :mod:`~andar_bahar.web.pages.trust` (seats,
  devices, cashier), :mod:`~andar_bahar.web.pages.hold` (the hold report),
  :mod:`~andar_bahar.web.pages.live` (the ``/ws`` route),
  :mod:`~andar_bahar.web.pages.learn` (the trainer: its exercises in
  :mod:`~andar_bahar.web.pages.learn_drills`, drawn by
  :mod:`~andar_bahar.web.pages.learn_views`, a browser's learner in
  :mod:`~andar_bahar.web.pages.learning`), and the JSON API
  (:mod:`~andar_bahar.web.pages.api`, :mod:`~andar_bahar.web.pages.trust_api`);
- the view models, from the table alone: :mod:`~andar_bahar.web.pages.drawing` (card
  faces, spots, chips, the road, the next step) and :mod:`~andar_bahar.web.pages.screens`
  (the phone's seat and banner, the dealer's screen);
- :mod:`~andar_bahar.web.pages.routes` — :func:`~andar_bahar.web.pages.routes.register`:
  a new page module is imported there and its ``register(app, club)`` called.
"""
