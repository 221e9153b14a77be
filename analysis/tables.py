"""Table output: success tables as DataFrames, rendered as Markdown, CSV or JSON,
written with :func:`analysis.files.write_atomic`.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

from .params import DicelabError
from .results import strict
from .system import System

FORMATS = ("md", "csv", "json")


def success_table(system: System, rules: Any, args: Any) -> pd.DataFrame:
    """One row per case of ``system.table_cases``: P(success) and the other check figures.

    >>> from analysis.system import get_system
    >>> s = get_system("tun")
    >>> df = success_table(s, s.rules(), s.args())
    >>> sorted(df["dice"].unique())
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
    return pd.DataFrame(rows)


def render(df: pd.DataFrame, fmt: str, *, title: str = "", pivot: tuple[str, str, str] | None = None) -> str:
    """A DataFrame as Markdown (optionally pivoted ``(index, columns, values)``), CSV or JSON."""
    if fmt not in FORMATS:
        raise DicelabError(f"format = {fmt!r} is not allowed; allowed: one of {', '.join(FORMATS)}")
    if fmt == "csv":
        return df.to_csv(index=False)
    if fmt == "json":
        return dumps(df.to_dict(orient="records"))
    shown = df
    if "residual" in df.columns:
        bound = df["residual"].max()
        title += f"\n\nTruncation bound (largest residual): {bound:.3g}" if bound > 0 else ""
        shown = shown.drop(columns="residual")
    if pivot is not None and df[pivot[1]].nunique() > 1:
        shown = df.pivot(index=pivot[0], columns=pivot[1], values=pivot[2])
        shown = shown[list(dict.fromkeys(df[pivot[1]]))].reset_index()
        shown.columns.name = None
    elif pivot is not None:
        shown = shown.drop(columns=[c for c in ("system", pivot[1]) if c in shown.columns])
    shown = shown.astype(object).where(shown.notna(), None)
    body = shown.to_markdown(index=False, floatfmt=".4f", missingval="")
    return (f"{title}\n\n" if title else "") + body + "\n"


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


def pairs(mapping: Any) -> str:
    """``name=value, ...`` of a parameter mapping.

    >>> pairs({"die": 6, "shock_rule": False})
    'die=6, shock_rule=false'
    """
    return ", ".join(f"{k}={text(v)}" for k, v in mapping.items())


def to_jsonable(value: Any) -> Any:
    """``json.dumps`` default for numpy scalars and arrays."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def dumps(obj: Any) -> str:
    """Strict JSON text of a result: numpy values converted, never NaN or Infinity.

    >>> json.loads(dumps({"p": float("nan")}))
    {'p': None}
    """
    return json.dumps(strict(obj), ensure_ascii=False, indent=2, allow_nan=False, default=to_jsonable) + "\n"
