"""The base every layer stands on: errors and validated parameters, files, worker pools, progress, lazy imports.

Layer 0 (the bottom): imports nothing of dicelab.  Holds no game rule and no
probability: what any layer above may use (``params`` for validated frozen
dataclasses and one-line errors, ``files`` for checked input and atomic
output, ``pool`` for worker processes, ``progress`` for bars, ``extras`` for
optional dependencies, ``lazy`` for heavy imports on first use).
"""

__version__ = "0.3.0"
