"""The exact engine and its data types: distributions, absorbing chains, results, combat results, the system descriptor.

Layer 1: imports ``analysis.base`` only, and knows no particular system: the
systems (``analysis.systems``) fill :class:`~analysis.engine.system.System` in
and call this machinery (``dist`` for exact distributions, ``markov`` for
chains over condition tracks, ``combat`` and ``results`` for what a fight or a
check reports, ``registry`` for the systems loaded so far).
"""
