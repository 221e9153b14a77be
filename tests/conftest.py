import os
import signal

import pytest
from hypothesis import HealthCheck, settings

os.environ["DICELAB_CACHE"] = "off"  # every test solves what it checks; tests/test_diskcache.py turns the store on
settings.register_profile("ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=200, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _close_figures():
    """Figures made by a test are closed after it."""
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


SLOW = {"test_app.py", "test_notebooks.py", "test_processes.py", "test_examples.py", "test_fuzz.py"}
"""The test files that start browsers, notebooks or many processes: ``make test-fast`` leaves them to ``make test``."""


def pytest_configure(config: pytest.Config) -> None:
    """A run started in the background (``make test &``: the shell starts it with SIGINT ignored, and every process
    it starts inherits that) still tests Ctrl-C: Python's own SIGINT handler is put back, so the workers and the
    commands they start get it too (a command that finds SIGINT ignored rightly leaves it so)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in SLOW:
            item.add_marker(pytest.mark.slow)
