"""dicelab: exact and Monte Carlo probability analysis of four tabletop systems.

>>> from analysis import check
>>> round(check("kurs", skill=2).p_success, 4)
0.8657
"""

from importlib.metadata import PackageNotFoundError, version

from .dist import Dist
from .params import DicelabError, ParamError
from .system import SYSTEM_IDS, all_systems, check, get_system

try:
    __version__ = version("dicelab")
except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
    __version__ = "0.0.0"

__all__ = ["Dist", "DicelabError", "ParamError", "SYSTEM_IDS", "all_systems", "check", "get_system", "__version__"]
