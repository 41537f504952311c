#!/usr/bin/env python
"""Standalone einsum comparison: tenferro vs numpy.einsum(optimize=True), opt_einsum,
torch.einsum and a direct scipy dgemm (no asv needed).

Times the cases of ``benchmarks/bench_einsum.py`` with ``compare.py``'s best-of-N timer
(float64, ``--threads`` threads each, default 2) and prints a Markdown table; a ratio
above 1 means tenferro is faster.  "best other" is the fastest of NumPy, opt_einsum and
PyTorch in the same run.

    python asv_bench/compare_einsum.py [--threads 2] [--repeat 7] [--only SUBSTR] [--plot F.png]
"""
import os
import platform
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402  (best_of, fmt_t; puts benchmarks/ and tenferro on sys.path)
import _plot  # noqa: E402
from benchmarks import bench_einsum as B  # noqa: E402
from benchmarks import common  # noqa: E402
import numpy as np  # noqa: E402
import tenferro as tf  # noqa: E402

torch = common.torch_or_none()
OTHERS = ["numpy", "opt_einsum", "torch"]


def main(argv=None):
    args = compare.parse_args(argv, __doc__)
    print("<!-- tenferro %s, numpy %s, torch %s, python %s, %s, %d threads, best of %d -->"
          % (getattr(tf, "__version__", "?"), np.__version__,
             torch.__version__ if torch else "not installed", platform.python_version(),
             platform.machine(), args.threads, args.repeat))
    print("| case | tenferro | NumPy | opt_einsum | PyTorch | dgemm | best other / tenferro "
          "| dgemm / tenferro |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    rows = []
    for name in list(B.CASES) + list(B.GRAD_CASES):
        if args.only and args.only not in name:
            continue
        t = compare.time_libs(lambda lib: B.make(lib, name), B.EINSUM_LIBS, args, name)
        rows.append((name, t))
        best = min((t[k] for k in OTHERS if t[k] is not None), default=None)

        def ratio(x):
            return "n/a" if x is None or t["tenferro"] is None else "%.2f" % (x / t["tenferro"])
        print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, *[compare.fmt_t(t[k]) for k in B.EINSUM_LIBS], ratio(best),
            ratio(t["dgemm"])), flush=True)
    _plot.plot_if_asked(args, rows, "tenferro", OTHERS + ["dgemm"],
                        "einsum: tenferro beside NumPy, opt_einsum, PyTorch and a direct dgemm "
                        "(compare_einsum.py, %d threads)" % args.threads,
                        {"numpy": "numpy.einsum", "torch": "PyTorch"})


if __name__ == "__main__":
    main()
