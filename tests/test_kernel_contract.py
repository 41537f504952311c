"""tenferro._kernels._matmul.contract (einsum's grouped pairwise step) against numpy.einsum.

``contract(a, b, out, nb, nm, nk, nn, nthreads)``: a is [batch, M, K], b is [batch, K, N],
out is [batch, M, N], each a group of nb/nm/nk/nn axes.  Operands come in many memory
layouts: groups that fold into one (size, stride) pair in place (C order, groups stored
in another order, negative strides, a step on the last axis, all-zero strides) and
groups that do not (axes of a group reversed in memory, steps on every axis, a
zero-stride axis next to a strided one).
"""
import itertools
import tracemalloc

import numpy as np
import pytest

from conftest import sample, stable_rng

from tenferro._kernels import _matmul

DTYPES = [np.dtype(d) for d in ("bool", "int32", "int64", "float32", "float64",
                                "complex64", "complex128")]
RTOL = {np.dtype("float32"): 1e-5, np.dtype("complex64"): 1e-5,
        np.dtype("float64"): 1e-12, np.dtype("complex128"): 1e-12}
WIDE = {"b": np.int64, "i": np.int64, "f": np.float64, "c": np.complex128}
LETTERS = ("ABCD", "EFGH", "IJKL", "MNOP")          # batch, M, K, N


def groups_of(which, counts):
    """Axis counts of operand 'a' ([b, m, k]), 'b' ([b, k, n]) or 'out' ([b, m, n])."""
    nb, nm, nk, nn = counts
    return {"a": (nb, nm, nk), "b": (nb, nk, nn), "out": (nb, nm, nn)}[which]


def spans(groups):
    """(start, stop) of each group's axes."""
    bounds = np.cumsum((0,) + tuple(groups))
    return list(zip(bounds[:-1], bounds[1:]))


def subscripts(counts):
    nb, nm, nk, nn = counts
    B, M, K, N = (L[:n] for L, n in zip(LETTERS, counts))
    return "%s,%s->%s" % (B + M + K, B + K + N, B + M + N)


def reference(a, b, counts):
    """numpy.einsum in a wide dtype (int64, float64, complex128), cast back."""
    dt = a.dtype
    wide = WIDE[dt.kind]
    r = np.einsum(subscripts(counts), a.astype(wide), b.astype(wide))
    return (r != 0) if dt.kind == "b" else r.astype(dt)


def check(out, a, b, counts):
    ref = reference(a, b, counts)
    dt = out.dtype
    if dt in RTOL:
        bound = np.einsum(subscripts(counts), np.abs(a).astype(np.float64),
                          np.abs(b).astype(np.float64))
        scale = max(1.0, float(np.max(bound, initial=0.0)))
        np.testing.assert_allclose(out, ref, rtol=RTOL[dt], atol=RTOL[dt] * scale)
    else:
        np.testing.assert_array_equal(out, ref)


def _permuted_copy(x, perm):
    """Same values as x, stored in memory with axes in order ``perm`` (a view of x's shape)."""
    perm = tuple(int(d) for d in perm)
    inverse = tuple(int(d) for d in np.argsort(perm)) if perm else ()
    return x.transpose(perm).copy(order="C").transpose(inverse)


def layout(x, how, groups):
    """A view holding x's values (for 'bcast_*': x's values broadcast) in layout ``how``.

    Folds in place: C, groups_reordered, neg, step_last, bcast_all.
    Does not fold (when a group has >= 2 axes of size > 1): within_reversed, step_all,
    bcast_first."""
    sp = spans(groups)
    nd = x.ndim
    if how == "C":
        return x
    if how == "groups_reordered":      # groups stored last-to-first, each in C order
        return _permuted_copy(x, [d for s, e in reversed(sp) for d in range(s, e)])
    if how == "within_reversed":       # groups in order, axes inside a group reversed
        return _permuted_copy(x, [d for s, e in sp for d in reversed(range(s, e))])
    if how == "neg":
        return np.flip(np.flip(x).copy()) if nd else x
    if how == "step_last":
        if nd == 0:
            return x
        big = np.zeros(x.shape[:-1] + (2 * x.shape[-1],), x.dtype)
        big[..., ::2] = x
        return big[..., ::2]
    if how == "step_all":
        big = np.zeros(tuple(2 * n for n in x.shape), x.dtype)
        v = big[(slice(None, None, 2),) * nd + (Ellipsis,)]
        v[...] = x
        return v
    if how == "bcast_first":           # first axis of every group has stride 0
        key = tuple(slice(0, 1) if any(d == s for s, e in sp if e > s) else slice(None)
                    for d in range(nd))
        return np.broadcast_to(x[key], x.shape)
    if how == "bcast_all":
        return np.broadcast_to(x[(slice(0, 1),) * nd] if x.size else x, x.shape)
    raise ValueError(how)


def out_layout(shape, dtype, how, groups):
    """A writable out of ``shape`` filled with garbage (7 / True), laid out as ``how``."""
    base = np.full(shape, 7, dtype)
    if how in ("C", "groups_reordered", "within_reversed", "neg", "step_last", "step_all"):
        return layout(base, how, groups)
    if how == "transposed_big":        # transposed view of a bigger buffer
        big = np.full(tuple(n + 1 for n in reversed(shape)), 7, dtype)
        return big[tuple(slice(0, n) for n in reversed(shape)) + (Ellipsis,)].T
    raise ValueError(how)


def run_case(dt, sizes, la, lb, lo, nthreads=(1, 3), seed=0):
    """sizes: axis sizes of the (batch, M, K, N) groups."""
    counts = tuple(len(s) for s in sizes)
    bs, ms, ks, ns = (tuple(s) for s in sizes)
    gen = stable_rng(dt.name, sizes, la, lb, lo, seed)
    a = layout(sample(gen, bs + ms + ks, dt), la, groups_of("a", counts))
    b = layout(sample(gen, bs + ks + ns, dt), lb, groups_of("b", counts))
    a0, b0 = a.copy(), b.copy()
    for nt in nthreads:
        out = out_layout(bs + ms + ns, dt, lo, groups_of("out", counts))
        _matmul.contract(a, b, out, *counts, nt)
        check(out, a, b, counts)
    np.testing.assert_array_equal(a, a0)   # inputs untouched
    np.testing.assert_array_equal(b, b0)


# (a, b, out) layout triples; each operand sees folding and non-folding layouts
TRIPLES = [("C", "C", "C"),
           ("groups_reordered", "neg", "within_reversed"),
           ("within_reversed", "step_all", "C"),
           ("step_last", "bcast_first", "groups_reordered"),
           ("bcast_all", "within_reversed", "step_all"),
           ("neg", "groups_reordered", "neg"),
           ("bcast_first", "step_last", "transposed_big"),
           ("step_all", "bcast_all", "step_last")]

POOL = ((3, 2), (2, 3), (4, 3), (3, 2))   # axis sizes drawn per group (batch, M, K, N)
ALL_COUNTS = list(itertools.product((0, 1, 2), repeat=4))


def sizes_for(counts):
    return tuple(POOL[g][:n] for g, n in enumerate(counts))


@pytest.mark.parametrize("dt", [np.dtype("float64"), np.dtype("int64")], ids=str)
@pytest.mark.parametrize("counts", ALL_COUNTS, ids=lambda c: "b%dm%dk%dn%d" % c)
def test_every_group_count(dt, counts):
    for la, lb, lo in TRIPLES:
        run_case(dt, sizes_for(counts), la, lb, lo)


SOME_COUNTS = [(0, 0, 0, 0), (1, 1, 1, 1), (2, 2, 2, 2), (0, 2, 1, 0), (2, 0, 2, 1),
               (1, 2, 0, 2), (2, 1, 2, 0), (0, 1, 2, 2), (1, 0, 0, 1)]


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("counts", SOME_COUNTS, ids=lambda c: "b%dm%dk%dn%d" % c)
def test_dtypes(dt, counts):
    for la, lb, lo in TRIPLES:
        run_case(dt, sizes_for(counts), la, lb, lo)


# axis sizes (batch, M, K, N) with size-1 and size-0 axes
ODD_SIZES = [((1, 3), (2, 1), (1, 4), (1,)),
             ((1, 1), (1,), (1, 1), (1,)),
             ((3, 1, 2), (1, 2), (2, 1, 3), (1, 2)),
             ((0, 2), (3,), (2,), (2,)),
             ((2,), (3, 0), (2,), (2,)),
             ((2,), (3,), (2,), (0,)),
             ((2,), (3,), (0,), (2,)),          # K total 0: zeros
             ((2,), (3,), (4, 0), (2,)),
             ((), (2, 3), (0, 5), (4,)),
             ((), (), (0,), ()),
             ((2, 3), (), (0,), ())]


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("sizes", ODD_SIZES, ids=str)
def test_size_zero_and_one_axes(dt, sizes):
    for la, lb, lo in TRIPLES:
        run_case(dt, sizes, la, lb, lo)


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("lo", ["C", "within_reversed", "transposed_big", "step_all"])
def test_empty_k_overwrites_garbage(dt, lo):
    counts = (1, 2, 1, 1)
    a = np.ones((3, 2, 4, 0), dt)
    b = np.ones((3, 0, 5), dt)
    out = out_layout((3, 2, 4, 5), dt, lo, groups_of("out", counts))
    assert np.all(out == np.array(7).astype(dt))
    _matmul.contract(a, b, out, *counts, 2)
    np.testing.assert_array_equal(out, np.zeros((3, 2, 4, 5), dt))


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_batch_axes_that_do_not_merge(dt):
    """Four batch axes stored in different orders in a, b and out, one broadcast in b:
    no two adjacent batch axes nest in all three arrays."""
    gen = stable_rng("batch", dt.name)
    bs, ms, ks, ns = (2, 3, 4, 5), (3,), (2, 3), (4,)
    counts = (4, 1, 2, 1)
    a = _permuted_copy(sample(gen, bs + ms + ks, dt), [3, 1, 0, 2, 4, 5, 6])
    b = np.broadcast_to(sample(gen, (2, 1, 4, 5) + ks + ns, dt), bs + ks + ns)
    for lo in ("C", "groups_reordered", "transposed_big"):
        out = out_layout(bs + ms + ns, dt, lo, groups_of("out", counts))
        _matmul.contract(a, b, out, *counts, 3)
        check(out, a, b, counts)
    # a merges batch axes 0-1 and 2-3, b only 0-1, out all: two batch dims left
    a = sample(gen, bs + ms + ks, dt)
    b = _permuted_copy(sample(gen, bs + ks + ns, dt), [0, 1, 3, 2, 4, 5, 6])
    out = np.full(bs + ms + ns, 7, dt)
    _matmul.contract(a, b, out, *counts, 2)
    check(out, a, b, counts)


# large enough for BLAS, the batch-parallel and the row-parallel paths, and the
# parallel copies into scratch; sizes: (batch, M, K, N) axis sizes
LARGE = [
    ("float64", ((64,), (128,), (128,), (128,)), ("C", "C", "C")),
    ("float64", ((8, 8), (128,), (16, 8), (128,)), ("C", "within_reversed", "C")),
    ("float64", ((8, 8), (8, 16), (128,), (128,)), ("groups_reordered", "C", "within_reversed")),
    ("float64", ((), (1000,), (300,), (200,)), ("C", "C", "C")),
    ("float64", ((), (40, 25), (30, 10), (200,)), ("within_reversed", "step_all", "C")),
    ("float32", ((), (40, 25), (30, 10), (20, 10)), ("groups_reordered", "neg", "transposed_big")),
    ("complex128", ((), (1000,), (300,), (200,)), ("C", "groups_reordered", "C")),
    ("int64", ((), (40, 25), (300,), (200,)), ("C", "within_reversed", "C")),
    ("int32", ((), (1000,), (300,), (200,)), ("C", "C", "transposed_big")),
    ("bool", ((), (1000,), (30, 10), (200,)), ("neg", "C", "C")),
    ("float64", ((50, 40), (8,), (8,), (8,)), ("C", "bcast_first", "C")),
    ("int32", ((50, 40), (8,), (4, 2), (8,)), ("within_reversed", "C", "groups_reordered")),
    ("complex64", ((20, 30), (4, 4), (16,), (16,)), ("C", "step_last", "C")),
]


@pytest.mark.parametrize("dt, sizes, triple", LARGE,
                         ids=["%s-%s-%s" % (d, s, t) for d, s, t in LARGE])
def test_large(dt, sizes, triple):
    run_case(np.dtype(dt), sizes, *triple, nthreads=(1, 4))


# -- no copy when every group folds ----------------------------------------------------

def _peak_bytes(a, b, out, counts):
    tracemalloc.start()
    try:
        _matmul.contract(a, b, out, *counts, 2)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_folding_operands_are_not_copied():
    """Every NumPy allocation (np.empty and tenferro's _alloc.empty alike) is traced by
    tracemalloc; the kernel's own per-matrix BLAS scratch (malloc) is not.  Any copy of
    an operand here is >= 2 MiB, the traced peak of the folding call stays far below."""
    counts = (2, 2, 2, 1)
    bs, ms, ks, ns = (8, 16), (16, 8), (32, 4), (16,)
    gen = stable_rng("nocopy")
    # a: groups stored in order K, batch, M (each in C order); K group reversed too
    a = np.flip(_permuted_copy(sample(gen, bs + ms + ks, np.float64), [4, 5, 0, 1, 2, 3]),
                (4, 5))
    b = np.broadcast_to(sample(gen, (1, 16) + ks + ns, np.float64), bs + ks + ns)
    out = np.full(bs + ms + ns, 7.0)
    assert min(a.nbytes, b.nbytes, out.nbytes) >= 2 << 20
    peak = _peak_bytes(a, b, out, counts)
    check(out, a, b, counts)
    assert peak < 256 << 10, peak
    # positive controls: a non-folding a, b or out is copied once, and it shows
    bad = _permuted_copy(a, [0, 1, 3, 2, 4, 5])
    assert _peak_bytes(bad, b, out, counts) >= bad.nbytes
    check(out, bad, b, counts)
    bad_b = _permuted_copy(b, [0, 1, 3, 2, 4])
    assert _peak_bytes(a, bad_b, out, counts) >= bad_b.nbytes
    check(out, a, bad_b, counts)
    bad_out = out_layout(out.shape, out.dtype, "within_reversed", groups_of("out", counts))
    assert _peak_bytes(a, b, bad_out, counts) >= out.nbytes
    check(bad_out, a, b, counts)


def test_size_one_axes_with_odd_strides_fold():
    """Size-1 axes (any stride) and groups of total size 1 do not prevent folding."""
    from numpy.lib.stride_tricks import as_strided
    gen = stable_rng("size-one")
    x = sample(gen, (16, 128, 256), np.float64)          # [batch, M, K] = 4 MiB
    s0, s1, s2 = x.strides
    # a: [batch (16, 1), M (1, 128), K (256, 1)], size-1 axes with strides that nest nowhere
    a = as_strided(x, (16, 1, 1, 128, 256, 1), (s0, 12345 * 8, -8, s1, s2, 7 * 8))
    b = sample(gen, (16, 1, 256, 1, 1, 1), np.float64)   # [batch, K, N (1, 1)]
    b = as_strided(b, b.shape, b.strides[:3] + (0, -3 * 8, 99 * 8))
    out = np.full((16, 1, 1, 128, 1, 1), 7.0)
    counts = (2, 2, 2, 2)
    peak = _peak_bytes(a, b, out, counts)
    check(out, a, b, counts)
    assert peak < 256 << 10, peak


def test_strides_not_multiple_of_itemsize():
    """Field views of a packed record array: byte strides that are no multiple of the
    itemsize cannot be element strides, so the operand is copied (results stay right);
    an out like that is computed in a scratch."""
    gen = stable_rng("fields")
    fields = [("x", "f8"), ("y", "i4"), ("z", "c16")]
    rec = np.zeros((3, 4, 5), dtype=fields)            # packed: itemsize 28
    for name, dt in fields:
        rec[name] = sample(gen, (3, 4, 5), dt)
    for name, dt in fields:
        a = rec[name]                                   # [batch, M, K]
        b = sample(gen, (3, 5, 6), dt)
        out = np.full((3, 4, 6), 7, dt)
        _matmul.contract(a, b, out, 1, 1, 1, 1, 2)
        check(out, a, b, (1, 1, 1, 1))
        out2 = np.full((3, 6, 4), 7, dt)
        _matmul.contract(b.transpose(0, 2, 1), a.transpose(0, 2, 1), out2, 1, 1, 1, 1, 2)
        check(out2, b.transpose(0, 2, 1), a.transpose(0, 2, 1), (1, 1, 1, 1))
        orec = np.zeros((3, 4, 4), dtype=fields)
        b = a.transpose(0, 2, 1)[:, :, :4].copy()
        _matmul.contract(a, b, orec[name], 1, 1, 1, 1, 2)
        check(orec[name], a, b, (1, 1, 1, 1))


# -- errors ----------------------------------------------------------------------------

def test_errors():
    f8 = np.zeros((2, 3, 4))
    g8 = np.zeros((2, 4, 5))
    o8 = np.zeros((2, 3, 5))
    with pytest.raises(TypeError, match=r"^tenferro kernel _matmul.contract: no loop for "
                                        r"float32, float64 -> float64$"):
        _matmul.contract(f8.astype(np.float32), g8, o8, 1, 1, 1, 1, 1)
    with pytest.raises(TypeError, match=r"_matmul.contract: no loop for "
                                        r"float64, float64 -> complex128"):
        _matmul.contract(f8, g8, o8.astype(complex), 1, 1, 1, 1, 1)
    with pytest.raises(TypeError, match=r"^tenferro kernel _matmul.contract: no loop for uint8$"):
        _matmul.contract(f8.astype(np.uint8), g8.astype(np.uint8), o8.astype(np.uint8),
                         1, 1, 1, 1, 1)
    with pytest.raises(ValueError, match=r"^tenferro kernel _matmul.contract: ndims .* do not "
                                         r"fit groups"):
        _matmul.contract(f8, g8, o8, 0, 1, 2, 1, 1)
    with pytest.raises(ValueError, match="do not fit groups"):
        _matmul.contract(f8, g8, o8, 1, 1, 1, -1, 1)
    with pytest.raises(ValueError, match=r"^tenferro kernel _matmul.contract: batch group "
                                         r"shapes differ: \(2,\) vs \(3,\)$"):
        _matmul.contract(f8, np.zeros((3, 4, 5)), o8, 1, 1, 1, 1, 1)
    with pytest.raises(ValueError, match="batch group shapes differ"):
        _matmul.contract(f8, g8, np.zeros((3, 3, 5)), 1, 1, 1, 1, 1)
    with pytest.raises(ValueError, match=r"M group shapes differ: \(3,\) vs \(4,\)"):
        _matmul.contract(f8, g8, np.zeros((2, 4, 5)), 1, 1, 1, 1, 1)
    with pytest.raises(ValueError, match=r"K group shapes differ: \(4,\) vs \(3,\)"):
        _matmul.contract(f8, np.zeros((2, 3, 5)), o8, 1, 1, 1, 1, 1)
    with pytest.raises(ValueError, match=r"N group shapes differ: \(5,\) vs \(6,\)"):
        _matmul.contract(f8, g8, np.zeros((2, 3, 6)), 1, 1, 1, 1, 1)
    # equal group totals are not enough: axis by axis
    with pytest.raises(ValueError, match=r"K group shapes differ: \(2, 6\) vs \(6, 2\)"):
        _matmul.contract(np.zeros((3, 2, 6)), np.zeros((6, 2, 5)), np.zeros((3, 5)),
                         0, 1, 2, 1, 1)
    with pytest.raises(ValueError, match="out is read-only"):
        _matmul.contract(f8, g8, np.broadcast_to(o8, o8.shape), 1, 1, 1, 1, 1)


def test_agrees_with_matmul():
    gen = stable_rng("vs-matmul")
    a = sample(gen, (5, 70, 80), np.float64)
    b = sample(gen, (5, 80, 90), np.float64)
    o1, o2 = np.empty((5, 70, 90)), np.empty((5, 70, 90))
    _matmul.matmul(a, b, o1, 2)
    _matmul.contract(a, b, o2, 1, 1, 1, 1, 2)
    np.testing.assert_array_equal(o1, o2)
