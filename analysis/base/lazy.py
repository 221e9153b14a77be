"""Heavy modules imported on first use, so that building the command line stays fast (numpy only).

``sp`` stands for :mod:`scipy.sparse` and ``splu`` for :func:`scipy.sparse.linalg.splu`; the import
happens the first time an attribute is read or the function is called.

>>> sp.identity(2).nnz
2
"""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """A module imported when one of its attributes is first read."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        module = importlib.import_module(self._name)
        return getattr(module, attr)


sp = LazyModule("scipy.sparse")


def splu(*args: Any, **kwargs: Any) -> Any:
    """:func:`scipy.sparse.linalg.splu`, imported on first call."""
    from scipy.sparse.linalg import splu as _splu

    return _splu(*args, **kwargs)


def spsolve(*args: Any, **kwargs: Any) -> Any:
    """:func:`scipy.sparse.linalg.spsolve`, imported on first call."""
    from scipy.sparse.linalg import spsolve as _spsolve

    return _spsolve(*args, **kwargs)
