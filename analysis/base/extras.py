"""Optional dependencies: a feature that needs an extra which is not installed says, in one line, how to get it.

The extras (``pyproject.toml``): ``parquet`` (pyarrow), ``distributed`` (dask), ``notebooks`` (JupyterLab),
``app``, ``test`` (all of them and the test tools), ``bench`` (icepool).

>>> need("json", "parquet", "reading JSON").__name__
'json'
>>> need("no_such_module_here", "parquet", "writing a .parquet table")
Traceback (most recent call last):
...
analysis.base.params.DicelabError: writing a .parquet table needs no_such_module_here, which is not installed; install the 'parquet' extra: pip install -e '.[parquet]' in the dicelab folder (make test installs every extra)
"""

from __future__ import annotations

import importlib
from types import ModuleType

from analysis.base.params import DicelabError


def need(module: str, extra: str, purpose: str) -> ModuleType:
    """``module`` imported, or a one-line :class:`DicelabError` naming what needs it and the extra that brings it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        package = module.split(".")[0]
        raise DicelabError(f"{purpose} needs {package}, which is not installed; install the '{extra}' extra: "
                           f"pip install -e '.[{extra}]' in the dicelab folder (make test installs every extra)") from None
