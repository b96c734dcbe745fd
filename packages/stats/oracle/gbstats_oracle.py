"""Reference values for @arbiter/stats' CUPED and confidence sequences, from GrowthBook's own
stats engine gbstats (PyPI, pinned in oracle/requirements.txt).

Reads {"cases": [...]} as JSON on stdin, writes {"results": [...]} on stdout, one result per
case in the same order. Spawned once per test run by test/gbstats-oracle.test.ts. The per-user
data are summed here with numpy, so our summaries are checked too, not only the formulas.
Every comparison uses difference_type="absolute" (our `effect` is treatment - control); the
relative point estimate is returned as well, to check our `lift`.
"""
import sys

from oracle_io import answer, num

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


HANDLERS = {
    "cuped": cuped,
    "sequential_mean": sequential_mean,
    "sequential_proportion": sequential_proportion,
}


def main():
    answer(REQUEST, HANDLERS, {"numpy": np.__version__, "gbstats": gbstats.__version__})


if __name__ == "__main__":
    main()
