"""The base of a system's simulation switches (rules the exact chain would leave out): every system has none now.

A system's kernels module (``sims/<id>.py``) declares ``Options`` as a subclass;
:func:`sims.api.options_for` builds it from the command line's ``--option``.

>>> from sims.kurs import Options
>>> issubclass(Options, SimOptions), Options.specs()
(True, {})
"""

from __future__ import annotations

from analysis.base.params import Validated


class SimOptions(Validated):
    """Base of a system's simulation switches (rules the exact chain leaves out); every system has none now."""

    none_note = "both models play the same rules; a rule switch is a ruleset field: --variant NAME=VALUE"
