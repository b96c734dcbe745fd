"""Reference values for offline evaluation (paired comparisons, FDR, non-determinism).

Reads {"cases": [...]} on stdin, each {"kind": "offline", "repeats", "variants" (the first is the
baseline), "scorers": [{"name", "direction", "margin"}], "values": {scorer: {variant: {item:
[y(v,i,r), ...]}}}} and writes, per case, the comparisons keyed "<scorer>::<treatment>", the
non-determinism summary keyed "<scorer>::<variant>" and the gates, from scipy's ttest_rel and
binomtest, statsmodels' multipletests(method="fdr_bh") and numpy, following the formulas in
docs/decisions/offline-evaluation.md#offline-statistics independently of the TypeScript.
"""
import math
import sys

from oracle_io import answer, num

REQUEST = sys.stdin.read()

try:
    import numpy as np
    from scipy import optimize, special, stats
    from statsmodels.stats.multitest import multipletests
except ImportError as err:
    sys.stderr.write("offline oracle: cannot import numpy/scipy/statsmodels (%s)\n" % err)
    sys.exit(3)

Z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)


def opt(x):
    return None if x is None else num(x)


def comparison(base, treat, direction, repeats, margin):
    ids = sorted(set(base) & set(treat))
    n = len(ids)
    c = np.array([base[i] for i in ids], dtype=float)
    t = np.array([treat[i] for i in ids], dtype=float)
    d = t - c
    sign = 1 if direction == "increase" else -1
    out = {
        "n_items": n,
        "improved_items": int(np.sum(d * sign > 0)),
        "regressed_items": int(np.sum(d * sign < 0)),
        "tied_items": int(np.sum(d == 0)),
    }
    binary = repeats == 1 and all(v in (0.0, 1.0) for v in np.concatenate([c, t]))
    out["test"] = "mcnemar_exact" if binary else "paired_t"
    if n == 0:
        out.update(mean_baseline=None, mean_treatment=None, mean_difference=None,
                   relative_difference=None, ci_low=None, ci_high=None, p_value=None,
                   mdd=None, items_needed=None)
    else:
        md = float(np.mean(d))
        mb = float(np.mean(c))
        out.update(mean_baseline=num(mb), mean_treatment=num(np.mean(t)), mean_difference=num(md),
                   relative_difference=None if mb == 0 else num(md / mb))
        if n < 2:
            out.update(ci_low=None, ci_high=None, p_value=None, mdd=None, items_needed=None)
        else:
            sd = float(np.std(d, ddof=1))
            half = stats.t.ppf(0.975, n - 1) * sd / math.sqrt(n)
            if binary:
                b = int(np.sum(d == 1))
                cc = int(np.sum(d == -1))
                p = 1.0 if b + cc == 0 else stats.binomtest(b, b + cc, 0.5).pvalue
            elif sd == 0:
                p = 1.0 if md == 0 else 0.0
            else:
                p = stats.ttest_rel(t, c).pvalue
            out.update(ci_low=num(md - half), ci_high=num(md + half), p_value=num(p),
                       mdd=num(Z * sd / math.sqrt(n)),
                       items_needed=None if md == 0 else int(math.ceil((Z * sd / abs(md)) ** 2)))
    if margin is None:
        out["non_inferior"] = None
    elif out["ci_low"] is None:
        out["non_inferior"] = False
    else:
        out["non_inferior"] = bool(out["ci_low"] > -margin) if direction == "increase" else bool(out["ci_high"] < margin)
    return out


def non_determinism(items):
    items = {k: np.array(v, dtype=float) for k, v in items.items() if len(v) > 0}
    means = np.array([v.mean() for v in items.values()])
    rep = {k: v for k, v in items.items() if len(v) >= 2}
    dof = sum(len(v) - 1 for v in rep.values())
    ss = sum(float(np.sum((v - v.mean()) ** 2)) for v in rep.values())
    binary = all(np.all((v == 0) | (v == 1)) for v in items.values()) and len(rep) > 0
    out = {
        "n_items": len(items),
        "sd_within_items": num(math.sqrt(ss / dof)) if dof > 0 else None,
        "sd_between_items": num(np.std(means, ddof=1)) if len(means) >= 2 else None,
    }
    if binary:
        flips = sorted(k for k, v in rep.items() if np.unique(v).size > 1)
        out["flip_rate"] = num(len(flips) / len(rep))
        out["pass_all"] = num(sum(1 for v in rep.values() if np.all(v == 1)) / len(rep))
        out["unstable_items"] = flips[:100]
    else:
        out["flip_rate"] = out["pass_all"] = out["unstable_items"] = None
    return out


def offline(case):
    variants = case["variants"]
    baseline, treatments = variants[0], variants[1:]
    comps = {}
    order = []
    summary = {}
    for s in case["scorers"]:
        by_variant = case["values"].get(s["name"], {})

        def means(v):
            return {k: float(np.mean(np.array(ys, dtype=float))) for k, ys in by_variant.get(v, {}).items() if len(ys) > 0}

        base = means(baseline)
        for t in treatments:
            key = "%s::%s" % (s["name"], t)
            comps[key] = comparison(base, means(t), s["direction"], case["repeats"], s.get("margin"))
            comps[key]["direction"] = s["direction"]
            order.append(key)
        if case["repeats"] >= 2:
            for v in variants:
                summary["%s::%s" % (s["name"], v)] = non_determinism(by_variant.get(v, {}))
    tested = [k for k in order if comps[k]["p_value"] is not None]
    if tested:
        _, adjusted, _, _ = multipletests([comps[k]["p_value"] for k in tested], method="fdr_bh")
    for k in order:
        comps[k]["p_value_fdr"] = None
        comps[k]["significant"] = False
        comps[k]["outcome"] = "inconclusive"
    for k, q in zip(tested, adjusted if tested else []):
        c = comps[k]
        c["p_value_fdr"] = num(q)
        c["significant"] = bool(q < 0.05)
        signed = c["mean_difference"] * (1 if c["direction"] == "increase" else -1)
        if c["significant"] and signed != 0:
            c["outcome"] = "better" if signed > 0 else "worse"
    gates = {}
    margins = {s["name"]: s.get("margin") for s in case["scorers"]}
    for t in treatments:
        failing = []
        for s in case["scorers"]:
            c = comps["%s::%s" % (s["name"], t)]
            if c["outcome"] == "worse" or (margins[s["name"]] is not None and c["non_inferior"] is not True):
                failing.append(s["name"])
        gates[t] = {"passed": len(failing) == 0, "failing": failing}
    return {"comparisons": comps, "summary": summary, "gates": gates}


def binomtest(case):
    return {"p_value": num(stats.binomtest(case["k"], case["n"], 0.5).pvalue)}


def t_quantile(case):
    """The p quantile of Student's t as the root of scipy's own tail, to double precision.

    scipy's t.ppf is not used: it is off by up to ~4e-11 relative (t.ppf(0.975, 1) =
    12.706204736432095, where tan(0.475 pi) = 12.706204736174696 and t.sf of it is 0.025 to
    the last digit). The root of t.sf(x) = min(p, 1 - p) in the tails, and near the centre of
    betainc(1/2, df/2, x^2/(df + x^2))/2 = 1/2 - min(p, 1 - p), is what scipy's tail implies.
    """
    p, df = case["p"], case["df"]
    tail = min(p, 1 - p)
    if tail < 0.25:
        def f(x):
            return stats.t.sf(x, df) - tail
    else:
        def f(x):
            return (0.5 - tail) - special.betainc(0.5, df / 2, x * x / (df + x * x)) / 2
    hi = abs(stats.t.ppf(p, df)) * 1.01 + 1e-3
    root = optimize.brentq(f, 0, hi, xtol=1e-300, rtol=8.9e-16, maxiter=500)
    return {"q": num(root if p > 0.5 else -root), "ppf": num(stats.t.ppf(p, df))}


def main():
    import scipy
    import statsmodels

    versions = {"numpy": np.__version__, "scipy": scipy.__version__, "statsmodels": statsmodels.__version__}
    answer(REQUEST, {"offline": offline, "binomtest": binomtest, "t_quantile": t_quantile}, versions)


if __name__ == "__main__":
    main()
