#!/usr/bin/env python
"""tenferro.special vs scipy.special: per-call time of each function (no asv needed).

Every function runs on inputs drawn over its domain, at 1e6 float64 and float32 elements
(the kernels' throughput) and 1e3 float64 elements (the per-call overhead); softmax,
log_softmax and logsumexp reduce the last axis of a (1000, 1000) or (10, 100) array.
tenferro and scipy are timed each in its own block after a 0.4 s pause (so one's
threads do not spin on the other's cores: ../shared/reference/perf-notes.md), with
compare.py's best-of-N timer.  Prints a Markdown table:

    function | n | dtype | tenferro | scipy.special | scipy/tenferro [| composed | scipy/composed]

A ratio > 1 means tenferro is faster.  ``--composed`` adds the time of the functions
with tenferro's own special kernels switched off (``tenferro.special._fast.use_kernels``:
the compositions of tenferro's ops, as before the kernels), measured in the same run.

    python asv_bench/compare_special.py [--threads 2] [--repeat 5] [--only NAME] [--composed]
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402  (best_of, fmt_t; puts benchmarks/ and tenferro on sys.path)
from benchmarks import bench_special as B  # noqa: E402
from tenferro.special import _fast  # noqa: E402

PAUSE = 0.4


def _time(name, n, dtype, lib, args, kernels=True):
    fn = B.make(name, n, dtype, lib)
    old = _fast.use_kernels(kernels)
    try:
        time.sleep(PAUSE)
        return compare.best_of(fn, args.repeat, args.min_time)
    finally:
        _fast.use_kernels(old)


def main(argv=None):
    composed = "--composed" in (argv if argv is not None else sys.argv[1:])
    argv = [a for a in (argv if argv is not None else sys.argv[1:]) if a != "--composed"]
    args = compare.parse_args(argv, __doc__, repeat=5, min_time=0.1)
    print(compare.versions_comment(args))
    extra = (" composed | scipy/composed |", "---:|---:|") if composed else ("", "")
    print("| function | n | dtype | tenferro | scipy.special | scipy/tenferro |" + extra[0])
    print("|---|---:|---|---:|---:|---:|" + extra[1])
    for name in B.NAMES:
        if args.only and args.only != name:
            continue
        for n, dtype in B.SIZES:
            t = {lib: _time(name, n, dtype, lib, args) for lib in ("tenferro", "scipy")}
            row = "| %s | %s | %s | %s | %s | %.2f |" % (
                name, "1e%d" % len(str(n)[1:]), dtype, compare.fmt_t(t["tenferro"]),
                compare.fmt_t(t["scipy"]), t["scipy"] / t["tenferro"])
            if composed:
                c = _time(name, n, dtype, "tenferro", args, kernels=False)
                row += " %s | %.2f |" % (compare.fmt_t(c), t["scipy"] / c)
            print(row, flush=True)


if __name__ == "__main__":
    main()
