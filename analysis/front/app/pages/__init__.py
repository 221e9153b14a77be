"""The five pages; each module has ``KEYS`` (its link keys and key prefixes), ``controls(state, lang)``,
``compute(state)`` (library calls only, run as a job) and ``view(result, state, lang)`` -> (components, tables)."""
