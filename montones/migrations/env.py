"""How Alembic runs the app's migrations: on the app's own engine (Flask-Migrate's way), or
as SQL text (``flask db upgrade --sql``)."""

from alembic import context
from flask import current_app

migrate = current_app.extensions["migrate"]
metadata = migrate.db.metadata


def run_offline() -> None:
    url = migrate.db.engine.url.render_as_string(hide_password=False)
    context.configure(url=url, target_metadata=metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    with migrate.db.engine.connect() as connection:
        context.configure(connection=connection, target_metadata=metadata, **migrate.configure_args)
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
