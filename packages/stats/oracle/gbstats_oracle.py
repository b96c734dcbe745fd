"""Reference values for @arbiter/stats' CUPED, confidence sequences, quantile and ratio metrics,
from GrowthBook's own stats engine gbstats (PyPI, pinned in oracle/requirements.txt).

Reads {"cases": [...]} as JSON on stdin, writes {"results": [...]} on stdout, one result per
case in the same order. Spawned once per test run by test/gbstats-oracle.test.ts and
test/quantile-ratio-oracle.test.ts. The per-user
data are summed here with numpy, so our summaries are checked too, not only the formulas.
Every comparison uses difference_type="absolute" (our `effect` is treatment - control); the
relative point estimate is returned as well, to check our `lift`.
"""
import sys
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, localcontext

from oracle_io import answer, num, cap_bounds, clip

REQUEST = sys.stdin.read()

try:
    import numpy as np
    import gbstats
    from gbstats.frequentist.tests import (
        FrequentistConfig,
        SequentialConfig,
        SequentialTwoSidedTTest,
        TwoSidedTTest,
    )
    from gbstats.models.statistics import (
        ProportionStatistic,
        QuantileClusteredStatistic,
        RatioStatistic,
        RegressionAdjustedStatistic,
        SampleMeanStatistic,
    )
except ImportError as err:  # the test turns this exit code and message into a failure
    sys.stderr.write(
        "gbstats oracle: cannot import gbstats with %s (%s). Install with: "
        "%s -m pip install -r packages/stats/oracle/requirements.txt (gbstats 0.8.0 needs "
        "Python <= 3.11: it pins numpy<2 and pandas<2)\n" % (sys.executable, err, sys.executable)
    )
    sys.exit(3)


def mean_stat(y):
    y = np.asarray(y, dtype=float)
    return SampleMeanStatistic(n=len(y), sum=float(y.sum()), sum_squares=float((y * y).sum()))


def ra_stat(arm):
    y = np.asarray(arm["y"], dtype=float)
    # Users without pre-period data enter with x = 0: GrowthBook's COALESCE(covariate, 0).
    x = np.asarray([0.0 if v is None else v for v in arm["x"]], dtype=float)
    return RegressionAdjustedStatistic(
        n=len(y),
        post_statistic=mean_stat(y),
        pre_statistic=mean_stat(x),
        post_pre_sum_of_products=float((x * y).sum()),
        theta=0,
    )


def fixed(test):
    res = test.compute_result()
    if res.error_message:
        # gbstats' default output: its dof and variance may not exist (0/0) for such arms.
        return {"error": res.error_message}
    return {
        "effect": num(test.point_estimate),
        "variance": num(test.variance),
        "dof": num(test.dof),
        "ci_low": num(res.ci[0]),
        "ci_high": num(res.ci[1]),
        "p_value": num(res.p_value),
        "error": res.error_message,
    }


def sequential(test):
    res = test.compute_result()
    return {"ci_low": num(res.ci[0]), "ci_high": num(res.ci[1]), "p_value": num(res.p_value)}


def seq_config(case):
    return SequentialConfig(
        difference_type="absolute",
        alpha=case.get("alpha", 0.05),
        sequential_tuning_parameter=case.get("tuning", 5000),
    )


def cuped(case):
    absolute = FrequentistConfig(difference_type="absolute")
    adjusted = TwoSidedTTest(ra_stat(case["control"]), ra_stat(case["treatment"]), absolute)
    # BaseABTest sets theta on both statistics (or swaps in the plain ones when it is 0).
    theta = getattr(adjusted.stat_a, "theta", 0.0)
    plain = TwoSidedTTest(mean_stat(case["control"]["y"]), mean_stat(case["treatment"]["y"]), absolute)
    relative = TwoSidedTTest(
        ra_stat(case["control"]), ra_stat(case["treatment"]), FrequentistConfig(difference_type="relative")
    )
    seq = SequentialTwoSidedTTest(ra_stat(case["control"]), ra_stat(case["treatment"]), seq_config(case))
    return {
        "theta": num(theta),
        "adjusted": fixed(adjusted),
        "unadjusted": fixed(plain),
        "relative_effect": num(relative.point_estimate),
        "sequential": sequential(seq),
    }


def sequential_mean(case):
    test = SequentialTwoSidedTTest(
        mean_stat(case["control"]), mean_stat(case["treatment"]), seq_config(case)
    )
    return sequential(test)


def sequential_proportion(case):
    a = ProportionStatistic(n=case["control"]["n"], sum=case["control"]["successes"])
    b = ProportionStatistic(n=case["treatment"]["n"], sum=case["treatment"]["successes"])
    return sequential(SequentialTwoSidedTTest(a, b, seq_config(case)))


def two_sided(stat_a, stat_b):
    absolute = TwoSidedTTest(stat_a, stat_b, FrequentistConfig(difference_type="absolute"))
    relative = TwoSidedTTest(stat_a, stat_b, FrequentistConfig(difference_type="relative"))
    out = fixed(absolute)
    out["relative_effect"] = num(relative.point_estimate)
    out["relative_error"] = relative.compute_result().error_message
    return out


def quantile_ranks(n, q):
    """The order-statistic ranks in 60-digit decimals (the TS side uses integers). The level is
    read from its shortest repr: Decimal(0.9) would be the double's 0.90000000000000002…, whose
    n·q lands above an integer that n·0.9 is exactly."""
    with localcontext() as ctx:
        ctx.prec = 60
        level = Decimal(repr(q))
        nq = Decimal(n) * level
        s = Decimal("1.96") * (nq * (1 - level)).sqrt()
        estimate = int(nq.to_integral_value(ROUND_CEILING))
        lower = int((nq - s).to_integral_value(ROUND_FLOOR))
        upper = int((nq + s).to_integral_value(ROUND_CEILING))
    return max(1, estimate), max(1, lower), min(n, upper)


def quantile_stat(users, q):
    """users: one list of call values per exposed user (empty for a user without calls)."""
    values = np.sort(np.asarray([v for calls in users for v in calls], dtype=float))
    n = len(values)
    estimate, lower, upper = quantile_ranks(n, q)
    q_hat = float(values[estimate - 1])
    below = np.asarray([sum(1 for v in calls if v <= q_hat) for calls in users], dtype=float)
    counts = np.asarray([len(calls) for calls in users], dtype=float)
    stat = QuantileClusteredStatistic(
        n=n,
        n_star=n,
        nu=q,
        quantile_hat=q_hat,
        quantile_lower=float(values[lower - 1]),
        quantile_upper=float(values[upper - 1]),
        main_sum=float(below.sum()),
        main_sum_squares=float((below * below).sum()),
        denominator_sum=float(counts.sum()),
        denominator_sum_squares=float((counts * counts).sum()),
        main_denominator_sum_product=float((below * counts).sum()),
        n_clusters=len(users),
    )
    return stat, {"ranks": [estimate, lower, upper], "quantile": q_hat}


def quantile(case):
    a, ref_a = quantile_stat(case["control"], case["q"])
    b, ref_b = quantile_stat(case["treatment"], case["q"])
    out = two_sided(a, b)
    out.update(control=ref_a, treatment=ref_b)
    return out


def ratio_stat(arm):
    m = np.asarray(arm["m"], dtype=float)
    d = np.asarray(arm["d"], dtype=float)
    return RatioStatistic(
        n=len(m),
        m_statistic=mean_stat(m),
        d_statistic=mean_stat(d),
        m_d_sum_of_products=float((m * d).sum()),
    )


def ratio(case):
    a = ratio_stat(case["control"])
    b = ratio_stat(case["treatment"])
    out = two_sided(a, b)
    out.update(ratio_control=num(a.mean), ratio_treatment=num(b.mean))
    return out


def capped_cuped(case):
    """Per-user values and their covariates capped by the bounds numpy computes over the arms'
    values pooled, then today's CUPED oracle."""
    upper, lower = cap_bounds(case["cap"], case["control"]["y"] + case["treatment"]["y"])
    arms = {}
    counts = {}
    for arm in ("control", "treatment"):
        y, counts[arm] = clip(case[arm]["y"], upper, lower)
        x, _ = clip(case[arm]["x"], upper, lower)
        arms[arm] = {"y": y, "x": x}
    out = cuped(dict(case, **arms))
    out.update(
        upper=None if upper is None else num(upper),
        lower=None if lower is None else num(lower),
        capped_control=counts["control"],
        capped_treatment=counts["treatment"],
    )
    return out


HANDLERS = {
    "quantile": quantile,
    "capped_cuped": capped_cuped,
    "ratio": ratio,
    "cuped": cuped,
    "sequential_mean": sequential_mean,
    "sequential_proportion": sequential_proportion,
}


def main():
    answer(REQUEST, HANDLERS, {"numpy": np.__version__, "gbstats": gbstats.__version__})


if __name__ == "__main__":
    main()
