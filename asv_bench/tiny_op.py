"""Per-call cost of a tiny op (3-element float64 add), libraries interleaved.

The tiny-op figure is the noisiest on a shared machine, so the three libraries are
timed in turn, ten rounds, and each one's best and median are printed.

    python asv_bench/tiny_op.py
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


def main(rounds=10, number=20000):
    tf.set_num_threads(2)
    cases = {"tenferro": (tf.asarray(np.ones(3)), tf.asarray(np.ones(3))),
             "numpy": (np.ones(3), np.ones(3))}
    try:
        import torch

        torch.set_num_threads(2)
        cases["torch"] = (torch.ones(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64))
    except ImportError:
        pass
    times = {k: [] for k in cases}
    for _ in range(rounds):
        for k, (a, b) in cases.items():
            t = min(timeit.repeat(lambda: a + b, number=number, repeat=3)) / number
            times[k].append(t * 1e9)
    for k, v in times.items():
        v.sort()
        print("%-9s best %5.0f ns   median %5.0f ns" % (k, v[0], v[len(v) // 2]))


if __name__ == "__main__":
    main()
