#!/usr/bin/env python
"""Do threads ever hurt?  Per kernel family and size, tenferro's default thread count
against one thread, measured in one run.

For each case the two settings are timed in turn (best of ``--repeat`` timeit runs
each, alternating), on a quiet machine unless ``--busy`` starts a background process
spinning on one core (a machine whose other cores are taken).  The ratio is default /
one thread: above 1.1 the default is more than 10% slower, the failure the issue's
target "threads never hurt" forbids; such rows are marked.  The grain sizes in force
(``tenferro.devices.cpu.threads.GRAIN``) decide where parallel regions start; try
others with ``--grain family=size`` to tune them.

    python asv_bench/thread_sweep.py [--only SUBSTR] [--busy] [--grain reduce=65536]

It measures the tenferro that ``import tenferro`` finds (the header says which): the
installed one, or a tree's with ``PYTHONPATH=TREE`` (to compare two trees, alternate).
"""
import argparse
import multiprocessing
import os
import sys
import timeit

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchmarks import common  # noqa: E402
import tenferro as tf  # noqa: E402
import tenferro.linalg as tl  # noqa: E402
from tenferro.devices.cpu import threads  # noqa: E402

rng = np.random.default_rng(0)


def _v(n, dtype="float64"):
    return tf.asarray(rng.standard_normal(n).astype(dtype))


def _spd(b, k):
    a = rng.standard_normal((b, k, k))
    return tf.asarray(np.einsum("bij,bkj->bik", a, a) + k * np.eye(k))


def _elementwise(n):
    x, y = _v(n), _v(n)
    return lambda: x + y


def _transcendental(n):
    x = _v(n)
    return lambda: tf.sin(x)


def _cast(n):
    x = _v(n)
    return lambda: x.astype("float32")


def _sum_all(n):
    x = _v(n)
    return lambda: x.sum()


def _sum_axis0(n):
    x = tf.asarray(rng.standard_normal((max(n // 256, 1), 256)))
    return lambda: x.sum(axis=0)


def _sum_axis1(n):
    x = tf.asarray(rng.standard_normal((max(n // 256, 1), 256)))
    return lambda: x.sum(axis=1)


def _cumsum(n):
    x = tf.asarray(rng.standard_normal((max(n // 256, 1), 256)))
    return lambda: tf.cumsum(x, axis=1)


def _argmax(n):
    x = tf.asarray(rng.standard_normal((max(n // 256, 1), 256)))
    return lambda: tf.argmax(x, axis=1)


def _take(n):
    x = _v(n)
    idx = tf.asarray(rng.integers(0, n, n))
    return lambda: tf.take(x, idx)


def _rows(n):
    return max(n // 256, 1)


def _take_rows(n):
    x = tf.asarray(rng.standard_normal((_rows(n), 256)))
    idx = tf.asarray(rng.integers(0, _rows(n), _rows(n)))
    return lambda: tf.take(x, idx, axis=0)


def _take_along(n):
    x = tf.asarray(rng.standard_normal((_rows(n), 256)))
    idx = tf.asarray(rng.integers(0, 256, (_rows(n), 256)))
    return lambda: tf.take_along_axis(x, idx, axis=1)


def _scatter_cols(n):
    # take(x, idx, axis=1)'s adjoint: cut along the rows the target moves along
    v = tf.asarray(rng.standard_normal((_rows(n), 256)))
    idx = tf.asarray(rng.integers(0, 256, 256))
    return lambda: tf.scatter_add((_rows(n), 256), idx, v, 1)


def _scatter_rows(n):
    # take(x, idx, axis=0)'s adjoint (an embedding's gradient): rows of 256 are too
    # narrow to cut, so one thread
    v = tf.asarray(rng.standard_normal((_rows(n), 256)))
    idx = tf.asarray(rng.integers(0, _rows(n), _rows(n)))
    return lambda: tf.scatter_add((_rows(n), 256), idx, v, 0)


def _scatter_wide_rows(n):
    # the same with rows of 1024: cut along the rows' elements (256 or more a chunk)
    m = max(n // 1024, 1)
    v = tf.asarray(rng.standard_normal((m, 1024)))
    idx = tf.asarray(rng.integers(0, m, m))
    return lambda: tf.scatter_add((m, 1024), idx, v, 0)


def _scatter_along(n):
    v = tf.asarray(rng.standard_normal((_rows(n), 256)))
    idx = tf.asarray(rng.integers(0, 256, (_rows(n), 256)))
    return lambda: tf.scatter_add_along_axis((_rows(n), 256), idx, v, 1)


def _grad_take(n):
    x = _v(n)
    idx = tf.asarray(rng.integers(0, n, n))
    g = tf.grad(lambda x: tf.take(x, idx).sum())
    return lambda: g(x)


def _setitem(n):
    y = _v(n)
    idx = tf.asarray(rng.integers(0, n, n))
    v = _v(n)

    def f():
        y[idx] = v
    return f


def _cholesky(n):
    a = _spd(max(n // 16, 1), 4)
    return lambda: tl.cholesky(a, lower=True)


def _eigh(n):
    a = _spd(max(n // 16, 1), 4)
    return lambda: tl.eigh(a)


def _batched_matmul(n):
    a = tf.asarray(rng.standard_normal((max(n // 16, 1), 4, 4)))
    return lambda: a @ a


def _einsum_step(n):
    a = tf.asarray(rng.standard_normal((max(n // 64, 1), 8, 8)))
    return lambda: tf.einsum("bij,bjk->bik", a, a)


def _fused(n):
    x, y = _v(n), _v(n)
    f = tf.jit(lambda x, y: tf.sin(x) * y + x)
    return lambda: f(x, y)


# family, case name, maker of a function of no arguments for n elements
CASES = [
    ("elementwise", "x + y", _elementwise),
    ("transcendental", "sin(x)", _transcendental),
    ("elementwise", "astype float32 (cast)", _cast),
    ("reduce", "sum()", _sum_all),
    ("reduce", "sum(axis=0) of (n/256, 256)", _sum_axis0),
    ("reduce", "sum(axis=1) of (n/256, 256)", _sum_axis1),
    ("reduce", "cumsum(axis=1) (scan)", _cumsum),
    ("reduce", "argmax(axis=1)", _argmax),
    ("index", "take(x, idx)", _take),
    ("index", "take(x, idx, axis=0) of (n/256, 256)", _take_rows),
    ("index", "take_along_axis(x, idx, axis=1) of (n/256, 256)", _take_along),
    ("index", "scatter_add along axis 1 of (n/256, 256)", _scatter_cols),
    ("index", "scatter_add along axis 0 of (n/256, 256)", _scatter_rows),
    ("index", "scatter_add along axis 0 of (n/1024, 1024)", _scatter_wide_rows),
    ("index", "scatter_add_along_axis axis 1 of (n/256, 256)", _scatter_along),
    ("index", "grad of take(x, idx).sum() (1-D scatter-add)", _grad_take),
    ("index", "x[idx] = v (put)", _setitem),
    ("batched_linalg_work", "cholesky (n/16, 4, 4)", _cholesky),
    ("batched_linalg_work", "eigh (n/16, 4, 4)", _eigh),
    ("batched_matmul_work", "matmul (n/16, 4, 4)", _batched_matmul),
    ("batched_matmul_work", "einsum bij,bjk->bik (n/64, 8, 8)", _einsum_step),
    ("transcendental", "jit sin(x)*y + x (fused)", _fused),
]
SIZES = [2 ** k for k in range(10, 23, 2)]


def _best(fn, repeat):
    fn()
    n = max(1, int(2e-3 / min(timeit.repeat(fn, number=1, repeat=3))))
    return min(timeit.repeat(fn, number=n, repeat=repeat)) / n


def _spin():
    while True:
        pass


def main(argv=None):
    doc = __doc__.strip()
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--only", default=None)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--busy", action="store_true",
                   help="a background process spins on one core meanwhile")
    p.add_argument("--grain", action="append", default=[], metavar="FAMILY=SIZE")
    p.add_argument("--sizes", default=None, help="comma-separated element counts")
    a = p.parse_args(argv)
    threads.set_grain(**{k: float(v) for k, v in (g.split("=") for g in a.grain)})
    sizes = [int(s) for s in a.sizes.split(",")] if a.sizes else SIZES
    nt = common.N_THREADS
    tf.set_num_threads(nt)
    hog = multiprocessing.Process(target=_spin, daemon=True) if a.busy else None
    if hog:
        hog.start()
    print("%d threads vs 1%s; grain %s; tenferro from %s"
          % (nt, " (one core busy)" if a.busy else "", threads.get_grain(),
             os.path.dirname(os.path.dirname(tf.__file__))))
    print()
    print("| family | case | n | %d threads | 1 thread | ratio |" % nt)
    print("|---|---|---:|---:|---:|---:|")
    worst = 0.0
    try:
        for fam, name, make in CASES:
            if a.only and a.only not in name and a.only != fam:
                continue
            for n in sizes:
                fn = make(n)
                t_def, t_one = [], []
                for _ in range(2):
                    t_def.append(_best(fn, a.repeat))
                    with tf.num_threads(1):
                        t_one.append(_best(fn, a.repeat))
                d, o = min(t_def), min(t_one)
                worst = max(worst, d / o)
                print("| %s | %s | %d | %.1f us | %.1f us | %.2f%s |"
                      % (fam, name, n, d * 1e6, o * 1e6, d / o, " **" if d / o > 1.1 else ""))
                sys.stdout.flush()
    finally:
        if hog:
            hog.terminate()
    print()
    print("worst ratio: %.2f (target: at most 1.10)" % worst)


if __name__ == "__main__":
    main()
