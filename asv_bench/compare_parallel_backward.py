#!/usr/bin/env python
"""Parallel backward (``backward(num_workers=2)``) against the serial pass, and PyTorch.

Graphs with independent heavy branches summed into one loss:

* ``4 x matmul 1000^2``: four branches ``tanh(A_i @ B_i).sum()``, every ``A_i``, ``B_i``
  a leaf (backward: two 1000^3 products and a tanh derivative per branch);
* ``8 x chain 10 x matmul 200^2``: eight branches of ten ``tanh(h @ W_ij)`` steps
  (many mid-sized ops: Python overhead and the kernels' thread team matter).

Each case times ``backward`` alone on a retained graph (the leaves' ``.grad`` cleared
before each call), best of ``--repeat`` repeats of calls lasting ``--min-time``, the four
tenferro settings' repeats interleaved (so that a shared machine's load weighs on all
alike).  tenferro runs serially and
with ``num_workers=2``, both with ``--threads`` kernel threads (default 2); then both
again with the kernels on one thread each (``tenferro.num_threads(1)``: two workers
times one thread is the other way to share 2 cores).  PyTorch's ``backward`` on the same
graph (``torch.set_num_threads`` the same; its autograd engine runs a CPU graph on
the calling thread) follows in its own block, after a pause, so that neither library's
threads spin while the other is timed.  Prints a Markdown table:

    case | serial, T | num_workers=2, T | serial/parallel | serial, 1T |
        num_workers=2, 1T | serial T / parallel 1T | PyTorch, T

A ratio > 1 means the parallel pass is faster.  Before timing, each case checks that
the parallel pass's gradients equal the serial pass's bit for bit.

    python asv_bench/compare_parallel_backward.py [--threads 2] [--repeat 7] [--only SUBSTR]
"""
import gc
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402  (best_of, fmt_t; puts benchmarks/ and tenferro on sys.path)
from benchmarks import common  # noqa: E402
import tenferro as tf  # noqa: E402

torch = common.torch_or_none()
PAUSE = 2.0   # seconds between the tenferro and the PyTorch blocks


def _matmul_branches(lib, n=1000, branches=4):
    rng = np.random.default_rng(0)
    leaves = [_leaf(lib, rng.standard_normal((n, n)) / np.sqrt(n))
              for _ in range(2 * branches)]
    tanh = tf.tanh if lib == "tenferro" else torch.tanh
    loss = sum(tanh(leaves[2 * i] @ leaves[2 * i + 1]).sum() for i in range(branches))
    return loss, leaves


def _chain_branches(lib, n=200, branches=8, steps=10):
    rng = np.random.default_rng(1)
    x = _leaf(lib, rng.standard_normal((n, n)) / np.sqrt(n))
    ws = [_leaf(lib, rng.standard_normal((n, n)) / np.sqrt(n))
          for _ in range(branches * steps)]
    tanh = tf.tanh if lib == "tenferro" else torch.tanh
    total = 0
    for i in range(branches):
        h = x
        for j in range(steps):
            h = tanh(h @ ws[i * steps + j])
        total = total + h.sum()
    return total, [x] + ws


def _leaf(lib, a):
    if lib == "tenferro":
        return tf.tensor(a, requires_grad=True)
    return torch.tensor(a, requires_grad=True)


CASES = [("4 x matmul 1000^2, f64", _matmul_branches),
         ("8 x chain 10 x matmul 200^2, f64", _chain_branches)]


def _backward(lib, loss, leaves, workers=None):
    def run():
        for w in leaves:
            w.grad = None
        if lib == "tenferro":
            loss.backward(retain_graph=True, num_workers=workers)
        else:
            loss.backward(retain_graph=True)
    return run


def _check(make):
    """The parallel pass's gradients are the serial pass's, bit for bit."""
    loss, leaves = make("tenferro")
    got = []
    for k in (1, 2):
        _backward("tenferro", loss, leaves, k)()
        got.append([w.grad.numpy().copy() for w in leaves])
    assert all(np.array_equal(a, b) for a, b in zip(*got)), "parallel != serial"


def _interleaved(fns, repeat, min_time):
    """Best time per call of each ``fns[threads, workers]``, their repeats interleaved
    (a shared machine's load then weighs on every setting alike)."""
    number = {}
    for key, fn in fns.items():
        with tf.num_threads(key[0]):
            fn()   # warm-up
            t0 = time.perf_counter()
            fn()
            number[key] = max(1, int(min_time / max(time.perf_counter() - t0, 1e-9)))
    best = dict.fromkeys(fns, float("inf"))
    gc.disable()
    try:
        for _ in range(repeat):
            for key, fn in fns.items():
                with tf.num_threads(key[0]):
                    t0 = time.perf_counter()
                    for _ in range(number[key]):
                        fn()
                    best[key] = min(best[key], (time.perf_counter() - t0) / number[key])
    finally:
        gc.enable()
    return best


def main(argv=None):
    args = compare.parse_args(argv, __doc__)
    n = args.threads
    print(compare.versions_comment(args))
    print("<!-- backward only, retained graph; T = --threads kernel threads "
          "(tenferro.num_threads), 1T: one kernel thread -->")
    print("| case | serial, T | num_workers=2, T | serial/parallel | serial, 1T "
          "| num_workers=2, 1T | serial T / parallel 1T | PyTorch, T |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    rows = []
    for name, make in CASES:
        if args.only and args.only not in name:
            continue
        _check(make)
        loss, leaves = make("tenferro")
        fns = {(threads, k): _backward("tenferro", loss, leaves, k)
               for threads in (n, 1) for k in (1, 2)}
        t = _interleaved(fns, args.repeat, args.min_time)
        rows.append((name, t))
        del loss, leaves
        gc.collect()
    if torch is not None:
        time.sleep(PAUSE)
        for name, t in rows:
            loss, leaves = dict(CASES)[name]("torch")
            t["torch"] = compare.best_of(_backward("torch", loss, leaves), args.repeat,
                                         args.min_time)
            del loss, leaves
            gc.collect()
    f = compare.fmt_t
    for name, t in rows:
        print("| %s | %s | %s | %.2f | %s | %s | %.2f | %s |" % (
            name, f(t[n, 1]), f(t[n, 2]), t[n, 1] / t[n, 2], f(t[1, 1]), f(t[1, 2]),
            t[n, 1] / t[1, 2], f(t.get("torch"))), flush=True)


if __name__ == "__main__":
    main()
