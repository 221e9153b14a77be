"""One self-contained HTML page: plotly.js embedded once, every figure and table inline, every CSV a
``data:`` link, so the page opens from disk or as an e-mail attachment with nothing beside it.

>>> import pandas as pd
>>> html_table(pd.DataFrame({"p": [1 / 36, None]}), [("p", "P", "odds")], "en")
'<table><thead><tr><th>P</th></tr></thead><tbody><tr><td class=n>2.8% (1 in 36)</td></tr><tr><td class=n>—</td></tr></tbody></table>'
"""

from __future__ import annotations

import base64
import html
from typing import Any, Sequence

import pandas as pd

from analysis.present.i18n import number, odds

STYLE = """
body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.7em} h2{margin-top:2.2em;border-bottom:1px solid #ddd;padding-bottom:.2em}
figure{margin:1.5em 0} figcaption{font-size:.85em;color:#444;max-width:1100px}
.findings{background:#f6f8fa;border-left:4px solid #1f77b4;padding:.6em 1em;margin:1em 0}
.findings li{margin:.25em 0} .setup,.glossary{font-size:.85em;color:#333}
table{border-collapse:collapse;font-size:.82em;margin:.6em 0} th,td{border:1px solid #ddd;padding:2px 7px;text-align:left}
th{background:#f0f0f0} td.n{text-align:right;white-space:nowrap} .tables{display:flex;flex-wrap:wrap;gap:1.5em}
.scroll{max-height:28em;overflow-y:auto} nav ol{columns:2} code{background:#f3f3f3;padding:0 3px}
"""


def esc(text: Any) -> str:
    return html.escape(str(text))


def data_link(name: str, text: str, label: str, mime: str = "text/csv") -> str:
    """A download link carrying the file itself (``data:`` URI), so the page needs nothing beside it."""
    payload = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return f'<a download="{esc(name)}" href="data:{mime};charset=utf-8;base64,{payload}">{esc(label)}</a>'


def cell(value: Any, kind: str, lang: str) -> str:
    """One table cell: ``odds`` (percent and "1 in N"; missing = "—"), ``pp`` (signed percentage points),
    ``pts`` (percentage points), ``num`` (two decimals), ``int`` or ``text``."""
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return "—"
    if kind == "odds":
        return odds(lang, float(value))
    if kind in ("pp", "pts"):
        x = 100 * float(value)
        return "0" if abs(x) < 5e-3 else ("+" if x > 0 and kind == "pp" else "") + number(lang, x, 2)
    if kind == "num":
        x = float(value)
        return number(lang, 0.0 if abs(x) < 5e-3 else x, 2)
    if kind == "int":
        return str(int(value))
    return str(value)


def html_table(df: pd.DataFrame, columns: Sequence[tuple[str, str, str]], lang: str) -> str:
    """``df`` as an HTML table of ``(column, header, kind)`` (kind ``code``: an identifier as a designer types it)."""
    head = "".join(f"<th>{esc(h)}</th>" for _, h, _ in columns)

    def td(value: Any, kind: str) -> str:
        if kind == "code":
            return f"<td><code>{esc(value)}</code></td>"
        return f"<td{'' if kind == 'text' else ' class=n'}>{esc(cell(value, kind, lang))}</td>"

    rows = "".join("<tr>" + "".join(td(row[c], kind) for c, _, kind in columns) + "</tr>" for _, row in df.iterrows())
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def findings_html(sentences: Sequence[str]) -> str:
    return '<ul class="findings">' + "".join(f"<li>{esc(s)}</li>" for s in sentences) + "</ul>"


def document(lang: str, title: str, head: str, body: str) -> str:
    """The whole page, with plotly.js embedded once in its head."""
    from plotly.offline import get_plotlyjs

    return (f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{esc(title)}</title>'
            f"<style>{STYLE}</style>\n<script>{get_plotlyjs()}</script>\n</head>\n"
            f"<body><h1>{esc(title)}</h1>\n{head}\n{body}\n</body></html>\n")
