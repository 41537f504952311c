#!/usr/bin/env python
"""tenferro.special vs scipy.special: per-call time of each function (no asv needed).

Every function runs on inputs drawn over its domain, at 1e6 float64 and float32 elements
(the kernels' throughput) and 1e3 float64 elements (the per-call overhead); softmax,
log_softmax and logsumexp reduce the last axis of a (1000, 1000) or (10, 100) array.
tenferro and scipy are timed each in its own block after a 0.4 s pause (so one's
threads do not spin on the other's cores: ../shared/reference/perf-notes.md), with
compare.py's best-of-N timer.  Prints a Markdown table:

    function | n | dtype | tenferro | scipy.special | scipy/tenferro

A ratio > 1 means tenferro is faster.

    python asv_bench/compare_special.py [--threads 2] [--repeat 5] [--only NAME]
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402  (best_of, fmt_t; puts benchmarks/ and tenferro on sys.path)
from benchmarks import bench_special as B  # noqa: E402

PAUSE = 0.4


def main(argv=None):
    args = compare.parse_args(argv, __doc__, repeat=5, min_time=0.1)
    print(compare.versions_comment(args))
    print("| function | n | dtype | tenferro | scipy.special | scipy/tenferro |")
    print("|---|---:|---|---:|---:|---:|")
    for name in B.NAMES:
        if args.only and args.only != name:
            continue
        for n, dtype in B.SIZES:
            t = {}
            for lib in ("tenferro", "scipy"):
                fn = B.make(name, n, dtype, lib)
                time.sleep(PAUSE)
                t[lib] = compare.best_of(fn, args.repeat, args.min_time)
            print("| %s | %s | %s | %s | %s | %.2f |" % (
                name, "1e%d" % len(str(n)[1:]), dtype, compare.fmt_t(t["tenferro"]),
                compare.fmt_t(t["scipy"]), t["scipy"] / t["tenferro"]), flush=True)


if __name__ == "__main__":
    main()
