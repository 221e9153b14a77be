"""The exact distribution engine against brute-force enumeration."""

from __future__ import annotations

import itertools
import operator
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from analysis.engine.dist import Dist
from tests.brute import enumerate_dice, onesix_chain, pmf_of

faces_st = st.lists(st.integers(-6, 6), min_size=1, max_size=6)


def assert_matches(dist: Dist, pmf: dict, tol: float = 1e-12) -> None:
    got = dist.to_dict()
    for k in set(got) | set(pmf):
        assert abs(got.get(k, 0.0) - float(pmf.get(k, 0))) <= tol, k


@given(faces_st, st.integers(1, 4))
def test_n_dice_sum_matches_enumeration(faces, n):
    pmf = pmf_of((sum(r), p) for r, p in enumerate_dice(faces, n))
    assert_matches(n @ Dist.die(faces), pmf)


@given(faces_st, faces_st)
def test_binary_operators_match_enumeration(a, b):
    da, db = Dist.die(a), Dist.die(b)
    for op in (operator.add, operator.sub, operator.mul, np.maximum, np.minimum):
        pmf = pmf_of((int(op(x, y)), Fraction(1, len(a) * len(b))) for x, y in itertools.product(a, b))
        assert_matches(da.binary_operator(db, op), pmf)
    assert_matches(da - db, pmf_of((x - y, Fraction(1, len(a) * len(b))) for x, y in itertools.product(a, b)))


@given(faces_st, st.integers(-8, 8))
def test_views_are_consistent(faces, k):
    d = 2 @ Dist.die(faces)
    rolls = [sum(r) for r, _ in enumerate_dice(faces, 2)]
    n = len(rolls)
    assert d.pmf(k) == pytest.approx(rolls.count(k) / n, abs=1e-12)
    assert d.cdf(k) == pytest.approx(sum(r <= k for r in rolls) / n, abs=1e-12)
    assert d.sf(k) == pytest.approx(sum(r > k for r in rolls) / n, abs=1e-12)
    assert d.mean() == pytest.approx(np.mean(rolls), abs=1e-12)
    assert d.std() == pytest.approx(np.std(rolls), abs=1e-12)
    assert (d <= k).pmf(1) == pytest.approx(d.cdf(k), abs=1e-12)
    assert (d > k).pmf(1) == pytest.approx(d.sf(k), abs=1e-12)


@given(faces_st, st.integers(1, 5))
def test_probabilities_sum_to_one(faces, n):
    d = n @ Dist.die(faces)
    assert abs(d.total() - 1) < 1e-12
    assert d.residual == 0


def test_scaling_and_negation():
    d6 = Dist.die(range(1, 7))
    assert (d6 * 3).to_dict() == {v: pytest.approx(1 / 6) for v in (3, 6, 9, 12, 15, 18)}
    assert (-d6).to_dict() == {-v: pytest.approx(1 / 6) for v in range(1, 7)}
    assert (10 - d6).min == 4 and (10 - d6).max == 9


def test_mixture():
    mix = Dist.mixture([(0.25, Dist.constant(1)), (0.75, Dist.die((2, 4)))])
    assert_matches(mix, {1: Fraction(1, 4), 2: Fraction(3, 8), 4: Fraction(3, 8)})


def test_distributions_are_immutable():
    d = Dist.die(range(1, 7))
    with pytest.raises(ValueError):
        d.p[0] = 1.0


@pytest.mark.parametrize("depth", [0, 1, 2, 3, 5])
@pytest.mark.parametrize("ones_count", [False, True])
def test_exploding_with_depth_is_exact(depth, ones_count):
    extra = (1, 2, 3, 4, 5, 6) if ones_count else (0, 2, 3, 4, 5, 6)
    d = Dist.exploding((0, 2, 3, 4, 5, 6), (6,), extra_faces=extra, depth=depth)
    assert d.residual == 0
    assert_matches(d, onesix_chain(depth, True, ones_count))


def test_unbounded_explosion_reports_its_truncation():
    d = Dist.exploding((0, 2, 3, 4, 5, 6), (6,), tol=1e-9)
    assert 0 < d.residual < 1e-9
    assert abs(d.total() + d.residual - 1) < 1e-12
    exact = onesix_chain(None, True, False)
    assert_matches(d, exact, tol=1e-9)


def test_unbounded_explosion_mean_is_four():
    """Under the rule of 1 and 6 the die's mean solves E = 14/6 + (6 + E)/6, i.e. E = 4."""
    d = Dist.exploding((0, 2, 3, 4, 5, 6), (6,))
    assert d.residual < 1e-15
    assert d.mean() == pytest.approx(4.0, abs=1e-12)
    assert abs(d.total() + d.residual - 1) < 1e-12


def test_exploding_needs_a_depth_when_every_face_explodes():
    with pytest.raises(ValueError, match="depth"):
        Dist.exploding((6,), (6,))
