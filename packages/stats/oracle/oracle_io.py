"""What the oracle scripts share (they run as scripts, so this folder is on sys.path)."""
import json
import math
import sys
import warnings


def num(x):
    """A JSON-safe float: NaN and infinities become strings the test can recognise."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def answer(request, handlers, versions):
    """One result per case of the request, in order, with the library versions, on stdout."""
    results = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for case in json.loads(request)["cases"]:
            results.append(handlers[case["kind"]](case))
    versions = dict(versions, python=sys.version.split()[0])
    json.dump({"versions": versions, "results": results}, sys.stdout, allow_nan=False)


def cap_bounds(cap, pooled):
    """A metric cap's bounds over both arms' per-user values pooled: numpy's default quantile
    (linear interpolation, as PostgreSQL's percentile_cont) for a percentile, else the values."""
    import numpy as np

    pooled = np.asarray(pooled, dtype=float)
    upper = cap.get("value")
    lower = cap.get("lower")
    if "percentile" in cap:
        upper = float(np.quantile(pooled, cap["percentile"]))
    if "lower_percentile" in cap:
        lower = float(np.quantile(pooled, cap["lower_percentile"]))
    return upper, lower


def clip(values, upper, lower):
    """Values held within the bounds (None stays None); and how many a bound changed."""
    out, changed = [], 0
    for v in values:
        if v is None:
            out.append(None)
            continue
        w = v
        if upper is not None and w > upper:
            w = upper
        if lower is not None and w < lower:
            w = lower
        changed += w != v
        out.append(w)
    return out, changed
