"""isclose, allclose, array_equal, array_equiv (tenferro/_ops/comparison.py) against
NumPy 2: every pair of dtypes over values with NaN, infinities, -0.0, huge, tiny and
integer extremes, tolerance variants, broadcasting, Python (weak) scalars, 0-d and
empty inputs; the errors; tracing, batching and differentiation; other devices."""
import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import tenferro as tf
from conftest import documented_unsupported, get_test_device

INF, NAN = np.inf, np.nan
FLOATS = [0.0, -0.0, 1.0, -1.0, 1 + 1e-6, 1 + 1e-4, 1 - 2e-5, 1e-8, 2e-8, -1e-8, 1e-300,
          5e-324, 1e300, 1.7e308, 1e10, 1.00001e10, 3.0, INF, -INF, NAN]
INTS = [0, 1, -1, 2, 100, 2 ** 31 - 1, -2 ** 31]
INTS64 = INTS + [2 ** 53 + 1, 2 ** 62, 2 ** 63 - 1, -2 ** 63]
COMPLEX = [0j, 1 + 1j, 1 + 1.000001j, 1.00001 + 1j, 1e-9j, 1e300 + 1e300j, complex(NAN, 0),
           complex(0, NAN), complex(INF, 0), complex(INF, INF), complex(-INF, 1), 3 + 0j]
DTYPES = ["bool", "int32", "int64", "float32", "float64", "complex64", "complex128"]
TOLERANCES = [{}, {"rtol": 0.0, "atol": 0.0}, {"rtol": 1e-3, "atol": 0.0},
              {"rtol": 0.0, "atol": 1e-3}, {"rtol": 0.5, "atol": 2.0}]


def pool(dtype):
    """The special values of ``dtype`` (floats rounded into float32 as NumPy casts)."""
    dtype = np.dtype(dtype)
    vals = {"b": [False, True], "i": INTS64 if dtype.itemsize == 8 else INTS,
            "f": FLOATS, "c": COMPLEX + FLOATS}[dtype.kind]
    with np.errstate(over="ignore", under="ignore"):
        return np.array(vals).astype(dtype)


def same(got, want):
    """tenferro's bool tensor ``got`` is NumPy's ``want`` exactly (shape and values)."""
    assert isinstance(got, tf.Tensor) and got.dtype == tf.bool_, got
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got.numpy(), want)


# -- isclose against NumPy ---------------------------------------------------------------

@pytest.mark.parametrize("da", DTYPES)
@pytest.mark.parametrize("db", DTYPES)
def test_isclose_every_dtype_pair(da, db):
    """Every value of a's pool against every value of b's (an outer broadcast)."""
    a, b = pool(da)[:, None], pool(db)[None, :]
    for kw in TOLERANCES:
        for equal_nan in (False, True):
            with np.errstate(all="ignore"):
                want = np.isclose(a, b, equal_nan=equal_nan, **kw)
            same(tf.isclose(tf.asarray(a), tf.asarray(b), equal_nan=equal_nan, **kw), want)
            assert tf.allclose(a, b, equal_nan=equal_nan, **kw) is bool(want.all())


def test_isclose_numpy_docstring_cases():
    cases = [([1e10, 1e-7], [1.00001e10, 1e-8], {}), ([1e10, 1e-8], [1.00001e10, 1e-9], {}),
             ([1e10, 1e-8], [1.0001e10, 1e-9], {}), ([1.0, NAN], [1.0, NAN], {}),
             ([1.0, NAN], [1.0, NAN], {"equal_nan": True}), ([1e-8, 1e-7], [0.0, 0.0], {}),
             ([1e-100, 1e-7], [0.0, 0.0], {"atol": 0.0}), ([1e-10, 1e-10], [1e-20, 0.0], {}),
             ([1e-10, 1e-10], [1e-20, 0.999999e-10], {"atol": 0.0})]
    for a, b, kw in cases:
        same(tf.isclose(a, b, **kw), np.isclose(a, b, **kw))
        assert tf.allclose(a, b, **kw) == np.allclose(a, b, **kw)


def test_isclose_is_not_symmetric():
    a, b = 1.0, 1.0 + 1.5e-5   # |a - b| <= rtol * |b| but not rtol * |a| (atol=0)
    assert bool(tf.isclose(b, a, atol=0)) == bool(np.isclose(b, a, atol=0))
    assert bool(tf.isclose(a, b, atol=0)) == bool(np.isclose(a, b, atol=0))


@pytest.mark.parametrize("sa,sb", [((), ()), ((0,), (0,)), ((2, 0), (0,)), ((3, 1), (1, 4)),
                                   ((2, 3, 4), (4,)), ((), (2, 3)), ((1, 0), (5, 1))])
def test_isclose_shapes(sa, sb):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    shape = np.broadcast_shapes(sa, sb)
    near = np.broadcast_to(a, shape) * (1 + rng.choice([0.0, 1e-6, 1e-4], size=shape))
    for x, y in ((a, b), (a, near), (near, a)):
        same(tf.isclose(tf.asarray(x), tf.asarray(y)), np.isclose(x, y))
        assert tf.allclose(tf.asarray(x), tf.asarray(y)) == np.allclose(x, y)


def test_isclose_zero_d_is_a_tensor():
    r = tf.isclose(tf.asarray(1.0), tf.asarray(1.0 + 1e-9))
    assert isinstance(r, tf.Tensor) and r.shape == () and bool(r)
    assert np.isclose(1.0, 1.0 + 1e-9) == bool(r)


def test_isclose_array_tolerances_broadcast():
    a = np.array([[1.0, 2.0, 3.0, 4.0]] * 2)
    b = a + np.array([1e-3, 1e-2, 1e-1, 1.0])
    for rtol, atol in [(np.array([0, 0, 0, 0.3]), np.array([2e-3, 0, 0.2, 0])),
                       (np.float32(1e-2), np.array([[0.0], [1.0]])), (0, np.array(0.05))]:
        same(tf.isclose(tf.asarray(a), tf.asarray(b), rtol=tf.asarray(rtol),
                        atol=tf.asarray(atol)), np.isclose(a, b, rtol=rtol, atol=atol))
        same(tf.isclose(a, b, rtol=rtol, atol=atol), np.isclose(a, b, rtol=rtol, atol=atol))


# Python numbers stay weak (NEP 50): a float32 tensor against 0.1 compares in float32
WEAK = [0.1, 1, True, 2.5 + 0j, 2 ** 70, -0.0, INF, NAN, 1e-45]


@pytest.mark.parametrize("scalar", WEAK, ids=repr)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "complex64",
                                   "bool"])
def test_isclose_weak_python_scalars(scalar, dtype):
    with np.errstate(all="ignore"):
        t = np.array([0.1, 1.0, 0.0, 2.5, 1.1805916e21, INF, NAN, 1e-45, 1.0000001]).astype(
            dtype)
        for a, b in ((t, scalar), (scalar, t)):
            for eq in (False, True):
                # (NumPy's isnan refuses an int beyond int64, which is never NaN)
                want = np.isclose(a, b, equal_nan=eq and scalar != 2 ** 70, atol=0.0)
                got = tf.isclose(*[tf.asarray(v) if isinstance(v, np.ndarray) else v
                                   for v in (a, b)], equal_nan=eq, atol=0.0)
                same(got, want)


@pytest.mark.parametrize("a,b", [(1, 1.0), (1, 2), (0.1, 0.1 + 1e-12), (1j, 1j), (NAN, NAN),
                                 (INF, INF), (INF, -INF), (True, 1), (2 ** 62, 2 ** 62 + 1)])
def test_isclose_two_python_numbers(a, b):
    for eq in (False, True):
        want = np.isclose(a, b, equal_nan=eq)
        got = tf.isclose(a, b, equal_nan=eq)
        assert got.shape == () and bool(got) == bool(want), (a, b, eq)
        assert tf.allclose(a, b, equal_nan=eq) is np.allclose(a, b, equal_nan=eq)


def test_isclose_int64_extremes_against_float_reference():
    a = np.array([2 ** 63 - 1, -2 ** 63, 2 ** 53, 2 ** 53 + 1, 7], dtype=np.int64)
    for b in (a, a.astype(np.float64), a[::-1].copy(), np.float64(2.0 ** 63), 2 ** 53 + 1):
        for kw in ({}, {"rtol": 0, "atol": 0}):
            want = np.isclose(a, b, **kw)
            same(tf.isclose(tf.asarray(a), tf.asarray(b) if isinstance(b, np.ndarray) else b,
                            **kw), want)


def test_non_finite_tolerance_warns_as_numpy():
    with pytest.warns(RuntimeWarning, match="One of rtol or atol is not valid"):
        tf.isclose([1.0], [1.0], atol=NAN)
    with np.errstate(invalid="raise"), pytest.raises(FloatingPointError):
        tf.isclose([1.0], [1.0], rtol=np.array([INF]))
    with np.errstate(invalid="ignore"):
        same(tf.isclose([1.0, 2.0], [1.0, 3.0], atol=INF),
             np.isclose([1.0, 2.0], [1.0, 3.0], atol=INF))


@given(hnp.arrays(st.sampled_from([np.float32, np.float64, np.complex128]),
                  hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
                  elements={"allow_nan": True, "allow_infinity": True}),
       st.floats(0, 1), st.floats(0, 1), st.booleans(), st.floats(-1e-3, 1e-3))
def test_isclose_hypothesis(a, rtol, atol, equal_nan, jitter):
    with np.errstate(all="ignore"):
        b = a * (1 + jitter) + jitter * atol
    same(tf.isclose(tf.asarray(a), tf.asarray(b), rtol=rtol, atol=atol, equal_nan=equal_nan),
         np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


# -- array_equal and array_equiv ---------------------------------------------------------

EQUAL_CASES = [
    ([1, 2], [1, 2]), ([1, 2], [1, 2, 3]), ([1, 2], [1, 4]), ([1, 2], [[1, 2]]),
    ([1.0, NAN], [1.0, NAN]), ([NAN, 1.0], [1.0, NAN]), ([[NAN]], [[NAN]]),
    ([complex(NAN, 1)], [complex(1, NAN)]), ([complex(NAN, 1)], [complex(1, 1)]),
    ([0.0], [-0.0]), ([], []), (np.zeros((2, 0)), np.zeros((0, 2))), (3, 3.0), (3, [3]),
    ([1, 2], [1.0, 2.0]), ([True, False], [1, 0]), (np.int64(2 ** 53 + 1), 2.0 ** 53),
    ([1.0, NAN], [1, 2]), (np.float32(0.1), 0.1), ([INF, -INF], [INF, -INF]),
    ([1, 2], [[1, 2], [1, 2]]), ([1, 2], [[1, 2], [1, 3]]), ([1, 2], [[1, 2, 1, 2]]),
    ([[1], [2]], [1, 2]), ([1, 2], [[1], [2, 3]]), ([[1], [2, 3]], [[1], [2, 3]]),
]


@pytest.mark.parametrize("a1,a2", EQUAL_CASES, ids=[str(i) for i in range(len(EQUAL_CASES))])
def test_array_equal_and_equiv_match_numpy(a1, a2):
    for equal_nan in (False, True):
        want = np.array_equal(a1, a2, equal_nan=equal_nan)
        got = tf.array_equal(*_tf(a1, a2), equal_nan=equal_nan)
        assert got is want, (a1, a2, equal_nan)
        assert tf.array_equal(a1, a2, equal_nan=equal_nan) is want
    assert tf.array_equiv(*_tf(a1, a2)) is np.array_equiv(a1, a2)
    assert tf.array_equiv(a1, a2) is np.array_equiv(a1, a2)


def _tf(*vals):
    """Arrays (not ragged lists) as tensors."""
    out = []
    for v in vals:
        try:
            out.append(tf.asarray(np.asarray(v)))
        except ValueError:
            out.append(v)
    return out


def test_array_equal_same_object_with_nan():
    t = tf.asarray([1.0, NAN])
    assert tf.array_equal(t, t, equal_nan=True) and not tf.array_equal(t, t)


def test_array_equal_of_strings_raises():
    with pytest.raises(TypeError, match="tenferro.array_equal"):
        tf.array_equal(["a"], ["a"])
    with pytest.raises(TypeError, match="tenferro.array_equiv"):
        tf.array_equiv(["a"], ["a"])


# -- errors ------------------------------------------------------------------------------

def test_shapes_that_do_not_broadcast_name_the_function():
    a, b = tf.ones((2, 3)), tf.ones((4,))
    msg = r"tenferro.%s: shapes \(2, 3\) and \(4,\) do not broadcast"
    with pytest.raises(ValueError, match=msg % "isclose"):
        tf.isclose(a, b)
    with pytest.raises(ValueError, match=msg % "allclose"):
        tf.allclose(a, b)
    with pytest.raises(ValueError, match="tenferro.isclose: shapes"):
        tf.isclose(tf.ones(3), tf.ones(3), atol=tf.ones(2))
    with pytest.raises(ValueError):
        np.allclose(np.ones((2, 3)), np.ones(4))   # (NumPy raises as well)


def test_non_numeric_input_names_the_function():
    with pytest.raises(TypeError, match="tenferro.isclose"):
        tf.isclose(["a"], [1.0])
    with pytest.raises(TypeError, match="tenferro.allclose"):
        tf.allclose([1.0], [object()])
    with pytest.raises(TypeError, match="tenferro.isclose"):
        tf.isclose([1.0], [1.0], atol="0.1")
    with pytest.raises(TypeError, match="tenferro.isclose"):
        tf.isclose([1.0], [1.0], rtol=[[0.1], [0.1, 0.2]])


def test_device_mismatch(accel_device):
    a = tf.asarray([1.0, 2.0], dtype=tf.float32)
    b = a.to(accel_device)
    for f in (tf.isclose, tf.allclose, tf.array_equal, tf.array_equiv):
        with pytest.raises(tf.DeviceMismatchError, match=f.__name__):
            f(a, b)
    with pytest.raises(tf.DeviceMismatchError, match="isclose"):
        tf.isclose(b, b, atol=tf.asarray(0.5, dtype=tf.float32))


# -- tracing, batching, differentiation ----------------------------------------------------

X = np.array([1.0, 2.0, NAN, INF])


def test_isclose_traces_into_a_graph():
    f = tf.jit(lambda x, y: tf.isclose(x, y, rtol=1e-3, equal_nan=True))
    y = X * (1 + 1e-4)
    same(f(tf.asarray(X), tf.asarray(y)), np.isclose(X, y, rtol=1e-3, equal_nan=True))


@pytest.mark.parametrize("fn", ["allclose", "array_equal", "array_equiv"])
def test_python_bool_under_jit_and_vmap_raises(fn):
    f = getattr(tf, fn)
    with pytest.raises(tf.ConcretizationError, match="tenferro.%s" % fn):
        tf.jit(lambda x: tf.asarray(float(f(x, x))))(tf.asarray(X))
    with pytest.raises(tf.ConcretizationError, match="tenferro.%s" % fn):
        tf.vmap(lambda x: tf.asarray(float(f(x, x))))(tf.asarray([X, X]))


def test_shapes_that_differ_answer_while_tracing():
    f = tf.jit(lambda x: x + float(tf.array_equal(x, x[:1])))
    np.testing.assert_array_equal(f(tf.asarray([1.0, 2.0])).numpy(), [1.0, 2.0])


def test_isclose_under_vmap():
    a, b = np.array([[1.0, 2.0], [3.0, NAN]]), np.array([[1.0, 2.1], [3.0, NAN]])
    same(tf.vmap(lambda x, y: tf.isclose(x, y, equal_nan=True))(tf.asarray(a), tf.asarray(b)),
         np.isclose(a, b, equal_nan=True))


def test_under_grad_the_bool_is_known():
    """A bool carries no derivative: under tenferro.grad allclose answers (as
    ``bool(tenferro.all(x > 0))`` does there) and the gradient is unaffected."""
    def f(x):
        scale = 2.0 if tf.allclose(x, [1.0, 2.0]) else 3.0
        return (scale * x * x).sum()

    np.testing.assert_allclose(tf.grad(f)(tf.asarray([1.0, 2.0])).numpy(), [4.0, 8.0])
    np.testing.assert_allclose(tf.grad(f)(tf.asarray([1.0, 5.0])).numpy(), [6.0, 30.0])


def test_eager_tensor_that_requires_grad():
    x = tf.tensor([1.0, 2.0], requires_grad=True)
    assert tf.allclose(x, [1.0, 2.0]) and tf.array_equal(x, x)
    r = tf.isclose(x, x)
    assert r.dtype == tf.bool_ and not r.requires_grad


# -- NumPy's functions on tensors run tenferro's -----------------------------------------

def test_numpy_functions_dispatch():
    a, b = tf.asarray(X), tf.asarray(X * (1 + 1e-7))
    r = np.isclose(a, b, equal_nan=True)
    same(r, np.isclose(X, X * (1 + 1e-7), equal_nan=True))
    assert np.allclose(a, a) is False and np.allclose(a, b, equal_nan=True) is True
    assert np.array_equal(a, a, equal_nan=True) is True
    assert np.array_equiv(a, tf.asarray([X, X])) is False
    x = tf.tensor([1.0, 2.0], requires_grad=True)   # (the NumPy fallback would refuse it)
    assert np.allclose(x, [1.0, 2.0]) is True


# -- devices -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_on_every_device(device, dtype):
    if documented_unsupported(device, dtype):
        pytest.skip("%s holds no %s (docs/devices.md)" % (device, dtype))
    a = pool(dtype)[:, None]
    b = pool(dtype)[None, :]
    if device.type == "webgpu" and dtype == "float32":
        # WebGPU flushes float32 subnormals to zero (WGSL allows it)
        a, b = [v[np.isnan(v) | (np.abs(v) == 0) | (np.abs(v) >= 1e-37)] for v in (a.ravel(),
                                                                            b.ravel())]
        a, b = a[:, None], b[None, :]
    if dtype == "int32" and documented_unsupported(device, "float64"):
        a, b = a[np.abs(a.ravel()) < 2 ** 24].reshape(-1, 1), b[:, np.abs(b.ravel()) < 2 ** 24]
    ta, tb = tf.asarray(a).to(device), tf.asarray(b).to(device)
    for kw in TOLERANCES:
        with np.errstate(all="ignore"):
            want = np.isclose(a, b, equal_nan=True, **kw)
        got = tf.isclose(ta, tb, equal_nan=True, **kw)
        assert got.device == device
        same(got.to("cpu"), want)
        assert tf.allclose(ta, tb, **kw) is np.allclose(a, b, **kw)
    assert tf.array_equal(ta, ta) is np.array_equal(a, a)
    assert tf.array_equal(ta, ta, equal_nan=True) is True
    assert tf.array_equiv(ta, tb) is np.array_equiv(a, b)


def test_webgpu_float32_weak_scalars():
    dev = get_test_device("webgpu")
    a = np.array([0.1, 1.0, 2.5, INF, NAN], dtype=np.float32)
    t = tf.asarray(a).to(dev)
    for s in (0.1, 1, 2.5, INF):
        same(tf.isclose(t, s, atol=0).to("cpu"), np.isclose(a, s, atol=0))
        same(tf.isclose(s, t, atol=0).to("cpu"), np.isclose(s, a, atol=0))
