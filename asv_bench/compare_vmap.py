#!/usr/bin/env python
"""Standalone vmap comparison (no asv needed): ``tenferro.vmap`` against the batched
call directly, the batched kernel alone and a Python loop, for the cases of
``benchmarks/bench_vmap.py``.

Prints a Markdown table of best-of-N times (the loop's scaled from LOOP_N examples to
the whole batch) and the ratios vmap / batched and vmap / kernel (below 1.2 is the
target) and loop / vmap (how far ahead of a loop vmap is).

    python asv_bench/compare_vmap.py [--threads 2] [--repeat 7] [--only SUBSTR]
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402  (best_of, fmt_t; puts benchmarks/ and tenferro on sys.path)
from benchmarks import bench_vmap as V  # noqa: E402


def _ratio(a, b):
    return "%.2f" % (a / b) if a is not None and b is not None else "n/a"


def main(argv=None):
    args = compare.parse_args(argv, __doc__)
    print("| case | vmap | batched | kernel | loop | vmap/batched | vmap/kernel | loop/vmap |")
    print("|---|---|---|---|---|---|---|---|")
    for case in V.CASES:
        if args.only and args.only not in case:
            continue

        def make(form):
            fn = V.make(form, case)
            return fn
        t = {}
        for form in V.FORMS:
            try:
                fn = make(form)
            except NotImplementedError:
                t[form] = None
                continue
            t[form] = compare.best_of(fn, args.repeat, args.min_time) * fn.scale
        print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            case, *[compare.fmt_t(t[f]) for f in V.FORMS], _ratio(t["vmap"], t["batched"]),
            _ratio(t["vmap"], t["kernel"]), _ratio(t["loop"], t["vmap"])), flush=True)


if __name__ == "__main__":
    main()
