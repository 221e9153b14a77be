"""Stopping long work safely: Ctrl-C, SIGTERM and the app's Cancel end a computation where nothing is half done.

- A command's main thread runs under :func:`signals`: SIGTERM raises like Ctrl-C (:class:`Terminated`, a
  ``KeyboardInterrupt``), so both end a command the same way: exit 130, what finished kept; :func:`received`
  says an interruption came even when a library turned it into another error.
- A compiled kernel never sees a signal: :func:`run_kernel` runs it in a helper thread with the signals blocked
  while the calling thread waits, interruptibly; a signal (or a cancel) sets the kernel's *halt flag*, an
  ``int64[1]`` array the kernel polls, the kernel returns at its next poll and the caller raises
  :class:`Interrupted`.
- A loop that must finish the step it is in polls a flag instead of being cut anywhere: :func:`deferred`.
- A cancel (the app's) is a :class:`Stop` made current in a thread by :func:`scope`: setting it sets the halt flag
  of every kernel and deferred loop running under it, and :func:`check` raises in the loops that poll it.

>>> stop = Stop()
>>> with scope(stop):
...     check()
...     stop.set()
...     try:
...         check()
...     except Interrupted as err:
...         print(err)
cancelled
"""

from __future__ import annotations

import contextvars
import os
import signal
import sys
import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator

if TYPE_CHECKING:
    import numpy as np

CANCEL = -1
"""The halt flag's value when a :class:`Stop` was set (a signal sets its number)."""
POLL = 0.05
"""Seconds between a waiting thread's looks at the kernel it waits for."""
GRACE = 1.0
"""Seconds a halted kernel has to return before the waiting thread stops waiting (a first call still compiling)."""
SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """A computation stopped by Ctrl-C (``signum`` SIGINT), SIGTERM, or a cancel (``signum`` :data:`CANCEL`)."""

    def __init__(self, signum: int = signal.SIGINT):
        self.signum = signum
        super().__init__("cancelled" if signum == CANCEL else f"interrupted by {signal.Signals(signum).name}")


class Terminated(Interrupted):
    """SIGTERM, raised like Ctrl-C."""

    def __init__(self, signum: int = signal.SIGTERM):
        super().__init__(signum)


def raised(code: int) -> Interrupted:
    """The exception for a halt flag's value: :class:`Terminated` for SIGTERM, else :class:`Interrupted`."""
    return Terminated() if code == signal.SIGTERM else Interrupted(code)


class Stop:
    """A cancel: :meth:`set` halts the kernels and deferred loops running under it (:func:`scope`) and makes
    :func:`check` raise."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._flags: list[np.ndarray] = []
        self.code = 0

    def set(self, code: int = CANCEL) -> None:
        with self._lock:
            self.code = self.code or code
            for flag in self._flags:
                flag[0] = flag[0] or code

    def is_set(self) -> bool:
        return self.code != 0

    @contextmanager
    def watching(self, flag: np.ndarray) -> Iterator[np.ndarray]:
        """``flag`` set whenever this stop is, while the block runs."""
        with self._lock:
            flag[0] = flag[0] or self.code
            self._flags.append(flag)
        try:
            yield flag
        finally:
            with self._lock:
                self._flags.remove(flag)


_current: contextvars.ContextVar[Stop | None] = contextvars.ContextVar("dicelab_stop", default=None)


def current() -> Stop | None:
    """The stop of the running thread's computation, if one was given (:func:`scope`)."""
    return _current.get()


@contextmanager
def scope(stop: Stop) -> Iterator[Stop]:
    """Run the block under ``stop``."""
    token = _current.set(stop)
    try:
        yield stop
    finally:
        _current.reset(token)


def check() -> None:
    """Raise :class:`Interrupted` when the current stop is set (long loops call it between steps)."""
    stop = current()
    if stop is not None and stop.is_set():
        raise raised(stop.code)


_received = [0]
"""The last signal :func:`signals` saw (0: none)."""


def received() -> int:
    """The signal that interrupted the command under :func:`signals` (0: none): an error some library made of the
    interruption (numpy turns one raised inside its import into an ImportError) is still the interruption."""
    return _received[0]


def _raise(signum: int, frame: Any) -> None:
    _received[0] = signum
    raise raised(signum)


def _on_main() -> bool:
    return threading.current_thread() is threading.main_thread()


def _again(unraisable: Any, previous: Callable[[Any], Any]) -> None:
    """``sys.unraisablehook``: an interruption raised where Python ignores exceptions (a weakref callback or a
    ``__del__`` that the signal happened to land in) is delivered again; anything else goes to ``previous``."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):  # sent again once the callback has returned
        signum = getattr(unraisable.exc_value, "signum", signal.SIGINT)
        again = threading.Timer(POLL, os.kill, (os.getpid(), signum))
        again.daemon = True
        again.start()
    else:
        previous(unraisable)


@contextmanager
def signals() -> Iterator[None]:
    """A command's main thread: Ctrl-C raises :class:`Interrupted` and SIGTERM :class:`Terminated` (both
    ``KeyboardInterrupt``), :func:`received` remembers which, and an interruption that lands where Python would
    ignore it is delivered again."""
    if not _on_main():
        yield
        return
    _received[0] = 0
    previous = {sig: signal.signal(sig, _raise) for sig in SIGNALS
                if sig == signal.SIGTERM or signal.getsignal(sig) is signal.default_int_handler}
    hook = sys.unraisablehook
    sys.unraisablehook = lambda unraisable: _again(unraisable, hook)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        sys.unraisablehook = hook
        _received[0] = 0


@contextmanager
def deferred() -> Iterator[np.ndarray]:
    """A halt flag (``int64[1]``, 0 until halted) for a block that must not be cut mid-step: on the main thread,
    Ctrl-C and SIGTERM (where they raise) set it to their number instead of raising, and it starts set when the
    command was already interrupted (:func:`received`: a library caught the interruption before the block); the
    current stop sets it to :data:`CANCEL`.  The block polls it and decides."""
    import numpy as np  # here: the command line starts without numpy

    flag = np.zeros(1, dtype=np.int64)
    stop = current()
    previous: dict[int, Any] = {}
    if _on_main():
        if signal.getsignal(signal.SIGINT) is _raise:  # under signals(): an interruption some library swallowed
            flag[0] = _received[0]                      # before the block began still stops it
        def note(signum: int, frame: Any) -> None:
            flag[0] = flag[0] or signum
            _received[0] = signum

        for sig in SIGNALS:
            handler = signal.getsignal(sig)
            if handler is signal.default_int_handler or handler is _raise:
                previous[sig] = signal.signal(sig, note)
    try:
        if stop is None:
            yield flag
        else:
            with stop.watching(flag):
                yield flag
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def run_kernel(kernel: Callable[..., Any], *args: Any) -> Any:
    """``kernel(*args, halt)``, where no signal can land inside it: on the main thread it runs in a helper thread
    with Ctrl-C and SIGTERM blocked while this thread waits; a signal or the current stop sets ``halt`` and, once
    the kernel has returned (or :data:`GRACE` seconds later if it is still compiling), :class:`Interrupted` is
    raised.

    >>> run_kernel(lambda x, halt: x + int(halt[0]), 41)
    41
    """
    with deferred() as halt:
        if not _on_main():
            out = kernel(*args, halt)
        else:
            box: dict[str, Any] = {}

            def work() -> None:
                signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
                try:
                    box["out"] = kernel(*args, halt)
                except BaseException as err:  # noqa: BLE001 - handed to the waiting thread
                    box["err"] = err

            helper = threading.Thread(target=work, name="dicelab-kernel", daemon=True)
            helper.start()
            while helper.is_alive() and not halt[0]:
                helper.join(POLL)
            helper.join(GRACE)
            if helper.is_alive():  # still compiling: it stops at its first poll, in the background
                raise raised(int(halt[0]))
            if "err" in box:
                raise box["err"]
            out = box["out"]
    if halt[0]:
        raise raised(int(halt[0]))
    return out
