#!/usr/bin/env python
"""Standalone traced-graph comparison: ``tenferro.jit`` beside eager tenferro, NumPy,
eager PyTorch, jax.jit, torch.compile and numexpr (where installed) and (elementwise
case) a vectorised C loop, the limit, on the cases of
``benchmarks/bench_traced.py`` (float64, ``--threads`` threads each, default 2), as a
Markdown table; "best other / jit" above 1 means the compiled program is faster than
every other library, "jit / C loop" is how far it is from the limit.  ``--check``
verifies first that every library gives the same values.

    python asv_bench/compare_traced.py [--threads 2] [--repeat 7] [--only SUBSTR] [--check]
                                          [--plot F.png]
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402  (best_of, fmt_t; puts benchmarks/ and tenferro on sys.path)
import _plot  # noqa: E402
from benchmarks import bench_traced as B  # noqa: E402
import numpy as np  # noqa: E402

NAMES = {"tenferro-jit": "tenferro jit", "tenferro": "tenferro eager", "numpy": "NumPy",
         "torch": "PyTorch eager", "jax-jit": "jax.jit", "torch-compile": "torch.compile",
         "numexpr": "numexpr", "C loop": "C loop (limit)"}
# the competitors; the C loop is the limit
OTHERS = ["tenferro", "numpy", "torch", "jax-jit", "torch-compile", "numexpr"]


def _np(x):
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def check():
    for case in B.CASES:
        ref = _np(B.make("tenferro", case)())
        for lib in B.TRACED_LIBS:
            try:
                got = _np(B.make(lib, case)())
            except NotImplementedError:
                continue
            assert np.allclose(got, ref, rtol=1e-9, atol=1e-12), (case, lib)
        print("ok ", case)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--check" in argv:
        argv.remove("--check")
        compare.parse_args(argv, __doc__)
        check()
        return
    args = compare.parse_args(argv, __doc__)
    print("| case | %s | best other / jit | jit / C loop |"
          % " | ".join(NAMES[k] for k in B.TRACED_LIBS))
    print("|---|%s---:|---:|" % ("---:|" * len(B.TRACED_LIBS)))
    rows = []
    for name in B.CASES:
        if args.only and args.only not in name:
            continue
        t = compare.time_libs(lambda lib: B.make(lib, name), B.TRACED_LIBS, args, name)
        rows.append((name, t))
        best = min((t[k] for k in OTHERS if t[k] is not None), default=None)
        ratio = "n/a" if best is None else "%.2f" % (best / t["tenferro-jit"])
        limit = "n/a" if t["C loop"] is None else "%.2f" % (t["tenferro-jit"] / t["C loop"])
        print("| %s | %s | %s | %s |" % (name, " | ".join(compare.fmt_t(t[k])
                                                        for k in B.TRACED_LIBS), ratio, limit),
              flush=True)
    _plot.plot_if_asked(args, rows, "tenferro-jit", OTHERS + ["C loop"],
                        "traced: tenferro.jit beside eager libraries and compilers "
                        "(compare_traced.py, %d threads)" % args.threads, NAMES)


if __name__ == "__main__":
    main()
