"""An explicit game (or chain) built by exploring a fight's states from its start (RULES.md sections 7 and 8).

A system describes its fight by one function, ``step(state)``: ``None`` for a
state that ends the fight, or ``(na, nb, options)`` — the number of actions of
side A and of side B at that moment (1 = no choice) and the ``na * nb``
options in the order ``i * nb + j``, each a list of ``(probability, next
state)``.  States are any hashable values (tuples of conditions, the IN each
fighter holds, whose turn it is...).  :func:`explore` walks every state
reachable from the start, numbers them in the order met, and returns the
:class:`~analysis.engine.game.Game` with the states themselves, so the caller
can read each end's outcome and each decision's features from them.

A state count past ``max_states`` stops the walk with a one-line error (the
caller estimates first; this is the backstop).

>>> def step(s):  # a coin tossed until heads: state = tosses so far, capped at 3
...     return None if s == "heads" or s == 3 else (1, 1, [[(0.5, "heads"), (0.5, s + 1)]])
>>> ex = explore(0, step, round_start=lambda s: isinstance(s, int))
>>> ex.states, ex.game.n
(['0', 'heads', '1', '2', '3'], 5)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Hashable, Sequence

import numpy as np

from analysis.base.params import DicelabError
from analysis.engine.game import Game

Step = Callable[[Any], "tuple[int, int, Sequence[Sequence[tuple[float, Any]]]] | None"]


@dataclass(frozen=True)
class Explored:
    """The game found and its states, in index order (``states[k]`` is state ``k``; shown as text in doctests)."""

    game: Game
    labels: tuple[Hashable, ...]

    @property
    def states(self) -> list[str]:
        return [str(s) for s in self.labels]


def explore(start: Hashable, step: Step, round_start: Callable[[Any], bool],
            book: Callable[[Any], tuple[int, int]] | None = None, max_states: int = 2_000_000) -> Explored:
    """Every state reachable from ``start`` by ``step`` (see the module docstring); ``round_start(s)``: a round
    begins on entering ``s``; ``book(s)``: the actions ``(i, j)`` the fighters' policies take at ``s``."""
    index: dict[Hashable, int] = {start: 0}
    labels: list[Hashable] = [start]
    na, nb, opt, edge, to, p = [], [], [0], [0], [], []
    k = 0
    while k < len(labels):
        s = labels[k]
        got = step(s)
        if got is None:
            na.append(0), nb.append(0)
        else:
            a, b, options = got
            if len(options) != a * b:
                raise ValueError(f"state {s!r}: {len(options)} options for {a} x {b} actions")
            na.append(a), nb.append(b)
            for option in options:
                for q, t in option:
                    j = index.get(t)
                    if j is None:
                        j = index[t] = len(labels)
                        labels.append(t)
                        if len(labels) > max_states:
                            raise DicelabError(f"the fight has more than {max_states:,} states; allowed: smaller "
                                               "sides or shorter tracks (or Monte Carlo: dicelab sim)")
                    to.append(j), p.append(q)
                edge.append(len(to))
        opt.append(len(edge) - 1)
        k += 1
    n = len(labels)
    books = [book(s) if book is not None and na[i] * nb[i] else (0, 0) for i, s in enumerate(labels)]
    game = Game(np.asarray(na, dtype=np.int64), np.asarray(nb, dtype=np.int64), np.asarray(opt, dtype=np.int64),
                np.asarray(edge, dtype=np.int64), np.asarray(to, dtype=np.int64), np.asarray(p, dtype=float),
                np.zeros(n), np.array([bool(round_start(s)) for s in labels], dtype=bool),
                np.array([b[0] for b in books], dtype=np.int64), np.array([b[1] for b in books], dtype=np.int64), 0)
    return Explored(game, tuple(labels))
