"""A figure described as data, drawn two ways: a static matplotlib image (PNG for rulebooks) and an
interactive plotly figure (hover shows each value) for the report page and the notebooks.

A :class:`Chart` is panels of traces (lines, bars, horizontal bars) with axis labels, integer-tick
flags, optional fixed ranges and reference lines.  Nothing here picks a matplotlib backend: figures
are made with :class:`matplotlib.figure.Figure` directly, so Jupyter's inline display and a headless
report both work.  In a notebook a chart displays itself (plotly, with a PNG fallback).

>>> c = Chart("demo", "Demo", (Panel((Trace((0, 1, 2), (0.1, 0.5, 0.9), "A"),), xlabel="k", x_integer=True),))
>>> c.png()[:4] == b"\\x89PNG", c.plotly().layout.title.text
(True, 'Demo')
"""

from __future__ import annotations

import base64
import io
import json
import math
import textwrap
from dataclasses import dataclass, replace
from typing import Any, Iterable, Sequence

KINDS = ("line", "bar", "hbar")
SEPARATORS = {"en": ".,", "ru": ",\u202f"}
"""plotly's decimal mark and thousands separator per language."""


@dataclass(frozen=True)
class Trace:
    """One series: ``y`` against ``x`` (``hbar``: values ``x`` against category names ``y``).

    ``None`` in the values leaves a gap; ``hover`` holds one text per point.
    """

    x: tuple
    y: tuple
    name: str
    kind: str = "line"
    color: str | None = None
    dash: bool = False
    hover: tuple[str, ...] = ()


@dataclass(frozen=True)
class Panel:
    """One set of axes."""

    traces: tuple[Trace, ...]
    title: str = ""
    xlabel: str = ""
    ylabel: str = ""
    x_integer: bool = False
    y_integer: bool = False
    x_range: tuple[float, float] | None = None
    y_range: tuple[float, float] | None = None
    hlines: tuple[float, ...] = ()
    vlines: tuple[float, ...] = ()
    categories: tuple[str, ...] = ()
    """``hbar``: the category names, top to bottom."""
    category_labels: bool = True
    """``hbar``: write the category names beside the axis (panels sharing another's rows leave them out)."""
    note: str = ""
    """Text written across the panel (e.g. why a system is missing from it)."""
    marks: tuple[tuple[str, str], ...] = ()
    """``hbar``: ``(category, text)`` written at the zero line where a row has no bar (``0``, refused, n/a)."""


@dataclass(frozen=True)
class Chart:
    """A titled figure of panels laid out in ``cols`` columns, with the caption that says what made it."""

    name: str
    title: str
    panels: tuple[Panel, ...]
    cols: int = 1
    caption: str = ""
    row_height: float = 3.6
    """Height of one row of panels, in inches (plotly: x 100 px)."""
    lang: str = "en"
    """The decimal mark of the axes and hover follows the language of the text (a comma in Russian)."""

    @property
    def rows(self) -> int:
        return math.ceil(len(self.panels) / self.cols)

    def matplotlib(self) -> Any:
        """A :class:`matplotlib.figure.Figure` (no pyplot, no backend chosen)."""
        from matplotlib.figure import Figure

        width = 5.2 * self.cols + 0.8
        fig = Figure(figsize=(width, self.row_height * self.rows + 0.9), layout="constrained")
        axes = fig.subplots(self.rows, self.cols, squeeze=False).flat
        handles: dict[str, Any] = {}
        for ax, panel in zip(axes, self.panels):
            _draw_mpl(ax, panel, handles)
            if self.lang == "ru":
                _decimal_comma(ax, panel)
        for ax in list(axes)[len(self.panels):]:
            ax.set_visible(False)
        fig.suptitle(self.title)
        if handles:
            fig.legend(handles.values(), handles.keys(), loc="outside right upper",
                       fontsize=8)
        if self.caption:
            fig.supxlabel("\n".join(textwrap.wrap(self.caption, int(width * 16))), fontsize=7, color="#444",
                          x=0.01, ha="left")
        return fig

    def png(self, dpi: int = 110) -> bytes:
        """The static image."""
        buf = io.BytesIO()
        self.matplotlib().savefig(buf, format="png", dpi=dpi)
        return buf.getvalue()

    def plotly(self) -> Any:
        """An interactive :class:`plotly.graph_objects.Figure`."""
        import plotly.graph_objects as go
        from plotly.subplots import make_subplots

        titles = [_br(p.title) for p in self.panels]
        fig = make_subplots(rows=self.rows, cols=self.cols, subplot_titles=titles,
                            horizontal_spacing=min(0.12, 0.6 / self.cols), vertical_spacing=min(0.14, 0.5 / self.rows))
        shown: set[str] = set()
        for i, panel in enumerate(self.panels):
            row, col = divmod(i, self.cols)
            _draw_plotly(fig, go, panel, row + 1, col + 1, i + 1, shown)
        lines = all(t.kind == "line" for p in self.panels for t in p.traces)
        fig.update_layout(title=self.title, height=int(100 * self.row_height * self.rows) + 160,
                          barmode="group", legend={"orientation": "v", "x": 1.02, "xanchor": "left", "y": 1,
                                                   "yanchor": "top"},
                          margin={"t": 90, "b": 60, "r": 190}, template="plotly_white",
                          hovermode="x unified" if lines else "closest", separators=SEPARATORS[self.lang])
        return fig

    def html(self, div_id: str) -> str:
        """The plotly figure as a ``<div>`` for a page that loads plotly.js once itself."""
        return self.plotly().to_html(full_html=False, include_plotlyjs=False, div_id=div_id,
                                     config={"displaylogo": False, "responsive": True})

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """Jupyter shows the interactive figure where plotly renders, the PNG elsewhere."""
        return {"application/vnd.plotly.v1+json": json.loads(self.plotly().to_json()),
                "image/png": base64.b64encode(self.png()).decode("ascii"),
                "text/plain": f"<Chart {self.name}: {self.title}>"}


def _br(text: str) -> str:
    """Line breaks as plotly writes them."""
    return text.replace("\n", "<br>")


def _integer_step(lo: float, hi: float) -> int:
    """A tick step of at least 1 giving at most about ten ticks."""
    span = max(hi - lo, 1.0)
    for step in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000):
        if span / step <= 10:
            return step
    return int(10 ** math.ceil(math.log10(span / 10)))


def _values(panel: Panel, axis: str) -> list[float]:
    out = []
    for t in panel.traces:
        seq = t.x if axis == "x" else t.y
        if t.kind == "hbar" and axis == "y":
            continue
        out += [float(v) for v in seq if v is not None and not (isinstance(v, float) and math.isnan(v))]
    return out


def data_range(panels: Iterable[Panel], axis: str, pad: float = 0.05, zero: bool = False) -> tuple[float, float] | None:
    """The range covering every value on ``axis`` of ``panels`` (with ``pad`` of the span each side).

    >>> data_range([Panel((Trace((0, 10), (1, 2), "a"),))], "x", pad=0.0)
    (0.0, 10.0)
    """
    values = [v for p in panels for v in _values(p, axis)] + ([0.0] if zero else [])
    if not values:
        return None
    lo, hi = min(values), max(values)
    span = (hi - lo) or max(abs(hi), 1e-9)
    return lo - pad * span, hi + pad * span


def _draw_mpl(ax: Any, panel: Panel, handles: dict[str, Any]) -> None:
    from matplotlib.ticker import MultipleLocator

    positions = {c: len(panel.categories) - 1 - i for i, c in enumerate(panel.categories)}
    bars = [t for t in panel.traces if t.kind == "bar"]
    for t in panel.traces:
        x = [math.nan if v is None else v for v in t.x]
        y = [math.nan if v is None else v for v in t.y]
        if t.kind == "line":
            h = ax.plot(x, y, marker="o", ms=3, color=t.color, ls="--" if t.dash else "-", label=t.name)[0]
        elif t.kind == "bar":
            width = 0.8 / len(bars)
            offset = (bars.index(t) - (len(bars) - 1) / 2) * width
            h = ax.bar([v + offset for v in x], y, width, color=t.color, label=t.name,
                       hatch="//" if t.dash else None)
        else:
            h = ax.barh([positions[c] for c in t.y], x, 0.7, color=t.color, label=t.name)
        if t.name and t.name not in handles:
            handles[t.name] = h
    for v in panel.hlines:
        ax.axhline(v, color="grey", lw=0.6, ls=":")
    for v in panel.vlines:
        ax.axvline(v, color="grey", lw=0.6, ls=":")
    if panel.categories:
        ax.set_yticks(list(positions.values()), list(positions) if panel.category_labels else [], fontsize=8)
        ax.set_ylim(-0.6, len(positions) - 0.4)
    for category, text in panel.marks:
        ax.text(0, positions[category], f" {text}", va="center", ha="left", fontsize=7, color="#666")
    ax.set_title(panel.title, fontsize=10)
    ax.set_xlabel(panel.xlabel)
    ax.set_ylabel(panel.ylabel)
    if panel.x_range:
        ax.set_xlim(*panel.x_range)
    if panel.y_range:
        ax.set_ylim(*panel.y_range)
    for flag, axis in ((panel.x_integer, ax.xaxis), (panel.y_integer, ax.yaxis)):
        if flag:
            lo, hi = axis.get_view_interval()
            axis.set_major_locator(MultipleLocator(_integer_step(lo, hi)))
    if not panel.traces:
        ax.axis("off")
    if panel.note:
        ax.text(0.5, 0.5, "\n".join(textwrap.wrap(panel.note, 48)), transform=ax.transAxes, ha="center",
                va="center", fontsize=8, color="#555")
    ax.grid(alpha=0.3)


def _decimal_comma(ax: Any, panel: Panel) -> None:
    """Tick labels with a decimal comma (a category axis keeps its names)."""
    from matplotlib.ticker import FuncFormatter

    comma = FuncFormatter(lambda v, _: f"{v:g}".replace(".", ",").replace("-", "−"))
    ax.xaxis.set_major_formatter(comma)
    if not panel.categories:
        ax.yaxis.set_major_formatter(comma)


def _draw_plotly(fig: Any, go: Any, panel: Panel, row: int, col: int, index: int, shown: set[str]) -> None:
    bars = [t for t in panel.traces if t.kind == "bar"]
    for t in panel.traces:
        common = {"name": t.name, "legendgroup": t.name, "showlegend": bool(t.name) and t.name not in shown}
        if t.hover:
            common.update(hovertext=list(t.hover), hoverinfo="text")
        shown.add(t.name)
        if t.kind == "line":
            trace = go.Scatter(x=list(t.x), y=list(t.y), mode="lines+markers", marker={"size": 5},
                               line={"color": t.color, "dash": "dash" if t.dash else "solid"}, **common)
        elif t.kind == "bar":
            trace = go.Bar(x=list(t.x), y=list(t.y), marker={"color": t.color,
                                                               "pattern": {"shape": "/" if t.dash else ""}},
                           width=0.8 / len(bars), **common)
        else:
            trace = go.Bar(x=list(t.x), y=list(t.y), orientation="h", marker={"color": t.color}, **common)
        fig.add_trace(trace, row=row, col=col)
    xaxis: dict[str, Any] = {"title": {"text": _br(panel.xlabel)}}
    yaxis: dict[str, Any] = {"title": {"text": _br(panel.ylabel)}}
    if not panel.traces:
        xaxis["visible"] = yaxis["visible"] = False
    if panel.categories:
        yaxis.update(categoryorder="array", categoryarray=list(reversed(panel.categories)), tickfont={"size": 11},
                     showticklabels=panel.category_labels)
    for axis, rng, flag, values in (("x", panel.x_range, panel.x_integer, _values(panel, "x")),
                                    ("y", panel.y_range, panel.y_integer, _values(panel, "y"))):
        settings = xaxis if axis == "x" else yaxis
        if rng:
            settings["range"] = list(rng)
        if flag and (rng or values):
            lo, hi = rng or (min(values), max(values))
            settings.update(tick0=0, dtick=_integer_step(lo, hi), tickformat="d")
    fig.update_xaxes(row=row, col=col, **xaxis)
    fig.update_yaxes(row=row, col=col, **yaxis)
    suffix = "" if index == 1 else str(index)
    for v in panel.hlines:
        fig.add_shape(type="line", xref=f"x{suffix} domain", yref=f"y{suffix}", x0=0, x1=1, y0=v, y1=v,
                      line={"color": "grey", "width": 1, "dash": "dot"})
    for v in panel.vlines:
        fig.add_shape(type="line", xref=f"x{suffix}", yref=f"y{suffix} domain", x0=v, x1=v, y0=0, y1=1,
                      line={"color": "grey", "width": 1, "dash": "dot"})
    if panel.marks:  # one text trace, not an annotation per row: a page of them stays quick to draw
        fig.add_trace(go.Scatter(x=[0.0] * len(panel.marks), y=[c for c, _ in panel.marks], mode="text",
                                 text=[f" {t}" for _, t in panel.marks], textposition="middle right",
                                 textfont={"size": 10, "color": "#666"}, showlegend=False, hoverinfo="skip"),
                      row=row, col=col)
    if panel.note:
        fig.add_annotation(text="<br>".join(textwrap.wrap(panel.note, 48)), xref=f"x{suffix} domain",
                           yref=f"y{suffix} domain", x=0.5, y=0.5, showarrow=False, font={"size": 11, "color": "#555"})


def side_by_side(mine: Chart, base: Chart, labels: Sequence[str]) -> Chart:
    """Two versions of a figure, panel by panel in two columns, each pair on one shared scale.

    >>> a = Chart("c", "T", (Panel((Trace((0, 1), (0, 1), "s"),)),))
    >>> b = Chart("c", "T", (Panel((Trace((0, 3), (0, 2), "s"),)),))
    >>> both = side_by_side(a, b, ("mine", "default"))
    >>> [p.title for p in both.panels], both.panels[0].x_range == both.panels[1].x_range
    (['mine', 'default'], True)
    """
    panels = []
    for p, q in zip(mine.panels, base.panels):
        same = {}
        for axis in ("x", "y"):
            if not (p.categories and axis == "y"):
                fixed = [r for r in (getattr(p, f"{axis}_range"), getattr(q, f"{axis}_range")) if r]
                rng = data_range((p, q), axis) if not fixed else (min(r[0] for r in fixed), max(r[1] for r in fixed))
                same[f"{axis}_range"] = rng
        if p.categories or q.categories:
            same["categories"] = tuple(dict.fromkeys(p.categories + q.categories))
        for panel, name in ((p, labels[0]), (q, labels[1])):
            title = f"{name}: {panel.title}" if panel.title else name
            panels.append(replace(panel, title=title, **same))
    caption = f"{labels[0]}: {mine.caption}  {labels[1]}: {base.caption}"
    return replace(mine, panels=tuple(panels), cols=2, caption=caption)
