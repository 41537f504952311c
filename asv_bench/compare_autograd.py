#!/usr/bin/env python
"""Standalone tenferro vs PyTorch autodiff comparison (no asv needed).

Times the cases of ``benchmarks/bench_autograd.py`` (the same workloads: its ``make_*``
functions build them) with ``compare.py``'s best-of-N timer: one warm-up call, then
``--repeat`` repeats of ``number`` calls each (``number`` chosen so a repeat lasts
>= ``--min-time`` seconds), reporting the minimum per-call time.  tenferro and PyTorch
run with the same thread count (``--threads``, default 2).  Prints a Markdown table:

    case | tenferro | PyTorch | PyTorch/tenferro

A ratio > 1 means tenferro is faster.  Without PyTorch its column reads n/a.

    python asv_bench/compare_autograd.py [--threads 2] [--repeat 7] [--only SUBSTR] [--plot F.png]
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402  (best_of, fmt_t; puts benchmarks/ and tenferro on sys.path)
import _plot  # noqa: E402
from benchmarks import bench_autograd as B  # noqa: E402
from benchmarks import common  # noqa: E402

torch = common.torch_or_none()
LIBS = B.AD_LIBS

# (name, factory(lib) -> callable)
CASES = [
    ("tiny x + y, 3 f64, plain (per op)", lambda lib: B.make_tiny_record(lib, "plain")),
    ("tiny x + y, 3 f64, x requires grad (per op)",
     lambda lib: B.make_tiny_record(lib, "requires_grad")),
    ("chain 10x(z*c + y), 3 f64: fwd + backward", B.make_chain_backward),
    ("chain 10x(z*c + y), 3 f64: grad(f)(x)", B.make_chain_functional),
]
for _dt in ("float64", "float32"):
    for _st in ("forward", "forward_backward"):
        CASES.append(("MLP tanh(x@W1)@W2 .sum(), 512^2 %s: %s" % (_dt, _st.replace("_", " + ")),
                      lambda lib, _dt=_dt, _st=_st: B.make_mlp(lib, _dt, _st)))
for _st in ("forward", "forward_backward", "backward"):
    CASES.append(("deep chain, %d ops, 3 f64: %s" % (2 * B.DEEP_STEPS,
                                                     {"backward": "backward (retained graph)"}
                                                     .get(_st, _st.replace("_", " + "))),
                  lambda lib, _st=_st: B.make_deep_chain(lib, _st)))


def main(argv=None):
    args = compare.parse_args(argv, __doc__)
    print(compare.versions_comment(args))
    print("| case | tenferro | PyTorch | PyTorch/tenferro |")
    print("|---|---:|---:|---:|")
    rows = []
    for name, make in CASES:
        if args.only and args.only not in name:
            continue
        t = compare.time_libs(make, LIBS, args, name)
        rows.append((name, t))
        ratio = ("n/a" if t["torch"] is None or t["tenferro"] is None
                 else "%.2f" % (t["torch"] / t["tenferro"]))
        print("| %s | %s | %s | %s |" % (name, compare.fmt_t(t["tenferro"]),
                                         compare.fmt_t(t["torch"]), ratio), flush=True)
    _plot.plot_if_asked(args, rows, "tenferro", ["torch"],
                        "autodiff: tenferro beside PyTorch (compare_autograd.py, %d threads)"
                        % args.threads, {"torch": "PyTorch"})


if __name__ == "__main__":
    main()
