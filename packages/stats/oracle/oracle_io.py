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
