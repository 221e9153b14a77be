"""The sweep's table, written from the journal in case order, a row group at a time, into a temporary file that
replaces the output atomically once complete: memory stays flat however many cases there are.

One row per case: its input columns, its output columns, ``dicelab_version``.
A column's type is fixed from every value the journal holds (integers with a
float become floats; a value that is missing or undefined is an empty cell,
never the text ``nan``).  Parquet needs pyarrow; CSV does not.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path
from typing import IO, Any, Iterator, Mapping, Sequence

from analysis.base.extras import need
from analysis.base.files import atomic_file
from analysis.base.params import Choice
from analysis.front.sweep.work import batches

FORMATS = ("parquet", "csv")
ROW_GROUP = 16_384
"""Rows per Parquet row group (and per CSV chunk): what is held in memory at once."""


def output_format(out: str | os.PathLike[str], fmt: str | None) -> str:
    """``fmt``, or the format the output's name implies (``.csv``: CSV, else Parquet); Parquet needs pyarrow, and
    its absence is one line saying how to get it, before any work."""
    fmt = Choice(FORMATS).validate("format", fmt or ("csv" if Path(out).suffix.lower() == ".csv" else "parquet"))
    if fmt == "parquet":
        need("pyarrow", "parquet", f"writing the Parquet table {str(out)!r} (a .csv output needs nothing more)")
    return fmt


def column_kind(types: set[type]) -> str:
    """The kind of a column from the Python types of its values: ``bool``, ``int``, ``float``, ``str`` or
    ``null`` (nothing but empty cells).

    >>> column_kind({int, float, type(None)}), column_kind({bool}), column_kind({type(None)}), column_kind({str, int})
    ('float', 'bool', 'null', 'str')
    """
    kinds = types - {type(None)}
    if not kinds:
        return "null"
    if kinds == {bool}:
        return "bool"
    if kinds == {int}:
        return "int"
    if kinds <= {int, float}:
        return "float"
    return "str"


def write_rows(out: str | os.PathLike[str], fmt: str, names: Sequence[str], kinds: Mapping[str, str],
               rows: Iterator[Mapping[str, Any]], metadata: Mapping[str, str] | None = None) -> int:
    """Write ``rows`` (mappings, in order) as the table ``out``: columns ``names`` of ``kinds`` (Parquet: with the
    file's key-value ``metadata``); returns the row count.  An unwritable output is one line naming it."""
    with atomic_file(out) as fh:
        if fmt == "parquet":
            return _parquet(fh, names, kinds, rows, metadata or {})
        return _csv(fh, names, kinds, rows)


def _parquet(fh: IO[bytes], names: Sequence[str], kinds: Mapping[str, str], rows: Iterator[Mapping[str, Any]],
             metadata: Mapping[str, str]) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    types = {"bool": pa.bool_(), "int": pa.int64(), "float": pa.float64(), "str": pa.string(), "null": pa.null()}
    schema = pa.schema([(name, types[kinds[name]]) for name in names], metadata=dict(metadata))
    count = 0
    with pq.ParquetWriter(fh, schema) as writer:
        for chunk in batches(rows, ROW_GROUP):
            data = {name: [_cell(row.get(name), kinds[name]) for row in chunk] for name in names}
            writer.write_table(pa.Table.from_pydict(data, schema=schema))
            count += len(chunk)
        if not count:
            writer.write_table(schema.empty_table())
    return count


def _csv(fh: IO[bytes], names: Sequence[str], kinds: Mapping[str, str], rows: Iterator[Mapping[str, Any]]) -> int:
    text = io.TextIOWrapper(fh, encoding="utf-8", newline="")
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(names)
    count = 0
    for chunk in batches(rows, ROW_GROUP):
        writer.writerows([_text(_cell(row.get(name), kinds[name])) for name in names] for row in chunk)
        count += len(chunk)
    text.flush()
    text.detach()
    return count


def _cell(value: Any, kind: str) -> Any:
    """A value as its column holds it: floats for a float column, text for a text column, ``None`` as is."""
    if value is None:
        return None
    if kind == "float":
        return float(value)
    if kind == "str" and not isinstance(value, str):
        return str(value)
    return value


def _text(value: Any) -> str:
    """A CSV cell: empty for a missing value, ``repr`` for floats (they read back exactly)."""
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)
