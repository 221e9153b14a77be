"""numba Monte Carlo simulators, one module per system."""
