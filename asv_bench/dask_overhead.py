"""Dask's per-task overhead in ``tenferro.dask.einsum``: the 8-tensor network of
tests/test_dask_einsum.py sliced on two bonds, against the local ``tenferro.einsum``.

    python asv_bench/dask_overhead.py                  # threaded scheduler
    python asv_bench/dask_overhead.py --cluster 2      # LocalCluster, 2 worker processes
    python asv_bench/dask_overhead.py --cluster 2 --fast-malloc   # see below
    python asv_bench/dask_overhead.py --bond 20 --tasks 1,4,16,400

Each row is the best of ``--repeat`` runs: the local contraction, then the sliced one
with each ``tasks=`` value ("default": tenferro's choice; "slices": one task per slice,
which is what every call did before slices were grouped into tasks).  The machine's
other load shows in the figures: quote them as rough, compare rows of one run.

``--fast-malloc``: the workers start with glibc's malloc thresholds raised
(``MALLOC_TRIM_THRESHOLD_`` 64 MiB, ``MALLOC_MMAP_THRESHOLD_`` 32 MiB) instead of Dask
nannies' ``MALLOC_TRIM_THRESHOLD_=65536``, which turns glibc's adaptive mmap threshold
off, so every intermediate over 128 KiB is mapped and faulted in afresh
(docs/distributed.md).
"""
import argparse
import os
import sys
import timeit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests")]

import tenferro as tf  # noqa: E402
import tenferro.dask as td  # noqa: E402
from test_dask_einsum import network  # noqa: E402


def best(f, repeat):
    f()  # warm: plans, imports, the workers' first unpickling
    return min(timeit.repeat(f, number=1, repeat=repeat))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bond", type=int, default=14)
    p.add_argument("--slices", default="ab")
    p.add_argument("--tasks", default="default,slices",
                   help="comma-separated tasks= values: ints, 'default', 'slices'")
    p.add_argument("--cluster", type=int, default=0, help="LocalCluster worker processes")
    p.add_argument("--fast-malloc", action="store_true",
                   help="raise the workers' glibc malloc thresholds")
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args(argv)
    spec, ops = network("float64", bond=a.bond)
    n = a.bond ** len(a.slices)
    client = cluster = None
    if a.cluster:
        import dask
        from distributed import Client, LocalCluster

        env = "distributed.nanny.pre-spawn-environ."
        with dask.config.set({env + "MALLOC_TRIM_THRESHOLD_": 2 ** 26,
                              env + "MALLOC_MMAP_THRESHOLD_": 2 ** 25} if a.fast_malloc
                             else {}):
            cluster = LocalCluster(n_workers=a.cluster, threads_per_worker=1,
                                   processes=True, dashboard_address=":0")
        client = Client(cluster)
    try:
        local = best(lambda: tf.einsum(spec, *ops, optimize="greedy"), a.repeat)
        where = "%d worker processes%s" % (a.cluster, ", fast malloc" * a.fast_malloc) \
            if a.cluster else "threaded scheduler"
        print("bond %d, %d slices (%s), %s" % (a.bond, n, a.slices, where))
        print("%-22s %8.4f s" % ("local tf.einsum", local))
        for t in a.tasks.split(","):
            kw = {} if t == "default" else {"tasks": n if t == "slices" else int(t)}
            s = best(lambda: td.einsum(spec, *ops, slices=a.slices, client=client, **kw),
                     a.repeat)
            print("%-22s %8.4f s  %5.1fx local" % ("dask tasks=" + t, s, s / local))
    finally:
        if client is not None:
            client.close()
            cluster.close()


if __name__ == "__main__":
    main()
