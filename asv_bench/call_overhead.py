"""Per-call cost of small everyday calls, beside NumPy/SciPy's (and, for autodiff,
PyTorch's, when installed) same call.

The checks that keep results honest (scalar-cache keys, setitem conversion, per-thread
grad mode, jit's signature, solve's condition estimate, norm's overflow guard) run on
every call: this script shows what they cost on 3-element / 3x3 inputs.  Run it on two
checkouts to compare them (best of 9 repeats of 2000 calls, microseconds):

    PYTHONPATH=<checkout> python asv_bench/call_overhead.py
"""
import os
import sys
import timeit

import numpy as np
import scipy.linalg as sl

try:
    import tenferro as tf
except ImportError:  # an in-place build that is not installed
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import tenferro as tf
import tenferro.linalg as tl


def _best(f, number=2000, repeat=9):
    return min(timeit.repeat(f, number=number, repeat=repeat)) / number * 1e6


def _torch_backward():
    """PyTorch's eager backward of the same 3-element expression, or None."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)   # a 3-element op: no thread team either way
    wt = torch.ones(3, dtype=torch.float64, requires_grad=True)
    return lambda: (wt * wt + wt).sum().backward()


def main():
    tf.set_num_threads(2)
    xn, an, bn = np.ones(3), np.eye(3) * 2, np.ones(3)
    x, y, a, b = tf.asarray(xn), tf.asarray(xn.copy()), tf.asarray(an), tf.asarray(bn)
    y2, y2n = tf.asarray(np.ones(2)), np.ones(2)
    xi, xin = tf.asarray(np.int32([1, 2, 3])), np.int32([1, 2, 3])
    w = tf.ones(3, requires_grad=True)
    j = tf.jit(lambda v: v * 2.0 + 1.0)
    j(x)
    g = tf.grad(lambda v: (tf.sin(v) * v).sum())
    cases = [
        ("x * y + x", lambda: x * y + x, lambda: xn * xn + xn),
        ("x * 2.0", lambda: x * 2.0, lambda: xn * 2.0),
        ("int32 < 3", lambda: xi < 3, lambda: xin < 3),
        ("x[1] = 2.0", lambda: x.__setitem__(1, 2.0), lambda: xn.__setitem__(1, 2.0)),
        ("x[0:2] = 1.0", lambda: x.__setitem__(slice(0, 2), 1.0),
         lambda: xn.__setitem__(slice(0, 2), 1.0)),
        ("x[0:2] = y2", lambda: x.__setitem__(slice(0, 2), y2),
         lambda: xn.__setitem__(slice(0, 2), y2n)),
        ("x[1]", lambda: x[1], lambda: xn[1]),
        ("x[0:2]", lambda: x[0:2], lambda: xn[0:2]),
        ("x.sum()", lambda: x.sum(), lambda: xn.sum()),
        ("tf.sum(x)", lambda: tf.sum(x), lambda: np.sum(xn)),
        ("x.mean()", lambda: x.mean(), lambda: xn.mean()),
        ("x.max()", lambda: x.max(), lambda: xn.max()),
        ("a.sum(axis=0)", lambda: a.sum(axis=0), lambda: an.sum(axis=0)),
        ("float(x.sum())", lambda: float(x.sum()), lambda: float(xn.sum())),
        ("a.T", lambda: a.T, lambda: an.T),
        ("a.reshape(9)", lambda: a.reshape(9), lambda: an.reshape(9)),
        ("tf.zeros(3)", lambda: tf.zeros(3), lambda: np.zeros(3)),
        ("einsum i,i->", lambda: tf.einsum("i,i->", x, y), lambda: np.einsum("i,i->", xn, xn)),
        ("solve 3x3", lambda: tl.solve(a, b), lambda: sl.solve(an, bn)),
        ("norm 3", lambda: tl.norm(x), lambda: sl.norm(xn)),
        ("jit call", lambda: j(x), None),
        ("eager backward", lambda: (w * w + w).sum().backward(), _torch_backward()),
        ("tf.grad", lambda: g(x), None),
    ]
    print("%-16s %10s %16s" % ("call", "tenferro", "NumPy/SciPy/torch"))
    for name, f, ref in cases:
        print("%-16s %10.2f %16s" % (name, _best(f), "%.2f" % _best(ref) if ref else "-"))


if __name__ == "__main__":
    main()
