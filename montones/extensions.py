"""Flask extensions, created once here and bound to the app in the factory."""

from flask_babel import Babel
from flask_htmx import HTMX
from flask_sqlalchemy import SQLAlchemy

# A row keeps what was just written to it after the commit, rather than reading it all back
# (a table's state is one JSON document): an action's answer is drawn from the state it stored.
# A write transaction still reads its row fresh: ``service._locked`` rolls back first, which
# expires every row the session holds (its state only when this process does not hold the
# state at that version).
db = SQLAlchemy(session_options={"expire_on_commit": False})
babel = Babel()
htmx = HTMX()
