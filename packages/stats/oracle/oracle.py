"""Reference values for @arbiter/stats, from scipy, statsmodels and numpy.

Reads {"cases": [...]} as JSON on stdin, writes {"results": [...]} on stdout, one result per
case in the same order. Spawned once per test run by test/oracle.test.ts. Python 3.8+ syntax.
"""
import math
import sys

from oracle_io import answer, cap_bounds, clip, num

# Read the request before importing scipy: if the import fails, the test still gets to write
# all of stdin and then reports this script's message instead of a broken pipe.
REQUEST = sys.stdin.read()

try:
    import numpy as np
    from scipy import stats
    from statsmodels.stats.multitest import multipletests
    from statsmodels.stats.proportion import confint_proportions_2indep, proportions_ztest
except ImportError as err:  # the test turns this exit code and message into a failure
    sys.stderr.write(
        "oracle: cannot import numpy/scipy/statsmodels with %s (%s). Install with: "
        "%s -m pip install -r packages/stats/oracle/requirements.txt\n"
        % (sys.executable, err, sys.executable)
    )
    sys.exit(3)


def welch(case):
    c = np.asarray(case["control"], dtype=float)
    t = np.asarray(case["treatment"], dtype=float)
    res = stats.ttest_ind(t, c, equal_var=False)
    vc = c.var(ddof=1) / len(c)
    vt = t.var(ddof=1) / len(t)
    df = (vc + vt) ** 2 / (vc ** 2 / (len(c) - 1) + vt ** 2 / (len(t) - 1))
    diff = t.mean() - c.mean()
    half = stats.t.ppf(0.975, df) * math.sqrt(vc + vt)
    return {
        "statistic": num(res.statistic),
        "p_value": num(res.pvalue),
        "df": num(df),
        "ci_low": num(diff - half),
        "ci_high": num(diff + half),
    }


def mann_whitney(case):
    c = np.asarray(case["control"], dtype=float)
    t = np.asarray(case["treatment"], dtype=float)
    res = stats.mannwhitneyu(t, c, method="asymptotic", use_continuity=True, alternative="two-sided")
    return {"u": num(res.statistic), "p_value": num(res.pvalue)}


def two_proportion(case):
    xc, nc = case["control"]["successes"], case["control"]["n"]
    xt, nt = case["treatment"]["successes"], case["treatment"]["n"]
    z, p = proportions_ztest([xt, xc], [nt, nc])
    low, high = confint_proportions_2indep(xt, nt, xc, nc, method="wald", compare="diff", alpha=0.05)
    return {"statistic": num(z), "p_value": num(p), "ci_low": num(low), "ci_high": num(high)}


def chi_square(case):
    obs = np.asarray(case["observed"], dtype=float)
    shares = np.asarray(case["shares"], dtype=float)
    res = stats.chisquare(obs, obs.sum() * shares / shares.sum())
    return {"statistic": num(res.statistic), "p_value": num(res.pvalue), "df": len(obs) - 1}


def bh(case):
    _, adjusted, _, _ = multipletests(case["p_values"], method="fdr_bh")
    return {"adjusted": [num(v) for v in adjusted]}


def histogram(case):
    arms = case["arms"]
    pooled = np.concatenate([np.asarray(v, dtype=float) for v in arms.values()])
    lo, hi = float(pooled.min()), float(pooled.max())
    out = {}
    edges = None
    for name, values in arms.items():
        counts, edges = np.histogram(np.asarray(values, dtype=float), bins=case["bins"], range=(lo, hi))
        out[name] = [int(v) for v in counts]
    return {"bin_edges": [num(v) for v in edges], "counts": out}


def permutation(case):
    c = np.asarray(case["control"], dtype=float)
    t = np.asarray(case["treatment"], dtype=float)

    def abs_diff(x, y, axis):
        return np.abs(np.mean(x, axis=axis) - np.mean(y, axis=axis))

    kwargs = dict(
        permutation_type="independent",
        vectorized=True,
        n_resamples=case["n_resamples"],
        alternative="greater",
    )
    try:
        res = stats.permutation_test((t, c), abs_diff, rng=np.random.default_rng(case["seed"]), **kwargs)
    except TypeError:  # scipy < 1.15 names the generator random_state
        res = stats.permutation_test(
            (t, c), abs_diff, random_state=np.random.default_rng(case["seed"]), **kwargs
        )
    return {"p_value": num(res.pvalue), "null_size": int(len(res.null_distribution))}


def capped_welch(case):
    """Per-user values capped as numpy computes the bounds, then today's Welch oracle."""
    upper, lower = cap_bounds(case["cap"], case["control"] + case["treatment"])
    c, nc = clip(case["control"], upper, lower)
    t, nt = clip(case["treatment"], upper, lower)
    out = welch({"control": c, "treatment": t})
    out.update(
        upper=None if upper is None else num(upper),
        lower=None if lower is None else num(lower),
        capped_control=nc,
        capped_treatment=nt,
        mean_control=num(np.mean(c)),
        mean_treatment=num(np.mean(t)),
    )
    return out


HANDLERS = {
    "welch": welch,
    "capped_welch": capped_welch,
    "mann_whitney": mann_whitney,
    "two_proportion": two_proportion,
    "chi_square": chi_square,
    "bh": bh,
    "histogram": histogram,
    "permutation": permutation,
}


def main():
    import scipy
    import statsmodels

    versions = {"numpy": np.__version__, "scipy": scipy.__version__, "statsmodels": statsmodels.__version__}
    answer(REQUEST, HANDLERS, versions)


if __name__ == "__main__":
    main()
