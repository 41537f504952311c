"""Per-call cost of a cached einsum on tiny operands (``ij,jk->ik``, 3x3 float64),
beside numpy.einsum, opt_einsum.contract and torch.einsum (2 threads, best of 7).

    python asv_bench/einsum_tiny.py
"""
import os
import sys
import timeit

import numpy as np
import opt_einsum as oe

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import tenferro as tf  # noqa: E402

try:
    import torch
except ImportError:  # optional reference
    torch = None


def best(f, number=5000, repeat=7):
    return min(timeit.repeat(f, number=number, repeat=repeat)) / number * 1e6


def main():
    tf.set_num_threads(2)
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
    a, b = tf.asarray(A), tf.asarray(B)
    rows = [("tenferro", best(lambda: tf.einsum("ij,jk->ik", a, b))),
            ("numpy", best(lambda: np.einsum("ij,jk->ik", A, B))),
            ("opt_einsum", best(lambda: oe.contract("ij,jk->ik", A, B)))]
    if torch is not None:
        torch.set_num_threads(2)
        ta, tb = torch.tensor(A), torch.tensor(B)
        rows.append(("torch", best(lambda: torch.einsum("ij,jk->ik", ta, tb))))
    for name, us in rows:
        print("%-10s %7.2f us   other/tenferro %.2f" % (name, us, us / rows[0][1]))


if __name__ == "__main__":
    main()
