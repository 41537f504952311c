"""Per-call cost of the BLAS gate (``tenferro/_kernels/_blas_gate.h``): small products
(8^3 skips BLAS, 24^3 and 64^3 call dgemm) timed at the kernel (no Python layer above
it) and through ``a @ b``.  Every BLAS-bound call enters and leaves the gate (two
uncontended mutex lock/unlock pairs and one ``get_num_threads``).  Run it on two
checkouts to compare them (``call_overhead``'s timing: best of 9 repeats of 2000
calls, microseconds):

    PYTHONPATH=<checkout> python asv_bench/blas_gate_overhead.py
"""
import os

import numpy as np

from call_overhead import _best, tf   # (the same timing; tenferro from PYTHONPATH)
from tenferro.devices.cpu import blas_kernels


def main():
    mm = blas_kernels.load()["_matmul"]
    rng = np.random.default_rng(0)
    rows = []
    for n in (8, 24, 64):
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
