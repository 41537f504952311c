"""sort, argsort, searchsorted, digitize, unique and the Array API unique_* functions
against NumPy (dtypes, axes, NaN, empty, 0-d, ties), their derivatives, and their
documented absence on devices without the argsort/searchsorted primitives."""
import numpy as np
import pytest

import tenferro as tf
from tenferro.autograd import gradcheck

from conftest import documented_unsupported, to_device

DTYPES = ["bool", "int32", "int64", "float32", "float64", "complex64", "complex128"]


def data(dtype, shape, seed=0, nan=False):
    """Values with many ties (small integers), NaNs in float/complex data if asked."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.integers(-2, 3, shape)
    a = a.astype(dtype)
    if nan and a.dtype.kind in "fc" and a.size:
        flat = a.reshape(-1)
        flat[rng.integers(0, a.size, max(1, a.size // 4))] = np.nan
        if a.dtype.kind == "c":
            flat[rng.integers(0, a.size, max(1, a.size // 4))] = complex(1, np.nan)
    return a


def same(t, expected):
    """Exactly NumPy's dtype, shape and values (NaN where NumPy has NaN)."""
    assert isinstance(t, tf.Tensor), type(t)
    got = t.numpy()
    expected = np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    np.testing.assert_array_equal(got, expected)


# -- sort / argsort ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,axis", [((7,), -1), ((4, 5), 0), ((4, 5), 1), ((2, 3, 4), -2),
                                        ((2, 3, 4), None), ((0, 3), 0), ((3, 0), 1),
                                        ((1, 4), 0)])
def test_sort_and_argsort_match_numpys_stable_sort(dtype, shape, axis):
    a = data(dtype, shape, nan=True)
    same(tf.argsort(a, axis=axis), np.argsort(a, axis=axis, kind="stable"))
    same(tf.sort(a, axis=axis), np.sort(a, axis=axis, kind="stable"))


def test_argsort_of_a_0d_tensor_takes_numpys_axes_only():
    same(tf.argsort(np.float64(3.0)), np.argsort(np.float64(3.0)))
    same(tf.argsort(np.float64(3.0), axis=None), np.argsort(np.float64(3.0), axis=None))
    with pytest.raises(np.exceptions.AxisError):   # (it returned [0] for any axis)
        tf.argsort(np.float64(3.0), axis=1)


def test_nan_sorts_last_and_complex_lexicographically():
    a = np.array([3.0, np.nan, -np.inf, 1.0, np.nan, -0.0, 0.0, np.inf])
    same(tf.sort(a), np.sort(a))
    same(tf.argsort(a), np.argsort(a, kind="stable"))
    c = np.array([1 + np.nan * 1j, np.nan + 1j, 1 + 2j, 1 + 1j, complex(np.nan, np.nan),
                  5j, -1 + 9j])
    same(tf.sort(c), np.sort(c))
    same(tf.argsort(c), np.argsort(c, kind="stable"))


@pytest.mark.parametrize("kind", [None, "stable", "mergesort", "quicksort", "heapsort"])
def test_every_kind_gives_the_stable_order(kind):
    a = data("int32", (50,))
    same(tf.argsort(a, kind=kind), np.argsort(a, kind="stable"))
    same(tf.sort(a, kind=kind), np.sort(a))
    same(tf.sort(a, stable=True), np.sort(a, stable=True))
    same(tf.argsort(a, stable=False), np.argsort(a, kind="stable"))


@pytest.mark.parametrize("dtype", ["int64", "float64", "complex128", "bool"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_descending_keeps_ties_in_input_order(dtype, axis):
    a = data(dtype, (6, 9), nan=True)
    p = tf.argsort(a, axis=axis, descending=True).numpy()
    # the reference: the stable ascending order of the reversed axis, reversed back
    n = a.shape[axis]
    ref = (n - 1) - np.flip(np.argsort(np.flip(a, axis), axis=axis, kind="stable"), axis)
    np.testing.assert_array_equal(p, ref)
    v = np.take_along_axis(a, p, axis)
    same(tf.sort(a, axis=axis, descending=True), v)
    # ties (equal values next to each other) keep increasing input positions
    eq = np.take_along_axis(a, p, axis)
    lo, hi = np.moveaxis(eq, axis, 0), np.moveaxis(p, axis, 0)
    tie = lo[1:] == lo[:-1]
    assert (hi[1:][tie] > hi[:-1][tie]).all()


def test_zero_d_and_errors():
    same(tf.argsort(np.array(3.0)), np.argsort(np.array(3.0)))
    same(tf.sort(np.array(3.0), axis=None), np.sort(np.array(3.0), axis=None))
    with pytest.raises(np.exceptions.AxisError, match="sort"):
        tf.sort(np.array(3.0))
    with pytest.raises(np.exceptions.AxisError, match="argsort"):
        tf.argsort(np.zeros((2, 3)), axis=2)
    with pytest.raises(ValueError, match="tenferro.sort: sort kind must be one of"):
        tf.sort([1, 2], kind="bubble")
    with pytest.raises(ValueError, match="tenferro.argsort: `kind` and `stable`"):
        tf.argsort([1, 2], kind="stable", stable=True)
    with pytest.raises(ValueError, match="structured"):
        tf.argsort([1, 2], order="x")


def test_argsort_is_not_differentiable_and_returns_int64():
    x = tf.tensor([3.0, 1.0, 2.0], requires_grad=True)
    p = tf.argsort(x)
    assert p.dtype == tf.int64 and not p.requires_grad
    with pytest.raises(TypeError, match="argsort is not differentiable"):
        tf._primitive.registry["argsort"].rule("vjp")


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("axis,descending", [(-1, False), (0, True), (None, False)])
def test_sort_derivatives_by_finite_differences(dtype, axis, descending):
    rng = np.random.default_rng(1)
    x = rng.permutation(20).reshape(4, 5) + rng.uniform(0, 0.1, (4, 5))   # no ties
    if dtype == "complex128":
        x = x + 1j * rng.standard_normal((4, 5))
    gradcheck(lambda t: tf.sort(t, axis=axis, descending=descending), (tf.asarray(x),),
              modes=("jvp", "vjp", "eager"), order=2)


def test_sort_traces_and_runs_compiled():
    from tenferro.graph import jit

    x = np.random.default_rng(2).standard_normal((5, 3))
    f = jit(lambda t: tf.sort(t, axis=0, descending=True) + tf.argsort(t, axis=0))
    ref = np.flip(np.sort(x, axis=0), 0) + np.argsort(x, axis=0, kind="stable")
    np.testing.assert_allclose(f(tf.asarray(x)).numpy(), ref)


# -- searchsorted / digitize -------------------------------------------------------------

@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64", "complex128", "bool"])
def test_searchsorted_matches_numpy(side, dtype):
    a = np.sort(data(dtype, (12,), nan=True))
    v = data(dtype, (3, 4), seed=1, nan=True)
    same(tf.searchsorted(a, v, side=side), np.searchsorted(a, v, side=side))
    same(tf.searchsorted(a, v[0, 0], side=side), np.asarray(np.searchsorted(a, v[0, 0],
                                                                             side=side)))


def test_searchsorted_sorter_empty_and_mixed_dtypes():
    a = np.array([5, 1, 4, 2, 3])
    s = np.argsort(a)
    same(tf.searchsorted(a, [0, 2.5, 6], sorter=s), np.searchsorted(a, [0, 2.5, 6], sorter=s))
    same(tf.searchsorted(tf.asarray(a), [3], sorter=tf.asarray(s), side="right"),
         np.searchsorted(a, [3], sorter=s, side="right"))
    same(tf.searchsorted(np.zeros(0), [1.0, 2.0]), np.searchsorted(np.zeros(0), [1.0, 2.0]))
    same(tf.searchsorted([1, 2, 3], np.zeros((2, 0))), np.searchsorted([1, 2, 3],
                                                                       np.zeros((2, 0))))
    same(tf.searchsorted(np.array([1, 2, 3], np.int32), 2.5), np.asarray(
        np.searchsorted(np.array([1, 2, 3], np.int32), 2.5)))


def test_searchsorted_errors():
    with pytest.raises(ValueError, match="tenferro.searchsorted: side must be"):
        tf.searchsorted([1, 2], 1, side="middle")
    with pytest.raises(ValueError, match="1-dimensional"):
        tf.searchsorted(np.zeros((2, 2)), 1)
    with pytest.raises(ValueError, match="sorter.size must equal a.size"):
        tf.searchsorted([1, 2], 1, sorter=[0])
    with pytest.raises(ValueError, match="sorter index out of range"):
        tf.searchsorted([1, 2], 1, sorter=[0, 5])


@pytest.mark.parametrize("name,args,params", [
    ("argsort", [((3, 4), "float32")], {"axis": 0, "descending": True}),
    ("searchsorted", [((5,), "int64"), ((2, 3), "int64")], {"side": "right"}),
])
def test_shape_rules_agree_with_eager_results(name, args, params):
    rng = np.random.default_rng(0)
    tensors = [tf.asarray(np.sort(rng.integers(0, 9, s), axis=None).reshape(s).astype(d))
               for s, d in args]
    p = tf._primitive.registry[name]
    shape, dtype = p.abstract_eval(*[(s, np.dtype(d)) for s, d in args], **params)
    out = p.bind(*tensors, **params)
    assert out.shape == shape and out.dtype == dtype


@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("bins", [[0.0, 1.0, 2.5, 4.0], [4.0, 2.5, 1.0, 0.0], [1.0, 1.0, 2.0],
                                  [3.0], [], [2, 2, 1]])
def test_digitize_matches_numpy(bins, right):
    x = np.array([[-1.0, 0.0, 1.0], [2.0, 2.5, 9.0], [np.nan, 4.0, 1.5]])
    same(tf.digitize(x, bins, right=right), np.digitize(x, np.asarray(bins, dtype=float),
                                                        right=right))
    same(tf.digitize(np.arange(-1, 6), bins, right=right),
         np.digitize(np.arange(-1, 6), np.asarray(bins, dtype=float), right=right))


def test_digitize_errors():
    with pytest.raises(ValueError, match="monotonically"):
        tf.digitize([1.0], [1.0, 3.0, 2.0])
    with pytest.raises(ValueError, match="1-dimensional"):
        tf.digitize([1.0], [[1.0, 3.0]])
    with pytest.raises(TypeError, match="complex"):
        tf.digitize([1j], [1.0, 3.0])


# -- unique ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(17,), (3, 5), (0,), (2, 0), ()])
@pytest.mark.parametrize("equal_nan", [True, False])
def test_unique_matches_numpy(dtype, shape, equal_nan):
    a = data(dtype, shape, nan=True)
    got = tf.unique(a, True, True, True, equal_nan=equal_nan)
    ref = np.unique(a, True, True, True, equal_nan=equal_nan)
    for g, r in zip(got, ref):
        same(g, r)
    same(tf.unique(a, equal_nan=equal_nan), np.unique(a, equal_nan=equal_nan))
    same(tf.unique(a, return_counts=True)[1], np.unique(a, return_counts=True)[1])


@pytest.mark.parametrize("dtype", ["int64", "float64", "complex128", "bool"])
@pytest.mark.parametrize("shape,axis", [((6, 3), 0), ((6, 3), 1), ((2, 5, 3), 1),
                                        ((2, 5, 3), -1), ((0, 3), 0), ((4, 0), 0)])
def test_unique_along_an_axis(dtype, shape, axis):
    rng = np.random.default_rng(3)
    a = rng.integers(0, 2, shape).astype(dtype)
    got = tf.unique(a, True, True, True, axis=axis)
    ref = np.unique(a, True, True, True, axis=axis)
    for g, r in zip(got, ref):
        same(g, r)


def test_array_api_unique_functions():
    a = np.array([[1.0, np.nan, 3.0], [np.nan, 1.0, 2.0]])
    for name in ("unique_all", "unique_counts", "unique_inverse"):
        got, ref = getattr(tf, name)(a), getattr(np, name)(a)
        assert type(got).__name__ == type(ref).__name__
        assert got._fields == ref._fields
        for g, r in zip(got, ref):
            same(g, r)
    same(tf.unique_values(a), np.unique_values(a))


def test_unique_values_are_differentiable():
    x = tf.tensor([3.0, 1.0, 3.0, 2.0], requires_grad=True)
    v = tf.unique(x)
    (v * tf.asarray([1.0, 10.0, 100.0])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [100.0, 1.0, 0.0, 10.0])   # to first occurrences


# -- devices -----------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["sort", "argsort", "searchsorted", "digitize", "unique"])
def test_on_devices_without_the_primitives_it_raises(device, op):
    """Sorting and searching run where the argsort/searchsorted primitives exist (the
    CPU, WebGPU); elsewhere an UnsupportedOperation the coverage table documents, never a copy
    through the host."""
    a = np.array([3.0, 1.0, 2.0, 1.0], np.float32)
    t = to_device(a, device)
    calls = {"sort": lambda: tf.sort(t), "argsort": lambda: tf.argsort(t),
             "searchsorted": lambda: tf.searchsorted(to_device(np.sort(a), device), t),
             "digitize": lambda: tf.digitize(t, to_device(np.float32([0, 2]), device)),
             "unique": lambda: tf.unique(t)}
    refs = {"sort": np.sort(a), "argsort": np.argsort(a, kind="stable"),
            "searchsorted": np.searchsorted(np.sort(a), a), "digitize": np.digitize(a, [0, 2]),
            "unique": np.unique(a)}
    prim = "searchsorted" if op in ("searchsorted", "digitize") else "argsort"
    if not documented_unsupported(device, np.dtype("float32"), prim):
        r = calls[op]()
        assert r.device == device
        same(r.to("cpu"), refs[op])
        return
    with pytest.raises(tf.UnsupportedOperation, match=prim) as e:
        calls[op]()
    assert device.type in str(e.value)
