r"""Reading the files a user names and writing outputs so that a reader never sees a half-written one
(no heavy imports here).

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "out" / "table.csv"
>>> write_atomic(path, "a,b\n1,2\n").read_text()
'a,b\n1,2\n'
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from .params import DicelabError

MAX_INPUT_BYTES = 1 << 20
"""The largest fighter, config or rules file read (1 MiB): these are hand-written tables."""


def read_user_file(path: str | os.PathLike[str], what: str, max_bytes: int = MAX_INPUT_BYTES) -> str:
    """The UTF-8 text of a file the user named, or a one-line :class:`DicelabError` naming the path and the problem
    (missing, a directory, a FIFO or device, unreadable, empty, too large, not UTF-8).

    >>> read_user_file("/nonexistent/x.toml", "fighter file")
    Traceback (most recent call last):
    ...
    analysis.params.DicelabError: fighter file '/nonexistent/x.toml': no such file
    """
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
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise DicelabError(f"{shown}: not UTF-8 text (byte {err.start})") from None


def check_output_path(path: str | os.PathLike[str], what: str = "--out") -> Path:
    """The file an output will replace, checked before any work starts.

    Allowed: a new file in an existing, writable directory, or an existing
    regular file.  A symlink is followed: the output is written through it,
    atomically, to its target (the link stays a link).  Anything else (an
    empty path, a directory, a FIFO, socket or device, a missing parent, a
    parent without write permission) is one line naming the path and the
    problem.

    >>> check_output_path("")
    Traceback (most recent call last):
    ...
    analysis.params.DicelabError: --out = '' is not allowed; allowed: a file path
    """
    text = os.fspath(path)
    if not str(text).strip():
        raise DicelabError(f"{what} = {text!r} is not allowed; allowed: a file path")
    target = Path(os.path.realpath(text))
    shown = f"{what} {str(text)!r}"
    if target.exists():
        mode = target.stat().st_mode
        if stat.S_ISDIR(mode):
            raise DicelabError(f"{shown}: is a directory; allowed: a file path")
        if not stat.S_ISREG(mode):
            raise DicelabError(f"{shown}: is not a regular file (a FIFO, socket or device); it is left alone")
    _check_parent(target.parent, shown)
    return target


def check_output_dir(path: str | os.PathLike[str], what: str = "--out") -> Path:
    """A directory outputs will be written into, checked before any work starts: an existing writable directory,
    or a new one whose parent exists and is writable (a symlink to a directory is followed)."""
    text = os.fspath(path)
    if not str(text).strip():
        raise DicelabError(f"{what} = {text!r} is not allowed; allowed: a directory path")
    target = Path(os.path.realpath(text))
    shown = f"{what} {str(text)!r}"
    if target.exists():
        if not target.is_dir():
            raise DicelabError(f"{shown}: exists and is not a directory")
        if not os.access(target, os.W_OK | os.X_OK):
            raise DicelabError(f"{shown}: permission denied (the directory is not writable)")
        return target
    _check_parent(target.parent, shown)
    return target


def _check_parent(parent: Path, shown: str) -> None:
    if not parent.is_dir():
        raise DicelabError(f"{shown}: the directory {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise DicelabError(f"{shown}: permission denied (the directory {str(parent)!r} is not writable)")


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file and an atomic rename.

    A symlink is written through: its target is replaced, the link stays.
    """
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
