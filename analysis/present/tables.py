"""Table output: success tables as rows (or DataFrames), rendered as Markdown, CSV or JSON, written with
:func:`analysis.base.files.write_atomic`.

Nothing heavy is imported here: pandas only by :func:`success_table`, tabulate only to render Markdown, so
``dicelab table`` starts fast.
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import TYPE_CHECKING, Any, Sequence

from analysis.base.params import DicelabError
from analysis.engine.system import System

if TYPE_CHECKING:
    import pandas as pd

FORMATS = ("md", "csv", "json")

Rows = list[dict[str, Any]]


def success_rows(system: System, rules: Any, args: Any) -> Rows:
    """One row per case of ``system.table_cases``: P(success) and the other check figures.

    >>> from analysis.systems import get_system
    >>> s = get_system("tun")
    >>> sorted({row["dice"] for row in success_rows(s, s.rules(), s.args())})
    ['1d20', '1d6x3', '3d6']
    """
    rows = []
    mode_name = "dice" if system.id in ("tristat", "tun") else "mode"
    for mode, r, a in system.table_cases(rules, args):
        res = system.check(r, a)
        row: dict[str, Any] = {"system": system.id, mode_name: mode, system.value: getattr(a, system.value)}
        row["p_success"] = res.p_success
        if res.p_critical is not None:
            row["p_critical"] = res.p_critical
        if res.p_fumble is not None:
            row["p_fumble"] = res.p_fumble
        row.update(res.extra)
        row[f"mean_{res.outcome}"] = res.distribution.mean()
        row["residual"] = res.residual
        rows.append(row)
    return rows


def success_table(system: System, rules: Any, args: Any) -> "pd.DataFrame":
    """:func:`success_rows` as a DataFrame.

    >>> from analysis.systems import get_system
    >>> s = get_system("tun")
    >>> sorted(success_table(s, s.rules(), s.args())["dice"].unique())
    ['1d20', '1d6x3', '3d6']
    """
    import pandas as pd

    return pd.DataFrame(success_rows(system, rules, args))


def render(table: "pd.DataFrame | Sequence[dict[str, Any]]", fmt: str, *, title: str = "",
           pivot: tuple[str, str, str] | None = None) -> str:
    """A table (a DataFrame or a list of row dicts) as Markdown (optionally pivoted ``(index, columns, values)``),
    CSV or JSON; a missing or NaN cell is empty in CSV and Markdown, ``null`` in JSON.

    >>> print(render([{"x": 1, "p": 0.5}, {"x": 2, "p": None}], "csv"), end="")
    x,p
    1,0.5
    2,
    """
    if fmt not in FORMATS:
        raise DicelabError(f"format = {fmt!r} is not allowed; allowed: one of {', '.join(FORMATS)}")
    columns, rows = _columns_rows(table)
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([["" if row[c] is None else row[c] for c in columns] for row in rows])
        return buf.getvalue()
    if fmt == "json":
        return dumps(rows)
    if "residual" in columns:
        bound = max((r["residual"] for r in rows if r["residual"] is not None), default=0.0)
        title += f"\n\nTruncation bound (largest residual): {bound:.3g}" if bound > 0 else ""
        columns = [c for c in columns if c != "residual"]
    if pivot is not None and len({row[pivot[1]] for row in rows}) > 1:
        index, over, value = pivot
        heads = list(dict.fromkeys(row[over] for row in rows))
        cells = {(row[index], row[over]): row[value] for row in rows}
        keys = sorted({row[index] for row in rows})
        columns = [index, *heads]
        rows = [{index: k, **{h: cells.get((k, h)) for h in heads}} for k in keys]
    elif pivot is not None:
        columns = [c for c in columns if c not in ("system", pivot[1])]
    return (f"{title}\n\n" if title else "") + markdown(columns, rows) + "\n"


def markdown(columns: Sequence[str], rows: Sequence[dict[str, Any]]) -> str:
    """A Markdown pipe table (the layout of tabulate's ``pipe`` format): numbers right-aligned, floats at 4
    decimals, text left-aligned, a missing cell empty.

    >>> print(markdown(["x", "p", "note"], [{"x": 1, "p": 0.5, "note": "a"}, {"x": 10, "p": None, "note": "bc"}]))
    |   x |      p | note   |
    |----:|-------:|:-------|
    |   1 | 0.5000 | a      |
    |  10 |        | bc     |
    """
    kinds = [_kind([row[c] for row in rows]) for c in columns]
    cells = [[_format(row[c], kind) for c, kind in zip(columns, kinds)] for row in rows]
    widths = [max([len(str(c)) + 2] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]

    def line(values: Sequence[str]) -> str:
        return "| " + " | ".join(v.ljust(w) if k in ("text", "bool") else v.rjust(w)
                                 for v, w, k in zip(values, widths, kinds)) + " |"

    rule = "|" + "|".join(":" + "-" * (w + 1) if k in ("text", "bool") else "-" * (w + 1) + ":"
                          for w, k in zip(widths, kinds)) + "|"
    return "\n".join([line([str(c) for c in columns]), rule] + [line(r) for r in cells])


def _kind(values: Sequence[Any]) -> str:
    """``text``, ``float``, ``int`` or ``bool``: the most general kind of a column's values (numeric text counts as a
    number; ``None`` and empty text are missing; a column of booleans only is laid out as text)."""
    kinds = set()
    for v in values:
        if v is None or v == "":
            continue
        if isinstance(v, bool):
            kinds.add("bool")
        elif isinstance(v, str):
            kinds.add("int" if _parses(int, v) else "float" if _parses(float, v) else "text")
        else:
            kinds.add("int" if isinstance(v, int) else "float")
    for kind in ("text", "float", "int", "bool"):
        if kind in kinds:
            return kind
    return "text"


def _parses(kind: type, text: str) -> bool:
    try:
        kind(text)
    except ValueError:
        return False
    return True


def _format(value: Any, kind: str) -> str:
    if value is None or value == "":
        return ""
    return f"{float(value):.4f}" if kind == "float" else str(value).strip()


def _columns_rows(table: "pd.DataFrame | Sequence[dict[str, Any]]") -> tuple[list[str], Rows]:
    """Column names (in order of first appearance) and rows holding every column, NaN as ``None``."""
    records = table.to_dict(orient="records") if hasattr(table, "to_dict") else list(table)
    columns = list(dict.fromkeys(key for row in records for key in row))
    rows = [{c: _cell(row.get(c)) for c in columns} for row in records]
    return columns, rows


def _cell(value: Any) -> Any:
    if hasattr(value, "item") and not isinstance(value, (list, tuple, dict)):
        value = value.item()
    return None if isinstance(value, float) and math.isnan(value) else value


def text(value: Any) -> str:
    """A parameter value as a designer types it (``true``, ``-1,0,1``).

    >>> text((-1, 0, 1)), text(False)
    ('-1,0,1', 'false')
    """
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    if isinstance(value, bool) or value is None:
        return str(value).lower()
    return str(value)


def prob(p: float, digits: int = 6) -> str:
    """A probability with ``digits`` decimals, or more when fewer would round a value strictly between 0 and 1 to
    0 or 1 (a message never says "1" of a chance that is not certain).

    >>> prob(0.5833333), prob(0.9999999), prob(1e-9), prob(1.0)
    ('0.583333', '0.9999999', '0.000000001', '1.000000')
    """
    text = f"{p:.{digits}f}"
    while 0 < p < 1 and float(text) in (0.0, 1.0) and digits < 17:
        digits += 1
        text = f"{p:.{digits}f}"
    return text


def pairs(mapping: Any) -> str:
    """``name=value, ...`` of a parameter mapping.

    >>> pairs({"die": 6, "shock_rule": False})
    'die=6, shock_rule=false'
    """
    return ", ".join(f"{k}={text(v)}" for k, v in mapping.items())


def assumed_pairs(assumptions: Any) -> str:
    """``name=value, ...`` of a result's ``assumptions`` (a fighter's field: each fighter's value).

    >>> assumed_pairs({"no_defense_bonus": {"value": 2}, "armor": {"value": {"a": 0, "b": 3}}})
    'no_defense_bonus=2, armor (a 0, b 3)'
    """
    return ", ".join(f"{name} ({', '.join(f'{role} {text(v)}' for role, v in entry['value'].items())})"
                     if isinstance(entry["value"], dict) else f"{name}={text(entry['value'])}"
                     for name, entry in assumptions.items())


def assumptions_line(assumptions: Any, indent: str = "  ") -> str:
    """The lab's assumptions a result rests on as one text line (empty when there are none).

    >>> assumptions_line({"no_defense_bonus": {"value": 2}})
    "  assumptions (the lab's numbers, no seed gives them): no_defense_bonus=2\\n"
    >>> assumptions_line({})
    ''
    """
    if not assumptions:
        return ""
    return f"{indent}assumptions (the lab's numbers, no seed gives them): {assumed_pairs(assumptions)}\n"


def to_jsonable(value: Any) -> Any:
    """``json.dumps`` default for numpy scalars and arrays."""
    if type(value).__module__ == "numpy":
        return value.tolist() if hasattr(value, "shape") and value.shape else value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def dumps(obj: Any) -> str:
    """Strict JSON text of a result: numpy values converted, never NaN or Infinity.

    >>> json.loads(dumps({"p": float("nan")}))
    {'p': None}
    """
    from analysis.engine.results import strict

    return json.dumps(strict(obj), ensure_ascii=False, indent=2, allow_nan=False, default=to_jsonable) + "\n"
