#!/usr/bin/env python
"""tenferro as users run it: beside NumPy, and on one thread (issue: performance as
users meet it).

For each workload, in one process, the mean per-call time of a burst of calls (as
many as fit in about 2 ms, at least one)

* quiet: after a 0.4 s pause (every other thread pool asleep) and an untimed warm-up
  burst (tenferro's own threads and the cores awake again, as in a loop of calls);
* after NumPy: right after a NumPy 400x400 matmul (NumPy's OpenBLAS threads then spin
  for a while and compete for the cores tenferro's threads need);
* 1 thread: quiet, under ``tenferro.num_threads(1)``;

each the median (and worst) of ``--repeat`` bursts.  The table's ratios are against the
quiet time; the targets are "after NumPy" at most 1.5x quiet and the default thread
count never more than 1.1x one thread.

    python asv_bench/compare_mixed.py [--repeat 9] [--only SUBSTR]
"""
import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchmarks import common  # noqa: E402  (also finds an in-place tenferro build)
import tenferro as tf  # noqa: E402
import tenferro.linalg as tl  # noqa: E402


def _spd(batch, n, seed):
    a = common.get_array((batch, n, n), "float64", "normal", seed)
    return tf.asarray(np.einsum("bij,bkj->bik", a, a) + n * np.eye(n))


def workloads():
    """name -> a function of no arguments running the workload once."""
    eigh_in = _spd(64, 4, 1)
    chol_in = _spd(1000, 8, 2)
    x = tf.asarray(common.get_array((20000,), "float64", "normal", 3))
    y = tf.asarray(common.get_array((20000,), "float64", "normal", 4))
    s = tf.asarray(common.get_array((300, 300), "float64", "normal", 5))
    p, d = 8, 20
    mps = [tf.asarray(common.get_array(sh, "float64", "normal", 10 + i)) for i, sh in
           enumerate([(p, d), (d, p, d), (d, p)] * 2)]
    a = tf.asarray(common.get_array((1000, 1000), "float64", "normal", 6))
    b = tf.asarray(common.get_array((1000, 1000), "float64", "normal", 7))
    return {
        "batched eigh 64x4x4": lambda: tl.eigh(eigh_in),
        "6-operand MPS einsum (bond 20)": lambda: tf.einsum("pa,aqb,br,pc,cqd,dr->", *mps),
        "x*y + sin(x), 2e4 elements": lambda: x * y + tf.sin(x),
        "sum axis 0, 300x300": lambda: s.sum(axis=0),
        "batched cholesky 1000x8x8": lambda: tl.cholesky(chol_in, lower=True),
        "einsum ij,jk->ik 1000^3": lambda: tf.einsum("ij,jk->ik", a, b),
    }


def _burst(fn, n):
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n


def measure(fn, repeat, big):
    """(quiet, after NumPy, 1 thread): (median, worst) seconds per call."""
    for _ in range(3):
        fn()
    n = max(1, int(2e-3 / _burst(fn, 3)))
    quiet, after, one = [], [], []
    for _ in range(repeat):   # the three settings in turn, so drifts of a shared
        time.sleep(0.4)        # machine's load touch them alike
        _burst(fn, n)
        quiet.append(_burst(fn, n))
        big @ big
        after.append(_burst(fn, n))
        with tf.num_threads(1):
            time.sleep(0.4)
            _burst(fn, n)
            one.append(_burst(fn, n))
    return [(float(np.median(v)), max(v)) for v in (quiet, after, one)]


def _us(t):
    return "%.0f ms" % (t * 1e3) if t >= 0.01 else "%.1f us" % (t * 1e6)


def main(argv=None):
    doc = __doc__.strip()
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--repeat", type=int, default=9)
    p.add_argument("--only", default=None, help="run workloads whose name contains this")
    a = p.parse_args(argv)
    tf.set_num_threads(common.N_THREADS)
    big = np.random.default_rng(0).standard_normal((400, 400))
    print("tenferro %s, %d threads, median (worst) of %d bursts"
          % (tf.__version__, tf.get_num_threads(), a.repeat))
    print()
    print("| workload | quiet | right after a NumPy 400x400 matmul | 1 thread |")
    print("|---|---:|---:|---:|")
    for name, fn in workloads().items():
        if a.only and a.only not in name:
            continue
        (q, qw), (af, afw), (o, ow) = measure(fn, a.repeat, big)
        print("| %s | %s | %s (%.1fx; worst %s) | %s (%.2fx) |"
              % (name, _us(q), _us(af), af / q, _us(afw), _us(o), q / o))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
