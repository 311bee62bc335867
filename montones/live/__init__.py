"""The live path: how every open screen learns of each change at its table.

- ``broker``: the versions committed, released to the screens at a pace, and heard from other
  worker processes (PostgreSQL's NOTIFY);
- ``fanout``: the one thread that works out every screen's update;
- ``renders``: what a table at a version renders to, rendered once;
- ``updates``: what each kind of screen is sent;
- ``parts``: a region's elements with ids, and what changed between two renders of it;
- ``stream``: the stream view, a generator the server writes;
- ``channel``: the app's one of each, in ``app.extensions["channel"]``.

May import: ``montones.rules``, ``montones.data``, ``montones.service``, and the web's drawing
helpers (``web.common``, ``web.tv``), since an update is drawn as the page draws it. The web's
blueprints import ``live`` (a tap's answer notes what its phone was drawn); ``live`` never
imports a blueprint's views.
"""
