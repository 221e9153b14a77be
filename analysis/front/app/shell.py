"""The app: its frame (navigation, controls, results) and the callbacks that tie the link to the library.

The link is the single source of truth.  A control's change rewrites the
link's query (:func:`analysis.front.app.state.update`); a new link redraws the
controls when it changes their structure (system, archetype, language...)
and starts the page's computation as a job (:mod:`analysis.front.app.jobs`).  A job
that finishes within :data:`WAIT` seconds is shown at once; a longer one shows
its progress, polled every :data:`POLL_MS` milliseconds, and can be cancelled.
"""

from __future__ import annotations

import base64
import binascii
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Mapping

from dash import ALL, Dash, Input, Output, State, ctx, dcc, html, no_update

from analysis.base.params import DicelabError, shown
from analysis.front.app import jobs as jobs_mod
from analysis.front.app.pages import checks, compare, design, duel, encounter, tactics, tune
from analysis.front.app.state import LANGS, PAGES, decode, encode, from_screen, page_of, structure, update
from analysis.front.app.text import t
from analysis.front.app.views import error, note
from analysis.present.phrases import refusal
from analysis.present.tables import text

PAGE_MODULES: dict[str, ModuleType] = {"checks": checks, "tune": tune, "duel": duel, "compare": compare,
                                       "design": design, "tactics": tactics, "encounter": encounter}
WAIT = 0.8
"""Seconds a computation may take before the page shows progress instead of waiting."""
POLL_MS = 400
SYSTEM_KEYS = {"r": ("system",), "r2": ("system2", "system"), "tr": ("to",)}
"""Which system a rules group belongs to (for a loaded rules file): the first of these keys in the link."""

STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{display:flex;align-items:baseline;gap:24px;padding:10px 20px;background:#1d2330;color:#fff;flex-wrap:wrap}
header h1{font-size:20px;margin:0} header .sub{opacity:.7;font-size:13px}
nav a{color:#cfd6e4;margin-right:14px;text-decoration:none;font-weight:500} nav a.active{color:#fff;
border-bottom:2px solid #6ea8fe}
main{display:grid;grid-template-columns:minmax(300px,380px) 1fr;gap:16px;padding:16px}
@media(max-width:900px){main{grid-template-columns:1fr}}
#controls{background:#fff;border-radius:8px;padding:10px 12px;box-shadow:0 1px 3px rgba(0,0,0,.08);align-self:start}
#results{min-width:0}
.section{margin:6px 0;border-top:1px solid #e6e8ec;padding-top:6px} .section>summary{font-weight:600;cursor:pointer}
.grid{display:grid;grid-template-columns:1fr 1fr;gap:6px 10px;margin-top:6px}
.field{display:flex;flex-direction:column;font-size:12px;min-width:0} .field label{margin-bottom:2px;color:#4a5263}
.field code{font-size:11px;color:#7a8294} .input{padding:5px 6px;border:1px solid #c9ced8;border-radius:4px;font-size:14px}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin-bottom:12px}
.card{background:#fff;border-radius:8px;padding:10px 14px;box-shadow:0 1px 3px rgba(0,0,0,.08);min-width:150px}
.card-title{font-size:12px;color:#4a5263} .num{font-size:22px;font-weight:650;font-variant-numeric:tabular-nums}
.pct,.ci,.why{font-size:12px;color:#5d6576} .why{max-width:260px}
.row{display:grid;grid-template-columns:repeat(auto-fit,minmax(380px,1fr));gap:12px;margin-bottom:12px}
.graph{background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.08)}
.table-box{background:#fff;border-radius:8px;padding:8px 12px;box-shadow:0 1px 3px rgba(0,0,0,.08)}
.table-head{display:flex;justify-content:space-between;align-items:center} .table-head h4{margin:4px 0}
.scroll{max-height:340px;overflow:auto} table{border-collapse:collapse;font-size:13px;width:100%}
th,td{padding:3px 8px;text-align:right;border-bottom:1px solid #eef0f3;font-variant-numeric:tabular-nums}
th{position:sticky;top:0;background:#fff}
button{cursor:pointer;border:1px solid #c9ced8;background:#f3f5f8;border-radius:4px;padding:4px 10px}
.error{background:#fdecec;border:1px solid #f5b5b5;color:#8a1c1c;padding:10px 14px;border-radius:8px;margin-bottom:12px}
.note{background:#fff8e1;border:1px solid #f1dc9a;padding:8px 12px;border-radius:8px;margin-bottom:12px}
.echo{font-size:12px;color:#4a5263;margin-top:8px} .cli code{background:#eef0f3;padding:2px 6px;border-radius:4px}
.progress{background:#fff;border-radius:8px;padding:14px;box-shadow:0 1px 3px rgba(0,0,0,.08)}
.bar{height:8px;background:#e6e8ec;border-radius:4px;overflow:hidden;margin:8px 0}
.bar>div{height:100%;background:#6ea8fe;transition:width .3s} h4{margin:8px 0 4px}
.upload{font-size:12px;cursor:pointer;color:#2a5bd7;grid-column:1/-1}
.side{display:grid;grid-template-columns:1fr 1fr;gap:12px}
"""


def frame() -> html.Div:
    """The page frame; the controls and results are filled in from the link."""
    import uuid

    return html.Div([
        dcc.Location(id="url", refresh=False),
        dcc.Store(id="client", data=uuid.uuid4().hex),
        dcc.Store(id="rendered"), dcc.Store(id="tables"), dcc.Store(id="job"),
        dcc.Interval(id="poll", interval=POLL_MS, disabled=True),
        dcc.Download(id="download"),
        html.Header([html.H1("dicelab"), html.Span(id="subtitle", className="sub"), html.Nav(id="nav")]),
        html.Div(id="notice"),
        html.Main([html.Div(id="controls"), html.Div(id="results")]),
    ])


def nav(page: str, state: Mapping[str, str], lang: str) -> list[Any]:
    """Links to every page, carrying over the keys the target page knows (a setup travels between pages)."""
    links = []
    for name in PAGES:
        keep = {k: v for k, v in state.items() if known(PAGE_MODULES[name], k)}
        links.append(dcc.Link(t(lang, name), href=f"/{name}{encode(keep)}", id=f"nav-{name}",
                              className="active" if name == page else ""))
    return links


def known(page: ModuleType, key: str) -> bool:
    """Whether a link key belongs to a page (its ``KEYS``: plain keys, and prefixes ending with a dot)."""
    head = key.split(".", 1)[0] + "." if "." in key else key
    return head in page.KEYS


def language(state: Mapping[str, str]) -> str:
    lang = state.get("lang", LANGS[0])
    return lang if lang in LANGS else LANGS[0]


def lang_select(lang: str) -> html.Div:
    from analysis.front.app.controls import select

    return select("lang", [("en", "English"), ("ru", "Русский")], lang, LANGS[0], t(lang, "language"))


def create_app(jobs: jobs_mod.Jobs | None = None) -> Dash:
    """The Dash app with every callback (``jobs``: where computations run; a new pool by default)."""
    jobs = jobs or jobs_mod.Jobs()
    app = Dash(__name__, title="dicelab", update_title=None, suppress_callback_exceptions=True,
               serve_locally=True, compress=False, assets_folder=str(Path(__file__).parent / "no-assets"))
    app.index_string = app.index_string.replace("{%css%}", "{%css%}<style>" + STYLE + "</style>")
    app.layout = frame
    app.jobs = jobs  # type: ignore[attr-defined]
    uploads = Path(tempfile.mkdtemp(prefix="dicelab-app-"))
    app.uploads = uploads  # type: ignore[attr-defined]

    @app.callback(Output("controls", "children"), Output("rendered", "data"), Output("nav", "children"),
                  Output("notice", "children"), Output("subtitle", "children"),
                  Input("url", "pathname"), Input("url", "search"), State("rendered", "data"))
    def render(pathname: str, search: str, rendered: Any) -> tuple:
        page = page_of(pathname)
        try:
            state = decode(search)
        except DicelabError as err:
            return [], None, nav(page, {}, "en"), error(str(err), "en", "link-error"), t("en", "subtitle")
        lang = language(state)
        module = PAGE_MODULES[page]
        stray = sorted(k for k in state if not known(module, k))
        notice = note(t(lang, "ignored", keys=", ".join(stray))) if stray else None
        key = structure(page, state)
        if key == rendered:
            return no_update, no_update, nav(page, state, lang), notice, no_update
        try:
            panel = module.controls(state, lang)
        except DicelabError as err:
            from analysis.front.app.controls import system_select

            panel = [system_select("system", state, lang), error(refusal(lang, err), lang, "controls-error")]
        return [lang_select(lang), *panel], key, nav(page, state, lang), notice, t(lang, "subtitle")

    @app.callback(Output("url", "search"), Input({"type": "field", "key": ALL, "default": ALL}, "value"),
                  State("url", "search"), prevent_initial_call=True)
    def sync(values: list[Any], search: str) -> Any:
        changed = ctx.triggered_id
        if not isinstance(changed, Mapping):
            return no_update
        ids = [item["id"] for item in ctx.inputs_list[0]]
        try:
            state = decode(search)
        except DicelabError:
            state = {}
        lang = language(state)
        typed = {i["key"]: from_screen(lang, i["key"], _as_text(v)) for i, v in zip(ids, values)}
        defaults = {i["key"]: i["default"] for i in ids}
        new = encode(update(state, typed, defaults, changed=changed["key"]))
        return no_update if new == (search or "") else new

    @app.callback(Output("url", "search", allow_duplicate=True), Output("notice", "children", allow_duplicate=True),
                  Input({"type": "rules-file", "prefix": ALL}, "contents"),
                  State({"type": "rules-file", "prefix": ALL}, "filename"),
                  State("url", "search"), prevent_initial_call=True)
    def load_rules_file(contents: list[Any], names: list[Any], search: str) -> tuple:
        trigger = ctx.triggered_id
        if not isinstance(trigger, Mapping):
            return no_update, no_update
        i = [item["id"] for item in ctx.inputs_list[0]].index(trigger)
        if not contents[i]:
            return no_update, no_update
        state: dict[str, str] = {}
        try:
            state = decode(search)
            state = apply_rules_file(state, trigger["prefix"], names[i], contents[i], uploads)
        except DicelabError as err:
            return no_update, error(refusal(language(state), err), language(state))
        return encode(state), None

    outputs = [Output("results", "children"), Output("tables", "data"), Output("poll", "disabled"),
               Output("job", "data")]

    @app.callback(*outputs, Input("url", "pathname"), Input("url", "search"), State("client", "data"))
    def compute(pathname: str, search: str, client: str) -> tuple:
        page = page_of(pathname)
        try:
            state = decode(search)
        except DicelabError as err:
            return error(str(err), "en"), None, True, None
        module, lang = PAGE_MODULES[page], language(state)
        work = {k: v for k, v in state.items() if k != "lang" and known(module, k)}
        key = (page, encode(work))
        job = jobs.submit(key, lambda: refused_or(module.compute, work), slot=(client, page))
        if job.wait(WAIT):
            return (*show(job, module, state, lang), True, None)
        return progress(job, lang), None, False, list(key)

    @app.callback(*[Output(o.component_id, o.component_property, allow_duplicate=True) for o in outputs],
                  Input("poll", "n_intervals"), State("job", "data"), State("url", "search"),
                  State("url", "pathname"), prevent_initial_call=True)
    def poll(_: int, key: Any, search: str, pathname: str) -> tuple:
        if not key:
            return no_update, no_update, True, no_update
        job = jobs.get(tuple(key))
        state = decode(search)
        lang = language(state)
        if job is None or job.status == "cancelled":
            return note(t(lang, "cancelled")), None, True, None
        if job.status == "running":
            return progress(job, lang), no_update, False, no_update
        return (*show(job, PAGE_MODULES[page_of(pathname)], state, lang), True, None)

    @app.callback(*[Output(o.component_id, o.component_property, allow_duplicate=True) for o in outputs],
                  Input({"type": "cancel"}, "n_clicks"), State("job", "data"), State("url", "search"),
                  State("client", "data"), prevent_initial_call=True)
    def cancel(clicks: Any, key: Any, search: str, client: str) -> tuple:
        if not clicks or not key:
            return no_update, no_update, no_update, no_update
        jobs.cancel(tuple(key), client)
        return note(t(language(decode(search)), "cancelled")), None, True, None

    @app.callback(Output("download", "data"), Input({"type": "csv", "name": ALL}, "n_clicks"),
                  State("tables", "data"), State("url", "pathname"), prevent_initial_call=True)
    def download(clicks: list[Any], tables: Any, pathname: str) -> Any:
        trigger = ctx.triggered_id
        if not isinstance(trigger, Mapping) or not any(clicks) or not tables or trigger["name"] not in tables:
            return no_update
        import pandas as pd

        df = pd.DataFrame(**tables[trigger["name"]])
        return dcc.send_string(df.to_csv(index=False), f"dicelab_{page_of(pathname)}_{trigger['name']}.csv")

    return app


def _as_text(value: Any) -> str | None:
    """A control's value as the text a designer would type (a number input gives numbers)."""
    if value is None or isinstance(value, str):
        return value
    return text(value)


@dataclass(frozen=True)
class Refused:
    """A computation the library refused: the refusal itself, so the page says it in the reader's language."""

    error: DicelabError


def refused_or(compute: Callable[[Mapping[str, str]], Any], work: Mapping[str, str]) -> Any:
    """The page's result, or :class:`Refused` (the job keeps a value, language-free, that either language shows)."""
    try:
        return compute(work)
    except DicelabError as err:
        return Refused(err)


def show(job: jobs_mod.Job, module: ModuleType, state: Mapping[str, str], lang: str) -> tuple[Any, Any]:
    """A finished job on screen: its view and its tables (for the CSV buttons), or its message."""
    if job.status == "cancelled":  # stopped by a cancel or by a newer request of the page (which then answers)
        return note(t(lang, "cancelled")), None
    if job.status == "error":
        return error(job.error or "", lang), None
    if isinstance(job.value, Refused):
        return error(refusal(lang, job.value.error), lang), None
    try:
        body, tables = module.view(job.value, state, lang)
    except DicelabError as err:
        return error(refusal(lang, err), lang), None
    return body, {name: df.to_dict(orient="split", index=False) for name, df in tables.items()}


def progress(job: jobs_mod.Job, lang: str) -> html.Div:
    """A running job: elapsed time, a bar when its length is estimated, and a cancel button."""
    elapsed = job.elapsed
    parts: list[Any] = [html.B(t(lang, "computing")), f" {t(lang, 'elapsed')} {elapsed:.1f} s"]
    bar: list[Any] = []
    if job.estimate:
        share = min(0.99, elapsed / job.estimate)
        parts.append(f" · {t(lang, 'estimate')} {job.estimate:.0f} s")
        bar = [html.Div(html.Div(style={"width": f"{100 * share:.0f}%"}), className="bar",
                        role="progressbar", **{"aria-valuenow": f"{100 * share:.0f}"})]
    return html.Div([html.Div(parts), *bar, html.Button(t(lang, "cancel"), id={"type": "cancel"})],
                    className="progress", id="progress")


def upload_name(name: Any) -> str:
    r"""An uploaded file's name as messages show it: its last part, quoted with control characters escaped and cut
    (``..``, an empty or a missing name: ``rules.toml``).

    >>> upload_name("../../house.toml"), upload_name(".."), upload_name("a\x00b.toml")
    ("'house.toml'", "'rules.toml'", "'a\\x00b.toml'")
    """
    base = str(name).replace("\\", "/").rsplit("/", 1)[-1] if isinstance(name, str) else ""
    return shown(base if base.strip(" .") else "rules.toml")


def apply_rules_file(state: Mapping[str, str], prefix: str, name: Any, contents: Any, folder: Path) -> dict[str, str]:
    """The state with a house rules file's table for the group's system written into its fields.

    The file is checked by :func:`analysis.tools.house_rules.load_rules` (the ``--rules`` path) from a copy in a
    private folder inside the app's temporary one, removed at once; messages name the file as uploaded
    (:func:`upload_name`); an upload that is not a base64 data URL is refused in one line.
    """
    from analysis.systems import SYSTEM_IDS
    from analysis.tools.house_rules import load_rules

    shown_name = upload_name(name)
    header, comma, data = contents.partition(",") if isinstance(contents, str) else ("", "", "")
    try:
        if not comma or ";base64" not in header:
            raise ValueError("not a data URL")
        raw = base64.b64decode(data, validate=True)
    except (ValueError, binascii.Error):
        raise DicelabError(f"rules file {shown_name}: is not an upload the app can read (a base64 data URL); "
                           "allowed: a TOML house rules file") from None
    place = Path(tempfile.mkdtemp(dir=folder))
    path = place / "rules.toml"
    try:
        path.write_bytes(raw)
        try:
            house = load_rules(path)
        except DicelabError as err:
            raise DicelabError(str(err).replace(repr(str(path)), shown_name)) from None
    finally:
        shutil.rmtree(place, ignore_errors=True)
    keys = SYSTEM_KEYS.get(prefix, ("system",))
    system = next((state[k] for k in keys if k in state), tune.DEFAULT_TO if prefix == "tr" else SYSTEM_IDS[0])
    if system not in house:
        raise DicelabError(f"rules file {shown_name}: has no [{system}] table; it has "
                           f"{', '.join(f'[{s}]' for s in house)}")
    out = {k: v for k, v in state.items() if not k.startswith(prefix + ".")}
    out.update({f"{prefix}.{k}": text(v) for k, v in house[system].items()})
    return out


def cleanup(app: Dash) -> None:
    """Stop the app's jobs and remove its temporary folder (the server is shutting down)."""
    app.jobs.close()  # type: ignore[attr-defined]
    shutil.rmtree(app.uploads, ignore_errors=True)  # type: ignore[attr-defined]
