#!/usr/bin/env python
"""Where tenferro trails PyTorch on BLAS/LAPACK-bound calls: is it tenferro, or the BLAS?

tenferro's dense products and factorizations call the BLAS and LAPACK that SciPy was
built with (``scipy.linalg.cython_blas`` / ``cython_lapack``: OpenBLAS in the PyPI
wheels); PyTorch's pip wheels call Intel MKL.  For each case this script times, in one
run (each library in its own block after a 0.3 s pause, ``--threads`` threads each,
best of ``--repeat``):

* tenferro;
* the bare SciPy call tenferro makes (``scipy.linalg.blas`` / ``scipy.linalg.lapack``
  on Fortran-ordered inputs: the same OpenBLAS routine, without tenferro);
* NumPy (its own OpenBLAS copy);
* PyTorch (MKL).

"tenferro / bare call" near 1 means tenferro adds nothing to the BLAS time, and the
gap to PyTorch is the gap between the two BLAS libraries.

``--beside-numpy`` times instead BLAS-bound tenferro calls quiet and right after a
NumPy 400x400 matmul (NumPy's own OpenBLAS copy, whose threads then spin), and
NumPy's own back-to-back 128^2 matmuls (what a short OpenBLAS spin costs NumPy).
Run it as is, with ``OPENBLAS_THREAD_TIMEOUT=4`` in the environment, and with
``--tenferro-first`` (tenferro imported before NumPy, so that NumPy's OpenBLAS loads
with tenferro's short spin) to compare the remedies of docs/performance.md.

    python asv_bench/compare_blas.py [--threads 2] [--repeat 7] [--only SUBSTR]
    python asv_bench/compare_blas.py --beside-numpy [--tenferro-first]
"""
import sys

if "--tenferro-first" in sys.argv:
    import tenferro  # noqa: F401  (before NumPy: its OpenBLAS then spins briefly)

import argparse  # noqa: E402
import os  # noqa: E402
import time  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402  (best_of, fmt_t; puts benchmarks/ and tenferro on sys.path)
from benchmarks import common  # noqa: E402
import numpy as np  # noqa: E402
import scipy.linalg.blas as sb  # noqa: E402
import scipy.linalg.lapack as sl  # noqa: E402
import tenferro as tf  # noqa: E402
import tenferro.linalg as tl  # noqa: E402
from tenferro.devices.cpu.blas import blas_info  # noqa: E402

torch = common.torch_or_none()
LIBS = ["tenferro", "bare", "numpy", "torch"]


def _spd(n):
    a = common.get_array((n, n), "float64", "normal", 1)
    return a @ a.T + n * np.eye(n)


def _gemm(n, dtype):
    a = common.get_array((n, n), dtype, "normal", 2)
    b = common.get_array((n, n), dtype, "normal", 3)
    fa, fb = np.asfortranarray(a), np.asfortranarray(b)
    gemm = sb.sgemm if dtype == "float32" else sb.dgemm
    return {
        "tenferro": (lambda x, y: lambda: x @ y)(tf.asarray(a), tf.asarray(b)),
        "bare": lambda: gemm(1.0, fa, fb),
        "numpy": lambda: a @ b,
        "torch": (lambda x, y: lambda: x @ y)(*((torch.from_numpy(a), torch.from_numpy(b))
                                                if torch else (None, None))),
    }


def _solve(n):
    a, b = _spd(n) + np.triu(common.get_array((n, n), "float64", "normal", 4)), \
        common.get_array((n,), "float64", "normal", 5)
    fa = np.asfortranarray(a)
    return {
        "tenferro": (lambda x, y: lambda: tl.solve(x, y))(tf.asarray(a), tf.asarray(b)),
        # scipy.linalg.solve's default path: LU with partial pivoting (dgesv)
        "bare": lambda: sl.dgesv(fa, b),
        "numpy": lambda: np.linalg.solve(a, b),
        "torch": (lambda x, y: lambda: torch.linalg.solve(x, y))(
            *((torch.from_numpy(a), torch.from_numpy(b)) if torch else (None, None))),
    }


def _cholesky(n):
    a = _spd(n)
    fa = np.asfortranarray(a)
    return {
        "tenferro": (lambda x: lambda: tl.cholesky(x, lower=True))(tf.asarray(a)),
        "bare": lambda: sl.dpotrf(fa, lower=1),
        "numpy": lambda: np.linalg.cholesky(a),
        "torch": (lambda x: lambda: torch.linalg.cholesky(x))(
            torch.from_numpy(a) if torch else None),
    }


CASES = {
    "solve 500 (dgesv)": lambda: _solve(500),
    "cholesky 500 (dpotrf)": lambda: _cholesky(500),
    "matmul 512^3 float64 (dgemm)": lambda: _gemm(512, "float64"),
    "matmul 512^3 float32 (sgemm)": lambda: _gemm(512, "float32"),
    "matmul 1024^3 float32 (sgemm)": lambda: _gemm(1024, "float32"),
}


def _scipy_blas_name():
    b = blas_info() or {}
    return "%s %s" % (b.get("name", "unknown"), b.get("version", ""))


def _median_after(fn, before, repeat):
    """Median seconds of fn() right after before() (each after a 0.4 s pause)."""
    ts = []
    fn()
    for _ in range(repeat):
        time.sleep(0.4)
        before()
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts))


def beside_numpy(args):
    """BLAS-bound tenferro calls quiet and right after a NumPy matmul."""
    from tenferro._config import numpy_blas_spin
    big = common.get_array((400, 400), "float64", "normal", 9)
    a = tf.asarray(common.get_array((1000, 1000), "float64", "normal", 6))
    b = tf.asarray(common.get_array((1000, 1000), "float64", "normal", 7))
    k = tf.asarray(_spd(1000))
    s = common.get_array((128, 128), "float64", "normal", 8)
    print("NumPy's OpenBLAS spin: %s; %d threads, median of %d\n"
          % (numpy_blas_spin(), args.threads, args.repeat))
    print("| call | quiet | right after a NumPy 400x400 matmul | ratio |")
    print("|---|---:|---:|---:|")
    for name, fn in [("tenferro einsum ij,jk->ik 1000^3", lambda: tf.einsum("ij,jk->ik", a, b)),
                     ("tenferro cholesky 1000", lambda: tl.cholesky(k, lower=True))]:
        q = _median_after(fn, lambda: None, args.repeat)
        af = _median_after(fn, lambda: big @ big, args.repeat)
        print("| %s | %s | %s | %.2f |" % (name, compare.fmt_t(q), compare.fmt_t(af), af / q))
    time.sleep(0.4)
    t = compare.best_of(lambda: s @ s, args.repeat, 0.2)
    print("| NumPy 128^2 matmul, back to back | %s | | |" % compare.fmt_t(t))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=common.N_THREADS)
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--only", default="")
    p.add_argument("--beside-numpy", action="store_true")
    p.add_argument("--tenferro-first", action="store_true",
                   help="import tenferro before NumPy (read before the other imports)")
    args = p.parse_args(argv)
    common.set_threads(args.threads)
    if args.beside_numpy:
        return beside_numpy(args)
    print("tenferro %s, %d threads each, best of %d; SciPy's BLAS: %s; PyTorch's: %s\n"
          % (tf.__version__, args.threads, args.repeat, _scipy_blas_name(),
             "MKL" if torch is not None and torch.backends.mkl.is_available() else "n/a"))
    print("| case | tenferro | bare SciPy call | NumPy | PyTorch | tenferro / bare "
          "| tenferro / PyTorch |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, make in CASES.items():
        if args.only not in name:
            continue
        fns = make()
        t = {}
        for lib in LIBS:
            if lib == "torch" and torch is None:
                continue
            time.sleep(0.3)  # let the previous library's threads go idle
            t[lib] = compare.best_of(fns[lib], args.repeat, 0.2)
        tt = t.get("torch")
        print("| %s | %s | %s | %s | %s | %.2f | %s |" % (
            name, compare.fmt_t(t["tenferro"]), compare.fmt_t(t["bare"]),
            compare.fmt_t(t["numpy"]), compare.fmt_t(tt) if tt else "n/a",
            t["tenferro"] / t["bare"], "%.2f" % (t["tenferro"] / tt) if tt else "n/a"))


if __name__ == "__main__":
    main()
