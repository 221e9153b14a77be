"""The journal of a sweep, ``OUT.journal/``: every finished case, on disk, as soon as its batch is done.

``meta.json`` holds the journal's format and dicelab version; ``rows.jsonl``
one line per finished case: its ``case_id`` (a hash of its inputs), the
dicelab version and its output columns, in strict JSON.  Lines are appended
batch by batch and fsync'd every :data:`SYNC_EVERY` seconds and on close; a
partial last line (a kill mid-write) is cut off on open.  Cases are found
again by id, not by place, so a widened or reordered grid reuses them.  Only
the ids and the places of the lines are held in memory (16 bytes a case); a
line is read back when the table is written.  One sweep at a time holds the
journal's lock.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from array import array
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from analysis.base import __version__
from analysis.base.files import write_atomic
from analysis.base.params import DicelabError

FORMAT = 2
"""The journal format: 2 keys rows by case id (format 1 keyed them by position)."""
SYNC_EVERY = 1.0
"""Seconds between fsyncs of the journal: every batch is written at once (a killed sweep keeps it); the disk
has it within this time (a power cut loses at most this much)."""


def journal_path(out: str | os.PathLike[str]) -> Path:
    """The journal directory of an output file: ``OUT.journal``."""
    return Path(f"{out}.journal")


class Columns:
    """The output columns seen in the journal's rows: their order (as the first case holding each set of them
    lists it) and the Python types of their values."""

    def __init__(self) -> None:
        self.first: dict[tuple[str, ...], int] = {}
        self.types: dict[str, set[type]] = {}
        self._signatures: set[tuple[tuple[str, ...], tuple[type, ...]]] = set()

    def add(self, row: Mapping[str, Any], position: int) -> None:
        names = tuple(row)
        if position < self.first.get(names, position + 1):
            self.first[names] = position
        signature = (names, tuple(type(v) for v in row.values()))
        if signature not in self._signatures:
            self._signatures.add(signature)
            for name, kind in zip(*signature):
                self.types.setdefault(name, set()).add(kind)

    @property
    def names(self) -> list[str]:
        """Every column, in the order the rows in case order first show them."""
        return list(dict.fromkeys(n for key in sorted(self.first, key=self.first.get) for n in key))


class Journal:
    """``OUT.journal/`` of one sweep: which of its cases are done, and their rows (see the module)."""

    def __init__(self, out: str | os.PathLike[str], ids: np.ndarray, config: str):
        self.dir = journal_path(out)
        self.case_ids = ids
        self._order = np.argsort(ids, kind="stable")
        self._sorted = ids[self._order]
        self.columns = Columns()
        self.dir.mkdir(parents=True, exist_ok=True)
        meta_file = self.dir / "meta.json"
        if meta_file.is_file():
            self._compatible(meta_file)
        else:
            write_atomic(meta_file, json.dumps({"format": FORMAT, "dicelab_version": __version__, "config": config},
                                               indent=2) + "\n")
        self._fh = open(self.dir / "rows.jsonl", "a+b")
        try:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._fh.close()
            raise DicelabError(f"{self.dir}/ is in use by another sweep; wait for it, or choose another --out") \
                from None
        self._ids, self._offsets, self._lengths = array("Q"), array("q"), array("q")
        try:
            self._scan()
        except DicelabError:
            self._fh.close()
            raise
        self._index()
        self._synced = time.monotonic()

    def _compatible(self, meta_file: Path) -> None:
        recover = (f"delete {meta_file} to keep the finished cases (each line is checked again as it is read), "
                   f"or delete {self.dir}/ to start over")
        try:
            old = json.loads(meta_file.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            raise DicelabError(f"{meta_file} is damaged; {recover}") from None
        if not isinstance(old, dict):
            raise DicelabError(f"{meta_file} is damaged; {recover}")
        fix = f"delete {self.dir}/ to start over, or choose another --out"
        if old.get("format") != FORMAT or old.get("dicelab_version") != __version__:
            raise DicelabError(f"{self.dir}/ was written by dicelab {old.get('dicelab_version')} (journal format "
                               f"{old.get('format', 1)}), this is {__version__} (format {FORMAT}): {fix}")

    def _scan(self) -> None:
        """Index the complete lines (cutting off a partial last one) and note their columns."""
        self._fh.seek(0)
        offset = 0
        for number, line in enumerate(self._fh, 1):
            if not line.endswith(b"\n"):
                self._fh.truncate(offset)
                os.fsync(self._fh.fileno())
                break
            row = self._parse(line, number)
            self._note(row, offset, len(line))
            offset += len(line)
        self._fh.seek(0, os.SEEK_END)

    def _parse(self, line: bytes, number: int | str) -> dict[str, Any]:
        try:
            row = json.loads(line)
            ok = isinstance(row, dict) and isinstance(row.get("case_id"), str) and len(row["case_id"]) == 16 \
                and int(row["case_id"], 16) >= 0
        except ValueError:
            ok = False
        if not ok:
            raise DicelabError(f"{self.dir}/rows.jsonl: line {number} is damaged; delete {self.dir}/ to start over")
        if row.get("dicelab_version") != __version__:
            raise DicelabError(f"{self.dir}/rows.jsonl: line {number} was written by dicelab "
                               f"{row.get('dicelab_version')}, this is {__version__}; delete {self.dir}/ to start over")
        return row

    def _note(self, row: dict[str, Any], offset: int, length: int) -> None:
        key = int(row["case_id"], 16)
        self._ids.append(key)
        self._offsets.append(offset)
        self._lengths.append(length)
        place = self.position(key)
        if place is not None:
            self.columns.add({k: v for k, v in row.items() if k not in ("case_id", "dicelab_version")}, place)

    def position(self, key: int) -> int | None:
        """The first place of the sweep's case with this id (``None``: not a case of this sweep)."""
        j = int(np.searchsorted(self._sorted, np.uint64(key)))
        return int(self._order[j]) if j < len(self._sorted) and int(self._sorted[j]) == key else None

    def _index(self) -> None:
        ids = np.frombuffer(self._ids, dtype=np.uint64) if len(self._ids) else np.zeros(0, dtype=np.uint64)
        order = np.argsort(ids, kind="stable")
        keys, first = np.unique(ids[order], return_index=True)
        self._done = keys
        self._where = order[first]
        self._indexed = len(self._ids)

    def done(self) -> np.ndarray:
        """A mask over the sweep's cases: those with a row in the journal (the rows appended so far included)."""
        if self._indexed != len(self._ids):
            self._index()
        j = np.searchsorted(self._done, self.case_ids)
        j[j == len(self._done)] = 0
        return self._done[j] == self.case_ids if len(self._done) else np.zeros(len(self.case_ids), dtype=bool)

    def append(self, rows: Sequence[dict[str, Any]]) -> None:
        """Add finished rows (``case_id``, ``dicelab_version``, outputs), written through to the file at once; a
        write that fails (a full disk) is cut back to the rows before it and refused in one line."""
        fd = self._fh.fileno()
        offset = os.lseek(fd, 0, os.SEEK_END)
        lines = [json.dumps(r, ensure_ascii=False, allow_nan=False).encode() + b"\n" for r in rows]
        try:
            data = memoryview(b"".join(lines))
            while data:  # straight to the file (no buffer left to flush after a failure)
                data = data[os.write(fd, data):]
            if time.monotonic() - self._synced >= SYNC_EVERY:
                self.sync()
        except OSError as err:
            self._cut(offset)
            raise DicelabError(f"{self.dir}/rows.jsonl: cannot be written ({err.strerror or err}); the "
                               f"{int(self.done().sum()):,} cases finished before are kept in {self.dir}/: make room "
                               "and run the same command again") from None
        for row, line in zip(rows, lines):
            self._note(row, offset, len(line))
            offset += len(line)

    def rows(self, positions: Iterable[int]) -> Iterable[dict[str, Any]]:
        """The journal rows of the sweep's cases at ``positions`` (without ``case_id``), read back from disk."""
        self._index()
        fd = self._fh.fileno()
        for place in positions:
            key = self.case_ids[place]
            j = int(np.searchsorted(self._done, key))
            if j == len(self._done) or self._done[j] != key:
                raise DicelabError(f"{self.dir}/rows.jsonl: case {place} is missing; run the same command again")
            at = int(self._where[j])
            line = os.pread(fd, self._lengths[at], self._offsets[at])
            row = self._parse(line, f"at byte {self._offsets[at]}")
            del row["case_id"]
            yield row

    def _cut(self, offset: int) -> None:
        """Drop what a failed write left after ``offset`` (a partial line is cut on the next open anyway)."""
        try:
            os.ftruncate(self._fh.fileno(), offset)
        except OSError:
            pass

    def sync(self) -> None:
        """Force the journal to disk."""
        os.fsync(self._fh.fileno())
        self._synced = time.monotonic()

    def close(self) -> None:
        if not self._fh.closed:
            try:
                self.sync()
            except OSError:  # a full disk: what is written stays; a partial last line is cut on the next open
                pass
            self._fh.close()

    def remove(self) -> None:
        """Delete the journal (its table is written): its two files, then the directory if nothing else is in it."""
        for name in ("rows.jsonl", "meta.json"):
            (self.dir / name).unlink(missing_ok=True)
        self.close()
        try:
            self.dir.rmdir()
        except OSError:
            pass

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
