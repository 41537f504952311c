#!/usr/bin/env python
"""Standalone vmap comparison (no asv needed): ``tenferro.vmap`` against the batched
call directly, the batched kernel alone and a Python loop, for the cases of
``benchmarks/bench_vmap.py``.

Prints a Markdown table of best-of-N times, the forms of a case timed in turn in each
round (the loop's scaled from LOOP_N examples to the whole batch) and the ratios vmap / batched and vmap / kernel (below 1.2 is the
target) and loop / vmap (how far ahead of a loop vmap is).

``--check`` first verifies that every form of a case gives vmap's values.

    python asv_bench/compare_vmap.py [--threads 2] [--repeat 7] [--only SUBSTR] [--check]
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402  (best_of, fmt_t; puts benchmarks/ and tenferro on sys.path)
from benchmarks import bench_vmap as V  # noqa: E402
import numpy as np  # noqa: E402


def _ratio(a, b):
    return "%.2f" % (a / b) if a is not None and b is not None else "n/a"


def _calls(fn, min_time):
    """How many calls of ``fn`` take ``min_time`` seconds (at least one)."""
    fn()
    number = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        if time.perf_counter() - t0 >= min_time or number >= 10**5:
            return number
        number *= 2


def interleaved(fns, repeat, min_time):
    """Best per-call time of each of ``fns`` ({form: fn}), the forms timed in turn in each
    of ``repeat`` rounds, so that a busy moment of a shared machine hits all alike."""
    numbers = {f: _calls(fn, min_time / 4) for f, fn in fns.items()}
    best = {f: float("inf") for f in fns}
    for _ in range(repeat):
        for f, fn in fns.items():
            t0 = time.perf_counter()
            for _ in range(numbers[f]):
                fn()
            best[f] = min(best[f], (time.perf_counter() - t0) / numbers[f] * fn.scale)
    return best


def check():
    """Every form of every case against vmap's values (the loop's on its examples)."""
    for case in V.CASES:
        want = np.asarray(V.make("vmap", case)())
        for form in V.FORMS[1:]:
            try:
                got = V.make(form, case)()
            except NotImplementedError:
                continue
            got = np.stack([np.asarray(g) for g in got]) if form == "loop" else np.asarray(got)
            ref = want[:len(got)] if form == "loop" else want
            np.testing.assert_allclose(got.reshape(ref.shape), ref, rtol=1e-10, atol=1e-12,
                                       err_msg="%s, %s" % (case, form))
    print("<!-- check: every form gives vmap's values -->")


def main(argv=None):
    args = compare.parse_args(argv, __doc__)
    if args.plot:
        raise SystemExit("compare_vmap.py: --plot is not supported (a table only)")
    if args.check:
        check()
    print("| case | vmap | batched | kernel | loop | vmap/batched | vmap/kernel | loop/vmap |")
    print("|---|---|---|---|---|---|---|---|")
    for case in V.CASES:
        if args.only and args.only not in case:
            continue
        fns = {}
        for form in V.FORMS:
            try:
                fns[form] = V.make(form, case)
            except NotImplementedError:
                pass
        t = dict.fromkeys(V.FORMS)
        t.update(interleaved(fns, args.repeat, args.min_time))
        print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            case, *[compare.fmt_t(t[f]) for f in V.FORMS], _ratio(t["vmap"], t["batched"]),
            _ratio(t["vmap"], t["kernel"]), _ratio(t["loop"], t["vmap"])), flush=True)


if __name__ == "__main__":
    main()
