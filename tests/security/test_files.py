"""What the host's laptop keeps on disk: the database is its owner's alone."""

from __future__ import annotations

import os
import stat

from montones import service
from tests.helpers.apps import make_app


def test_the_database_file_is_created_readable_by_its_owner_only(tmp_path):
    path = tmp_path / "night.sqlite"

    kept = os.umask(0o022)  # a host's usual umask: new files readable by everyone
    try:
        app = make_app(f"sqlite:///{path}")
        with app.app_context():
            service.create_table("montones", "Friday", 100, {})
    finally:
        os.umask(kept)
    files = [path, path.with_name(path.name + "-wal")]
    for file in files:
        assert file.exists(), file
        assert stat.S_IMODE(file.stat().st_mode) == 0o600, (file, oct(file.stat().st_mode))
