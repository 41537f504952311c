#!/usr/bin/env python
"""The everyday functions (sort, unique, median, roll, np.stack on tensors, ...): tenferro
beside NumPy, per size.

Each case times tenferro and NumPy on the same seeded float64 data (integers for
bincount), ``--sizes`` elements (default 100, 1e4, 1e6), best of ``--repeat`` repeats
(number of calls calibrated as in compare.py).  Each library runs in its own block after
a ``--pause`` (default 0.4 s): NumPy's OpenBLAS worker threads spin for ~0.1 s after a
BLAS call and would steal the second core from tenferro's pool (see
docs/performance.md, "Threads as users meet them"), and tenferro's pool likewise spins
after its own calls.  Prints a Markdown table:

    case | n | tenferro | NumPy | NumPy/tenferro

A ratio > 1 means tenferro is faster.  ``np.stack(tensors)`` and the other ``np.`` cases
call NumPy's function on tenferro tensors (``__array_function__``), beside NumPy's on
ndarrays.

    python asv_bench/compare_everyday.py [--sizes 100,10000,1000000] [--only SUBSTR]
"""
import gc
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402  (puts an in-place tenferro build on sys.path)
from compare import best_of, fmt_t, tf  # noqa: E402


def _data(n, seed=0):
    return np.random.default_rng(seed).standard_normal(n)


def _ints(n):
    return np.random.default_rng(3).integers(0, 1000, n)


def _pair(make_np, make_tf):
    """A case factory from NumPy's and tenferro's callables of the host data."""
    return {"numpy": make_np, "tenferro": make_tf}


def _same(fname, data=_data, **kw):
    """``xp.fname(x, **kw)`` for both libraries (same name, same keywords)."""
    return _pair(lambda n: (lambda x: lambda: getattr(np, fname)(x, **kw))(data(n)),
                 lambda n: (lambda x: lambda: getattr(tf, fname)(x, **kw))(tf.asarray(data(n))))


def _of_list(fname, k=4, via_numpy=False, **kw):
    """``xp.fname(list, **kw)`` of a list of k arrays of n // k elements; ``via_numpy``:
    NumPy's function for both, on tensors for tenferro (``__array_function__``)."""
    def make(xp):
        f = getattr(np if via_numpy else xp, fname)
        return lambda n: (lambda xs: lambda: f(xs, **kw))(
            [xp.asarray(_data(max(n // k, 1), seed=i)) for i in range(k)])
    return _pair(make(np), make(tf))


def _concat_small_big():
    # a 1-element array before a large one: the large copy lands one element off its
    # source's alignment (the case glibc's rep movsb runs 13x slower, _elementwise_loops.h)
    def make(xp):
        return lambda n: (lambda a, b: lambda: xp.concatenate([a, b]))(
            xp.asarray(_data(1)), xp.asarray(_data(n, seed=1)))
    return _pair(make(np), make(tf))


def _searchsorted():
    def make(xp):
        return lambda n: (lambda a, v: lambda: xp.searchsorted(a, v))(
            xp.asarray(np.sort(_data(n))), xp.asarray(_data(n, seed=1)))
    return _pair(make(np), make(tf))


def _trapezoid_x():
    def make(xp):
        return lambda n: (lambda y, x: lambda: xp.trapezoid(y, x))(
            xp.asarray(_data(n)), xp.asarray(np.cumsum(np.abs(_data(n, seed=1)))))
    return _pair(make(np), make(tf))


def _interp():
    def make(xp):
        return lambda n: (lambda x, xp_, fp: lambda: xp.interp(x, xp_, fp))(
            xp.asarray(_data(n, seed=1)), xp.asarray(np.sort(_data(n))),
            xp.asarray(_data(n, seed=2)))
    return _pair(make(np), make(tf))


CASES = [
    ("sort", _same("sort")),
    ("sort stable", _same("sort", kind="stable")),
    ("argsort", _same("argsort")),
    ("argsort stable", _same("argsort", kind="stable")),
    ("unique", _same("unique")),
    ("unique ints", _same("unique", data=_ints)),
    ("searchsorted n in n", _searchsorted()),
    ("median", _same("median")),
    ("quantile 0.3", _same("quantile", q=0.3)),
    ("percentile [10,50,90]", _same("percentile", q=[10.0, 50.0, 90.0])),
    ("nanmedian", _same("nanmedian")),
    ("roll 1", _same("roll", shift=1)),
    ("diff", _same("diff")),
    ("cumsum", _same("cumsum")),
    ("trapezoid", _same("trapezoid")),
    ("trapezoid x", _trapezoid_x()),
    ("concatenate 4", _of_list("concatenate")),
    ("stack 4", _of_list("stack")),
    ("stack 4 axis -1", _of_list("stack", axis=-1)),
    ("vstack 4", _of_list("vstack")),
    ("hstack 4", _of_list("hstack")),
    ("column_stack 4", _of_list("column_stack")),
    ("concatenate [1, n]", _concat_small_big()),
    ("histogram 10 bins", _same("histogram")),
    ("bincount", _same("bincount", data=_ints)),
    ("interp n at n", _interp()),
    ("np.stack(4 tensors)", _of_list("stack", via_numpy=True)),
    ("np.concatenate(4 tensors)", _of_list("concatenate", via_numpy=True)),
]


def _pop(argv, option, default, convert):
    """``convert(value)`` of ``option value`` removed from ``argv``, else ``default``
    (the options compare.parse_args does not know)."""
    if option not in argv:
        return default
    i = argv.index(option)
    value = argv[i + 1]
    del argv[i:i + 2]
    return convert(value)


def main(argv=None):
    p_args = list(sys.argv[1:] if argv is None else argv)
    sizes = _pop(p_args, "--sizes", [100, 10**4, 10**6],
                 lambda v: [int(float(s)) for s in v.split(",")])
    pause = _pop(p_args, "--pause", 0.4, float)
    args = compare.parse_args(p_args, __doc__, repeat=5, min_time=0.05)
    print(compare.versions_comment(args) + " <!-- pause %.2f s before each block -->" % pause)
    print("| case | n | tenferro | NumPy | NumPy/tenferro |")
    print("|---|---:|---:|---:|---:|")
    rows = []
    for name, make in CASES:
        if args.only and args.only not in name:
            continue
        for n in sizes:
            t = {}
            for lib in ("numpy", "tenferro"):
                fn = make[lib](n)
                time.sleep(pause)
                t[lib] = best_of(fn, args.repeat, args.min_time)
                del fn
                gc.collect()
            rows.append(("%s, %g" % (name, n), t))
            print("| %s | %g | %s | %s | %.2f |" % (
                name, n, fmt_t(t["tenferro"]), fmt_t(t["numpy"]), t["numpy"] / t["tenferro"]),
                flush=True)
    compare._plot.plot_if_asked(args, rows, "tenferro", ["numpy"],
                                "everyday functions: tenferro beside NumPy (%d threads)"
                                % args.threads, {"numpy": "NumPy"})


if __name__ == "__main__":
    main()
