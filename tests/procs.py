"""What the process tests need of a running command: whether its handlers are in place."""

from __future__ import annotations


def catching_sigterm(pid: int) -> bool:
    """Whether the process catches SIGTERM: the command line's handlers are in place (Python itself catches only
    SIGINT; before, during the interpreter's start-up, a signal does what Python does)."""
    import signal

    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        caught = next(int(line.split()[1], 16) for line in fh if line.startswith("SigCgt:"))
    return bool(caught >> (signal.SIGTERM - 1) & 1)
