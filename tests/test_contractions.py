"""``tensordot``, ``inner``, ``kron`` and ``trace`` (on the einsum engine) against NumPy,
their errors and gradients; einsum with a cotengra optimizer; einsum on a driver
without a grouped ``contract`` (the reshape + ``matmul`` route)."""
import numpy as np
import pytest

import tenferro as tf
from tenferro import autograd

from conftest import assert_close, random_array

DTYPES = ["float32", "float64", "complex64", "complex128", "int32", "int64", "bool"]


def _tol(dtype):
    d = np.dtype(dtype)
    return {} if d.kind in "biu" else ({"rtol": 1e-4, "atol": 1e-5} if d.itemsize <= 8
                                       and d.kind == "f" or d == np.complex64
                                       else {"rtol": 1e-12, "atol": 1e-12})


TENSORDOT = [
    ((3, 4, 5), (4, 5, 2), 2),
    ((3, 4, 5), (4, 5, 2), ([1, 2], [0, 1])),
    ((3, 4, 5), (5, 4, 2), ([2, 1], [0, 1])),
    ((3, 4), (4, 2), 1),
    ((3, 4), (2, 5), 0),
    ((3, 4, 5), (2, 3), ([0], [1])),
    ((3, 4, 5), (2, 3), (0, 1)),
    ((3, 4, 5), (5, 3, 4), ([-1, 0], [0, -2])),
    ((2, 3), (2, 3), ([0, 1], [0, 1])),
    ((0, 3), (3, 2), 1),
    ((), (), 0),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sa,sb,axes", TENSORDOT)
def test_tensordot_vs_numpy(sa, sb, axes, dtype):
    a, b = random_array(sa, dtype, seed=1), random_array(sb, dtype, seed=2)
    got = tf.tensordot(tf.asarray(a), tf.asarray(b), axes)
    want = np.tensordot(a, b, axes)
    assert got.dtype == want.dtype
    assert_close(got, want, **_tol(dtype))


def test_tensordot_mixed_dtypes_and_arrays():
    a = random_array((3, 4), "float32", seed=1)
    b = random_array((4, 2), "int64", seed=2)
    got = tf.tensordot(a, tf.asarray(b), 1)
    want = np.tensordot(a, b, 1)
    assert got.dtype == want.dtype
    assert_close(got, want, rtol=1e-6)


@pytest.mark.parametrize("axes,pattern", [
    (([0], [0]), r"tensordot: shape mismatch for sum: axis 0 of a \(shape \(3, 4\)\) has 3 "
                 r"elements, axis 0 of b \(shape \(4, 2\)\) has 4"),
    (3, r"tensordot: axes=3 is out of range for operands of 2 and 2 dimensions"),
    (-1, r"tensordot: axes=-1 is out of range"),
    (([0, 1], [0]), r"tensordot: axes of a \[0, 1\] and of b \[0\] differ in number"),
    (([1, 1], [0, 0]), r"tensordot: repeated axis"),
    (1.5, r"tensordot: axes must be an int or a pair of axis sequences"),
    ("ab", r"tensordot: axis must be an integer, got .a."),
])
def test_tensordot_errors(axes, pattern):
    a, b = tf.ones((3, 4)), tf.ones((4, 2))
    with pytest.raises((ValueError, TypeError), match=pattern):
        tf.tensordot(a, b, axes)


def test_tensordot_axis_out_of_bounds():
    with pytest.raises(tf.AxisError, match="tensordot: axis 5 is out of bounds"):
        tf.tensordot(tf.ones((3, 4)), tf.ones((4, 2)), ([5], [0]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sa,sb", [((4,), (4,)), ((3, 4), (4,)), ((3, 4), (2, 4)),
                                   ((2, 3, 4), (5, 4)), ((), (3, 4)), ((3,), ())])
def test_inner_vs_numpy(sa, sb, dtype):
    a, b = random_array(sa, dtype, seed=3), random_array(sb, dtype, seed=4)
    got = tf.inner(tf.asarray(a), tf.asarray(b))
    want = np.inner(a, b)
    assert got.dtype == want.dtype
    assert_close(got, want, **_tol(dtype))


def test_inner_error():
    with pytest.raises(ValueError, match=r"inner: the last dimensions differ: shapes "
                                         r"\(3, 4\) and \(2, 5\) \(4 != 5\)"):
        tf.inner(tf.ones((3, 4)), tf.ones((2, 5)))


def test_vdot_outer_errors_name_the_function():
    with pytest.raises(ValueError, match=r"vdot: the operands have different numbers of "
                                         r"elements: shapes \(3,\) and \(2, 2\)"):
        tf.vdot(tf.ones(3), tf.ones((2, 2)))
    assert float(tf.vdot(tf.ones((2, 3)), tf.ones(6))) == np.vdot(np.ones((2, 3)), np.ones(6))



@pytest.mark.parametrize("a,b", [([True, False], [True, True]), ([False, True], [True, False]),
                                 ([True, False], np.float32([1.5, 2.0])),
                                 (np.int32([1, 2]), np.float32([3, 4]))])
def test_vdot_of_real_operands_keeps_numpys_dtype(a, b):
    # conj of a real operand is the operand itself: NumPy's vdot does not promote
    # bool (conj's int8) or widen int32 x float32
    want = np.vdot(np.asarray(a), np.asarray(b))
    got = tf.vdot(tf.asarray(a), tf.asarray(b))
    assert got.dtype == tf.dtype(np.asarray(want).dtype)
    assert got.numpy() == want


OTHER = [d for d in tf.devices.available() if d != "cpu"]


@pytest.mark.skipif(not OTHER, reason="no device besides the CPU")
@pytest.mark.parametrize("name", ["matmul", "dot", "vdot", "outer", "inner", "kron",
                                  "tensordot"])
def test_products_with_a_device_tensor(name):
    # an operand that is not a tensor yet goes to the other's device, as in the
    # elementwise ops; tensors on two devices raise naming the function
    fn = getattr(tf, name)
    args = (1,) if name == "tensordot" else ()
    w, x = tf.asarray(np.float32([1, 2]), device=OTHER[0]), [1.0, 3.0]
    for a, b in ([x, w], [w, x]):
        got = fn(a, b, *args)
        assert str(got.device) == str(w.device)
        want = getattr(np, name)(*[[1.0, 2.0] if v is w else v for v in (a, b)], *args)
        np.testing.assert_allclose(got.to("cpu").numpy(), want, rtol=1e-6)
    with pytest.raises(tf.DeviceMismatchError, match=name):
        fn(tf.asarray(np.float32([1, 2])), w, *args)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sa,sb", [((3,), (4,)), ((2, 3), (4, 5)), ((2, 3), (4,)),
                                   ((3,), (2, 2)), ((2, 1, 3), (1, 4, 2)), ((), (3,)),
                                   ((0, 2), (3, 3))])
def test_kron_vs_numpy(sa, sb, dtype):
    a, b = random_array(sa, dtype, seed=5), random_array(sb, dtype, seed=6)
    got = tf.kron(tf.asarray(a), tf.asarray(b))
    want = np.kron(a, b)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert_close(got, want, **_tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,kw", [((4, 4), {}), ((4, 5), {"offset": 1}),
                                      ((4, 5), {"offset": -2}), ((3, 4, 5), {}),
                                      ((3, 4, 5), {"axis1": 1, "axis2": 2}),
                                      ((3, 4, 5), {"axis1": 2, "axis2": 0, "offset": 1}),
                                      ((3, 3), {"offset": 5})])
def test_trace_vs_numpy(shape, kw, dtype):
    a = random_array(shape, dtype, seed=7)
    got = tf.trace(tf.asarray(a), **kw)
    want = np.trace(a, **kw)
    assert got.dtype == want.dtype
    assert_close(got, want, **_tol(dtype))


def test_trace_dtype_and_errors():
    a = random_array((3, 3), "int32", seed=8)
    assert_close(tf.trace(tf.asarray(a), dtype="float32"), np.trace(a, dtype="float32"))
    with pytest.raises(ValueError, match=r"^tenferro.trace: expected at least 2 dimensions"):
        tf.trace(tf.ones(3))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("name,fn,shapes", [
    ("tensordot", lambda a, b: tf.tensordot(a, b, ([0, 2], [1, 0])), [(2, 3, 2), (2, 2, 3)]),
    ("inner", tf.inner, [(2, 3), (4, 3)]),
    ("kron", tf.kron, [(2, 3), (2, 2)]),
    ("trace", lambda a: tf.trace(a, 1), [(3, 4)]),
])
def test_gradients(name, fn, shapes, dtype):
    args = tuple(tf.asarray(random_array(s, dtype, "small", seed=i + 1))
                 for i, s in enumerate(shapes))
    autograd.gradcheck(fn, args, modes=("jvp", "vjp", "eager"), order=2)


@pytest.mark.filterwarnings("ignore:Couldn.t import")
def test_cotengra_optimizer():
    ctg = pytest.importorskip("cotengra")
    shapes = [(4, 5), (5, 6, 3), (6, 4), (3, 2)]
    arrays = [random_array(s, "float64", seed=10 + i) for i, s in enumerate(shapes)]
    want = np.einsum("ij,jkl,ki,lm->m", *arrays)
    opt = ctg.HyperOptimizer(max_repeats=4, progbar=False)
    assert_close(tf.einsum("ij,jkl,ki,lm->m", *arrays, optimize=opt), want, rtol=1e-12)
    path, report = tf.einsum_path("ij,jkl,ki,lm->m", *arrays, optimize=opt)
    assert path[0] == "einsum_path" and len(path) == 4
    # cotengra registers its presets with opt_einsum by name
    assert_close(tf.einsum("ij,jkl,ki,lm->m", *arrays, optimize="hyper"), want, rtol=1e-12)


@pytest.fixture
def without_grouped_contract(monkeypatch):
    """The CPU driver as a driver with only ``matmul`` would be."""
    drv = tf.device("cpu").driver
    monkeypatch.delitem(drv.implementations, "contract", raising=False)
    tf.einsum_cache_clear()
    yield
    tf.einsum_cache_clear()


@pytest.mark.parametrize("subs,shapes", [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ijkl,klmn->minj", [(2, 3, 4, 2), (4, 2, 3, 2)]),
    ("abc,cde,efa->bdf", [(3, 4, 2), (2, 3, 4), (4, 2, 3)]),
    ("i,i->", [(5,), (5,)]),
])
def test_reshape_matmul_route(without_grouped_contract, subs, shapes):
    arrays = [random_array(s, "float64", seed=20 + i) for i, s in enumerate(shapes)]
    got = tf.einsum(subs, *[tf.asarray(a) for a in arrays])
    assert_close(got, np.einsum(subs, *arrays), rtol=1e-12, atol=1e-12)
