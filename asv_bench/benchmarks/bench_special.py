"""tenferro.special beside scipy.special: each function on inputs over its domain.

The case table (``CASES``: name -> the inputs' domains) is shared with
``asv_bench/compare_special.py``; :func:`make` builds the timed call for one library.
Sizes: 1e6 float64 and float32 elements (throughput) and 1e3 float64 (per-call
overhead); softmax, log_softmax and logsumexp reduce the last axis of (1000, 1000) or
(10, 100).
"""
import numpy as np
import scipy.special as sc

from .common import SEED, set_threads

import tenferro as tf
import tenferro.special as ts

# name -> one (low, high) range per argument (uniform draws)
CASES = {
    "expit": [(-20, 20)], "logit": [(0, 1)], "log_expit": [(-20, 20)],
    "erf": [(-4, 4)], "erfc": [(-4, 10)], "erfinv": [(-1, 1)], "erfcx": [(-4, 30)],
    "xlogy": [(0, 5), (0, 5)], "xlog1py": [(0, 5), (-0.9, 5)], "entr": [(0, 5)],
    "rel_entr": [(0, 5), (0, 5)], "kl_div": [(0, 5), (0, 5)],
    "gammaln": [(-10, 50)], "digamma": [(0.01, 50)], "polygamma": [(0.01, 50)],
    "i0": [(-20, 20)], "i0e": [(-50, 50)], "i1": [(-20, 20)], "i1e": [(-50, 50)],
    "sinc": [(-10, 10)], "betaln": [(0.1, 20), (0.1, 20)],
    "gammainc": [(0.1, 20), (0, 30)], "gammaincc": [(0.1, 20), (0, 30)],
    "softmax": [(-10, 10)], "log_softmax": [(-10, 10)], "logsumexp": [(-10, 10)],
}
NAMES = list(CASES)
SIZES = [(1_000_000, "float64"), (1_000_000, "float32"), (1000, "float64")]
AXIS = ("softmax", "log_softmax", "logsumexp")


def inputs(name, n, dtype):
    """The ndarrays of case ``name`` at n elements of ``dtype`` (seeded)."""
    rng = np.random.default_rng(SEED)
    shape = ((1000, n // 1000) if n >= 10**6 else (10, n // 10)) if name in AXIS else (n,)
    return [rng.uniform(lo, hi, shape).astype(dtype) for lo, hi in CASES[name]]


def make(name, n, dtype, lib):
    """A no-argument callable running ``name`` on its inputs with ``lib`` ("tenferro" or
    "scipy"; numpy's ``sinc`` stands in for scipy's)."""
    xs = inputs(name, n, dtype)
    kw = {"axis": -1} if name in AXIS else {}
    if lib == "tenferro":
        xs = [tf.asarray(x) for x in xs]
        f = getattr(ts, name)
    else:
        f = np.sinc if name == "sinc" else getattr(sc, name)
    if name == "polygamma":
        return lambda: f(1, *xs)
    return lambda: f(*xs, **kw)


class Special:
    """Each function on 1e6 float64/float32 and 1e3 float64 elements."""

    params = [["tenferro", "scipy"], NAMES, ["1e6 float64", "1e6 float32", "1e3 float64"]]
    param_names = ["lib", "func", "case"]
    timeout = 120

    def setup(self, lib, func, case):
        set_threads()
        size, dtype = case.split()
        self.fn = make(func, int(float(size)), dtype, lib)

    def time_call(self, lib, func, case):
        self.fn()
