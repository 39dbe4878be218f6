"""The live push: every change of a table reaches its open pages as the new HTML of
their blocks, over a WebSocket.

- :mod:`~andar_bahar.web.live.hub` — the :class:`~andar_bahar.web.live.hub.Hub`: each
  table's followers (a :class:`~andar_bahar.web.live.protocol.Viewer` each), what is sent to
  them and when;
- :mod:`~andar_bahar.web.live.protocol` — who follows (a
  :class:`~andar_bahar.web.live.protocol.Viewer`), what a render gives, and what the hub
  asks of the pages;
- :mod:`~andar_bahar.web.live.sockets` — the WebSocket route of a live page;
- :mod:`~andar_bahar.web.live.text` — the text of a live message;
- :mod:`~andar_bahar.web.live.blocks` — which live blocks each table page has, and what
  a block sees;
- :mod:`~andar_bahar.web.live.keys` — what each block shows, as a key;
- :mod:`~andar_bahar.web.live.renderer` — the renderer of the table pages' blocks, each
  drawn again only when its key changes.
"""
