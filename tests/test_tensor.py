"""Tensor creation and conversion, attributes, repr, scalar conversions, NumPy interop,
matmul, random numbers, threads, config and devices (including a fake second device)."""
import os
import re

import numpy as np
import pytest

import tenferro as tf
import tenferro.devices

from conftest import (DTYPES, LAYOUTS, NumpyDriver, assert_close, layout_values, make_layout,
                      random_array)


def shares(x, y):
    return np.shares_memory(np.asarray(x), np.asarray(y))


# -- dtypes -------------------------------------------------------------------------------

def test_dtypes_are_numpy_dtypes():
    for name in ("bool_", "int32", "int64", "float32", "float64", "complex64", "complex128"):
        d = getattr(tf, name)
        assert isinstance(d, np.dtype)
        assert d == np.dtype(name)
    assert tf.bool is tf.bool_


# -- creation --------------------------------------------------------------------------------

@pytest.mark.parametrize("obj", [[1, 2, 3], [1.0, 2], [True, False], [1j, 2], 3, 2.5, True,
                                 [[1, 2], [3, 4]], [], np.float32(1.5), np.int32(7),
                                 np.arange(4, dtype=np.int32), np.ones(3, np.complex64)])
def test_asarray_infers_numpy_dtype(obj):
    exp = np.asarray(obj)
    assert_close(tf.asarray(obj), exp)
    assert_close(tf.tensor(obj), exp)


@pytest.mark.parametrize("np_dtype,tf_dtype", [("uint8", "int32"), ("int8", "int32"),
                                                ("int16", "int32"), ("uint16", "int32"),
                                                ("uint32", "int64"), ("float16", "float32")])
def test_unsupported_numpy_dtypes_widened(np_dtype, tf_dtype):
    a = np.array([0, 1, 5, 100], dtype=np_dtype)
    t = tf.asarray(a)
    assert t.dtype == np.dtype(tf_dtype)
    assert_close(t, a.astype(tf_dtype))


@pytest.mark.parametrize("np_dtype", ["uint64", "longdouble", "datetime64[s]"])
def test_unrepresentable_numpy_dtypes_raise(np_dtype):
    if np.dtype(np_dtype) == np.dtype("float64"):
        pytest.skip("longdouble is double on this platform")
    with pytest.raises(TypeError, match=r"NumPy dtype .* has no tenferro counterpart; "
                       r"expected one of bool, int32"):
        tf.asarray(np.zeros(2, np_dtype))


def test_asarray_errors():
    with pytest.raises(TypeError, match="cannot build a tensor from objects of type"):
        tf.asarray([object()])
    with pytest.raises(ValueError, match="tenferro.asarray: cannot build a tensor from 'list': setting an array element"):
        tf.asarray([[1, 2], [3]])
    with pytest.raises(TypeError, match="tenferro.dtype: uint8 is not a tenferro dtype"):
        tf.zeros(3, dtype=np.uint8)
    with pytest.raises(TypeError, match="cannot interpret 'foo' as a dtype"):
        tf.zeros(3, dtype="foo")


def test_asarray_zero_copy_and_copy_semantics():
    a = np.arange(6.0).reshape(2, 3)
    t = tf.asarray(a)
    assert shares(t, a)
    assert np.asarray(t) is a or shares(np.asarray(t), a)
    assert shares(tf.asarray(a, copy=False), a)
    assert shares(tf.from_numpy(a), a)
    c = tf.asarray(a, copy=True)
    assert not shares(c, a)
    assert_close(c, a)
    assert not shares(tf.tensor(a), a)
    # a strided (non-contiguous) ndarray is still wrapped without a copy
    s = a[:, ::2]
    assert shares(tf.asarray(s), a)
    assert_close(tf.asarray(s), s)
    # Tensor in: same object / copy / cast
    assert tf.asarray(t) is t
    assert not shares(tf.asarray(t, copy=True), t)
    with pytest.raises(ValueError, match="copy=False but a copy is needed to convert float64 to "
                       "float32"):
        tf.asarray(a, dtype=tf.float32, copy=False)
    with pytest.raises(ValueError, match="copy=False but casting float64 to float32 copies"):
        tf.asarray(t, dtype=tf.float32, copy=False)
    assert_close(tf.asarray(t, dtype=tf.float32), a.astype(np.float32))
    with pytest.raises(TypeError, match="from_numpy: expected a numpy.ndarray, got list"):
        tf.from_numpy([1, 2])
    # np.asarray(tensor) is zero-copy; writes through
    v = np.asarray(t)
    v[0, 0] = 42
    assert float(t[0, 0]) == 42.0
    assert float(a[0, 0]) == 42.0


def test_byteswapped_input_is_converted():
    a = np.arange(4, dtype=">f8")
    t = tf.asarray(a)
    assert t.dtype == tf.float64
    assert_close(t, a.astype("<f8"))


def test_dlpack_round_trip():
    a = np.arange(12.0).reshape(3, 4)
    t = tf.from_dlpack(a)
    assert isinstance(t, tf.Tensor) and shares(t, a)
    assert_close(t, a)
    b = np.from_dlpack(t)
    assert shares(b, a)
    np.testing.assert_array_equal(b, a)
    u = tf.from_dlpack(tf.asarray(np.arange(3, dtype=np.int32)))
    assert_close(u, np.arange(3, dtype=np.int32))
    assert t.__dlpack_device__() == (1, 0)
    tt = tf.from_dlpack(t.T)
    assert_close(tt, a.T)


def test_from_col_major():
    data = np.arange(1, 7)
    t = tf.from_col_major(data, (2, 3))
    assert_close(t, data.reshape((2, 3), order="F"))
    assert t.strides == (8, 16)
    assert int(t[1, 0]) == 2
    t3 = tf.from_col_major(list(range(24)), (2, 3, 4), dtype=tf.float32)
    assert_close(t3, np.arange(24, dtype=np.float32).reshape((2, 3, 4), order="F"))
    with pytest.raises(ValueError, match=r"from_col_major: 5 values do not fill shape \(2, 3\) "
                       r"\(6 needed\)"):
        tf.from_col_major([1, 2, 3, 4, 5], (2, 3))


@pytest.mark.parametrize("dtype", [None] + DTYPES, ids=str)
def test_filled_creation(dtype):
    for shape in ((), (0,), (3,), (2, 3), 4):
        for tf_fn, np_fn in ((tf.zeros, np.zeros), (tf.ones, np.ones)):
            assert_close(tf_fn(shape, dtype=dtype), np_fn(shape, dtype=dtype))
        assert_close(tf.full(shape, 7, dtype=dtype), np.full(shape, 7, dtype=dtype))
        e = tf.empty(shape, dtype=dtype)
        assert e.shape == np.empty(shape).shape and e.dtype == np.empty(shape, dtype).dtype
    x = random_array((2, 3), "float32" if dtype is None else dtype, seed=1)
    tx = tf.asarray(x)
    for tf_fn, np_fn in ((tf.zeros_like, np.zeros_like), (tf.ones_like, np.ones_like)):
        assert_close(tf_fn(tx, dtype=dtype), np_fn(x, dtype=dtype))
    assert_close(tf.full_like(tx, 1, dtype=dtype), np.full_like(x, 1, dtype=dtype))
    assert tf.empty_like(tx).shape == x.shape and tf.empty_like(tx).dtype == x.dtype



def test_like_creators_take_array_likes():
    """The *_like creators accept lists and ndarrays, as NumPy's (they raised
    AttributeError on anything but a Tensor)."""
    for x in ([1.0, 2.0], [[1, 2]], np.arange(3, dtype=np.int32), 2.5):
        for tf_fn, np_fn in ((tf.zeros_like, np.zeros_like), (tf.ones_like, np.ones_like)):
            assert_close(tf_fn(x), np_fn(x))
        assert_close(tf.full_like(x, 3), np.full_like(x, 3))
        e = tf.empty_like(x)
        assert e.shape == np.shape(x) and e.dtype == np.empty_like(x).dtype


@pytest.mark.skipif("webgpu" not in [d.split(":")[0] for d in tf.devices.available()],
                    reason="no WebGPU device")
def test_like_creators_of_host_data_with_dtype_for_a_device():
    """An array_like ``x`` only gives the shape when ``dtype`` is given: its float64
    data is not sent to a device that has no float64 (it raised), as with a Tensor x."""
    x = np.ones((2, 3))
    for fn in (tf.zeros_like, tf.ones_like, tf.empty_like):
        r = fn(x, dtype="float32", device="webgpu")
        assert r.shape == (2, 3) and r.dtype == tf.float32 and r.device.type == "webgpu"
    r = tf.full_like(x, 2.0, dtype="float32", device="webgpu")
    np.testing.assert_array_equal(r.to("cpu").numpy(), np.full((2, 3), 2.0, np.float32))
    assert tf.zeros_like(tf.asarray(x), dtype="float32", device="webgpu").shape == (2, 3)


def test_full_infers_dtype():
    for v in (1, 1.5, True, 2j):
        assert_close(tf.full((2,), v), np.full((2,), v))
    with pytest.raises(ValueError, match=r"^tenferro.zeros: negative dimensions are not allowed"):
        tf.zeros((2, -1))
    with pytest.raises(TypeError, match="^tenferro.full: expected a shape"):
        tf.full("ab", 1)
    for make, name in ((lambda: tf.eye(-1), "eye"), (lambda: tf.eye(2, -3), "eye"),
                       (lambda: tf.identity(-1), "identity")):
        with pytest.raises(ValueError, match=r"^tenferro.%s: negative dimensions" % name):
            make()


def test_arange_linspace_eye():
    for args in ((5,), (2, 9), (1, 10, 3), (10, 1, -2), (0.0, 1.0, 0.1), (0, 1, 0.25), (3, 3)):
        assert_close(tf.arange(*args), np.arange(*args))
    assert_close(tf.arange(5, dtype=tf.float32), np.arange(5, dtype=np.float32))
    with pytest.raises(ValueError, match="arange: step must be non-zero"):
        tf.arange(0, 5, 0)
    for args, kw in (((0, 1), {}), ((0, 1, 7), {"endpoint": False}), ((-2, 5, 1), {}),
                     ((1, 0, 0), {}), ((0, 10, 11), {"dtype": "float32"})):
        assert_close(tf.linspace(*args, **kw), np.linspace(*args, **kw))
    with pytest.raises(ValueError, match="linspace: num must be non-negative"):
        tf.linspace(0, 1, -1)
    for args in ((3,), (3, 4), (4, 3, 1), (4, 3, -2), (2, 2, 5)):
        assert_close(tf.eye(*args), np.eye(*args))
    assert_close(tf.eye(3, dtype=tf.complex64), np.eye(3, dtype=np.complex64))
    assert_close(tf.identity(2, dtype=tf.bool), np.identity(2, dtype=bool))


# -- random ---------------------------------------------------------------------------------

def test_random_reproducible_and_distributions():
    g1, g2 = tf.random.default_rng(123), tf.random.default_rng(123)
    a, b = g1.normal(size=(50, 4)), g2.normal(size=(50, 4))
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert a.dtype == tf.float64 and a.shape == (50, 4)
    c = tf.random.default_rng(124).normal(size=(50, 4))
    assert not np.array_equal(np.asarray(a), np.asarray(c))
    # same stream as NumPy's PCG64 Generator
    np.testing.assert_array_equal(np.asarray(tf.random.default_rng(5).uniform(size=7)),
                                  np.random.default_rng(5).uniform(size=7))
    u = tf.random.default_rng(1).uniform(-2, 3, size=20000, dtype=tf.float32)
    assert u.dtype == tf.float32
    un = np.asarray(u)
    assert un.min() >= -2 and un.max() < 3 and abs(un.mean() - 0.5) < 0.05
    z = tf.random.default_rng(2).normal(size=40000, dtype=tf.complex128)
    assert z.dtype == tf.complex128
    zn = np.asarray(z)
    assert abs(np.mean(np.abs(zn) ** 2) - 1) < 0.03
    assert abs(np.var(zn.real) - 0.5) < 0.03 and abs(np.var(zn.imag) - 0.5) < 0.03
    assert abs(np.mean(zn.real * zn.imag)) < 0.02
    z64 = tf.random.default_rng(2).normal(size=3, dtype=tf.complex64)
    assert z64.dtype == tf.complex64
    i = tf.random.default_rng(3).integers(0, 5, size=1000, dtype=tf.int32)
    assert i.dtype == tf.int32
    assert set(np.unique(np.asarray(i))) == {0, 1, 2, 3, 4}
    np.testing.assert_array_equal(np.asarray(tf.random.default_rng(3).integers(10, size=6)),
                                  np.random.default_rng(3).integers(10, size=6))
    with pytest.raises(TypeError, match="random.normal: expected a float or complex dtype, got "
                       "int32"):
        tf.random.default_rng(0).normal(size=3, dtype=tf.int32)
    with pytest.raises(TypeError, match="random.integers: expected an integer dtype"):
        tf.random.default_rng(0).integers(3, size=2, dtype=tf.float64)


# -- attributes, repr, conversions ----------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
def test_attributes(layout):
    a = random_array((3, 4), "complex64", seed=2)
    t = make_layout(a, layout)
    v = layout_values(a, layout)
    assert t.shape == (3, 4) and t.ndim == 2 and t.size == 12 and len(t) == 3
    assert t.dtype == tf.complex64 and t.itemsize == 8 and t.nbytes == 96
    assert t.device == tf.device("cpu")
    assert t.strides == np.asarray(t).strides
    assert_close(t.T, v.T)
    assert_close(t.mT, np.swapaxes(v, -1, -2))
    assert_close(t.real, v.real)
    assert_close(t.imag, v.imag)
    rows = list(t)
    assert len(rows) == 3
    for r, e in zip(rows, v):
        assert_close(r, e)
    assert t.tolist() == v.tolist()
    r = tf.asarray(np.arange(3.0))
    assert r.real is r  # real of a real tensor is itself (NumPy gives a view)
    assert_close(r.imag, np.zeros(3))


def test_repr_like_numpy():
    cases = [np.arange(12.0).reshape(3, 4), np.arange(4, dtype=np.int32), np.array(1.5),
             np.array([True, False]), np.array([1 + 2j], np.complex64), np.zeros((2, 0)),
             np.zeros(0, np.int32), np.arange(5), np.array(3, np.int64),
             np.arange(3, dtype=np.float32)]
    for a in cases:
        exp = re.sub(r"^array\(", "tensor(", repr(a))
        exp = exp.replace("\n      ", "\n       ")  # "tensor(" is one longer than "array("
        assert repr(tf.asarray(a)) == exp
    assert str(tf.asarray(np.arange(3.0))) == str(np.arange(3.0))
    assert f"{tf.asarray(2.5):.2f}" == "2.50"


def test_scalar_conversions():
    t = tf.asarray([3.5])
    assert float(t) == 3.5 and int(t) == 3 and complex(t) == 3.5 + 0j and bool(t) is True
    assert t.item() == 3.5 and isinstance(t.item(), float)
    assert tf.asarray(np.int32(4)).item() == 4 and isinstance(tf.asarray(np.int32(4)).item(), int)
    assert [10, 20, 30][tf.asarray(2)] == 30
    assert [10, 20, 30][tf.asarray(np.array([1], np.int32))] == 20
    assert tf.asarray(1j).item() == 1j
    assert tf.asarray([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert tf.asarray(5).tolist() == 5


def test_scalar_conversion_errors():
    t = tf.ones(2)
    with pytest.raises(ValueError, match="truth value of a tensor with 2 elements is ambiguous"):
        bool(t)
    with pytest.raises(ValueError, match="truth value"):
        if tf.ones(0):
            pass
    with pytest.raises(TypeError, match=r"int\(\): only a tensor with one element can be converted"
                       r" to a Python scalar, got shape \(2,\)"):
        int(t)
    with pytest.raises(TypeError, match=r"float\(\): only a tensor with one element"):
        float(t)
    with pytest.raises(TypeError, match=r"complex\(\): only a tensor with one element"):
        complex(t)
    with pytest.raises(ValueError, match=r"Tensor.item: only a tensor with one element"):
        t.item()
    with pytest.raises(TypeError, match="only integer tensors with one element can be used as an "
                       "index, got dtype float64"):
        [1, 2][tf.asarray(1.0)]
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(tf.asarray(1.0))
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        list(tf.asarray(1.0))


def _np_dtype(a):
    return np.asarray(a).dtype


def test_numpy_interop():
    a = random_array((3, 3), "float64", seed=3)
    t = tf.asarray(a)
    r = a + t
    assert isinstance(r, tf.Tensor)
    assert_close(r, a + a)
    assert isinstance(a * t, tf.Tensor) and isinstance(a < t, tf.Tensor)
    assert isinstance(np.float64(2.0) * t, tf.Tensor)
    assert_close(np.float64(2.0) * t, 2 * a)
    # NumPy scalars are strongly typed (NumPy 2), Python scalars weak
    f = tf.ones(2, dtype=tf.float32)
    for s in (np.float64(2), np.int64(2), np.complex128(1j), np.float32(2), 2.0, 1j):
        assert (s * f).dtype == _np_dtype(s * np.ones(2, np.float32))
        assert (f - s).dtype == _np_dtype(np.ones(2, np.float32) - s)
        assert tf.result_type(f, s) == np.result_type(np.ones(2, np.float32), s)
    assert isinstance(np.sin(t), tf.Tensor)
    assert_close(np.sin(t), np.sin(a))
    assert_close(np.matmul(t, t), a @ a, rtol=1e-13)
    arr = np.asarray(t)
    assert arr is np.asarray(t) or shares(arr, t)
    assert np.array(t, dtype=np.float32).dtype == np.float32
    with pytest.raises(ValueError, match="needs a copy but copy=False"):
        t.__array__(dtype=np.float32, copy=False)


def test_astype_copy_contiguous():
    a = random_array((3, 4), "float64", seed=4)
    t = tf.asarray(a)
    for d in DTYPES:
        with np.errstate(all="ignore"):
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exp = a.astype(d)
        assert_close(t.astype(d), exp)
    assert t.astype(tf.float64, copy=False) is t
    assert not shares(t.astype(tf.float64), t)
    with pytest.raises(TypeError, match="astype: cannot cast float64 to int32 under the 'safe' "
                       "casting rule"):
        t.astype(tf.int32, casting="safe")
    assert_close(t.astype(tf.float32, casting="same_kind"), a.astype(np.float32))
    with pytest.raises(TypeError, match="same_kind"):
        t.astype(tf.int64, casting="same_kind")
    c = tf.copy(t.T)
    assert not shares(c, t) and tf.ascontiguousarray(c) is c
    assert np.asarray(c).flags.c_contiguous
    assert_close(c, a.T)
    tc = tf.ascontiguousarray(t.T)
    assert np.asarray(tc).flags.c_contiguous and not shares(tc, t)
    assert_close(tc, a.T)
    assert tf.ascontiguousarray(t) is t
    assert t.copy() is not t and not shares(t.copy(), t)
    # array_likes, as the other conversions take (they raised AttributeError)
    assert tf.is_contiguous([[1.0, 2.0]]) and tf.is_contiguous(a.T) is False
    assert_close(tf.to_device([1.0, 2.0], "cpu"), np.array([1.0, 2.0]))


# -- matmul ---------------------------------------------------------------------------------

MM_SHAPES = [((3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)), ((4,), (4,)),
             ((2, 3, 4), (4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((1, 3, 4), (2, 4, 1)),
             ((0, 4), (4, 3)), ((3, 0), (0, 2)), ((1, 1), (1, 1)), ((5, 33), (33, 17))]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_matmul_vs_numpy(dtype):
    for i, (sa, sb) in enumerate(MM_SHAPES):
        a = random_array(sa, dtype, "small", seed=i)
        b = random_array(sb, dtype, "small", seed=50 + i)
        exp = np.matmul(a, b)
        got = tf.matmul(tf.asarray(a), tf.asarray(b))
        tol = {} if np.dtype(dtype).kind in "biu" else (
            {"rtol": 1e-5, "atol": 1e-5} if np.dtype(dtype).itemsize <= 8 and dtype != "float64"
            else {"rtol": 1e-12, "atol": 1e-12})
        assert_close(got, exp, **tol)


@pytest.mark.parametrize("la", LAYOUTS)
@pytest.mark.parametrize("lb", ["contiguous", "transposed", "negstride", "step2"])
def test_matmul_layouts(la, lb):
    a = random_array((4, 6), "float64", seed=1)
    b = random_array((6, 3), "float64", seed=2)
    ta, tb = make_layout(a, la), make_layout(b, lb)
    assert_close(ta @ tb, layout_values(a, la) @ layout_values(b, lb), rtol=1e-12, atol=1e-12)
    ia = random_array((4, 6), "int64", seed=3)
    ib = random_array((6, 3), "int64", seed=4)
    assert_close(make_layout(ia, la) @ make_layout(ib, lb),
                 layout_values(ia, la) @ layout_values(ib, lb))


def test_matmul_promotion_dot_vdot_outer():
    a = random_array((3, 4), "int32", seed=1)
    b = random_array((4, 2), "float32", seed=2)
    assert_close(tf.matmul(tf.asarray(a), tf.asarray(b)), a @ b, rtol=1e-5, atol=1e-5)
    assert_close(tf.asarray(a) @ tf.asarray(b.astype(np.bool_)), a @ b.astype(np.bool_))
    v = random_array((4,), "complex128", seed=3)
    w = random_array((4,), "complex128", seed=4)
    assert_close(tf.vdot(tf.asarray(v), tf.asarray(w)), np.vdot(v, w), rtol=1e-13)
    assert_close(tf.dot(tf.asarray(v), tf.asarray(w)), np.dot(v, w), rtol=1e-13)
    assert_close(tf.dot(tf.asarray(a), tf.asarray(b)), np.dot(a, b), rtol=1e-5)
    assert_close(tf.dot(tf.asarray(a), 2.0), np.dot(a, 2.0))
    assert_close(tf.outer(tf.asarray(v), tf.asarray(a[0])), np.outer(v, a[0]), rtol=1e-13)
    with pytest.raises(ValueError, match="dot: operands of more than 2 dimensions"):
        tf.dot(tf.ones((2, 2, 2)), tf.ones((2, 2)))


def test_matmul_errors():
    with pytest.raises(ValueError, match=r"matmul: contracted dimensions differ: shapes \(2, 3\) "
                       r"and \(2, 3\) \(3 != 2\)"):
        tf.ones((2, 3)) @ tf.ones((2, 3))
    with pytest.raises(ValueError, match=r"matmul: contracted dimensions differ: shapes \(3,\) "
                       r"and \(4,\)"):
        tf.matmul(tf.ones(3), tf.ones(4))
    with pytest.raises(ValueError, match="matmul: operands must be at least 1-D"):
        tf.matmul(tf.ones(3), tf.asarray(2.0))
    with pytest.raises(ValueError, match=r"matmul: shapes \(2,\) and \(3,\) do not broadcast"):
        tf.matmul(tf.ones((2, 4, 5)), tf.ones((3, 5, 1)))


# -- threads and config -------------------------------------------------------------------------

def test_thread_api():
    old = tf.get_num_threads()
    try:
        tf.set_num_threads(1)
        assert tf.get_num_threads() == 1
        with tf.num_threads(2):
            assert tf.get_num_threads() == 2
            with tf.num_threads(1):
                assert tf.get_num_threads() == 1
            assert tf.get_num_threads() == 2
        assert tf.get_num_threads() == 1
        with pytest.raises(ValueError, match=r"set_num_threads: expected a non-zero int or None, "
                           r"got 0"):
            tf.set_num_threads(0)
        with pytest.raises(ValueError, match="expected a non-zero int"):
            tf.set_num_threads(1.5)
        tf.set_num_threads(-1)
        assert tf.get_num_threads() >= 1
        tf.set_num_threads(None)
        default = tf.get_num_threads()
        assert default >= 1
        # the context manager restores the count after an exception too
        with pytest.raises(RuntimeError):
            with tf.num_threads(1 if default > 1 else 2):
                assert tf.get_num_threads() != default
                raise RuntimeError("boom")
        assert tf.get_num_threads() == default
    finally:
        tf.set_num_threads(old)
    assert tf.get_num_threads() == old


def test_show_config(capsys):
    tf.show_config()
    out = capsys.readouterr().out
    assert "tenferro" in out and "openmp" in out.lower()
    assert "numpy" in out and "blas" in out.lower()
    assert "cpu" in out and "error" not in out


@pytest.mark.parametrize("imports, env, want", [
    ("import numpy, tenferro", None, "long"),          # NumPy's OpenBLAS loaded first
    ("import tenferro, numpy", None, "short"),         # tenferro shortened its spin
    ("import numpy, tenferro", "6", "set by you (OPENBLAS_THREAD_TIMEOUT=6)"),
    ("import tenferro, numpy", "6", "set by you (OPENBLAS_THREAD_TIMEOUT=6)"),
])
def test_show_config_reports_numpy_blas_spin(imports, env, want):
    """Whether NumPy's OpenBLAS threads spin long after a call depends on the import
    order (they read OPENBLAS_THREAD_TIMEOUT when NumPy loads); show_config says which."""
    import subprocess
    import sys

    e = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    if env is not None:
        e["OPENBLAS_THREAD_TIMEOUT"] = env
    code = ("%s; from tenferro._config import config; "
            "print(config()['numpy_blas_spin']); tenferro.show_config()" % imports)
    out = subprocess.run([sys.executable, "-c", code], env=e, capture_output=True,
                         text=True, check=True).stdout
    assert out.splitlines()[0] == want
    assert ("numpy's OpenBLAS spin: " + want) in out
    if want == "long":
        assert "import tenferro first or set OPENBLAS_THREAD_TIMEOUT=4" in out


# -- devices --------------------------------------------------------------------------------------

def test_cpu_device():
    d = tf.device("cpu")
    assert str(d) == "cpu" and repr(d) == "device('cpu')"
    assert d == tf.device("cpu") and d == "cpu" and d != "cuda"
    assert tf.device(d) is d and hash(d) == hash(tf.device("cpu"))
    assert "cpu" in tf.devices.available()
    assert tf.ones(2).device == d
    assert tf.ones(2, device="cpu").device is d
    assert tf.ones(2).to("cpu").device is d


def test_unknown_device_errors():
    with pytest.raises(ValueError, match="tenferro.device: unknown device type 'nosuchdev'; "
                       "known: .*cpu"):
        tf.device("nosuchdev")
    with pytest.raises(ValueError, match="bad device index in 'cpu:x'"):
        tf.device("cpu:x")
    with pytest.raises(RuntimeError, match="'cpu:1' is not available on this machine"):
        tf.device("cpu:1")
    with pytest.raises(TypeError, match="expected a device name"):
        tf.device(3)
    with pytest.raises(ValueError, match="unknown device type"):
        tf.ones(2, device="nosuchdev")


class FakeDriver(NumpyDriver):
    """A second device whose storage is NumPy and which implements no op at all."""

    name = "fake"
    dtypes = frozenset(tf._dtypes.DTYPES)


@pytest.fixture
def fake():
    tenferro.devices._drivers["fake"] = FakeDriver()
    try:
        yield tf.device("fake")
    finally:
        tenferro.devices._drivers.pop("fake", None)
        for k in [k for k in tenferro.devices._devices if str(k).startswith("fake")]:
            del tenferro.devices._devices[k]


def test_fake_device_round_trip(fake):
    assert str(fake) == "fake:0" and repr(fake) == "device('fake:0')"
    assert fake != tf.device("cpu")
    a = random_array((2, 3), "complex64", seed=1)
    t = tf.asarray(a).to("fake")
    assert t.device == fake and t.shape == (2, 3) and t.dtype == tf.complex64
    assert "device='fake:0'" in repr(t)
    with pytest.raises(TypeError, match=r"Tensor.numpy: tensor is on 'fake:0'; copy it to the "
                       r"host first with .to\('cpu'\)"):
        np.asarray(t)
    back = t.to("cpu")
    assert back.device == tf.device("cpu")
    assert_close(back, a)
    assert not shares(back, a)
    t2 = tf.asarray(a, device="fake")
    assert t2.device is fake
    assert_close(t2.cpu(), a)


def test_fake_device_mismatch(fake):
    f = tf.ones(3).to("fake")
    c = tf.ones(3)
    for fn in (lambda: f + c, lambda: c + f, lambda: tf.where(c > 0, f, c),
               lambda: tf.concatenate([c, f]), lambda: tf.matmul(c, f)):
        with pytest.raises(tf.DeviceMismatchError,
                           match=r"expected all tensors on one device, got .*(cpu, fake:0|"
                                 r"fake:0, cpu)") as ei:
            fn()
        assert isinstance(ei.value, ValueError)
        assert set(ei.value.devices) == {"cpu", "fake:0"}


@pytest.mark.parametrize("op", [lambda t: t + t, lambda t: tf.sin(t), lambda t: t * 2.0,
                                lambda t: tf.sum(t), lambda t: t[0], lambda t: tf.exp(t)])
def test_fake_device_unsupported_operation(fake, op):
    t = tf.ones(3, dtype=tf.float32).to("fake")
    with pytest.raises(tf.UnsupportedOperation, match=r"\w+: not supported on device 'fake:0' "
                       r"for dtype float32") as ei:
        op(t)
    assert isinstance(ei.value, TypeError)
    assert ei.value.device == "fake:0" or str(ei.value.device) == "fake:0"
    assert ei.value.dtype == tf.float32


def test_fake_unsupported_names_op(fake):
    t = tf.ones(2, dtype=tf.int32).to("fake")
    with pytest.raises(tf.UnsupportedOperation, match="^sin: not supported on device 'fake:0' "
                       "for dtype float64$"):
        tf.sin(tf.ones(2).to("fake"))
    with pytest.raises(tf.UnsupportedOperation, match="^add: .*'fake:0'.*int32$"):
        t + t


def test_driver_found_by_entry_point(monkeypatch):
    """A third-party driver is discovered through the 'tenferro.devices' entry points."""
    import importlib.metadata as md

    ep = md.EntryPoint(name="plugdev", value="tests.test_tensor:FakeDriver",
                       group="tenferro.devices")
    real = md.entry_points

    def entry_points(**kw):
        if kw.get("group") == "tenferro.devices":
            return md.EntryPoints([ep])
        return real(**kw)

    monkeypatch.setattr(tenferro.devices.importlib.metadata, "entry_points", entry_points)
    monkeypatch.setattr(ep.__class__, "load", lambda self: FakeDriver)
    try:
        assert "plugdev" in tenferro.devices.known_device_types()
        dev = tf.device("plugdev")
        assert isinstance(dev.driver, FakeDriver)
        assert "plugdev:0" in tf.devices.available()
        assert_close(tf.ones(2).to("plugdev").cpu(), np.ones(2))
    finally:
        tenferro.devices._drivers.pop("plugdev", None)
        for k in [k for k in tenferro.devices._devices if str(k).startswith("plugdev")]:
            del tenferro.devices._devices[k]


@pytest.mark.parametrize("env,expected", [("1", 1), ("3", 3)])
def test_omp_num_threads_is_the_default(env, expected):
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run(
        [sys.executable, "-c", "import tenferro as tf; print(tf.get_num_threads())"],
        env=dict(os.environ, OMP_NUM_THREADS=env, PYTHONPATH=root), cwd=root,
        capture_output=True, text=True, check=True)
    assert int(out.stdout) == expected


def test_record_field_with_odd_strides_is_copied():
    # a complex128 field of a record: aligned, but its byte stride 24 is no multiple of
    # the itemsize 16 (kernels step in whole elements, so asarray copies it; copy=False
    # says why it cannot)
    rec = np.zeros(5, dtype=[("a", "f8"), ("b", "c16")])
    rec["b"] = np.arange(5.0) + 1j
    rec["a"] = -1
    f = rec["b"]
    assert f.flags.aligned and f.strides == (24,)
    t = tf.asarray(f)
    assert t._data.strides == (16,)
    assert_close(t * 2, (np.arange(5.0) + 1j) * 2)
    assert_close(tf.einsum("i,i->", t, t), np.sum(f * f))
    with pytest.raises(ValueError, match=r"copy=False but a copy is needed to convert "
                                         r"complex128 to complex128 \(.*strides \(24,\)"):
        tf.asarray(f, copy=False)
