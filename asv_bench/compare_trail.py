#!/usr/bin/env python
"""The cases where tenferro trailed PyTorch on the CPU: max/min reductions of a
4000x4000 matrix, batched tiny matrix products and integer matrix products.

Each case is timed for tenferro, NumPy and PyTorch (when installed) in turn, each
library in its own block after a 0.3 s pause (so the previous library's worker threads
have gone to sleep), with the same thread count (``--threads``, default 2).  Per block:
one warm-up call, ``number`` calls per repeat (calibrated so a repeat lasts about
``--min-time`` seconds), ``--repeat`` repeats; the best and the median per-call time
are printed.  Ratios are other / tenferro of the best times: > 1 means tenferro is
faster.

    python asv_bench/compare_trail.py [--threads 2] [--repeat 9] [--only SUBSTR] [--plot F.png]

To compare two trees, run it with ``PYTHONPATH=<tree>`` for each, alternating.
"""
import gc
import os
import sys
import time
import timeit


HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "benchmarks"))
import common  # noqa: E402  (also puts an in-place tenferro build on sys.path)

sys.path.insert(0, HERE)
import _plot  # noqa: E402
from compare import fmt_t, parse_args, versions_comment  # noqa: E402

torch = common.torch_or_none()
LIBS = ["tenferro", "numpy", "torch"]
PAUSE = 0.3


def _reduce(func, axis, dtype="float64"):
    def make(lib):
        xp = common.module(lib)
        f = getattr(xp, {"max": "amax", "min": "amin"}[func])
        x = common.convert(common.get_array((4000, 4000), dtype, "normal", seed=6), lib)
        kw = common.axis_kw(lib, axis)
        return lambda: f(x, **kw)
    return make


def _matmul(sa, sb, dtype, kind="normal"):
    def make(lib):
        a = common.convert(common.get_array(sa, dtype, kind, seed=9), lib)
        b = common.convert(common.get_array(sb, dtype, kind, seed=10), lib)
        return lambda: a @ b
    return make


CASES = [
    ("max, 4000x4000 f64", _reduce("max", None)),
    ("max axis=0, 4000x4000 f64", _reduce("max", 0)),
    ("max axis=1, 4000x4000 f64", _reduce("max", 1)),
    ("min, 4000x4000 f64", _reduce("min", None)),
    ("max, 4000x4000 f32", _reduce("max", None, "float32")),
    ("matmul f64 10000x4^3", _matmul((10000, 4, 4), (10000, 4, 4), "float64")),
    ("matmul f64 10000x3^3", _matmul((10000, 3, 3), (10000, 3, 3), "float64")),
    ("matmul f64 10000x2^3", _matmul((10000, 2, 2), (10000, 2, 2), "float64")),
    ("matmul f32 10000x4^3", _matmul((10000, 4, 4), (10000, 4, 4), "float32")),
    ("matmul i64 256^3", _matmul((256, 256), (256, 256), "int64", "int")),
    ("matmul i32 256^3", _matmul((256, 256), (256, 256), "int32", "int")),
]


def best_and_median(fn, repeat, min_time):
    """(best, median) seconds per call of fn over ``repeat`` timed repeats (timeit's,
    garbage collection off), each of about ``min_time`` seconds."""
    timer = timeit.Timer(fn)
    fn()
    number = max(1, int(min_time / max(timer.timeit(1), 1e-7)))
    times = sorted(t / number for t in timer.repeat(repeat, number))
    return times[0], times[len(times) // 2]


def main(argv=None):
    args = parse_args(argv, __doc__, repeat=9, min_time=0.1)
    print(versions_comment(args, "best (median) of %d"))
    print("| case | tenferro | NumPy | PyTorch | NumPy/tenferro | PyTorch/tenferro |")
    print("|---|---:|---:|---:|---:|---:|")
    rows = []
    for name, make in CASES:
        if args.only and args.only not in name:
            continue
        t = {}
        for lib in LIBS:
            try:
                fn = make(lib)
            except NotImplementedError:
                t[lib] = None
                continue
            time.sleep(PAUSE)
            t[lib] = best_and_median(fn, args.repeat, args.min_time)
            del fn
            gc.collect()
        rows.append((name, {k: v and v[0] for k, v in t.items()}))

        def cell(lib):
            return "n/a" if t[lib] is None else "%s (%s)" % (fmt_t(t[lib][0]), fmt_t(t[lib][1]))

        def ratio(lib):
            if t[lib] is None or t["tenferro"] is None:
                return "n/a"
            return "%.2f" % (t[lib][0] / t["tenferro"][0])

        print("| %s | %s | %s | %s | %s | %s |" % (
            name, cell("tenferro"), cell("numpy"), cell("torch"), ratio("numpy"),
            ratio("torch")), flush=True)
    _plot.plot_if_asked(args, rows, "tenferro", ["numpy", "torch"],
                        "max/min, batched tiny and integer matmul (compare_trail.py, "
                        "%d threads)" % args.threads, {"numpy": "NumPy", "torch": "PyTorch"})


if __name__ == "__main__":
    main()
