"""The front ends: the command line, the browser workbench, the report and batch sweeps.

Layer 7 (the top): may import every layer.  Front ends parse, validate at the
boundary, call the library and show its answers; no rule or computation lives
only here.
"""
