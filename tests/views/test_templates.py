"""What rendered HTML goes through: the templates' environment (Jinja's, ``a.b`` on a plain
dict its key) and the one-line SSE event a block is sent in (views.live)."""

from types import SimpleNamespace

from montones.web.screens import out_of_band, update


def render(app, source: str, **context) -> str:
    with app.test_request_context("/"):
        return app.jinja_env.from_string(source).render(**context)


def test_a_dicts_key_is_found_by_dot_and_a_missing_one_is_undefined(app):
    assert render(
        app, "{{ v.me.chips }}|{{ v.nope }}|{{ v.nope is defined }}", v={"me": {"chips": 7}}
    ) == ("7||False")


def test_dict_methods_and_attributes_of_other_objects_still_work(app):
    source = "{% for k, x in d.items() %}{{ k }}={{ x }}{% endfor %}|{{ d.get('a') }}|{{ o.a }}"
    assert render(app, source, d={"a": 1}, o=SimpleNamespace(a=2)) == "a=1|1|2"


def test_a_block_goes_out_as_one_data_line_whatever_its_line_breaks():
    html = '<ul id="felt">\r\n  <li>a</li>\r\t<li\n\n   class="b">b</li>\n</ul>\n'
    assert update(out_of_band(html)) == (
        b'event: update\ndata: <ul hx-swap-oob="morph" id="felt"> <li>a</li>'
        b' <li class="b">b</li> </ul>\n\n'
    )


def test_a_templates_strings_are_translated_with_their_values_escaped(app):
    source = (
        "{{ _('Heap %(n)s', n=name) }}|{{ ngettext('%(num)d card', '%(num)d cards', 1) }}|"
        "{{ ngettext('%(num)d card', '%(num)d cards', 3) }}|{{ _('100%% sure') }}"
    )
    with app.test_request_context("/", headers={"Accept-Language": "es"}):
        spanish = app.jinja_env.from_string(source).render(name="<b>")
    assert spanish == "Montón &lt;b&gt;|1 carta|3 cartas|100% sure"
