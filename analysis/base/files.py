r"""Reading the files a user names and writing outputs so that a reader never sees a half-written one
(no heavy imports here).

Every problem with a path the user gave is one line naming the path and the problem
(:class:`~analysis.base.params.DicelabError`), raised before any work starts.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "out" / "table.csv"
>>> write_atomic(path, "a,b\n1,2\n").read_text()
'a,b\n1,2\n'
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
import tempfile
import tomllib
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Iterator

from analysis.base.params import DicelabError, shown

MAX_INPUT_BYTES = 1 << 20
"""The largest fighter, config or rules file read (1 MiB): these are hand-written tables."""

MAX_DEPTH = 32
"""The deepest nesting of tables and lists a fighter, config or rules file may hold."""


def read_user_file(path: str | os.PathLike[str], what: str, max_bytes: int = MAX_INPUT_BYTES) -> str:
    """The UTF-8 text of a file the user named, or a one-line :class:`DicelabError` naming the path and the problem
    (missing, a directory, a FIFO or device, unreadable, empty, too large, not UTF-8, a byte order mark).

    >>> read_user_file("/nonexistent/x.toml", "fighter file")
    Traceback (most recent call last):
    ...
    analysis.base.params.DicelabError: fighter file '/nonexistent/x.toml': no such file
    """
    _non_empty(path, what, "a file path")
    shown = f"{what} {str(path)!r}"
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise DicelabError(f"{shown}: no such file") from None
    except NotADirectoryError:
        raise DicelabError(f"{shown}: a part of the path is not a directory") from None
    except PermissionError:
        raise DicelabError(f"{shown}: permission denied") from None
    except OSError as err:
        raise DicelabError(f"{shown}: cannot be read ({err.strerror or err})") from None
    if stat.S_ISDIR(info.st_mode):
        raise DicelabError(f"{shown}: is a directory, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise DicelabError(f"{shown}: is not a regular file (a FIFO, socket or device)")
    if info.st_size == 0:
        raise DicelabError(f"{shown}: is empty")
    if info.st_size > max_bytes:
        raise DicelabError(f"{shown}: is {info.st_size:,} bytes; allowed: at most {max_bytes:,}")
    try:
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except PermissionError:
        raise DicelabError(f"{shown}: permission denied") from None
    except OSError as err:
        raise DicelabError(f"{shown}: cannot be read ({err.strerror or err})") from None
    if data.startswith(b"\xef\xbb\xbf"):
        raise DicelabError(f"{shown}: starts with a UTF-8 byte order mark (BOM); allowed: UTF-8 text without one "
                           "(save it as UTF-8 without BOM)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise DicelabError(f"{shown}: not UTF-8 text (byte {err.start})") from None


def load_toml(path: str | os.PathLike[str], what: str) -> dict[str, Any]:
    """A TOML file the user named, parsed: one line on any problem (those of :func:`read_user_file`, invalid TOML,
    a duplicate key, an integer too long to read, nesting deeper than :data:`MAX_DEPTH`)."""
    return _parse(path, what, "TOML", tomllib.loads)


def load_json(path: str | os.PathLike[str], what: str) -> Any:
    """A JSON file the user named, parsed strictly: a key given twice in one object, ``NaN`` and ``Infinity`` are
    refused, besides everything :func:`load_toml` refuses.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "hero.json"
    >>> _ = path.write_text('{"body": 5, "body": 6}')
    >>> load_json(path, "fighter file")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    analysis.base.params.DicelabError: fighter file '...hero.json': body is given twice (5 and 6); give each key once
    """
    shown_path = f"{what} {str(path)!r}"

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                raise DicelabError(f"{shown_path}: {key} is given twice ({shown(out[key])} and {shown(value)}); "
                                   "give each key once")
            out[key] = value
        return out

    def constant(name: str) -> Any:
        raise DicelabError(f"{shown_path}: {name} is not allowed; allowed: finite numbers (strict JSON)")

    return _parse(path, what, "JSON", lambda text: json.loads(text, object_pairs_hook=pairs, parse_constant=constant))


def load_data(path: str | os.PathLike[str], what: str) -> Any:
    """A ``.toml`` or ``.json`` file by its suffix (:func:`load_toml`, :func:`load_json`)."""
    suffix = Path(path).suffix.lower()
    if suffix not in (".toml", ".json"):
        raise DicelabError(f"{what} {str(path)!r}: is not allowed; allowed: a .toml or .json file")
    return load_toml(path, what) if suffix == ".toml" else load_json(path, what)


def _parse(path: str | os.PathLike[str], what: str, kind: str, parse: Any) -> Any:
    text = read_user_file(path, what)
    shown_path = f"{what} {str(path)!r}"
    try:
        data = parse(text)
    except RecursionError:
        raise DicelabError(f"{shown_path}: nested too deeply; allowed: at most {MAX_DEPTH} levels") from None
    except DicelabError:
        raise
    except ValueError as err:  # TOMLDecodeError and JSONDecodeError are ValueErrors, and so is a too-long integer
        if "integer string conversion" in str(err):
            raise DicelabError(f"{shown_path}: holds an integer too long to read; allowed: at most "
                               f"{sys.get_int_max_str_digits():,} digits") from None
        raise DicelabError(f"{shown_path}: not valid {kind}: {err}") from None
    if _depth(data) > MAX_DEPTH:
        raise DicelabError(f"{shown_path}: nested more than {MAX_DEPTH} levels deep; allowed: at most {MAX_DEPTH}")
    return data


def _depth(data: Any) -> int:
    """How deeply lists and tables nest in parsed data (a scalar: 0; counted up to ``MAX_DEPTH + 1``), without
    recursion."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        value, level = stack.pop()
        items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
        if items is None:
            continue
        deepest = max(deepest, level)
        if level <= MAX_DEPTH:
            stack.extend((v, level + 1) for v in items)
    return deepest


def check_output_path(path: str | os.PathLike[str], what: str = "--out") -> Path:
    """The file an output will replace, checked before any work starts.

    Allowed: a new file in an existing, writable directory, or an existing
    writable regular file.  A symlink is followed: the output is written
    through it, atomically, to its target (the link stays a link; a dangling
    link gets its target created).  Anything else (an empty path, a path
    ending in ``/``, a directory, a FIFO, socket or device, a symlink loop, a
    missing parent, no write permission) is one line naming the path and the
    problem, and nothing is written.

    >>> check_output_path("")
    Traceback (most recent call last):
    ...
    analysis.base.params.DicelabError: --out = '' is not allowed; allowed: a file path
    """
    text = _non_empty(path, what, "a file path")
    shown_path = f"{what} {text!r}"
    if text.endswith(("/", os.sep)):
        raise DicelabError(f"{shown_path}: ends in '/', which names a directory; allowed: a file path")
    try:  # through every link: /dev/stdout is a pipe or a terminal (other problems are named below)
        given: os.stat_result | None = os.stat(text)
    except OSError:
        given = None
    streams = os.path.abspath(text).startswith(("/dev/", "/proc/"))
    if streams or given is not None and not stat.S_ISREG(given.st_mode) and not stat.S_ISDIR(given.st_mode):
        raise DicelabError(f"{shown_path}: is not a regular file (standard output, a FIFO, socket or device); it is "
                           "left alone")
    target = _resolve(text, shown_path)
    info = _stat(target, shown_path)
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            raise DicelabError(f"{shown_path}: is a directory; allowed: a file path")
        if not stat.S_ISREG(info.st_mode):
            raise DicelabError(f"{shown_path}: is not a regular file (a FIFO, socket or device); it is left alone")
        if not os.access(target, os.W_OK):
            raise DicelabError(f"{shown_path}: permission denied (the file is read-only)")
    _check_parent(target.parent, shown_path)
    return target


def check_output_dir(path: str | os.PathLike[str], what: str = "--out") -> Path:
    """A directory outputs will be written into, checked before any work starts: an existing writable directory,
    or a new one whose parent exists and is writable (a symlink to a directory is followed).

    >>> check_output_dir("")
    Traceback (most recent call last):
    ...
    analysis.base.params.DicelabError: --out = '' is not allowed; allowed: a directory path
    """
    text = _non_empty(path, what, "a directory path")
    shown_path = f"{what} {text!r}"
    target = _resolve(text, shown_path)
    info = _stat(target, shown_path)
    if info is not None:
        if not stat.S_ISDIR(info.st_mode):
            raise DicelabError(f"{shown_path}: exists and is not a directory")
        if not os.access(target, os.W_OK | os.X_OK):
            raise DicelabError(f"{shown_path}: permission denied (the directory is not writable)")
        return target
    _check_parent(target.parent, shown_path)
    return target


def _non_empty(path: str | os.PathLike[str], what: str, allowed: str) -> str:
    text = os.fspath(path)
    if not isinstance(text, str) or not text.strip() or "\0" in text:
        raise DicelabError(f"{what} = {shown(text)} is not allowed; allowed: {allowed}")
    return text


def _resolve(text: str, shown_path: str) -> Path:
    """The path with every symlink followed; a symlink loop is refused."""
    try:
        target = Path(os.path.realpath(text))
    except OSError as err:  # pragma: no cover - realpath only raises in strict mode
        raise DicelabError(f"{shown_path}: cannot be resolved ({err.strerror or err})") from None
    try:
        loop = target.is_symlink()
    except OSError as err:  # a name too long, say
        raise DicelabError(f"{shown_path}: cannot be checked ({err.strerror or err})") from None
    if loop:
        raise DicelabError(f"{shown_path}: is a symlink loop")
    return target


def _stat(target: Path, shown_path: str) -> os.stat_result | None:
    try:
        return os.stat(target)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        raise DicelabError(f"{shown_path}: a part of the path is not a directory") from None
    except OSError as err:
        raise DicelabError(f"{shown_path}: cannot be checked ({err.strerror or err})") from None


def _check_parent(parent: Path, shown_path: str) -> None:
    info = _stat(parent, shown_path)
    if info is None:
        raise DicelabError(f"{shown_path}: the directory {str(parent)!r} does not exist")
    if not stat.S_ISDIR(info.st_mode):
        raise DicelabError(f"{shown_path}: {str(parent)!r} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise DicelabError(f"{shown_path}: permission denied (the directory {str(parent)!r} is not writable)")


@contextmanager
def atomic_file(path: str | os.PathLike[str]) -> Iterator[IO[bytes]]:
    r"""A binary file to write ``path``'s new content into: a temporary file beside it (through a symlink: beside
    its target, the link stays a link) that replaces it by an atomic rename once the block ends without error, and
    is removed otherwise, so a reader never sees a half-written output and a failure leaves the old one intact.

    An existing file keeps its permission bits; anything but a regular file is refused, never replaced; a failure
    to write is one line naming the path.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "rows.csv"
    >>> with atomic_file(path) as fh:
    ...     _ = fh.write(b"a\n")
    >>> path.read_text()
    'a\n'
    """
    target = Path(os.path.realpath(path))
    shown_path = f"output {str(path)!r}"
    info = _stat(target, shown_path)
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise DicelabError(f"{shown_path}: is not a regular file (a directory, FIFO, socket or device); "
                           "it is left alone")
    tmp = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        with os.fdopen(fd, "w+b") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, stat.S_IMODE(info.st_mode) if info is not None else 0o644)
        os.replace(tmp, target)
    except OSError as err:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise DicelabError(f"{shown_path}: cannot be written ({err.strerror or err})") from None
    except BaseException:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> Path:
    """Write ``data`` to ``path`` through :func:`atomic_file`; returns the path written (a symlink's target)."""
    with atomic_file(path) as fh:
        fh.write(data.encode("utf-8") if isinstance(data, str) else data)
    return Path(os.path.realpath(path))


@contextmanager
def staged_dir(path: str | os.PathLike[str], last: tuple[str, ...] = ("index.html",)) -> Iterator[Path]:
    """A fresh directory beside ``path`` to write a set of outputs into; once the block ends without error its files
    replace their namesakes in ``path`` one atomic rename at a time (the names in ``last`` last), otherwise it is
    removed and ``path`` is left as it was, so an interrupted run never leaves a page that claims to be complete.

    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "report"
    >>> with staged_dir(out) as stage:
    ...     _ = write_atomic(stage / "index.html", "<p>done</p>")
    >>> sorted(p.name for p in out.iterdir()), sorted(p.name for p in out.parent.iterdir())
    (['index.html'], ['report'])
    """
    target = Path(os.path.realpath(path))
    try:
        stage = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent))
    except OSError as err:
        raise DicelabError(f"output {str(path)!r}: cannot be written ({err.strerror or err})") from None
    try:
        yield stage
        target.mkdir(exist_ok=True)
        names = sorted(p.name for p in stage.iterdir())
        for name in sorted(names, key=lambda n: n in last):
            os.replace(stage / name, target / name)
    except OSError as err:
        raise DicelabError(f"output {str(path)!r}: cannot be written ({err.strerror or err})") from None
    finally:
        shutil.rmtree(stage, ignore_errors=True)
