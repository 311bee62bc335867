"""A wheel (what `pip install .` installs) carries the templates and the static files, and the
app it installs serves every page and static file from it, not from a checkout."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SERVES = """
import re
from pathlib import Path

import montones
from montones import create_app
from montones.rules.games import GAMES

installed = Path(montones.__file__).parent
app = create_app({"SQLALCHEMY_DATABASE_URI": "sqlite://", "SECRET_KEY": "x"})
for folder in (app.template_folder, app.static_folder):
    assert Path(folder).is_relative_to(installed), folder
for name in app.jinja_env.list_templates():
    app.jinja_env.get_template(name)
client = app.test_client()
home = client.get("/")
token = re.search(r'name="csrf_token" value="([^"]+)"', home.text).group(1)
form = {"csrf_token": token, "game": "montones", "chips": "100", "min_bet": "1",
        "heaps_min": "3", "heaps_max": "5", "tenure": "60", "cut_timeout": "30"}
host = client.post("/tables", data=form).headers["location"]  # the host's page
table = "/t/" + host.split("/")[2]
pages = ["/", *(f"/rules/{name}" for name in GAMES), host, table, table + "/tv", table + "/join"]
for page in pages:
    assert client.get(page, follow_redirects=True).status_code == 200, page
files = [p for p in Path(app.static_folder).rglob("*") if p.is_file()]
for path in files:
    url = "/static/" + path.relative_to(app.static_folder).as_posix()
    answer = client.get(url)
    assert answer.status_code == 200 and answer.data == path.read_bytes(), url
print(len(app.jinja_env.list_templates()), len(pages), len(files))
"""


def test_a_wheel_serves_every_page_and_static_file_from_the_install(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", tmp_path, ROOT],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("montones-*.whl")
    target = tmp_path / "installed"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", target, wheel],
        check=True,
        capture_output=True,
    )
    served = subprocess.run(
        [sys.executable, "-c", SERVES],
        cwd=tmp_path,  # not the checkout, whose folders would be found instead
        env={**os.environ, "PYTHONPATH": str(target)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert served.returncode == 0, served.stderr[-3000:]
    templates, pages, files = map(int, served.stdout.split())
    assert templates == sum(1 for p in (ROOT / "templates").rglob("*") if p.is_file())
    assert files == sum(1 for p in (ROOT / "static").rglob("*") if p.is_file())
