"""The data: the models, the one write path (``store``), what is read (``queries``,
``history``), a table at a version (``snapshot``), the refusals a read or a write may end in,
and the clock every row's time is read from.

May import: ``montones.rules``, the extensions (``db``) and Flask's app context. Never the
service, the live channel or the web: a commit is told upwards by a signal
(``store.committed``), which the live channel listens to.
"""
