"""The designer's tools: tune, equiv, worth, variants, design, compare, house rules.

Layer 6: may import every layer below (``analysis.base``, ``analysis.engine``,
``analysis.systems``, ``sims``, ``analysis.fights``, ``analysis.present``).  Each
module answers one inverse or comparative question over the exact engine
(``curve`` and ``duels`` are their shared machinery).
"""
