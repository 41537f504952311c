#!/usr/bin/env python
"""Lazy mode against eager and ``jit``: an eager-style script of 20 elementwise ops on
10^6 float64 elements (``benchmarks/bench_lazy.py``'s ``script``), run

* eagerly (20 kernels, 20 temporaries),
* inside ``with tenferro.lazy():`` (recorded, then one compiled program from the
  lazy cache, realized on leaving the block),
* as ``tenferro.jit(script)`` (the compiled program of the same graph),

best of ``--repeat`` repeats (the modes in turn), each as many calls as fill
``--min-time`` seconds.  The
goal (issue 22): lazy within 1.5x of jit.  Also prints lazy mode's cost per op: the
script on 4 elements in lazy mode (the ops' checks, recording, the cache lookup and
the run), divided by its 20 ops.

    python asv_bench/compare_lazy.py [--threads 2] [--repeat 7] [--n 1000000]
                                     [--plot F.png]
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchmarks import bench_lazy as B, common  # noqa: E402  (common: tenferro on sys.path)
import _plot  # noqa: E402
import tenferro as tf  # noqa: E402


def best_of(fns, repeat, min_time):
    """{name: best time per call} of the functions ``fns``, timed in turn in each
    repeat (interleaved, so that a busy machine slows every mode alike)."""
    numbers = {}
    for name, fn in fns.items():
        fn()
        number = 1
        while True:
            t = time.perf_counter()
            for _ in range(number):
                fn()
            if time.perf_counter() - t >= min_time or number >= 1 << 20:
                break
            number *= 2
        numbers[name] = number
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeat):
        for name, fn in fns.items():
            t = time.perf_counter()
            for _ in range(numbers[name]):
                fn()
            best[name] = min(best[name], (time.perf_counter() - t) / numbers[name])
    return best


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=common.N_THREADS)
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--min-time", type=float, default=0.2)
    p.add_argument("--n", type=int, default=B.N)
    p.add_argument("--plot", metavar="F.png", help="also draw the times over jit's")
    args = p.parse_args(argv)
    if args.plot:
        _plot.require_matplotlib()
    tf.set_num_threads(args.threads)
    x = B.make_input(args.n)
    times = best_of({name: B.runner(name, x) for name in B.MODES}, args.repeat,
                    args.min_time)
    record = best_of({"lazy": B.runner("lazy", B.make_input(4))}, args.repeat,
                     args.min_time)["lazy"]
    print("| n | eager | lazy | jit | lazy / jit | eager / lazy | record per op |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    print("| %d | %.3f ms | %.3f ms | %.3f ms | %.2f | %.2f | %.1f us |"
          % (args.n, times["eager"] * 1e3, times["lazy"] * 1e3, times["jit"] * 1e3,
             times["lazy"] / times["jit"], times["eager"] / times["lazy"],
             record / B.OPS * 1e6))
    _plot.plot_if_asked(args, [("20 ops, n=%d" % args.n, times)], "jit", ["eager", "lazy"],
                        "tenferro lazy mode: time / jit's")
    return times


if __name__ == "__main__":
    main()
