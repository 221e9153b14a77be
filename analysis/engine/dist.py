"""Exact integer-valued distributions.

A :class:`Dist` is an offset and a numpy array of probabilities: ``p[i]`` is
P(X = offset + i).  It is immutable.  Distributions of unbounded processes
(exploding dice) are cut once the unresolved probability falls below a
tolerance; that mass is kept as :attr:`Dist.residual`, so that
``total() + residual == 1`` and every figure derived from the distribution is
exact to within ``residual``.

All arithmetic goes through :meth:`Dist.binary_operator` (sums take its
convolution fast path), after icepool's design.  Method names follow
scipy.stats: ``pmf``, ``cdf`` (P(X <= k)), ``sf`` (P(X > k)), ``mean``, ``std``.

>>> d6 = Dist.die(range(1, 7))
>>> two = 2 @ d6
>>> round(float(two.pmf(7)), 6), round(float(two.cdf(4)), 6), round(two.mean(), 12)
(0.166667, 0.166667, 7.0)
"""

from __future__ import annotations

import math
import operator
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

TOL = 1e-18
"""Default tolerance on the unresolved mass of an unbounded process."""

Operand = "Dist | int"


class Dist:
    """An immutable distribution over integers, possibly truncated.

    >>> Dist.from_pmf({0: 0.25, 2: 0.75}).support.tolist()
    [0, 1, 2]
    """

    __slots__ = ("_offset", "_p", "_residual")

    def __init__(self, offset: int, p: ArrayLike, residual: float = 0.0):
        arr = np.array(p, dtype=np.float64)
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError("a distribution needs a non-empty 1-d probability array")
        if np.any(arr < 0):
            raise ValueError("probabilities must be non-negative")
        nz = np.flatnonzero(arr)
        if nz.size == 0:
            raise ValueError("a distribution needs some probability mass")
        arr = arr[nz[0] : nz[-1] + 1]
        arr.setflags(write=False)
        self._offset = int(offset) + int(nz[0])
        self._p = arr
        self._residual = float(residual)

    # ----------------------------------------------------------- constructors
    @classmethod
    def constant(cls, value: int) -> "Dist":
        """The distribution that is always ``value``.

        >>> Dist.constant(3).mean()
        3.0
        """
        return cls(value, [1.0])

    @classmethod
    def die(cls, faces: Iterable[int]) -> "Dist":
        """A fair die with the given integer faces (repeats allowed).

        >>> Dist.die((-1, 0, 1)).to_dict()
        {-1: 0.3333333333333333, 0: 0.3333333333333333, 1: 0.3333333333333333}
        """
        values = np.asarray(list(faces), dtype=np.int64)
        if values.size == 0:
            raise ValueError("a die needs at least one face")
        lo = int(values.min())
        counts = np.bincount(values - lo)
        return cls(lo, counts / values.size)

    @classmethod
    def from_pmf(cls, pmf: Mapping[int, float], residual: float = 0.0) -> "Dist":
        """From a mapping ``value -> probability``."""
        keys = np.fromiter((int(k) for k in pmf), dtype=np.int64)
        probs = np.fromiter((float(v) for v in pmf.values()), dtype=np.float64)
        return cls._from_arrays(keys, probs, residual)

    @classmethod
    def _from_arrays(cls, values: NDArray[np.int64], probs: NDArray[np.float64], residual: float = 0.0) -> "Dist":
        lo = int(values.min())
        return cls(lo, np.bincount(values - lo, weights=probs), residual)

    @classmethod
    def mixture(cls, parts: Sequence[tuple[float, "Dist"]]) -> "Dist":
        """The mixture ``sum(w * d)`` of distributions with weights summing to 1.

        >>> Dist.mixture([(0.5, Dist.constant(0)), (0.5, Dist.constant(2))]).mean()
        1.0
        """
        parts = [(w, d) for w, d in parts if w > 0]
        lo = min(d.min for _, d in parts)
        hi = max(d.max for _, d in parts)
        out = np.zeros(hi - lo + 1)
        residual = 0.0
        for w, d in parts:
            out[d.min - lo : d.max - lo + 1] += w * d._p
            residual += w * d._residual
        return cls(lo, out, residual)

    @classmethod
    def exploding(
        cls,
        faces: Iterable[int],
        explode_on: Iterable[int],
        *,
        extra_faces: Iterable[int] | None = None,
        depth: int | None = None,
        tol: float = TOL,
    ) -> "Dist":
        """A die whose faces in ``explode_on`` add their value and roll one extra die.

        The extra die has ``extra_faces`` (default: ``faces``) and explodes on
        the same values, without limit when ``depth`` is None, else at most
        ``depth`` extra dice are rolled.  Without a depth the tail is cut once
        the unresolved mass is below ``tol``; that mass is :attr:`residual`.

        >>> x = Dist.exploding((0, 2, 3, 4, 5, 6), explode_on=(6,))
        >>> round(float(x.mean()), 12), x.residual < 1e-18
        (4.0, True)
        """
        if depth is not None and depth < 0:
            raise ValueError("depth must be None or >= 0")
        explode = set(int(v) for v in explode_on)
        base = _split(faces, explode)
        if depth == 0:
            return cls(*_join(base))
        extra = _split(faces if extra_faces is None else extra_faces, explode)
        go_mass = float(extra[1][1].sum())
        if depth is None and go_mass >= 1.0:
            raise ValueError("every face of the extra die explodes: give a depth")
        # E = stop + go * E, unrolled: E_k = sum_{j<k} go^j * stop (+ go^k * go-values at the depth cap).
        acc = (0, np.zeros(1))
        prefix = (0, np.ones(1))
        level = 0
        while True:
            if depth is not None and level == depth - 1:
                acc = _add_sub(acc, _conv(prefix, _join(extra)))
                prefix_mass = 0.0
                break
            acc = _add_sub(acc, _conv(prefix, extra[0]))
            prefix = _conv(prefix, extra[1])
            level += 1
            prefix_mass = go_mass**level
            if depth is None and prefix_mass < tol or go_mass == 0.0:
                break
        whole = _add_sub(base[0], _conv(base[1], acc))
        residual = float(base[1][1].sum()) * prefix_mass
        return cls(whole[0], whole[1], residual)

    # -------------------------------------------------------------- structure
    @property
    def offset(self) -> int:
        """The smallest value with positive probability."""
        return self._offset

    @property
    def p(self) -> NDArray[np.float64]:
        """Read-only probabilities over :attr:`support`."""
        return self._p

    @property
    def residual(self) -> float:
        """Probability mass not represented (truncation of an unbounded process)."""
        return self._residual

    @property
    def support(self) -> NDArray[np.int64]:
        """The values ``offset .. offset + len(p) - 1``."""
        return np.arange(self._offset, self._offset + self._p.size, dtype=np.int64)

    @property
    def min(self) -> int:
        return self._offset

    @property
    def max(self) -> int:
        return self._offset + self._p.size - 1

    def total(self) -> float:
        """Represented probability: ``1 - residual`` up to rounding."""
        return math.fsum(self._p)

    def to_dict(self) -> dict[int, float]:
        """``value -> probability`` for values with positive probability."""
        return {int(v): float(q) for v, q in zip(self.support, self._p) if q > 0}

    def __repr__(self) -> str:
        items = ", ".join(f"{k}: {v:.6g}" for k, v in list(self.to_dict().items())[:8])
        more = ", ..." if np.count_nonzero(self._p) > 8 else ""
        res = f", residual={self._residual:.3g}" if self._residual else ""
        return f"Dist({{{items}{more}}}{res})"

    # ---------------------------------------------------------------- queries
    def pmf(self, k: ArrayLike) -> Any:
        """P(X = k), vectorised."""
        k = np.asarray(k, dtype=np.int64)
        idx = k - self._offset
        ok = (idx >= 0) & (idx < self._p.size)
        return np.where(ok, self._p[np.clip(idx, 0, self._p.size - 1)], 0.0)

    def cdf(self, k: ArrayLike) -> Any:
        """P(X <= k), vectorised."""
        idx = np.clip(np.floor(np.asarray(k, dtype=np.float64)) - self._offset + 1, 0, self._p.size).astype(np.int64)
        return np.clip(self._cum()[idx], 0.0, 1.0)

    def sf(self, k: ArrayLike) -> Any:
        """P(X > k) over the represented mass, vectorised."""
        idx = np.clip(np.floor(np.asarray(k, dtype=np.float64)) - self._offset + 1, 0, self._p.size).astype(np.int64)
        return np.clip(self._rcum()[idx], 0.0, 1.0)

    def _cum(self) -> NDArray[np.float64]:
        return np.concatenate(([0.0], np.cumsum(self._p)))

    def _rcum(self) -> NDArray[np.float64]:
        return np.concatenate((np.cumsum(self._p[::-1])[::-1], [0.0]))

    def prob(self, predicate: Callable[[NDArray[np.int64]], Any] | ArrayLike) -> float:
        """P(predicate(X)): the predicate vectorised over values, or a mask over :attr:`support`.

        >>> Dist.die(range(1, 7)).prob(lambda v: v % 2 == 0)
        0.5
        """
        mask = np.asarray(predicate(self.support) if callable(predicate) else predicate, dtype=bool)
        return _clip01(math.fsum(self._p[np.broadcast_to(mask, self._p.shape)]))

    def mean(self) -> float:
        """E[X] over the represented mass."""
        return float(np.dot(self.support, self._p))

    def var(self) -> float:
        """Var[X] over the represented mass."""
        centred = self.support - self.mean()
        return float(np.dot(centred * centred, self._p))

    def std(self) -> float:
        """Standard deviation."""
        return float(np.sqrt(self.var()))

    def median(self) -> int:
        """The smallest k with P(X <= k) >= 1/2."""
        return int(self._offset + np.searchsorted(np.cumsum(self._p), 0.5 - 1e-12))

    # ------------------------------------------------------------- arithmetic
    def binary_operator(self, other: "Dist | int", op: Callable[[Any, Any], Any]) -> "Dist":
        """The distribution of ``op(X, Y)`` for independent X (self) and Y.

        ``op`` works on numpy arrays; booleans become 0/1.  Addition uses a
        direct convolution, every other operator the outer product.

        >>> Dist.die((1, 2)).binary_operator(Dist.die((1, 2)), np.maximum).to_dict()
        {1: 0.25, 2: 0.75}
        """
        other = other if isinstance(other, Dist) else Dist.constant(int(other))
        residual = self._residual + other._residual - self._residual * other._residual
        if op is operator.add:
            return Dist(self._offset + other._offset, np.convolve(self._p, other._p), residual)
        values = np.asarray(op(self.support[:, None], other.support[None, :])).astype(np.int64)
        probs = np.outer(self._p, other._p)
        return Dist._from_arrays(values.ravel(), probs.ravel(), residual)

    def map(self, func: Callable[[NDArray[np.int64]], Any]) -> "Dist":
        """The distribution of ``func(X)``, ``func`` vectorised over values.

        >>> Dist.die(range(1, 7)).map(lambda v: np.minimum(v, 3)).to_dict()[3]
        0.6666666666666666
        """
        values = np.broadcast_to(np.asarray(func(self.support)).astype(np.int64), self._p.shape)
        return Dist._from_arrays(values, self._p, self._residual)

    def __add__(self, other: "Dist | int") -> "Dist":
        return self.binary_operator(other, operator.add)

    __radd__ = __add__

    def __sub__(self, other: "Dist | int") -> "Dist":
        return self + (-other)

    def __rsub__(self, other: "Dist | int") -> "Dist":
        return (-self) + other

    def __neg__(self) -> "Dist":
        return Dist(-self.max, self._p[::-1], self._residual)

    def __mul__(self, k: int) -> "Dist":
        """Scale the values by an integer (``d6 * 3`` takes 3, 6, ..., 18)."""
        return self.binary_operator(int(k), operator.mul)

    __rmul__ = __mul__

    def __rmatmul__(self, n: int) -> "Dist":
        """``n @ die``: the sum of ``n`` independent rolls."""
        return self.repeat_sum(n)

    def __le__(self, k: int) -> "Dist":  # type: ignore[override]
        return self.binary_operator(k, operator.le)

    def __lt__(self, k: int) -> "Dist":  # type: ignore[override]
        return self.binary_operator(k, operator.lt)

    def __ge__(self, k: int) -> "Dist":  # type: ignore[override]
        return self.binary_operator(k, operator.ge)

    def __gt__(self, k: int) -> "Dist":  # type: ignore[override]
        return self.binary_operator(k, operator.gt)

    def repeat_sum(self, n: int) -> "Dist":
        """The sum of ``n >= 1`` independent copies, by repeated squaring.

        >>> (3 @ Dist.die(range(1, 7))).min, (3 @ Dist.die(range(1, 7))).max
        (3, 18)
        """
        if n < 1:
            raise ValueError("n must be >= 1")
        result: Dist | None = None
        power = self
        while n:
            if n & 1:
                result = power if result is None else result + power
            n >>= 1
            if n:
                power = power + power
        assert result is not None
        return result

    def clip(self, lo: int | None = None, hi: int | None = None) -> "Dist":
        """Values clipped into ``lo..hi``."""
        return self.map(lambda v: np.clip(v, lo, hi))


def _clip01(x: float) -> float:
    return min(1.0, max(0.0, float(x)))


# ----------------------------------------------------------- sub-distributions
_Sub = tuple[int, NDArray[np.float64]]


def _split(faces: Iterable[int], explode: set[int]) -> tuple[_Sub, _Sub]:
    """A die's (stopping, exploding) parts as sub-distributions."""
    values = np.asarray(list(faces), dtype=np.int64)
    if values.size == 0:
        raise ValueError("a die needs at least one face")
    mask = np.isin(values, list(explode))
    return _sub(values[~mask], values.size), _sub(values[mask], values.size)


def _sub(values: NDArray[np.int64], n: int) -> _Sub:
    if values.size == 0:
        return (0, np.zeros(1))
    lo = int(values.min())
    return (lo, np.bincount(values - lo) / n)


def _conv(a: _Sub, b: _Sub) -> _Sub:
    return (a[0] + b[0], np.convolve(a[1], b[1]))


def _add_sub(a: _Sub, b: _Sub) -> _Sub:
    lo = min(a[0], b[0])
    hi = max(a[0] + a[1].size, b[0] + b[1].size)
    out = np.zeros(hi - lo)
    out[a[0] - lo : a[0] - lo + a[1].size] += a[1]
    out[b[0] - lo : b[0] - lo + b[1].size] += b[1]
    return (lo, out)


def _join(parts: tuple[_Sub, _Sub]) -> _Sub:
    return _add_sub(parts[0], parts[1])
