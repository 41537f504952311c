#!/usr/bin/env python
"""FFT comparison: tenferro.fft vs scipy.fft (the same pocketfft) and torch.fft.

Times the cases of ``benchmarks/bench_fft.py``: each library in its own block after a
0.3 s pause (the previous library's threads asleep), ``--threads`` threads each
(scipy's ``workers``, tenferro's and PyTorch's thread counts), best of ``--repeat``;
the blocks alternate over ``--rounds`` rounds, in turned order, and each library keeps
its best round (so a burst of load on the shared machine hits them alike).  A ratio
above 1 means tenferro is faster; "SciPy / tenferro" near 1 means tenferro adds
nothing to pocketfft's time.  ``--check`` instead verifies that every case gives
scipy's values (and the gradient case its closed form).

    python asv_bench/compare_fft.py [--threads 2] [--repeat 7] [--rounds 3]
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
from benchmarks import bench_fft as B  # noqa: E402
from benchmarks import common  # noqa: E402
import numpy as np  # noqa: E402
import tenferro as tf  # noqa: E402

torch = common.torch_or_none()
OTHERS = ["scipy", "torch"]
NAMES = {"tenferro": "tenferro", "scipy": "SciPy", "torch": "PyTorch"}


def check():
    for name, (fn, dtype, shape, kw) in B.CASES.items():
        got = np.asarray(B.make("tenferro", name)())
        want = B.make("scipy", name)()
        assert got.dtype == want.dtype and got.shape == want.shape, name
        err = np.max(np.abs(got - want)) / np.max(np.abs(want))
        assert err < (1e-5 if dtype == "float32" else 1e-12), (name, err)
        print("ok  %s" % name, flush=True)
    for name, (dtype, shape) in B.GRAD_CASES.items():
        got = np.asarray(B.make("tenferro", name)())
        import scipy.fft as sf

        n = shape[-1]   # d/dx sum_k |X_k|^2 over the half spectrum = 2 Re sum_k X_k w^-jk
        x = B.data(dtype, shape)
        w = np.full(n // 2 + 1, 0.5)
        w[0] = w[-1] = 1.0   # (n even: the zero and Nyquist bins once)
        want = 2.0 * n * sf.irfft(sf.rfft(x) * w, n)
        assert np.allclose(got, want, rtol=1e-10, atol=1e-8), name
        print("ok  %s" % name, flush=True)
    print("all tenferro fft cases agree with scipy.fft")


def time_case(name, args):
    fns = {}
    for lib in B.FFT_LIBS:
        try:
            fns[lib] = B.make(lib, name)
        except NotImplementedError as e:
            print("<!-- %s, %s: %s -->" % (name, lib, e), flush=True)
    best = {lib: None for lib in B.FFT_LIBS}
    for r in range(args.rounds):
        order = list(fns)[r % len(fns):] + list(fns)[:r % len(fns)]
        for lib in order:
            time.sleep(0.3)
            t = compare.best_of(fns[lib], args.repeat, args.min_time)
            best[lib] = t if best[lib] is None else min(best[lib], t)
    return best


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    rounds = 3
    if "--rounds" in argv:
        i = argv.index("--rounds")
        rounds = int(argv[i + 1])
        del argv[i:i + 2]
    args = compare.parse_args(argv, __doc__)
    args.rounds = rounds
    if args.check:
        check()
        return
    import scipy

    print("<!-- tenferro %s, scipy %s, numpy %s, torch %s, python %s, %s, %d threads, "
          "best of %d x %d rounds -->"
          % (tf.__version__, scipy.__version__, np.__version__,
             torch.__version__ if torch else "not installed", platform.python_version(),
             platform.machine(), args.threads, args.repeat, args.rounds))
    print("| case | tenferro | SciPy | PyTorch | SciPy / tenferro | PyTorch / tenferro |")
    print("|---|---:|---:|---:|---:|---:|")
    rows = []
    for name in list(B.CASES) + list(B.GRAD_CASES):
        if args.only and args.only not in name:
            continue
        t = time_case(name, args)
        rows.append((name, t))

        def ratio(lib):
            return "n/a" if t[lib] is None else "%.2f" % (t[lib] / t["tenferro"])

        print("| %s | %s | %s | %s | %s | %s |" % (
            name, compare.fmt_t(t["tenferro"]), compare.fmt_t(t["scipy"]),
            compare.fmt_t(t["torch"]), ratio("scipy"), ratio("torch")), flush=True)
    _plot.plot_if_asked(args, rows, "tenferro", OTHERS,
                        "fft: tenferro beside SciPy and PyTorch (compare_fft.py, %d threads)"
                        % args.threads, NAMES)


if __name__ == "__main__":
    main()
