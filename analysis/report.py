"""The lab's report: tables and figures written into a directory.

>>> import tempfile, pathlib
>>> out = pathlib.Path(tempfile.mkdtemp())
>>> sorted(p.name for p in build_report(out))[:2]
['kurs_checks.csv', 'kurs_checks.md']
"""

from __future__ import annotations

import io
from pathlib import Path

from .compare import success_curves
from .i18n import LANGS
from .params import Choice
from .plots import success_curves as plot_success_curves
from .system import all_systems
from .tables import pairs, render, success_table, write_atomic



def save_figure(fig, path: Path) -> Path:
    """Save a matplotlib figure atomically (format from the suffix)."""
    buf = io.BytesIO()
    fig.savefig(buf, format=path.suffix.lstrip("."), dpi=120)
    return write_atomic(path, buf.getvalue())


def build_report(out: str | Path = "reports", lang: str = "en") -> list[Path]:
    """Write every table (CSV and Markdown) and figure (PNG) of the report into ``out``."""
    lang = Choice(LANGS).validate("lang", lang)
    out = Path(out)
    written: list[Path] = []
    for system in all_systems():
        rules, args = system.rules(), system.args()
        df = success_table(system, rules, args)
        mode = "dice" if "dice" in df.columns else "mode"
        title = f"# {system.title}: P(success) by {system.value}\n\nRules: {pairs(rules.to_dict())}"
        written.append(write_atomic(out / f"{system.id}_checks.csv", df.to_csv(index=False)))
        written.append(write_atomic(out / f"{system.id}_checks.md", render(df, "md", title=title, pivot=(system.value, mode, "p_success"))))
    curves = success_curves()
    written.append(write_atomic(out / "success_curves.csv", curves.to_csv(index=False)))
    written.append(save_figure(plot_success_curves(curves, lang=lang), out / "success_curves.png"))
    return written
