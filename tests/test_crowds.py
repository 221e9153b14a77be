"""Why numbers matter (analysis.tools.crowds): Lanchester's exponent against fights whose law is known, the crowd
curve against the exact group chains, and the fair counts against their curves."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from analysis.base.params import DicelabError
from analysis.fights.budget import exact_duel, exact_group
from analysis.fights.fighters import load_fighter
from analysis.systems import get_system
from analysis.tools import crowds


def law_fights(k: int, pairs: list[tuple[int, int]], edge: Fraction = Fraction(0)) -> dict:
    """Survivor weights of fights that keep m^k − n^k exactly: the larger side always wins, its survivors s
    take two neighbouring counts with the weights that make E[s^k] = m^k − n^k; ``edge`` moves weight between
    them on side A's fights only in the m > n way and back in the n > m way, so the two ways' edges cancel."""
    out = {}
    for m, n in pairs:
        target = Fraction(m ** k - n ** k)
        lo = max(s for s in range(1, m + 1) if s ** k <= target)
        hi = lo + 1 if lo ** k < target else lo
        w_hi = (target - lo ** k) / (hi ** k - lo ** k) if hi != lo else Fraction(1)
        big = [Fraction(0)] * (m + 1)
        big[lo] += 1 - w_hi
        big[hi] += w_hi
        small = [Fraction(1)] + [Fraction(0)] * n
        out[(m, n)] = ([float(x) for x in big], [float(x) for x in small])
        out[(n, m)] = ([float(x) for x in small], [float(x) for x in big])
    return out


@pytest.mark.parametrize("k", [1, 2, 3])
def test_lanchester_recovers_the_law_that_made_the_fights(k):
    fit = crowds.lanchester(law_fights(k, [(2, 1), (3, 2), (4, 3)]))
    assert fit.k == pytest.approx(k, abs=1e-9)


def test_lanchester_pair_by_pair_matches_a_hand_root():
    """2 against 1 where the pair wins with both standing 60% of the time, one standing otherwise: k solves
    0.6·2^k + 0.4 = 2^k − 1, so 2^k = 3.5 (found here by hand, not by the fitted equation)."""
    fights = {(2, 1): ([0, 0.4, 0.6], [1.0, 0]), (1, 2): ([1.0, 0], [0, 0.4, 0.6])}
    assert crowds.lanchester(fights).k == pytest.approx(np.log(3.5) / np.log(2), abs=1e-9)


def test_lanchester_interval_covers_the_truth_on_sampled_fights():
    """Multinomial samples of fights of a known k = 2 law: the fitted k lands within 4 SE, and its 95% interval
    covers 2 in at least 85 of 100 samples."""
    rng = np.random.default_rng(7)
    exact = law_fights(2, [(2, 1), (3, 2), (4, 3)])
    covered = 0
    for _ in range(100):
        fights = {}
        for (m, n), (a, b) in exact.items():
            if m > n:
                fights[(m, n)] = (rng.multinomial(2000, a), [2000] + [0] * n)
            else:
                fights[(m, n)] = ([2000] + [0] * m, rng.multinomial(2000, b))
        fit = crowds.lanchester(fights)
        assert abs(fit.k - 2) < 4 * fit.se
        covered += fit.ci[0] <= 2 <= fit.ci[1]
    assert covered >= 85


def test_lanchester_refuses_what_it_cannot_fit():
    with pytest.raises(DicelabError, match="both ways"):
        crowds.lanchester({(2, 1): ([0, 0, 1], [1, 0])})
    with pytest.raises(DicelabError, match="never loses a fighter"):
        crowds.lanchester({(2, 1): ([0, 0, 1], [1, 0]), (1, 2): ([1, 0], [0, 0, 1])})


@pytest.fixture(scope="module")
def crowd():
    return crowds.crowd(counts=4, n=4000)


def test_groups_are_modelled_in_every_system():
    assert set(crowds.GROUPED) == {"tristat", "onesix", "tun", "kurs"} and crowds.missing() == []


@pytest.mark.parametrize("sid", crowds.GROUPED)
def test_crowd_points_agree_with_the_exact_chain(crowd, sid):
    """Exact points are the exact group chain; Monte Carlo points agree with it within 4 SE where the chain fits
    (one against three in ТУН, whose chain is small)."""
    system = get_system(sid)
    part = crowd[crowd["system"] == sid].set_index("count")
    hero, mook = load_fighter(system, crowds.HERO), load_fighter(system, crowds.MOOK)
    if sid == "onesix":  # 2K's default group_timing, the IN economy, is exact one against one only
        with pytest.raises(DicelabError, match="group_timing = economy is too large"):
            exact_group(system, system.rules(), [hero], [mook] * 2)
        assert part.loc[1, "method"] == "exact" and (part.loc[2:, "method"] == "monte_carlo").all()
        return
    two = exact_group(system, system.rules(), [hero], [mook] * 2).solution
    assert part.loc[2, "method"] == "exact" and part.loc[2, "p_a_wins"] == pytest.approx(two.p_a_wins, abs=1e-12)
    assert (part.loc[3:, "method"] == "monte_carlo").all() and (part.loc[3:, "n"] == 4000).all()
    if sid == "tun":
        three = exact_group(system, system.rules(), [hero], [mook] * 3).solution
        assert abs(part.loc[3, "p_a_wins"] - three.p_a_wins) <= 4 * max(part.loc[3, "se"], 1 / 4000)


@pytest.mark.parametrize("sid", crowds.GROUPED)
def test_more_enemies_never_help(crowd, sid):
    part = crowd[crowd["system"] == sid]
    p, se = part["p_a_wins"].to_numpy(), part["se"].fillna(0).to_numpy()
    assert (np.diff(p) <= 4 * (se[1:] + se[:-1]) + 1e-12).all()


def test_fair_count_is_where_its_curve_crosses_one_half():
    fair = crowds.fair_counts(n=2000, pairs=[("veteran", "novice")])
    for row in fair.itertuples():
        if row.fair_count is pd.NA:
            assert row.note == f"P(side A wins) stays at or above 0.5 up to {crowds.MAX_COUNT}"
            continue
        assert row.p_a_wins_at < 0.5 <= row.p_a_wins_before
        system = get_system(row.system)
        if row.fair_count == 2:
            one = exact_duel(system, system.rules(), load_fighter(system, "veteran"),
                             load_fighter(system, "novice")).solution
            assert row.p_a_wins_before == pytest.approx(one.p_a_wins, abs=1e-12)


def test_same_seed_same_numbers():
    a = crowds.exponent_points(n=500, sizes=((2, 1),))
    b = crowds.exponent_points(n=500, sizes=((2, 1),))
    assert a.equals(b) and set(a["system"]) == set(crowds.GROUPED)
    fit = crowds.exponents(a)
    assert (fit["k_lo"] < fit["k"]).all() and (fit["k"] < fit["k_hi"]).all()


def test_the_example_sweep_holds_the_crowd_figures_data(crowd, tmp_path):
    """examples/sweeps/report_crowd.toml (every point by Monte Carlo) agrees with the report's crowd table (exact up
    to three fighters) within 4 combined SE at every count."""
    from pathlib import Path

    from analysis.front import sweep

    config = Path(__file__).resolve().parents[1] / "examples" / "sweeps" / "report_crowd.toml"
    out = tmp_path / "crowd.parquet"
    sweep.run_sweep(config, out, workers=1)
    rows = pd.read_parquet(out)
    rows["count"] = rows["b_fighters"]
    both = rows.merge(crowd, on=["system", "count"], suffixes=("_sweep", "_report"))
    assert len(both) == len(crowd) == len(crowds.GROUPED) * 4
    se = np.sqrt(both["se_p_a_wins"] ** 2 + both["se"].fillna(0) ** 2)
    assert (np.abs(both["p_a_wins_sweep"] - both["p_a_wins_report"]) <= 4 * np.maximum(se, 1e-4)).all()
