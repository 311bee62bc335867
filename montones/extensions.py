"""Flask extensions, created once here and bound to the app in the factory."""

from flask_babel import Babel
from flask_htmx import HTMX
from flask_sqlalchemy import SQLAlchemy

db = SQLAlchemy()
babel = Babel()
htmx = HTMX()
