#!/usr/bin/env python
"""Convolution and pooling comparison: tenferro.nn vs torch.nn.functional on the CPU.

Times the cases of ``benchmarks/bench_nn.py`` and the depthwise ones below (the
direct kernel: its backward, stride 2, float64): each library in its own block after a
0.5 s pause (the previous library's threads asleep), ``--threads`` threads each
(tenferro's and PyTorch's thread counts), best of ``--repeat``; the blocks alternate
over ``--rounds`` rounds, in turned order, and each library keeps its best round (so a
burst of load on a shared machine hits both alike).  A ratio above 1 means tenferro is
faster.  ``--check`` first verifies that tenferro's results match PyTorch's.

    python asv_bench/compare_nn.py [--threads 2] [--repeat 5] [--rounds 2]
                                   [--only SUBSTR] [--check] [--plot F.png]
"""
import os
import platform
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402  (best_of, fmt_t; puts benchmarks/ and tenferro on sys.path)
import _plot  # noqa: E402
from benchmarks import bench_nn as B  # noqa: E402
from benchmarks import common  # noqa: E402
import numpy as np  # noqa: E402
import tenferro as tf  # noqa: E402

torch = common.torch_or_none()

# depthwise convolutions beyond bench_nn's forward one (tenferro/_kernels/_conv.pyx)
_DW = ("conv2d", "float32", (32, 64, 56, 56), (64, 1, 3, 3))
B.CASES.update({
    "conv2d depthwise 32x64x56x56 k3 float32: fwd+bwd": _DW + (dict(padding=1, groups=64),
                                                               True),
    "conv2d depthwise 32x64x56x56 k3 s2 float32": _DW + (dict(stride=2, padding=1,
                                                              groups=64), False),
    "conv2d depthwise 32x64x56x56 k3 s2 float32: fwd+bwd": _DW + (
        dict(stride=2, padding=1, groups=64), True),
    "conv2d depthwise 32x64x56x56 k3 float64": ("conv2d", "float64") + _DW[2:] + (
        dict(padding=1, groups=64), False),
    "conv2d x2 multiplier 32x32x56x56 k5 float32": ("conv2d", "float32", (32, 32, 56, 56),
                                                     (64, 1, 5, 5), dict(padding=2,
                                                                         groups=32), False),
})


def check():
    for name in B.CASES:
        got, want = (np.asarray(B.make(lib, name)().detach()) for lib in B.NN_LIBS)
        tol = 1e-4 if "float32" in name else 1e-10
        assert got.shape == want.shape, name
        assert np.max(np.abs(got - want)) <= tol * max(1.0, np.max(np.abs(want))), name
        print("ok  %s" % name, flush=True)


def time_case(name, args):
    fns = {lib: B.make(lib, name) for lib in B.NN_LIBS}
    best = dict.fromkeys(B.NN_LIBS)
    for r in range(args.rounds):
        for lib in (B.NN_LIBS if r % 2 == 0 else B.NN_LIBS[::-1]):
            time.sleep(0.5)
            t = compare.best_of(fns[lib], args.repeat, args.min_time)
            best[lib] = t if best[lib] is None else min(best[lib], t)
    return best


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    rounds = 2
    if "--rounds" in argv:
        i = argv.index("--rounds")
        rounds = int(argv[i + 1])
        del argv[i:i + 2]
    args = compare.parse_args(argv, __doc__, repeat=5, min_time=0.0)
    args.rounds = rounds
    if torch is None:
        raise SystemExit("compare_nn.py: PyTorch is not installed")
    if args.check:
        check()
    print("<!-- tenferro %s, numpy %s, torch %s, python %s, %s, %d threads, best of %d x %d "
          "rounds -->" % (tf.__version__, np.__version__, torch.__version__,
                          platform.python_version(), platform.machine(), args.threads,
                          args.repeat, args.rounds))
    print("| case | tenferro | PyTorch | PyTorch / tenferro |")
    print("|---|---:|---:|---:|")
    rows = []
    for name in B.CASES:
        if args.only and args.only not in name:
            continue
        t = time_case(name, args)
        rows.append((name, t))
        print("| %s | %s | %s | %.2f |" % (name, compare.fmt_t(t["tenferro"]),
                                           compare.fmt_t(t["torch"]),
                                           t["torch"] / t["tenferro"]), flush=True)
    _plot.plot_if_asked(args, rows, "tenferro", ["torch"],
                        "nn: tenferro beside PyTorch (compare_nn.py, %d threads)"
                        % args.threads, {"torch": "PyTorch"})


if __name__ == "__main__":
    main()
