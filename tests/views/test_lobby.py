def test_home_page_in_english_by_default(client):
    response = client.get("/")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert '<html lang="en">' in html
    assert "<h1>Montones</h1>" in html
    assert "For chips only, never money." in html


def test_home_page_follows_the_browser_language(client):
    html = client.get("/", headers={"Accept-Language": "es-ES,es;q=0.9"}).get_data(as_text=True)
    assert '<html lang="es">' in html
    assert "Solo con fichas, nunca con dinero." in html


def test_lang_switch_is_remembered_over_the_browser_language(client):
    client.get("/?lang=es")
    html = client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert '<html lang="es">' in html
    assert "Los juegos" in html


def test_unknown_lang_is_ignored(client):
    html = client.get("/?lang=xx", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert '<html lang="en">' in html


def test_page_loads_the_vendored_htmx(client):
    html = client.get("/").get_data(as_text=True)
    assert "/static/js/htmx-2." in html
    assert '"selfRequestsOnly":true' in html
