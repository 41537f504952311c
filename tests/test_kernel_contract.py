"""tenferro._kernels._matmul.contract (einsum's grouped pairwise step) against numpy.einsum.

``contract(a, b, out, nb, nm, nk, nn, nthreads)``: a is [batch, M, K], b is [batch, K, N],
out is [batch, M, N], each a group of nb/nm/nk/nn axes.  Operands come in many memory
layouts: groups that fold into one (size, stride) pair in place (C order, groups stored
in another order, negative strides, a step on the last axis, all-zero strides) and
groups that do not (axes of a group reversed in memory, steps on every axis, a
zero-stride axis next to a strided one).
"""
import contextlib
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

def _peak_bytes(a, b, out, counts, nthreads=2):
    tracemalloc.start()
    try:
        _matmul.contract(a, b, out, *counts, nthreads)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_folding_operands_are_not_copied():
    """Every NumPy allocation (np.empty and tenferro's _alloc.empty alike) is traced by
    tracemalloc; the kernel's own per-matrix BLAS scratch (malloc) is not.  Any copy of
    an operand here is >= 2 MiB, the traced peak of the folding call stays far below;
    so does that of calls (default thresholds) whose non-folding groups are split."""
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
    # positive controls: a non-folding a, b or out is copied once, and it shows (inner
    # runs of 8 M rows, 4 K columns: too thin, or too costly, to split)
    bad = _permuted_copy(a, [0, 1, 3, 2, 4, 5])
    assert _peak_bytes(bad, b, out, counts) >= bad.nbytes
    check(out, bad, b, counts)
    bad_b = _permuted_copy(b, [0, 1, 3, 2, 4])
    assert _peak_bytes(a, bad_b, out, counts) >= bad_b.nbytes
    check(out, a, bad_b, counts)
    bad_out = out_layout(out.shape, out.dtype, "within_reversed", groups_of("out", counts))
    assert _peak_bytes(a, b, bad_out, counts) >= out.nbytes
    check(bad_out, a, b, counts)
    # groups that do not fold, split instead of copied (the array named is >= 2 MiB)
    d = 24
    abde, efa = sample(gen, (d,) * 4, np.float64), sample(gen, (d,) * 3, np.float64)
    split = [
        # 'abde,efa->bdf': K (a, e) nests in neither; outer a summed into C
        ("K in a and b", abde.transpose(1, 2, 0, 3), efa.transpose(2, 0, 1),
         np.full((d,) * 3, 7.0), (0, 2, 2, 1)),
        # 'fae,aebd->fbd' (efa the small a, abde the big b)
        ("K in a and big b", efa.transpose(1, 2, 0), abde.transpose(0, 3, 1, 2),
         np.full((d,) * 3, 7.0), (0, 1, 2, 2)),
        # M (16, 64) of a stored around K: outer M axis to the batch dims
        ("M in a", stored(sample(gen, (4, 16, 64, 64), np.float64), (0, 1, 3, 2)),
         sample(gen, (4, 64, 32), np.float64), np.full((4, 16, 64, 32), 7.0), (1, 2, 1, 1)),
        ("M in out", sample(gen, (16, 128, 16), np.float64),
         sample(gen, (16, 128), np.float64), stored(np.full((16, 128, 128), 7.0), (0, 2, 1)),
         (0, 2, 1, 1)),
        ("N in b", sample(gen, (32, 64), np.float64),
         stored(sample(gen, (64, 32, 128), np.float64), (1, 0, 2)),
         np.full((32, 32, 128), 7.0), (0, 1, 1, 2)),
    ]
    for what, a, b, out, counts in split:
        assert max(a.nbytes, b.nbytes, out.nbytes) >= 2 << 20
        peak = _peak_bytes(a, b, out, counts)
        check(out, a, b, counts)
        assert peak < 256 << 10, (what, peak)


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


# -- groups that do not fold: split instead of copied ----------------------------------


@contextlib.contextmanager
def split_tuning(**kw):
    """contract's split thresholds changed for a block (restored after)."""
    old = _matmul._set_split_tuning(**kw)
    try:
        yield
    finally:
        _matmul._set_split_tuning(*old)


# split whenever the inner run is long enough (MN_SPLIT_MIN 16, K_SPLIT_MIN 4), whatever
# the cost rule and product size say: the cases below pick their path by layout alone
SPLIT_ALWAYS = dict(mn_split_min=16, mn_split_ratio=1e30, k_split_min=4,
                    k_split_ratio=1e30, split_min_work=0, own_split_min_work=0)


def stored(x, order, flip=(), step=None, odd_ones=False):
    """x's values in memory with axes in ``order`` (outermost first), negative strides
    on the axes in ``flip``, a step of 2 on axis ``step``, and size-1 axes with strides
    that nest nowhere when ``odd_ones``."""
    from numpy.lib.stride_tricks import as_strided
    flip = tuple(flip)
    src = np.flip(x, flip) if flip else x
    if step is not None:
        src = np.repeat(src, 2, axis=step)
    y = _permuted_copy(src, order)
    if step is not None:
        y = y[(slice(None),) * step + (slice(None, None, 2),)]
    if flip:
        y = np.flip(y, flip)
    if odd_ones:
        y = as_strided(y, y.shape, tuple(12345 * y.itemsize * (d + 1) if n == 1 else s
                                         for d, (n, s) in enumerate(zip(y.shape, y.strides))),
                       writeable=True)
    return y


def assert_copies(a, b, out, counts, copies, nt=2):
    """The call copies exactly the arrays named in ``copies`` ('a', 'b', 'o', out
    computed in a scratch): its traced peak is at least their bytes and less than 512
    bytes more (the cases keep every array that could be copied above that)."""
    arrays = {"a": a, "b": b, "o": out}
    copied = sum(arrays[k].nbytes for k in copies)
    peak = _peak_bytes(a, b, out, counts, nt)
    assert copied <= peak < copied + 512, (peak, copies)


# (id, sizes (batch, M, K, N), memory orders of a, b, out (None: C order) and extra
# layout options, arrays copied when splitting is allowed by layout alone)
SPLITS = [
    # M: outer axes of a's or out's M group become batch dims (b stride 0)
    ("m_a", ((), (3, 16), (40,), (24,)), ((0, 2, 1), None, None), ""),
    ("m_a_thin", ((), (16, 3), (40,), (24,)), ((0, 2, 1), None, None), "a"),
    ("m_out", ((), (3, 16), (40,), (24,)), (None, None, (0, 2, 1)), ""),
    ("m_out_thin", ((), (16, 3), (40,), (24,)), (None, None, (0, 2, 1)), "o"),
    # inner run (m1, m2) in a, (m2,) in out: split after m1, two outer axes
    ("m_a_out", ((), (2, 3, 16), (24,), (20,)), ((0, 3, 1, 2), None, (0, 1, 3, 2)), ""),
    # the common inner run (m2) is too thin; a's alone (m1, m2) is not: out computed
    # in a scratch, a split; and the other way round
    ("m_out_thin_a", ((), (3, 16, 2), (24,), (20,)), ((0, 3, 1, 2), None, (0, 2, 3, 1)),
     "o"),
    ("m_a_thin_out", ((), (3, 16, 2), (24,), (20,)), ((0, 1, 3, 2), None, (0, 3, 1, 2)),
     "a"),
    # N: outer axes of b's or out's N group become batch dims (a stride 0)
    ("n_b", ((), (20,), (24,), (3, 16)), (None, (1, 0, 2), None), ""),
    ("n_b_thin", ((), (20,), (24,), (16, 3)), (None, (1, 0, 2), None), "b"),
    ("n_out", ((), (20,), (24,), (3, 16)), (None, None, (1, 0, 2)), ""),
    ("n_out_thin", ((), (20,), (24,), (16, 3)), (None, None, (1, 0, 2)), "o"),
    # K: outer K axes summed by accumulating into C
    ("k_a", ((), (20,), (3, 16), (24,)), ((1, 0, 2), None, None), ""),
    ("k_a_thin", ((), (20,), (16, 3), (24,)), ((1, 0, 2), None, None), "a"),
    ("k_b", ((), (20,), (3, 16), (24,)), (None, (0, 2, 1), None), ""),
    ("k_b_thin", ((), (20,), (16, 3), (24,)), (None, (0, 2, 1), None), "b"),
    # tiny products (the naive loop, strided rows) and vector products (gemv) adding up
    ("k_tiny", ((), (4,), (3, 8), (6,)), ((1, 0, 2), (0, 2, 1), None), ""),
    ("k_gemv_n1", ((), (512,), (3, 16), ()), ((1, 0, 2), None, None), ""),
    ("k_gemv_m1", ((), (), (3, 16), (512,)), (None, (0, 2, 1), None), ""),
    # two outer K axes that do not merge (a: k1 outermost), inner run k2 (b's is k1, k2)
    ("k_outer2", ((), (20,), (2, 3, 16), (24,)), ((2, 1, 0, 3), (1, 2, 3, 0), None), ""),
    # K split in a and b with M and N split in out, all at once
    ("mnk", ((), (3, 16), (2, 16), (3, 16)), ((2, 0, 1, 3), (2, 0, 1, 3), (2, 0, 3, 1)),
     ""),
    # with batch axes (not merging), and with many small batch items (batch-parallel)
    ("k_batch", ((3, 2), (16,), (3, 16), (16,)), ((1, 3, 0, 2, 4), None, (1, 0, 2, 3)),
     ""),
    ("k_batch_par", ((40,), (16,), (3, 16), (16,)), ((0, 2, 1, 3), None, None), ""),
    ("m_batch_par", ((40,), (3, 16), (16,), (16,)), (None, None, (0, 1, 3, 2)), ""),
    ("n_batch_par", ((40,), (16,), (16,), (3, 16)), (None, (2, 0, 1, 3), None), ""),
    # K total 0 folds; M split in out still writes zeros over out's garbage
    ("k_zero_m_out", ((), (3, 16), (16, 0), (24,)), ((2, 0, 1, 3), None, (0, 2, 1)), ""),
    ("k_zero_batch", ((5,), (16,), (0, 4), (16,)), ((2, 0, 1, 3), (1, 2, 0, 3), None), ""),
    # size-1 axes inside the groups, with strides that nest nowhere
    ("ones", ((), (3, 1, 16), (3, 1, 16), (1, 24)),
     ((3, 0, 1, 2, 4, 5), None, None, dict(odd_ones=True)), ""),
    ("ones_out", ((2, 1), (1, 3, 16), (1, 20), (3, 1, 16)),
     (None, (0, 1, 4, 2, 3, 5, 6), (0, 1, 5, 2, 3, 6, 7, 4), dict(odd_ones=True)), ""),
    # negative strides (inner and outer axes) and a step on the inner run
    ("k_neg", ((), (20,), (3, 16), (24,)),
     ((1, 0, 2), (0, 2, 1), None, dict(flip=(1, 2), flip_b=(0, 1, 2), flip_o=(1,))), ""),
    ("m_neg", ((), (3, 16), (24,), (20,)),
     ((0, 2, 1), None, (0, 2, 1), dict(flip=(0, 1), flip_o=(1,))), ""),
    ("m_step", ((), (3, 16), (24,), (20,)), ((0, 2, 1), None, None, dict(step=1)), ""),
]


def build_split_case(dt, sizes, orders, seed=0):
    counts = tuple(len(s) for s in sizes)
    bs, ms, ks, ns = sizes
    la, lb, lo = orders[:3]
    opt = orders[3] if len(orders) > 3 else {}
    gen = stable_rng("split", dt.name, sizes, seed)

    def make(x, order, flip=(), step=None):
        if order is None and not flip and step is None and not opt.get("odd_ones"):
            return x
        return stored(x, range(x.ndim) if order is None else order, flip, step,
                      opt.get("odd_ones", False))
    a = make(sample(gen, bs + ms + ks, dt), la, opt.get("flip", ()), opt.get("step"))
    b = make(sample(gen, bs + ks + ns, dt), lb, opt.get("flip_b", ()))
    out = make(np.full(bs + ms + ns, 7, dt), lo, opt.get("flip_o", ()))
    return a, b, out, counts


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("case", SPLITS, ids=[c[0] for c in SPLITS])
def test_split_groups(dt, case):
    name, sizes, orders, copies = case
    a, b, out, counts = build_split_case(dt, sizes, orders)
    a0, b0 = a.copy(), b.copy()
    with split_tuning(**SPLIT_ALWAYS):
        for nt in (1, 2, 3):
            out[...] = 7
            _matmul.contract(a, b, out, *counts, nt)
            check(out, a, b, counts)
        out[...] = 7
        assert_copies(a, b, out, counts, copies)
        check(out, a, b, counts)
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)


# arrays copied when splitting is off (every array where a group does not fold)
COPIED_UNSPLIT = {"m_a": "a", "m_out": "o", "m_a_out": "ao", "m_out_thin_a": "ao",
                  "n_b": "b", "n_out": "o", "k_a": "a", "k_b": "b", "k_outer2": "ab",
                  "mnk": "abo", "k_batch_par": "a", "ones_out": "bo", "m_neg": "ao"}


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("case", [c for c in SPLITS if c[0] in COPIED_UNSPLIT],
                         ids=[c[0] for c in SPLITS if c[0] in COPIED_UNSPLIT])
def test_split_groups_copied_when_splitting_is_off(dt, case):
    """The same layouts with splitting off: the copies of before, the same results."""
    name, sizes, orders, copies = case
    a, b, out, counts = build_split_case(dt, sizes, orders)
    with split_tuning(mn_split_min=1 << 60, k_split_min=1 << 60):
        assert_copies(a, b, out, counts, COPIED_UNSPLIT[name])
        check(out, a, b, counts)


# large: BLAS (multithreaded) and the own kernels' row-parallel path through K slices,
# M/N splits feeding BLAS and the batch-parallel path
LARGE_SPLITS = [
    ("k_a", ((), (200,), (4, 64), (100,)), ((1, 0, 2), None, None)),
    ("k_ab_outer2", ((), (96,), (3, 2, 48), (80,)), ((1, 2, 0, 3), (2, 0, 1, 3), None)),
    ("k_batch", ((6,), (64,), (5, 32), (48,)), ((2, 0, 1, 3), None, None)),
    ("m_a", ((), (8, 128), (100,), (64,)), ((0, 2, 1), None, None)),
    ("n_out_batch", ((64,), (32,), (32,), (4, 32)), (None, None, (0, 2, 1, 3))),
    ("mnk_batch", ((4,), (2, 48), (3, 40), (2, 40)),
     ((3, 0, 1, 2, 4), (0, 3, 1, 2, 4), (0, 3, 1, 4, 2))),
]


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("case", LARGE_SPLITS, ids=[c[0] for c in LARGE_SPLITS])
def test_split_groups_large(dt, case):
    name, sizes, orders = case
    a, b, out, counts = build_split_case(dt, sizes, orders)
    with split_tuning(**SPLIT_ALWAYS):
        for nt in (1, 2, 4):
            out[...] = 7
            _matmul.contract(a, b, out, *counts, nt)
            check(out, a, b, counts)
        assert_copies(a, b, out, counts, "")


def test_split_rules_at_default_tuning():
    """Default thresholds: split where the measured rule says it pays, copy where the
    products are too small, the inner run too thin or the re-reads too costly."""
    gen = stable_rng("split-defaults")
    f8 = np.float64
    # the tensor-network step 'abde,efa->bdf': K (a, e) does not nest in abde or efa
    A = sample(gen, (24,) * 4, f8)
    B = sample(gen, (24,) * 3, f8)
    a, b = A.transpose(1, 2, 0, 3), B.transpose(2, 0, 1)
    out = np.full((24,) * 3, 7.0)
    assert_copies(a, b, out, (0, 2, 2, 1), "")
    check(out, a, b, (0, 2, 2, 1))
    # each of these is copied for one rule alone: relaxing that rule splits it
    k, m = (0, 1, 2, 1), (0, 2, 1, 1)
    for what, a, b, out, counts, relaxed in [
            # tiny products (2 x 16 x 2 per K slice)
            ("work", stored(sample(gen, (2, 64, 16), f8), (1, 0, 2)),
             sample(gen, (64, 16, 2), f8), np.full((2, 2), 7.0), k,
             dict(split_min_work=64)),
            # inner K run of 3 (< K_SPLIT_MIN)
            ("inner K", stored(sample(gen, (256, 64, 3), f8), (1, 0, 2)),
             sample(gen, (64, 3, 12), f8), np.full((256, 12), 7.0), k,
             dict(k_split_min=3)),
            # 16 K slices re-reading a 32 x 256 C: 32 times the 32 x 128 a copied
            ("K ratio", stored(sample(gen, (32, 16, 8), f8), (1, 0, 2)),
             sample(gen, (16, 8, 256), f8), np.full((32, 256), 7.0), k,
             dict(k_split_ratio=32)),
            # M split of a into 8 x 16 rows re-packing a 32 x 512 b 8 times
            ("M ratio", stored(sample(gen, (8, 16, 32), f8), (0, 2, 1)),
             sample(gen, (32, 512), f8), np.full((8, 16, 512), 7.0), m,
             dict(mn_split_ratio=32))]:
        assert_copies(a, b, out, counts, "a")
        check(out, a, b, counts)
        with split_tuning(**relaxed):
            out[...] = 7
            assert_copies(a, b, out, counts, "")
            check(out, a, b, counts)
    # M split at ratio 2: split; inner M run of 8 (< MN_SPLIT_MIN): copied
    a = stored(sample(gen, (8, 16, 32), f8), (0, 2, 1))
    b = sample(gen, (32, 32), f8)
    out = np.full((8, 16, 32), 7.0)
    assert_copies(a, b, out, (0, 2, 1, 1), "")
    check(out, a, b, (0, 2, 1, 1))
    a = stored(sample(gen, (16, 8, 128), f8), (0, 2, 1))
    b = sample(gen, (128, 16), f8)
    out = np.full((16, 8, 16), 7.0)
    assert_copies(a, b, out, (0, 2, 1, 1), "a")
    check(out, a, b, (0, 2, 1, 1))
    with split_tuning(mn_split_min=8):
        assert_copies(a, b, out, (0, 2, 1, 1), "")
        check(out, a, b, (0, 2, 1, 1))
    # own kernels need larger products: 32 x 32 x 16 per slice splits for float64 only
    for dt, copies in (("float64", ""), ("complex64", ""), ("int64", "a"), ("bool", "a")):
        a = stored(sample(gen, (32, 8, 16), dt), (1, 0, 2))
        b = sample(gen, (8, 16, 32), dt)
        out = np.full((32, 32), 7, dt)
        assert_copies(a, b, out, (0, 1, 2, 1), copies)
        check(out, a, b, (0, 1, 2, 1))


def test_k_split_threads_do_not_share_c():
    """Many batch items, each summing K slices: the batch-parallel path with 2 and 3
    threads (an odd count splits the items unevenly) gives the serial result exactly
    (integer products)."""
    gen = stable_rng("k-par")
    dt = np.dtype("int64")
    a = stored(sample(gen, (37, 16, 5, 16), dt), (2, 0, 1, 3))     # [b, m, k0, k1]
    b = sample(gen, (37, 5, 16, 16), dt)
    ref = np.full((37, 16, 16), 7, dt)
    with split_tuning(**SPLIT_ALWAYS):
        _matmul.contract(a, b, ref, 1, 1, 2, 1, 1)
        check(ref, a, b, (1, 1, 2, 1))
        for nt in (2, 3):
            for _ in range(5):
                out = np.full((37, 16, 16), 7, dt)
                _matmul.contract(a, b, out, 1, 1, 2, 1, nt)
                np.testing.assert_array_equal(out, ref)
        assert_copies(a, b, out, (1, 1, 2, 1), "")


def test_split_tuning_round_trips():
    old = _matmul._set_split_tuning()
    with split_tuning(mn_split_min=3, k_split_ratio=0.5):
        cur = _matmul._set_split_tuning()
        assert cur[0] == 3 and cur[3] == 0.5
    assert _matmul._set_split_tuning() == old


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


# Batched dot and matrix-vector products (M == 1 or N == 1) with a batch that feeds
# every thread take a direct loop (four partial sums, no call per item): every layout,
# dtype and thread count, K short and long, and the single long dot left to BLAS.
DIRECT = [((37,), (), (5,), ()),          # 'bk,bk->b'
          ((9, 4), (), (3, 7), ()),       # two batch axes, two K axes
          ((40,), (6,), (5,), ()),        # 'bmk,bk->bm'
          ((40,), (), (5,), (6,)),        # 'bk,bkn->bn'
          ((33,), (2, 3), (4,), ()),      # an M group of two axes
          ((50,), (), (1,), ()),          # K of one (the remainder loop only)
          ((12,), (), (5000,), ()),       # long dots: direct loop, in parallel
          ((), (), (6000,), ())]          # one long dot: BLAS / own kernel


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("sizes", DIRECT, ids=str)
@pytest.mark.parametrize("triple", TRIPLES[:6], ids=str)
def test_batched_dot_and_matvec(dt, sizes, triple):
    run_case(dt, sizes, *triple, nthreads=(1, 2, 3))
