"""The CUDA driver's views and indexing primitives (tenferro/devices/cuda/index.py)
against NumPy, called through the driver's implementations on CUDA arrays: views and
their adjoints, concatenate, take, take_along_axis, scatter_add(_along_axis), nonzero
and put, for every dtype, on contiguous, permuted, strided and reversed operands.

Run in the host simulator (``TENFERRO_CUDA_SIMULATOR=1``; skipped with the driver's
reason otherwise), or on a GPU.  Gathers and put move elements, so they must equal
NumPy bit for bit (NaN, -0.0, int64 past 32 bits); integer and bool scatter-adds are
exact (wrapping; bools or-ed), float ones compared with ``np.add.at`` at the dtype's
tolerance (the atomics land in any order).  Every rendered kernel also compiles with
NVRTC for sm_80 and sm_90 (skipped without NVRTC).  Each kernel compiled for the
simulator costs the host compiler a fraction of a second, so the cases reuse a few
shapes (and so a few kernels).
"""
import numpy as np
import pytest

import tenferro as tf
from conftest import DTYPES, get_test_device
from test_cuda_driver import requires_nvrtc

I32, I64, BOOL = np.dtype("int32"), np.dtype("int64"), np.dtype("bool")
LAYOUTS = ("c", "T", "step", "neg")
WIDE = (BOOL, np.dtype("float32"), I64, np.dtype("complex128"))   # one per item size


def layouts(dtype):
    """Every layout for one dtype per item size, contiguous and reversed for the others:
    the kernels' index arithmetic is the same for every dtype, and each (dtype, layout)
    is another kernel for the simulator's compiler."""
    return LAYOUTS if dtype in WIDE else ("c", "neg")


@pytest.fixture(scope="module")
def dev():
    return get_test_device("cuda")


@pytest.fixture(scope="module")
def impl(dev):
    return tf.devices.get_driver("cuda").implementations


def sample(shape, dtype, seed=0):
    """Values of ``dtype`` with each dtype's edge cases mixed in."""
    r = np.random.default_rng(seed)
    n = int(np.prod(shape))
    dtype = np.dtype(dtype)
    if dtype == BOOL:
        return r.random(shape) < 0.5
    if dtype.kind == "i":
        info = np.iinfo(dtype)
        a = r.integers(-20, 21, n).astype(dtype)
        edge = np.array([info.min, info.max, -1, 0], dtype)
    else:
        a = r.uniform(-3, 3, n).astype(dtype)
        if dtype.kind == "c":
            a = a + 1j * r.uniform(-3, 3, n).astype(a.real.dtype)
        edge = np.array([np.nan, -0.0, np.inf, -np.inf], dtype)
    k = min(n, len(edge))
    a[r.permutation(n)[:k]] = edge[:k]
    return a.reshape(shape)


def on(dev, a, how="c"):
    """A CUDA array holding ``a``'s values with the layout ``how``: contiguous,
    transposed (a permuted view), strided (every other element of the last axis) or
    reversed (a negative stride on axis 0)."""
    from tenferro.devices import _views
    from tenferro.devices.cuda.array import from_numpy

    a = np.asarray(a)
    if how == "c" or a.ndim == 0:
        return from_numpy(a, dev)
    if how == "T":
        ax = tuple(reversed(range(a.ndim)))
        return _views.permute_dims(from_numpy(np.ascontiguousarray(a.transpose(ax)), dev),
                              axes=ax)
    if how == "step":
        wide = np.repeat(a, 2, axis=-1)
        key = [("s", 0, n, 1) for n in a.shape[:-1]] + [("s", 0, 2 * a.shape[-1], 2)]
        return _views.basic_index(from_numpy(wide, dev), key=key)
    n = a.shape[0]
    return _views.basic_index(from_numpy(a[::-1].copy(), dev), key=[("s", n - 1, -1, -1)])


def host(x):
    from tenferro.devices.cuda.array import to_numpy
    return to_numpy(x)


def same_bits(got, want):
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
    assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes(), \
        (got, want)


def close(got, want):
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    if want.dtype.kind in "fc":
        tol = 1e-5 if want.dtype in (np.float32, np.complex64) else 1e-12
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    else:
        assert np.array_equal(got, want)


# -- views, adjoints, concatenate ------------------------------------------------------------

@pytest.mark.parametrize("how", LAYOUTS)
def test_views_share_memory_and_match_numpy(dev, impl, how):
    a = sample((3, 4), np.float64)
    x = on(dev, a, how)
    cases = [(impl["permute_dims"](x, axes=(1, 0)), a.T),
             (impl["broadcast_to"](x, shape=(2, 3, 4)), np.broadcast_to(a, (2, 3, 4))),
             (impl["basic_index"](x, key=(("i", -1), ("s", 3, 0, -2))), a[-1, 3:0:-2]),
             (impl["basic_index"](x, key=(("n",), ("s", 1, 3, 1))), a[None, 1:3]),
             (impl["basic_index"](x, key=(("s", 2, 2, 1),)), a[2:2]),
             (impl["diagonal"](x, offset=1, axis1=0, axis2=1), a.diagonal(1)),
             (impl["diagonal"](x, offset=-2, axis1=1, axis2=0), a.diagonal(-2, 1, 0)),
             (impl["diagonal"](x, offset=9, axis1=0, axis2=1), a.diagonal(9))]
    for v, want in cases:
        assert v.storage is x.storage
        same_bits(host(v), want)
    assert not impl["diagonal"](x, offset=0, axis1=0, axis2=1).writeable
    assert not impl["broadcast_to"](x, shape=(2, 3, 4)).writeable


@pytest.mark.parametrize("dtype", DTYPES)
def test_reshape_views_or_copies(dev, impl, dtype):
    a = sample((3, 4), dtype)
    x = on(dev, a)
    v = impl["reshape"](x, shape=(2, 6))
    assert v.storage is x.storage
    same_bits(host(v), a.reshape(2, 6))
    if dtype in WIDE:
        c = impl["reshape"](x, shape=(12,), copy=True)
        assert c.storage is not x.storage
        same_bits(host(c), a.reshape(12))
    t = on(dev, a, "T")
    same_bits(host(impl["reshape"](t, shape=(12,))), a.reshape(12))
    with pytest.raises(ValueError, match=r"tenferro.reshape: cannot reshape .* \(copy=False\)"):
        impl["reshape"](t, shape=(12,), copy=False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_adjoints_and_concatenate(dev, impl, dtype):
    a = sample((3, 4), dtype)
    key = (("s", 1, 4, 1), ("s", 3, -1, -2))
    got = impl["basic_index_transpose"](on(dev, a[:, 3::-2]), key=key, shape=(4, 4))
    want = np.zeros((4, 4), dtype)
    want[1:4, 3::-2] = a[:, 3::-2]
    same_bits(host(got), want)
    d = np.array([a[0, 0], a[1, 1], a[2, 2]])
    got = impl["diagonal_transpose"](on(dev, d), offset=-1, axis1=0, axis2=1, shape=(4, 3))
    want = np.zeros((4, 3), dtype)
    want[[1, 2, 3], [0, 1, 2]] = d
    same_bits(host(got), want)
    b = sample((3, 2), dtype, seed=1)
    got = impl["concatenate"](on(dev, a, "T"), on(dev, b, "neg"), on(dev, b[:, :0]), axis=1)
    same_bits(host(got), np.concatenate([a, b], axis=1))


# -- gathers ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_take(dev, impl, dtype):
    a = sample((4, 5), dtype)
    idx = np.array([[3, 0], [3, 4]])
    for how in layouts(dtype):
        x = on(dev, a, how)
        same_bits(host(impl["take"](x, on(dev, idx[:, :1]), axis=0)), a[idx[:, :1]])
        same_bits(host(impl["take"](x, on(dev, idx, "T"), axis=1)), a[:, idx])
    same_bits(host(impl["take"](on(dev, a), on(dev, np.array(2)), axis=1)), a[:, 2])
    wide = impl["broadcast_to"](on(dev, np.array([1, 4])), shape=(3, 2))   # zero strides
    same_bits(host(impl["take"](on(dev, a, "neg"), wide, axis=1)), a[:, [[1, 4]] * 3])
    same_bits(host(impl["take"](on(dev, a), on(dev, np.zeros(0, np.int64)), axis=0)),
              a[np.zeros(0, np.int64)])


@pytest.mark.parametrize("dtype", DTYPES)
def test_take_along_axis(dev, impl, dtype):
    a = sample((4, 5), dtype)
    idx = np.random.default_rng(1).integers(0, 4, (6, 5))
    for how in layouts(dtype):
        same_bits(host(impl["take_along_axis"](on(dev, a, how), on(dev, idx), axis=0)),
                  np.take_along_axis(a, idx, axis=0))
    idx1 = np.array([[4, 0, 4]] * 4)
    same_bits(host(impl["take_along_axis"](on(dev, a, "neg"), on(dev, idx1, "step"), axis=1)),
              np.take_along_axis(a, idx1, axis=1))


# -- scatter-adds ------------------------------------------------------------------------------

def add_at(shape, idx, values, axis, along=False):
    out = np.zeros(shape, values.dtype)
    if along:
        grids = list(np.indices(idx.shape, sparse=True))
        grids[axis] = idx
        np.add.at(out, tuple(grids), values)
    else:
        np.add.at(out, (slice(None),) * axis + (idx,), values)
    return out


@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter_add(dev, impl, dtype):
    idx = np.array([[2, 0], [2, 2]])              # duplicates accumulate
    v = sample((4, 2, 2), dtype)
    for how in layouts(dtype):
        got = impl["scatter_add"](on(dev, v, how), on(dev, idx), axis=1, shape=(4, 3))
        close(host(got), add_at((4, 3), idx, v, 1))
    if dtype in WIDE:
        v0 = sample((2, 2, 3), dtype, seed=2)
        got = impl["scatter_add"](on(dev, v0, "T"), on(dev, idx, "T"), axis=0, shape=(3, 3))
        close(host(got), add_at((3, 3), idx, v0, 0))
    empty = impl["scatter_add"](on(dev, v[:, :0]), on(dev, idx[:0]), axis=1, shape=(4, 3))
    same_bits(host(empty), np.zeros((4, 3), dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter_add_along_axis(dev, impl, dtype):
    idx = np.random.default_rng(3).integers(0, 3, (5, 4))
    v = sample((5, 4), dtype, seed=4)
    for how in layouts(dtype):
        got = impl["scatter_add_along_axis"](on(dev, v, how), on(dev, idx), axis=0,
                                             shape=(3, 4))
        close(host(got), add_at((3, 4), idx, v, 0, along=True))
    if dtype not in WIDE:
        return
    # a broadcast (zero-stride) values operand, as the core passes scalars
    one = impl["broadcast_to"](on(dev, np.ones((), dtype)), shape=(5, 4))
    got = impl["scatter_add_along_axis"](one, on(dev, idx), axis=0, shape=(3, 4))
    close(host(got), add_at((3, 4), idx, np.ones((5, 4), dtype), 0, along=True))


def test_scatter_add_contention_is_exact_and_wraps(dev, impl):
    idx = np.zeros(3000, np.int64)       # every thread adds into one element
    for dtype, v in [(I32, np.full(3000, 2**30, I32)), (I64, np.full(3000, 2**62, I64)),
                     (np.dtype("float64"), np.arange(3000.)),
                     (np.dtype("complex128"), np.arange(3000.) * (1 - 2j)),
                     (BOOL, np.arange(3000) == 1234)]:
        got = host(impl["scatter_add"](on(dev, v), on(dev, idx), axis=0, shape=(2,)))
        same_bits(got, add_at((2,), idx, v, 0))


def test_scatter_add_bool_ors_neighbouring_bytes_of_one_word(dev, impl):
    # every byte of the 32-bit words (and the odd tail) set by different threads
    idx = np.array([0, 1, 2, 3, 5, 6, 3, 0, 4])
    v = np.array([1, 0, 1, 1, 1, 0, 1, 1, 0], bool)
    got = host(impl["scatter_add"](on(dev, v), on(dev, idx), axis=0, shape=(7,)))
    same_bits(got, add_at((7,), idx, v, 0))


# -- nonzero -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_nonzero(dev, impl, dtype):
    cpu = tf.devices.get_driver("cpu").implementations["nonzero"]
    a = sample((37, 40), dtype)            # 1480 elements: several chunks
    a[np.random.default_rng(5).random(a.shape) < 0.5] = 0
    if dtype.kind == "c":
        a[0, :4] = [1j, -0.0, complex(0, np.nan), 0]
    for how in layouts(dtype):
        same_bits(host(impl["nonzero"](on(dev, a, how))), cpu(a))
    for b in (a[:0], a[3, 1], a[3, 1] * 0, a[:, 5]) if dtype in WIDE else (a[:0],):
        same_bits(host(impl["nonzero"](on(dev, b))), cpu(np.asarray(b)))


def test_nonzero_counts_chunks_in_order(dev, impl, monkeypatch):
    from tenferro.devices.cuda import index
    monkeypatch.setattr(index, "CHUNKS", 16)   # chunks longer than the minimum
    a = np.zeros((3, 7000, 2), bool)
    a[0, ::7, 1] = a[2, 6990:, :] = a[1, 123, 0] = True
    same_bits(host(impl["nonzero"](on(dev, a))), np.argwhere(a))


# -- put ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_put_last_write_wins(dev, impl, dtype):
    a = sample((4, 5), dtype)
    pos = np.array([[7, 3, 7], [19, 7, 0]])          # 7 three times: the last wins
    v = sample((2, 3), dtype, seed=6)
    for how in layouts(dtype):
        x = on(dev, a, how)
        for p in (pos, pos.astype(I32)) if dtype in WIDE else (pos,):
            impl["put"](x, on(dev, p, "T" if how == "T" else "c"), on(dev, v))
            want = a.copy()
            want.flat[pos.ravel()] = v.ravel()
            same_bits(host(x), want)
    x = on(dev, a)
    impl["put"](x, on(dev, pos[:, :0]), on(dev, v[:, :0]))
    same_bits(host(x), a)
    # a scalar broadcast to the positions (zero strides), as the core passes x[i] = s
    impl["put"](x, on(dev, pos), impl["broadcast_to"](on(dev, v[1, 2]), shape=pos.shape))
    want = a.copy()
    want.flat[pos.ravel()] = v[1, 2]
    same_bits(host(x), want)


def test_put_many_duplicates_and_values_that_alias_dst(dev, impl):
    n = 5000
    pos = np.random.default_rng(7).integers(0, 40, n)
    v = np.arange(n, dtype=np.float64)
    x = on(dev, np.zeros(40))
    impl["put"](x, on(dev, pos), on(dev, v))
    want = np.zeros(40)
    want[pos] = v
    same_bits(host(x), want)
    # values read from dst itself: put must read them before writing
    a = np.arange(8.)
    x = on(dev, a)
    vals = impl["basic_index"](x, key=(("s", 7, -1, -1),))
    impl["put"](x, on(dev, np.arange(8)), vals)
    same_bits(host(x), a[::-1])


# -- errors ---------------------------------------------------------------------------------------

def test_errors_name_the_op(dev, impl):
    x = on(dev, np.zeros((3, 4)))
    with pytest.raises(TypeError, match=r"tenferro.take \(cuda\): indices must be an int64"):
        impl["take"](x, on(dev, np.array([0], I32)), axis=0)
    with pytest.raises(TypeError, match=r"tenferro.take_along_axis \(cuda\):.* on cpu"):
        impl["take_along_axis"](x, np.zeros((1, 4), np.int64), axis=0)
    with pytest.raises(ValueError, match=r"tenferro.scatter_add \(cuda\): values of shape"):
        impl["scatter_add"](x, on(dev, np.array([0, 1])), axis=0, shape=(3, 4))
    with pytest.raises(ValueError, match=r"tenferro.scatter_add_along_axis \(cuda\)"):
        impl["scatter_add_along_axis"](x, on(dev, np.zeros((2, 4), np.int64)), axis=0,
                                       shape=(3, 4))
    with pytest.raises(ValueError, match=r"tenferro.put \(cuda\): expected int32/int64"):
        impl["put"](x, on(dev, np.array([0])), on(dev, np.array([1], np.float32)))
    with pytest.raises(ValueError, match=r"tenferro.put \(cuda\): expected"):
        impl["put"](x, on(dev, np.array([0.0])), on(dev, np.array([1.0])))
    with pytest.raises(ValueError, match="tenferro.setitem: assignment destination is read"):
        impl["put"](impl["diagonal"](x, offset=0, axis1=0, axis2=1), on(dev, np.array([0])),
                    on(dev, np.array([1.0])))
    with pytest.raises(ValueError, match=r"tenferro.put \(cuda\): operands on"):
        impl["put"](x, np.array([0]), on(dev, np.array([1.0])))


# -- every kernel compiles for the GPU --------------------------------------------------------

@requires_nvrtc
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_every_index_kernel_compiles_with_nvrtc(arch):
    from tenferro.devices.cuda import index, index_kernels as ik, nvrtc
    ks = index.all_kernels()
    assert len({k.source for k in ks}) == len(ks) == 4 + 7 + 7 + 16
    # the other layouts' index lines (contiguous, 0-d, 1 and 3 dimensions), once each
    c128 = np.dtype("complex128")
    ks += [f(nd) for nd in (-1, 0, 1, 3) for f in (
        lambda nd: ik.gather_kernel(16, nd), lambda nd: ik.scatter_kernel(c128, nd),
        lambda nd: ik.nonzero_kernel(c128, nd), lambda nd: ik.put_kernel(16, I32, I64, nd))]
    for k in ks:
        assert nvrtc.compile_cubin(k.source, k.name + ".cu", arch).startswith(b"\x7fELF")
