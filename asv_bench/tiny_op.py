"""Per-call cost of a tiny op (3-element float64 add), libraries interleaved.

The tiny-op figure is the noisiest on a shared machine, so the three libraries are
timed in turn, ten rounds, and each one's best and median are printed.

    python asv_bench/tiny_op.py
    python asv_bench/tiny_op.py --webgpu   # eager float32 x + y and x * 2.0 on WebGPU

With ``--webgpu``: 2000 eager ops on 3-element float32 tensors and one sync, best of
5, beside NumPy's ``a + a`` in the same run (the driver's per-op overhead).
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


def webgpu_main(number=2000, rounds=5):
    if sys.platform.startswith("linux"):
        os.environ.setdefault("WGPU_BACKEND_TYPE", "Vulkan")
    dev = tf.device("webgpu")
    x = tf.asarray(np.ones(3, np.float32)).to(dev)

    def per_op(f):
        best = float("inf")
        for _ in range(rounds):
            for _ in range(100):
                f()
            dev.synchronize()
            t = timeit.default_timer()
            for _ in range(number):
                f()
            dev.synchronize()
            best = min(best, (timeit.default_timer() - t) / number)
        return best * 1e6
    a = np.ones(3, np.float32)
    t_np = min(timeit.repeat(lambda: a + a, number=20000, repeat=3)) / 20000 * 1e6
    print("webgpu x + y %.1f us   x * 2.0 %.1f us   (numpy a + a %.2f us)"
          % (per_op(lambda: x + x), per_op(lambda: x * 2.0), t_np))


if __name__ == "__main__":
    webgpu_main() if "--webgpu" in sys.argv[1:] else main()
