"""benchmarks/bench_fleet.py's pure parts: the least-squares fit of wall time on fleet size, and the cases it
builds from per-N results (issue 10's schema, the 25-vs-1 target compared the right way round)."""
import importlib.util
import os

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIELDS = ["name", "unit", "ours", "peer", "peer_name", "ratio", "target", "met"]


def load():
    spec = importlib.util.spec_from_file_location("bench_fleet", os.path.join(REPO, "benchmarks", "bench_fleet.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


bench = load()


def test_fit_recovers_an_exact_line():
    a, b, r2 = bench.linear_fit([1, 5, 25], [10.0 + 3.0 * n for n in (1, 5, 25)])
    assert a == pytest.approx(10.0)
    assert b == pytest.approx(3.0)
    assert r2 == pytest.approx(1.0)


def test_fit_of_scattered_points_matches_the_normal_equations():
    xs, ys = [1, 2, 3, 4], [2.0, 4.0, 5.0, 4.0]
    a, b, r2 = bench.linear_fit(xs, ys)
    # by hand: mean x 2.5, mean y 3.75, Sxy 3.5, Sxx 5 -> b 0.7, a 2.0; SSres 2.3, SStot 4.75
    assert b == pytest.approx(0.7)
    assert a == pytest.approx(2.0)
    assert r2 == pytest.approx(1 - 2.3 / 4.75)
    assert 0 < r2 < 1


def test_flat_times_fit_with_zero_slope():
    a, b, r2 = bench.linear_fit([1, 5, 25], [60.0, 60.0, 60.0])
    assert (a, b, r2) == (pytest.approx(60.0), pytest.approx(0.0), 1.0)


@pytest.mark.parametrize("xs", [[1], [5, 5], []])
def test_fit_refuses_too_few_distinct_sizes(xs):
    with pytest.raises(ValueError):
        bench.linear_fit(xs, [1.0] * len(xs))


def run(n, wall, verified=None):
    return {"n": n, "wall_s": wall, "verified": n if verified is None else verified, "api_rps": 10.0,
            "aws_rps": 1.0, "peak_rss_tree_mib": 100.0 * n}


def test_cpu_per_cluster_and_its_fit_when_measured():
    runs = [dict(run(1, 60.0), playbook_cpu_s=28.0), dict(run(5, 290.0), playbook_cpu_s=140.0)]
    cases = by_name(bench.cases_from(runs))
    assert cases["fleet: playbook CPU per cluster, N=5"]["ours"] == 28.0
    fit = cases["fleet: wall time fit a + b*N"]
    assert fit["cpu_b_s"] == pytest.approx(28.0)
    assert fit["cpu_a_s"] == pytest.approx(0.0)


def by_name(cases):
    return dict((c["name"], c) for c in cases)


def test_cases_compare_the_biggest_fleet_with_one_cluster():
    cases = by_name(bench.cases_from([run(25, 100.0), run(1, 60.0), run(5, 70.0)]))
    for c in cases.values():
        assert all(k in c for k in FIELDS), c["name"]
    vs = cases["fleet: 25 vs 1 wall time"]
    assert vs["ours"] == pytest.approx(100.0 / 60.0, abs=0.01)
    assert vs["peer"] == 25
    assert vs["ratio"] == pytest.approx(25 * 60.0 / 100.0, abs=0.01)
    assert vs["target"] == 2.0 and vs["met"] is True
    fit = cases["fleet: wall time fit a + b*N"]
    assert fit["points"] == [[1, 60.0], [5, 70.0], [25, 100.0]]
    assert cases["fleet: wall time, N=5"]["peer"] == 300.0


def test_a_fleet_slower_than_twice_one_misses_the_target_and_unverified_is_not_met():
    cases = by_name(bench.cases_from([run(1, 60.0), run(25, 130.0, verified=24)]))
    assert cases["fleet: 25 vs 1 wall time"]["met"] is False
    assert cases["fleet: verified, N=25"]["met"] is False
    assert cases["fleet: verified, N=1"]["met"] is True


def test_without_n1_there_is_no_ratio_case():
    names = by_name(bench.cases_from([run(5, 70.0), run(25, 100.0)]))
    assert "fleet: 25 vs 1 wall time" not in names
    assert names["fleet: wall time, N=5"]["peer"] is None
