"""What profiling costs: per-call time of tiny everyday calls with profiling off (which
must be what it was before profiling existed) and, for reference, with a
``tenferro.profile()`` open.

Profiling off adds no test to ``bind`` or to the fast paths (see tenferro/_profile.py):
compare the "off" column of two checkouts (best of 9 repeats of 2000 calls, microseconds):

    PYTHONPATH=<checkout> python asv_bench/profile_overhead.py
"""
import os

import numpy as np

from call_overhead import _best, tf   # (the same timing; tenferro from PYTHONPATH)


def _cases():
    x = tf.asarray(np.arange(3.0))
    a = tf.asarray(np.eye(3))
    f = tf.jit(lambda t: t * 2.0 + 1.0)
    f(x)

    def setitem():
        x[0] = 1.0

    return [("x + x", lambda: x + x), ("x * 2.0", lambda: x * 2.0),
            ("tf.sum(x)", lambda: tf.sum(x)), ("x[1]", lambda: x[1]),
            ("x[0] = 1.0", setitem), ("a @ a", lambda: a @ a),
            ("einsum ij,jk", lambda: tf.einsum("ij,jk->ik", a, a)),
            ("jit f(x)", lambda: f(x))]


def main():
    on = hasattr(tf, "profile")
    print("tenferro %s (%s)" % (tf.__version__, os.path.dirname(tf.__file__)))
    print("%-14s %10s %10s" % ("call (3 elems)", "off us", "on us" if on else ""))
    cases = _cases()
    offs = [_best(fn) for _, fn in cases]   # all "off" first: no profile has run yet
    ons = [None] * len(cases)
    if on:
        with tf.profile():
            ons = [_best(fn, number=1000) for _, fn in cases]
    for (name, _), off, prof in zip(cases, offs, ons):
        print("%-14s %10.3f %10s" % (name, off, "" if prof is None else "%.3f" % prof))

if __name__ == "__main__":
    main()
