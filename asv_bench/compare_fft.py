#!/usr/bin/env python
"""FFT comparison: tenferro.fft vs scipy.fft (the same pocketfft) and torch.fft.

Times the cases of ``benchmarks/bench_fft.py``: each library in its own block after a
0.3 s pause (the previous library's threads asleep), ``--threads`` threads each
(scipy's ``workers``, tenferro's and PyTorch's thread counts), best of ``--repeat``;
the blocks alternate over ``--rounds`` rounds, in turned order, and each library keeps
its best round (so a burst of load on the shared machine hits them alike).  A ratio
above 1 means tenferro is faster; "SciPy / tenferro" near 1 means tenferro adds
nothing to pocketfft's time.  ``--interleave N`` instead alternates single calls of
the libraries N times and reports each one's median call (on a loaded machine the
fairest comparison: every library meets the same moments of load).  ``--check``
verifies that every case gives scipy's values (and the gradient case its closed form).

    python asv_bench/compare_fft.py [--threads 2] [--repeat 7] [--rounds 3]
                                    [--interleave N] [--only SUBSTR] [--check] [--plot F.png]
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


def _makers(name):
    fns = {}
    for lib in B.FFT_LIBS:
        try:
            fns[lib] = B.make(lib, name)
        except NotImplementedError as e:
            print("<!-- %s, %s: %s -->" % (name, lib, e), flush=True)
    return fns


def time_case(name, args):
    fns = _makers(name)
    best = {lib: None for lib in B.FFT_LIBS}
    for r in range(args.rounds):
        order = list(fns)[r % len(fns):] + list(fns)[:r % len(fns)]
        for lib in order:
            time.sleep(0.3)
            t = compare.best_of(fns[lib], args.repeat, args.min_time)
            best[lib] = t if best[lib] is None else min(best[lib], t)
    return best


def time_interleaved(name, args):
    fns = _makers(name)
    times = {lib: [] for lib in fns}
    for f in fns.values():
        f()   # warm-up
    for _ in range(args.interleave):
        for lib, f in fns.items():
            t0 = time.perf_counter()
            f()
            times[lib].append(time.perf_counter() - t0)
    return {lib: float(np.median(times[lib])) if lib in times else None
            for lib in B.FFT_LIBS}


def _option(argv, name, default):
    if name not in argv:
        return default
    i = argv.index(name)
    value = int(argv[i + 1])
    del argv[i:i + 2]
    return value


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    rounds, interleave = _option(argv, "--rounds", 3), _option(argv, "--interleave", 0)
    args = compare.parse_args(argv, __doc__)
    args.rounds, args.interleave = rounds, interleave
    if args.check:
        check()
        return
    import scipy

    method = ("median of %d interleaved calls" % args.interleave if args.interleave
              else "best of %d x %d rounds" % (args.repeat, args.rounds))
    print("<!-- tenferro %s, scipy %s, numpy %s, torch %s, python %s, %s, %d threads, %s -->"
          % (tf.__version__, scipy.__version__, np.__version__,
             torch.__version__ if torch else "not installed", platform.python_version(),
             platform.machine(), args.threads, method))
    print("| case | tenferro | SciPy | PyTorch | SciPy / tenferro | PyTorch / tenferro |")
    print("|---|---:|---:|---:|---:|---:|")
    rows = []
    for name in list(B.CASES) + list(B.GRAD_CASES):
        if args.only and args.only not in name:
            continue
        if args.interleave and name in B.GRAD_CASES:
            continue   # (one library against itself: nothing to interleave)
        t = time_interleaved(name, args) if args.interleave else time_case(name, args)
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
