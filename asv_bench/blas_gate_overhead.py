"""Per-call cost of the BLAS gate (``tenferro/_kernels/_blas_gate.h``): small products
and a small batched solve that reach BLAS/LAPACK, timed at the kernel (no Python layer
above it) and through ``a @ b``.  Every such call enters and leaves the gate (two
uncontended mutex lock/unlock pairs and one ``get_num_threads``).  Run it on two
checkouts to compare them (best of 15 repeats of 5000 calls, microseconds):

    PYTHONPATH=<checkout> python asv_bench/blas_gate_overhead.py
"""
import os
import sys
import timeit

import numpy as np

try:
    import tenferro as tf
except ImportError:  # an in-place build that is not installed
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import tenferro as tf
from tenferro.devices.cpu import blas_kernels


def _best(f, number=5000, repeat=15):
    return min(timeit.repeat(f, number=number, repeat=repeat)) / number * 1e6


def main():
    mm = blas_kernels.load()["_matmul"]
    rng = np.random.default_rng(0)
    rows = []
    for n in (8, 24, 64):     # 8^3 skips BLAS (tiny), 24^3 and 64^3 call dgemm
        a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
        out = np.empty((n, n))
        ta, tb = tf.asarray(a), tf.asarray(b)
        for nt in (1, 2):
            with tf.num_threads(nt):
                k = _best(lambda: mm.matmul(a, b, out, nt))
                t = _best(lambda: ta @ tb)
            rows.append(("%d^3 product, %d thread(s)" % (n, nt), k, t))
    print("%-28s %10s %10s" % ("call", "kernel us", "a @ b us"))
    for name, k, t in rows:
        print("%-28s %10.3f %10.3f" % (name, k, t))
    print("tenferro:", os.path.dirname(tf.__file__))


if __name__ == "__main__":
    main()
