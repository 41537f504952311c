#!/usr/bin/env python
"""Standalone linear-algebra comparison: tenferro.linalg vs scipy.linalg, numpy.linalg
and torch.linalg (no asv needed).

Times the cases of ``benchmarks/bench_linalg.py`` with ``compare.py``'s best-of-N timer
(float64, ``--threads`` threads each, default 2) and prints a Markdown table; a ratio
above 1 means tenferro is faster.  "best other" is the fastest of SciPy, NumPy and
PyTorch in the same run.  ``--check`` instead verifies once that every tenferro case
gives the same values as SciPy/NumPy (and the gradients the closed forms / PyTorch).

    python asv_bench/compare_linalg.py [--threads 2] [--repeat 7] [--only SUBSTR] [--check]
                                          [--plot F.png]
"""
import os
import platform
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402  (best_of, fmt_t; puts benchmarks/ and tenferro on sys.path)
import _plot  # noqa: E402
from benchmarks import bench_linalg as B  # noqa: E402
from benchmarks import common  # noqa: E402
import numpy as np  # noqa: E402
import tenferro as tf  # noqa: E402

torch = common.torch_or_none()
OTHERS = ["scipy", "numpy", "torch"]
NAMES = {"tenferro": "tenferro", "scipy": "SciPy", "numpy": "NumPy", "torch": "PyTorch"}


def _np(x):
    if isinstance(x, (list, tuple)):
        return [_np(y) for y in x]
    if torch is not None and isinstance(x, torch.Tensor):
        return x.detach().numpy()
    return np.asarray(x)


def _close(name, what, got, want, rtol=1e-9, atol=1e-9):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape, "%s: %s shape %s != %s" % (name, what, got.shape,
                                                                want.shape)
    err = np.max(np.abs(got - want)) if got.size else 0.0
    scale = np.max(np.abs(want)) if want.size else 0.0
    assert err <= atol + rtol * scale, "%s: %s differs by %.3g (scale %.3g)" % (
        name, what, err, scale)


def check():
    """Run every tenferro case once and compare it with SciPy/NumPy (and PyTorch for
    the gradients).  Raises AssertionError on a mismatch."""
    common.set_threads()
    for name, (op, kind, shape) in B.CASES.items():
        a = B.matrix(kind, shape)
        got = _np(B.make("tenferro", name)())
        ref = _np(B.make("scipy", name)())
        if len(shape) == 3:  # scipy looped: restack (eigh gives a list of (w, v) pairs)
            ref = ([np.stack([r[0] for r in ref]), np.stack([r[1] for r in ref])]
                   if op == "eigh" else np.stack(ref))
        if op == "cholesky":
            _close(name, "L", got, ref)
            _close(name, "L (numpy)", got, _np(B.make("numpy", name)()))
        elif op == "solve":
            _close(name, "x", got, ref)
            _close(name, "x (numpy)", got, _np(B.make("numpy", name)()))
            _close(name, "residual", a @ got, B.rhs(shape), rtol=1e-12)
        elif op == "svd":
            u, s, vh = got
            _close(name, "s", s, ref[1])
            assert u.shape == ref[0].shape and vh.shape == ref[2].shape, name
            _close(name, "U s Vh", (u * s[..., None, :]) @ vh, a)
            k = s.shape[-1]
            _close(name, "U^T U", np.swapaxes(u, -1, -2) @ u, np.eye(k))
            # gauge-invariant comparison of the vectors: |<u_i, u_i^ref>| = 1
            _close(name, "|U . U_ref|", np.abs(np.sum(u * ref[0], axis=-2)), np.ones(k))
        elif op == "eigh":
            w, v = got
            _close(name, "w", w, ref[0])
            _close(name, "w (numpy)", w, _np(B.make("numpy", name)())[0])
            _close(name, "A V - V w", a @ v - v * w[..., None, :], np.zeros_like(v),
                   atol=1e-9 * np.max(np.abs(a)))
            _close(name, "|V . V_ref|", np.abs(np.sum(v * ref[1], axis=-2)),
                   np.ones(w.shape))
        print("ok  %s" % name, flush=True)
    for name, (op, kind, shape) in B.GRAD_CASES.items():
        a = B.matrix(kind, shape)
        run = B.make("tenferro", name)
        run()
        grad = _np(run.tensor.grad)
        val = float(_np(run.loss()))
        if op == "logdet_chol":
            _close(name, "logdet", val, np.linalg.slogdet(a)[1], rtol=1e-12)
            # tenferro's cholesky reads one triangle (as scipy does), so its gradient is
            # the adjoint of that read (lower triangle); PyTorch symmetrizes.  The
            # symmetric parts agree: sym(grad) = A^-1.
            assert np.all(np.triu(grad, 1) == 0), name + ": grad not lower triangular"
            grad = 0.5 * (grad + grad.T)
            _close(name, "sym(grad)", grad, np.linalg.inv(a), rtol=1e-8)
        else:
            u, s, vh = np.linalg.svd(a, full_matrices=False)
            _close(name, "loss", val, s.sum() + a.sum(), rtol=1e-12)
            _close(name, "grad", grad, u @ vh + 1.0, rtol=1e-8)
        if torch is not None:
            trun = B.make("torch", name)
            trun()
            tgrad = _np(trun.tensor.grad)
            if op == "logdet_chol":
                tgrad = 0.5 * (tgrad + tgrad.T)
            _close(name, "grad (torch)", grad, tgrad, rtol=1e-8)
        print("ok  %s" % name, flush=True)
    print("all tenferro linalg cases agree with SciPy/NumPy")


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--check" in argv:
        argv.remove("--check")
        compare.parse_args(argv, __doc__)  # sets the threads
        check()
        return
    args = compare.parse_args(argv, __doc__)
    import scipy

    print("<!-- tenferro %s, scipy %s, numpy %s, torch %s, python %s, %s, %d threads, "
          "best of %d -->"
          % (getattr(tf, "__version__", "?"), scipy.__version__, np.__version__,
             torch.__version__ if torch else "not installed", platform.python_version(),
             platform.machine(), args.threads, args.repeat))
    print("| case | %s | best other / tenferro |"
          % " | ".join(NAMES[k] for k in B.LINALG_LIBS))
    print("|---|%s---:|" % ("---:|" * len(B.LINALG_LIBS)))
    rows = []
    for name in list(B.CASES) + list(B.GRAD_CASES):
        if args.only and args.only not in name:
            continue
        t = compare.time_libs(lambda lib: B.make(lib, name), B.LINALG_LIBS, args, name)
        rows.append((name, t))
        best = min((t[k] for k in OTHERS if t[k] is not None), default=None)
        ratio = ("n/a" if best is None or t["tenferro"] is None
                 else "%.2f" % (best / t["tenferro"]))
        print("| %s | %s | %s |" % (
            name, " | ".join(compare.fmt_t(t[k]) for k in B.LINALG_LIBS), ratio),
            flush=True)
    _plot.plot_if_asked(args, rows, "tenferro", OTHERS,
                        "linalg: tenferro beside SciPy, NumPy and PyTorch "
                        "(compare_linalg.py, %d threads)" % args.threads, NAMES)


if __name__ == "__main__":
    main()
