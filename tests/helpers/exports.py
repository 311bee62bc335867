"""A table's history as its export file holds it, and `montones verify` run on such a file."""

import json

from montones import service
from montones.cli import main
from montones.data import history


def export(app, code):
    """The table's export, as the JSON a host downloads reads back."""
    with app.app_context():
        return json.loads(json.dumps(history.export(service.get_table(code))))


def verify_file(tmp_path, data, capsys):
    """Write ``data`` as an export file and run `montones verify` on it: its status and what it printed."""
    path = tmp_path / "export.json"
    path.write_text(json.dumps(data))
    status = main(["verify", str(path)])
    return status, capsys.readouterr().out
