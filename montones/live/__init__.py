"""The live path's machinery: how every open screen learns of each change at its table.

- ``broker``: the newest version of each table, which the streams wait for, and the versions
  heard from other worker processes (PostgreSQL's NOTIFY);
- ``renders``: what a table at a version renders to, rendered once;
- ``scheduler``: the one thread that applies the tables' clocks and moves computer players;
- ``channel``: the app's one of each, in ``app.extensions["channel"]``, and the open screens.

What a stream sends, and the stream itself, are the web's (``montones.web.stream``,
``montones.web.screens``).

May import: ``montones.rules``, ``montones.data``, ``montones.service``. Never ``montones.web``.
"""
