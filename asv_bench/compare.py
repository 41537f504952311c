#!/usr/bin/env python
"""Standalone tenferro vs NumPy vs PyTorch comparison (no asv needed).

Times the key cases of the asv suite with timeit-style best-of-N: one warm-up call,
then ``--repeat`` repeats of ``number`` calls each (``number`` chosen so a repeat
lasts >= ``--min-time`` seconds), reporting the minimum per-call time.  tenferro and
PyTorch run with the same thread count (``--threads``, default 2); NumPy's ufuncs and
reductions are single-threaded, its BLAS is capped to the same count when
threadpoolctl is installed.  Prints a Markdown table:

    case | tenferro | NumPy | PyTorch | NumPy/tenferro | PyTorch/tenferro | GB/s ...

A ratio > 1 means tenferro is faster.  GB/s is the effective bandwidth of the
minimal traffic of the case (each input read once, the output written once) for
the memory-bound cases only.

    python asv_bench/compare.py [--threads 2] [--repeat 7] [--only SUBSTR] [--plot F.png]

``--plot F.png`` (every ``compare*.py`` script takes it; needs matplotlib) also writes a
bar chart of the ratios: each peer's time over tenferro's per case, log scale, a line
at 1.
"""
import argparse
import gc
import os
import platform
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "benchmarks"))
import common  # noqa: E402  (also puts an in-place tenferro build on sys.path)
import tenferro as tf  # noqa: E402

sys.path.insert(0, HERE)
import _plot  # noqa: E402

torch = common.torch_or_none()
LIBS = ["tenferro", "numpy", "torch"]


def _arr(shape, dtype="float64", kind="normal", seed=0):
    return common.get_array(shape, dtype, kind, seed)


def _case_add(lib, out):
    xp = common.module(lib)
    x = common.convert(_arr(10**7, seed=1), lib)
    y = common.convert(_arr(10**7, seed=2), lib)
    if not out:
        return lambda: x + y
    o = common.empty_like(x, lib)
    return lambda: xp.add(x, y, out=o)


def _case_muladdsin(lib):
    xp = common.module(lib)
    x = common.convert(_arr(10**7, seed=1), lib)
    y = common.convert(_arr(10**7, seed=2), lib)
    return lambda: x * y + xp.sin(x)


def _case_unary(func, dtype):
    def make(lib):
        f = getattr(common.module(lib), func)
        x = common.convert(_arr(10**6, dtype, seed=3), lib)
        return lambda: f(x)
    return make


def _case_tiny(lib):
    x = common.convert(_arr(3, seed=4), lib)
    y = common.convert(_arr(3, seed=5), lib)
    return lambda: x + y


def _case_reduce(func, axis, shape=(4000, 4000)):
    def make(lib):
        xp = common.module(lib)
        f = getattr(xp, {"max": "amax"}.get(func, func))
        x = common.convert(_arr(shape, seed=6), lib)
        kw = common.axis_kw(lib, axis)
        return lambda: f(x, **kw)
    return make


def _case_matmul(sa, sb, dtype, kind):
    def make(lib):
        a = common.convert(_arr(sa, dtype, kind, seed=9), lib)
        b = common.convert(_arr(sb, dtype, kind, seed=10), lib)
        return lambda: a @ b
    return make


MB = 1e6
# (name, factory(lib) -> callable, bytes of minimal traffic or None)
CASES = [
    ("x + y, 1e7 f64", lambda lib: _case_add(lib, False), 3 * 8e7),
    ("x + y, 1e7 f64, out=", lambda lib: _case_add(lib, True), 3 * 8e7),
    ("x*y + sin(x), 1e7 f64", _case_muladdsin, 3 * 8e7),
    ("tiny x + y, 3 f64 (per call)", _case_tiny, None),
]
for _f in ("exp", "sin", "tanh"):
    for _dt in ("float32", "float64"):
        CASES.append(("%s, 1e6 %s" % (_f, _dt), _case_unary(_f, _dt), None))
CASES += [
    ("sum, 4000x4000 f64", _case_reduce("sum", None), 8 * 16e6),
    ("sum axis=0, 4000x4000 f64", _case_reduce("sum", 0), 8 * 16e6),
    ("sum axis=1, 4000x4000 f64", _case_reduce("sum", 1), 8 * 16e6),
    ("max, 4000x4000 f64", _case_reduce("max", None), 8 * 16e6),
    ("argmax, 4000x4000 f64", _case_reduce("argmax", None), 8 * 16e6),
    ("cumsum, 1e6 f64", _case_reduce("cumsum", 0, shape=(10**6,)), 2 * 8e6),
    ("matmul f64 1000^3", _case_matmul((1000, 1000), (1000, 1000), "float64", "normal"), None),
    ("matmul f64 64x128^3", _case_matmul((64, 128, 128), (64, 128, 128), "float64", "normal"), None),
    ("matmul f64 10000x4^3", _case_matmul((10000, 4, 4), (10000, 4, 4), "float64", "normal"), None),
    ("matmul i64 256^3", _case_matmul((256, 256), (256, 256), "int64", "int"), None),
]


def best_of(fn, repeat, min_time):
    fn()  # warm-up (allocator, lazy init, thread team)
    number = 1
    while True:  # calibrate like timeit.Timer.autorange
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_time or number >= 10**6:
            break
        number *= 10 if dt < min_time / 10 else 2
    times = [dt / number]
    gcold = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat - 1):
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            times.append((time.perf_counter() - t0) / number)
    finally:
        if gcold:
            gc.enable()
    return min(times)


def fmt_t(t):
    if t is None:
        return "n/a"
    for unit, s in (("s", 1), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if t >= s:
            return "%.3g %s" % (t / s, unit)
    return "%.3g ns" % (t / 1e-9)


def parse_args(argv, doc, repeat=7, min_time=0.2):
    """The options every comparison script takes (threads, repeats, a case filter)."""
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--threads", type=int, default=common.N_THREADS)
    p.add_argument("--repeat", type=int, default=repeat)
    p.add_argument("--min-time", type=float, default=min_time,
                   help="seconds per repeat (number of calls is calibrated)")
    p.add_argument("--only", default=None, help="run cases whose name contains this")
    p.add_argument("--plot", metavar="FILE.png", default=None,
                   help="also write a bar chart of the time ratios (needs matplotlib)")
    p.add_argument("--check", action="store_true",
                   help="first check every library's results against NumPy's")
    args = p.parse_args(argv)
    if args.plot:
        _plot.require_matplotlib()  # fail now, not after the timings
    common.set_threads(args.threads)
    return args


def device_or_exit(script, get_device):
    """``get_device()``, or exit naming ``script`` and why there is no device."""
    try:
        return get_device()
    except NotImplementedError as e:
        raise SystemExit("%s: %s" % (script, e))


def time_libs(make, libs, args, name=""):
    """Best per-call time of ``make(lib)()`` for each lib (None where a lib lacks the
    case or a rule is not implemented)."""
    t = {}
    for lib in libs:
        try:
            fn = make(lib)
            t[lib] = best_of(fn, args.repeat, args.min_time)
        except NotImplementedError as e:
            print("<!-- %s, %s: %s -->" % (name, lib, e), flush=True)
            t[lib] = None
            continue
        del fn
        gc.collect()
    return t


def versions_comment(args, method="best of %d"):
    """The Markdown comment heading a table: library versions, machine, threads, method."""
    return "<!-- tenferro %s (%s), numpy %s, torch %s, python %s, %s, %d threads, %s -->" % (
        getattr(tf, "__version__", "?"), os.path.dirname(tf.__file__), np.__version__,
        torch.__version__ if torch else "not installed", platform.python_version(),
        platform.machine(), args.threads, method % args.repeat)


def main(argv=None):
    args = parse_args(argv, __doc__)
    print(versions_comment(args))
    print("| case | tenferro | NumPy | PyTorch | NumPy/tenferro | PyTorch/tenferro "
          "| GB/s tenferro | GB/s NumPy | GB/s PyTorch |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows = []
    for name, make, nbytes in CASES:
        if args.only and args.only not in name:
            continue
        t = time_libs(make, LIBS, args, name)
        rows.append((name, t))

        def ratio(lib):
            if t[lib] is None or t["tenferro"] is None:
                return "n/a"
            return "%.2f" % (t[lib] / t["tenferro"])

        def gbs(lib):
            if nbytes is None or t[lib] is None:
                return ""
            return "%.1f" % (nbytes / t[lib] / 1e9)

        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, fmt_t(t["tenferro"]), fmt_t(t["numpy"]), fmt_t(t["torch"]),
            ratio("numpy"), ratio("torch"), gbs("tenferro"), gbs("numpy"), gbs("torch")),
            flush=True)
    _plot.plot_if_asked(args, rows, "tenferro", ["numpy", "torch"],
                        "tenferro beside NumPy and PyTorch (compare.py, %d threads)"
                        % args.threads, {"numpy": "NumPy", "torch": "PyTorch"})


if __name__ == "__main__":
    main()
