"""Solved figures kept on disk between runs, by the digest of everything they were solved from.

A slow exact solve (2K's IN-economy chain) is stored once under the digest of
its inputs and of the code that solves it (:func:`code_stamp`), so the next
process that asks the same question -- the command run again, the app
restarted, a report after a one-line change to the house rules -- reads the
figures back instead of solving again.  The figures read back are the very
arrays the solver returned (``numpy.save``'s lossless format).

The directory is ``$DICELAB_CACHE``, else ``$XDG_CACHE_HOME/dicelab``, else
``~/.cache/dicelab``; ``DICELAB_CACHE=off`` keeps nothing.  Each kind of figure
keeps about :data:`MAX_BYTES` at most, the least recently used going first.  The
store is only a shortcut: an entry that cannot be read is solved again, and a
directory that cannot be written is left alone (the solve's answer stands).

>>> import tempfile
>>> root = Path(tempfile.mkdtemp())
>>> key = digest(b"inputs", stamp=b"code")
>>> load("demo", key, root) is None
True
>>> save("demo", key, (np.arange(3), 0.5), root)
>>> [a.tolist() for a in load("demo", key, root)]
[[0, 1, 2], 0.5]
"""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from analysis.base.files import atomic_file
from analysis.base.params import DicelabError

CACHE_ENV = "DICELAB_CACHE"
"""The directory solved figures are kept in, or ``off`` to keep none."""
MAX_BYTES = 256 << 20
"""The most one kind of figure keeps on disk (256 MiB): past it the least recently used entries go."""
TRIM_EVERY = 32
"""A process trims a kind at its first write and at every this many writes after (a trim reads every entry's
size, so the store may pass :data:`MAX_BYTES` by the entries of fewer writes than this)."""
_writes: dict[str, int] = {}


def cache_dir() -> Path | None:
    """Where solved figures are kept (:data:`CACHE_ENV`, ``$XDG_CACHE_HOME/dicelab`` or ``~/.cache/dicelab``);
    None when ``DICELAB_CACHE=off``."""
    named = os.environ.get(CACHE_ENV, "").strip()
    if named.lower() == "off":
        return None
    if named:
        return Path(named).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(base).expanduser() if base else Path.home() / ".cache") / "dicelab"


@lru_cache(maxsize=None)
def code_stamp(files: tuple[str, ...], salt: str = "") -> bytes:
    """A digest of the source files a solve runs (paths relative to the ``analysis`` package), numpy's version and
    ``salt`` (the compiler's version, say): figures solved by other code are never read back."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.blake2b(f"numpy {np.__version__} {salt}".encode(), digest_size=16)
    for name in files:
        h.update(name.encode())
        h.update((root / name).read_bytes())
    return h.digest()


def digest(*parts: bytes | np.ndarray, stamp: bytes) -> str:
    """The hex key of figures solved from ``parts`` (bytes, or arrays: their dtype, shape and bytes) by the code of
    ``stamp``.

    >>> digest(np.zeros(2), stamp=b"x") == digest(np.zeros(2), stamp=b"y")
    False
    """
    h = hashlib.blake2b(stamp, digest_size=32)
    for part in parts:
        if isinstance(part, np.ndarray):
            h.update(repr((part.dtype.str, part.shape)).encode())
            part = np.ascontiguousarray(part).tobytes()
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()


def load(kind: str, key: str, root: Path | None = None) -> tuple[np.ndarray, ...] | None:
    """The figures kept under ``key`` (in ``root``, else :func:`cache_dir`), or None (none kept, the store off, or an
    entry that cannot be read)."""
    path = _path(kind, key, root)
    if path is None:
        return None
    try:
        with np.load(path, allow_pickle=False) as got:
            figures = tuple(got[f"arr_{i}"] for i in range(len(got.files)))
    except (OSError, ValueError, KeyError, zipfile.BadZipFile):
        return None
    try:
        os.utime(path)  # the most recently used: the last to go
    except OSError:
        pass
    return figures


def save(kind: str, key: str, figures: Sequence[np.ndarray | float | int], root: Path | None = None) -> None:
    """Keep ``figures`` (arrays or numbers) under ``key`` (in ``root``, else :func:`cache_dir`), written whole or not
    at all; then (every :data:`TRIM_EVERY` writes) trim the kind to :data:`MAX_BYTES`.  Nothing is raised: an
    unwritable store only means the next run solves again."""
    path = _path(kind, key, root)
    if path is None:
        return
    buffer = io.BytesIO()
    np.savez(buffer, *[np.asarray(f) for f in figures])
    try:
        with atomic_file(path) as fh:
            fh.write(buffer.getvalue())
    except DicelabError:
        return
    done = _writes.get(kind, 0)
    _writes[kind] = done + 1
    if done % TRIM_EVERY == 0:
        _trim(path.parent.glob("*.npz"), MAX_BYTES)


def summary(root: Path | None = None) -> dict[str, Any]:
    """The store's directory (``None`` when off), whether it is on, its limit per kind, and each kind's entries
    and bytes.

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> save("demo", digest(b"x", stamp=b"s"), (np.arange(2),), root)
    >>> info = summary(root)
    >>> info["on"], info["kinds"]["demo"]["entries"]
    (True, 1)
    """
    root = cache_dir() if root is None else root
    kinds: dict[str, dict[str, int]] = {}
    if root is not None and root.is_dir():
        for folder in sorted(p for p in root.iterdir() if p.is_dir()):
            sizes = [_size(p) for p in folder.glob("*.npz")]
            if sizes:
                kinds[folder.name] = {"entries": len(sizes), "bytes": sum(sizes)}
    return {"directory": None if root is None else str(root), "on": root is not None,
            "max_bytes_per_kind": MAX_BYTES, "kinds": kinds}


def clear(root: Path | None = None) -> dict[str, int]:
    """Remove every entry of the store; how many and their bytes.

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> save("demo", digest(b"x", stamp=b"s"), (np.arange(2),), root)
    >>> clear(root)["entries"], summary(root)["kinds"]
    (1, {})
    """
    root = cache_dir() if root is None else root
    removed = {"entries": 0, "bytes": 0}
    if root is None or not root.is_dir():
        return removed
    for path in root.glob("*/*.npz"):
        size = _size(path)
        try:
            path.unlink()
        except FileNotFoundError:
            continue
        except OSError as err:
            raise DicelabError(f"disk store {str(path)!r}: cannot be removed ({err.strerror or err})") from None
        removed["entries"] += 1
        removed["bytes"] += size
    return removed


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _path(kind: str, key: str, root: Path | None) -> Path | None:
    root = cache_dir() if root is None else root
    return None if root is None else root / kind / f"{key}.npz"


def _trim(paths: Iterable[Path], limit: int) -> None:
    """Remove the least recently used of ``paths`` until the rest hold at most ``limit`` bytes."""
    entries = []
    for p in paths:
        try:
            info = p.stat()
        except OSError:
            continue
        entries.append((info.st_mtime, info.st_size, p))
    total = sum(size for _, size, _ in entries)
    for _, size, p in sorted(entries):
        if total <= limit:
            break
        p.unlink(missing_ok=True)
        total -= size
