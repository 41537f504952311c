#!/usr/bin/env python
"""tenferro.dask.einsum's overhead: a sliced contraction on Dask beside the local one.

Times the cases of ``benchmarks/bench_dask.py`` (a random 3-regular network of 24
tensors; tenferro on one thread per worker and in this process): the local
``tf.einsum``, NumPy through opt_einsum along the same path (the NumPy reference, its
BLAS capped to one thread), ``tenferro.dask.einsum`` on Dask's threaded scheduler, on a
LocalCluster of 1 and of 2 worker processes, and the gradient (``tf.grad`` with respect
to all operands: the forward, then one joint VJP pass) in each of these modes but NumPy.  Best of ``--repeat``; each mode's result is
checked against the local one first.  Ratios: a mode's time over the local
``tf.einsum``'s (Dask's overhead), and 1 worker over 2 workers (the second worker's
speed-up).

    python asv_bench/compare_dask.py [--repeat 3] [--slices 8,64] [--no-grad] [--plot F.png]
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402  (best_of, fmt_t; puts benchmarks/ and tenferro on sys.path)
import _plot  # noqa: E402
from benchmarks import bench_dask as B  # noqa: E402
from benchmarks import common  # noqa: E402
import numpy as np  # noqa: E402

COLUMNS = ["local", "numpy", "threaded", "1 worker", "2 workers"]
HEAD = ["local tf.einsum", "NumPy (opt_einsum)", "Dask threaded", "1 worker", "2 workers"]


def numpy_reference(bond=B.BOND):
    """opt_einsum.contract on NumPy along the path tenferro.dask.einsum plans."""
    import opt_einsum

    spec, arrays = B.network(bond=bond)
    path = B.local_path(bond)
    return lambda: opt_einsum.contract(spec, *arrays, optimize=path)


def _same(got, want, what):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        if not np.allclose(g, w, rtol=1e-9, atol=1e-12 * np.abs(w).max()):
            raise SystemExit("compare_dask.py: %s differs from the local result" % what)


def cases(args):
    """[(row name, grad, n_slices)]."""
    rows = [("contraction (bond %d), %d slices" % (B.BOND, B.slice_count(n)), False, n)
            for n in args.slices]
    if not args.no_grad:
        rows.append(("gradient (24 operands, bond %d), %d slices"
                     % (B.GRAD_BOND, B.slice_count(B.GRAD_SLICES, B.GRAD_BOND)), True,
                     B.GRAD_SLICES))
    return rows


def time_mode(mode, rows, args, want):
    """{row name: seconds} of ``mode`` (a cluster started once for all rows)."""
    cluster = client = None
    if mode.endswith(("worker", "workers")):
        cluster, client = B.start_cluster(int(mode.split()[0]))
    try:
        out = {}
        for name, grad, n in rows:
            if mode == "numpy" and grad or grad and mode not in B.GRAD_MODES:
                continue
            run = numpy_reference() if mode == "numpy" else \
                B.make(mode, grad, n, client=client)[0]
            r = run()
            if name in want:
                _same(r, want[name], "%s, %s" % (mode, name))
            else:
                want[name] = r
            out[name] = compare.best_of(run, args.repeat, args.min_time)
            print("<!-- %s, %s: %s -->" % (name, mode, compare.fmt_t(out[name])), flush=True)
        return out
    finally:
        if client is not None:
            client.close()
            cluster.close()


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    slices, no_grad = "8,64", "--no-grad" in argv
    if no_grad:
        argv.remove("--no-grad")
    if "--slices" in argv:
        i = argv.index("--slices")
        slices = argv[i + 1]
        del argv[i:i + 2]
    args = compare.parse_args(argv, __doc__, repeat=3, min_time=0.0)
    args.slices, args.no_grad = [int(s) for s in slices.split(",")], no_grad
    common.set_threads(1)
    rows, want = cases(args), {}
    t = {mode: time_mode(mode, rows, args, want) for mode in COLUMNS}
    print(compare.versions_comment(args).replace("%d threads" % args.threads,
                                                 "1 thread per worker"))
    print("| case | %s | threaded / local | 1 worker / local | 2 workers / local "
          "| 1 worker / 2 workers |" % " | ".join(HEAD))
    print("|---|" + "---:|" * (len(HEAD) + 4))

    def ratio(a, b, name):
        ta, tb = t[a].get(name), t[b].get(name)
        return "n/a" if ta is None or tb is None else "%.2f" % (ta / tb)
    for name, _, _ in rows:
        print("| %s | %s | %s | %s | %s | %s |" % (
            name, " | ".join(compare.fmt_t(t[m].get(name)) for m in COLUMNS),
            ratio("threaded", "local", name), ratio("1 worker", "local", name),
            ratio("2 workers", "local", name), ratio("1 worker", "2 workers", name)))
    rows_t = [(name, {m: t[m].get(name) for m in COLUMNS}) for name, _, _ in rows]
    _plot.plot_if_asked(args, rows_t, "local", COLUMNS[1:],
                        "tenferro.dask.einsum beside the local tf.einsum (compare_dask.py)",
                        dict(zip(COLUMNS, HEAD)))


if __name__ == "__main__":
    main()
