"""Fights as a designer sets them up: fighters and archetypes, matched pairings, lethality, cost estimates.

Layer 4: may import ``analysis.base``, ``analysis.engine``, ``analysis.systems``
and ``sims``.  Loads fighters from names, files and inline text
(``fighters``), builds the report's matched pairings (``setup``), measures how
deadly fights are (``lethality``) and estimates what an exact fight costs
before it is solved (``budget``).
"""
