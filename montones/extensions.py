"""Flask extensions, created once here and bound to the app in the factory."""

from flask_babel import Babel
from flask_htmx import HTMX
from flask_sqlalchemy import SQLAlchemy

# A row keeps what was just written to it after the commit, rather than reading it all back
# (a table's state is one JSON document): creating a table and a rejoin read what they stored
# without another query. An action's write goes around the session, which first forgets every
# row it read (``service._transaction``).
db = SQLAlchemy(session_options={"expire_on_commit": False})
babel = Babel()
htmx = HTMX()
