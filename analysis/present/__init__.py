"""Presentation: charts, plots, tables and words (English and Russian), and the rules reference.

Layer 5: may import ``analysis.base``, ``analysis.engine``, ``analysis.systems``,
``sims`` and ``analysis.fights``.  Turns results and tables into what a person
reads (``tables``, ``chart``, ``plots``, ``i18n``, ``rules_docs``); computes nothing new.
"""
