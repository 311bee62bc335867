"""Flask extensions, created once here and bound to the app in the factory."""

from flask_babel import Babel
from flask_htmx import HTMX
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy

# The ORM session only reads; every write is a Core transaction of its own
# (``data.store.transaction``), which first ends the session's read and forgets its rows.
db = SQLAlchemy()
babel = Babel()
migrate = Migrate()
htmx = HTMX()
