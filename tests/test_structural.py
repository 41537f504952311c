"""diff, ediff1d, gradient, roll, repeat, tile, flips, rot90, append/insert/delete, the
stack and split families, meshgrid and indices against NumPy; their derivatives by
finite differences (forward and reverse mode); the same cases on every device."""
import numpy as np
import pytest

import tenferro as tf
from tenferro.autograd import gradcheck

from conftest import check_on, run_on, to_device

A = np.random.default_rng(0).standard_normal((3, 4, 5))
X = np.cumsum(np.random.default_rng(1).uniform(0.5, 1.5, 4))   # coordinates, axis 1

# name -> f(xp, a) for a of A's shape (xp is numpy or tenferro); each returns an array
# or a tuple/list of arrays
CASES = {
    "diff": lambda xp, a: xp.diff(a),
    "diff_n2_axis0": lambda xp, a: xp.diff(a, n=2, axis=0),
    "diff_neg_axis": lambda xp, a: xp.diff(a, axis=-2),
    "diff_prepend_append": lambda xp, a: xp.diff(a, axis=1, prepend=1.5, append=a[:, :2]),
    "diff_n_too_big": lambda xp, a: xp.diff(a, n=7, axis=0),
    "ediff1d": lambda xp, a: xp.ediff1d(a[0], to_begin=[1, 2], to_end=3),
    "gradient": lambda xp, a: xp.gradient(a),
    "gradient_spacing": lambda xp, a: xp.gradient(a, 0.5, axis=(2, 0), edge_order=2),
    "gradient_coords": lambda xp, a: xp.gradient(a, X, axis=1),
    "gradient_coords2": lambda xp, a: xp.gradient(a, 1.0, X, 2.0, edge_order=2),
    "roll": lambda xp, a: xp.roll(a, 2, axis=1),
    "roll_flat": lambda xp, a: xp.roll(a, -7),
    "roll_multi": lambda xp, a: xp.roll(a, (1, 11), axis=(0, -1)),
    "roll_same_axis": lambda xp, a: xp.roll(a, (1, 2), axis=(2, 2)),
    "repeat": lambda xp, a: xp.repeat(a, 2, axis=1),
    "repeat_flat": lambda xp, a: xp.repeat(a, 3),
    "repeat_array": lambda xp, a: xp.repeat(a, [2, 0, 1], axis=0),
    "repeat_one": lambda xp, a: xp.repeat(a, [3], axis=-1),
    "tile": lambda xp, a: xp.tile(a, 2),
    "tile_more_dims": lambda xp, a: xp.tile(a, (2, 1, 1, 3)),
    "tile_fewer": lambda xp, a: xp.tile(a[0], (2, 1, 3)),
    "tile_zero": lambda xp, a: xp.tile(a, (1, 0, 1)),
    "flipud": lambda xp, a: xp.flipud(a),
    "fliplr": lambda xp, a: xp.fliplr(a),
    "rot90": lambda xp, a: xp.rot90(a),
    "rot90_k2": lambda xp, a: xp.rot90(a, 2, axes=(1, 2)),
    "rot90_k3": lambda xp, a: xp.rot90(a, -1, axes=(2, 0)),
    "rot90_k4": lambda xp, a: xp.rot90(a, 4),
    "append": lambda xp, a: xp.append(a, a[:1], axis=0),
    "append_flat": lambda xp, a: xp.append(a[0], [1.0, 2.0]),
    "insert": lambda xp, a: xp.insert(a, 1, 7.0, axis=1),
    "insert_row": lambda xp, a: xp.insert(a[0], 2, a[1, :, 0], axis=1),
    "insert_list": lambda xp, a: xp.insert(a, [4, 0, 4, -1], 5.0, axis=2),
    "insert_slice": lambda xp, a: xp.insert(a[0, 0], slice(1, 4, 2), [10.0, 20.0]),
    "insert_flat": lambda xp, a: xp.insert(a, [3], [1.0]),
    "delete": lambda xp, a: xp.delete(a, [0, 2], axis=1),
    "delete_slice": lambda xp, a: xp.delete(a, slice(None, None, 2)),
    "delete_int": lambda xp, a: xp.delete(a, -1, axis=0),
    "delete_mask": lambda xp, a: xp.delete(a, np.array([True, False, True, False, False]),
                                           axis=2),
    "hstack": lambda xp, a: xp.hstack([a, a[:, :1]]),
    "hstack_1d": lambda xp, a: xp.hstack([a[0, 0], a[1, 1, 0]]),
    "vstack": lambda xp, a: xp.vstack([a[0, 0], a[1]]),
    "dstack": lambda xp, a: xp.dstack([a[0], a[1]]),
    "dstack_1d": lambda xp, a: xp.dstack([a[0, 0], a[1, 1]]),
    "column_stack": lambda xp, a: xp.column_stack([a[0, :, 0], a[1]]),
    "split": lambda xp, a: xp.split(a, 5, axis=2),
    "split_at": lambda xp, a: xp.split(a, [1, 3, 9], axis=-1),
    "array_split": lambda xp, a: xp.array_split(a, 3, axis=1),
    "hsplit": lambda xp, a: xp.hsplit(a, 2),
    "vsplit": lambda xp, a: xp.vsplit(a, [1]),
    "dsplit": lambda xp, a: xp.dsplit(a, [2, 3]),
    "meshgrid": lambda xp, a: xp.meshgrid(a[0, 0], a[0, :, 0], a[:, 0, 0]),
    "meshgrid_ij": lambda xp, a: xp.meshgrid(a[0, 0], a[0, :, 0], indexing="ij"),
    "meshgrid_sparse": lambda xp, a: xp.meshgrid(a[0, 0], a[0, :, 0], sparse=True),
    "meshgrid_view": lambda xp, a: xp.meshgrid(a[0, 0], a[0, :, 0], copy=False),
}
NOT_DIFFERENTIABLE = set()   # every case above is differentiable in a


def as_list(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def same(got, ref, rtol=1e-12, atol=1e-12):
    got, ref = as_list(got), as_list(ref)
    assert len(got) == len(ref)
    for g, r in zip(got, ref):
        assert isinstance(g, tf.Tensor)
        g = g.numpy()
        assert g.dtype == r.dtype and g.shape == r.shape, (g.dtype, g.shape, r.dtype, r.shape)
        np.testing.assert_allclose(g, r, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "complex128"])
def test_matches_numpy(name, dtype):
    a = (A * 3).astype(dtype) if dtype.startswith("int") else A.astype(dtype)
    if dtype == "complex128":
        a = a + 1j * A[::-1]
    ref = CASES[name](np, a)
    tol = 1e-5 if dtype == "float32" else 1e-12
    same(CASES[name](tf, tf.asarray(a)), ref, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(CASES))
def test_derivatives_by_finite_differences(name):
    def f(t):
        return tuple(as_list(CASES[name](tf, t)))
    gradcheck(f, (tf.asarray(A),), modes=("jvp", "vjp", "eager"), order=1)


@pytest.mark.parametrize("name", ["diff", "roll_multi", "repeat_array", "tile", "rot90",
                                  "split", "vstack", "gradient_coords2"])
def test_second_derivatives(name):
    gradcheck(lambda t: tuple(as_list(CASES[name](tf, t))), (tf.asarray(A),),
              modes=("jvp", "vjp"), order=2)


def test_gradient_coordinates_are_differentiable_too():
    f = tf.asarray(A[0, 0])
    x = tf.asarray(np.cumsum(np.random.default_rng(2).uniform(0.5, 1.5, 5)))
    gradcheck(lambda f, x: tf.gradient(f, x, edge_order=2), (f, x), modes=("jvp", "vjp"),
              order=1)


@pytest.mark.parametrize("name", sorted(CASES))
def test_traced_and_compiled(name):
    """Shapes depend only on shapes and host-side integer arguments: every case traces."""
    from tenferro.graph import jit

    f = jit(lambda t: tuple(as_list(CASES[name](tf, t))))
    same(f(tf.asarray(A)), CASES[name](np, A))


@pytest.mark.parametrize("name", sorted(CASES))
def test_on_every_device(device, name):
    """float32 on the device, compared with NumPy's float32 result (float64 where NumPy
    promotes a Python float: the device's default float where it holds no float64)."""
    a = A.astype(np.float32)
    ref = as_list(CASES[name](np, a))
    got = as_list(run_on(device, CASES[name], tf, to_device(a, device)))
    assert len(got) == len(ref)
    for g, r in zip(got, ref):
        want = r.dtype if r.dtype in device.driver.dtypes else np.dtype(np.float32)
        check_on(g, r, device, dtype=want, rtol=1e-5, atol=1e-5)


def test_integer_and_bool_cases():
    b = np.array([[True, False, False], [True, True, False]])
    same(tf.diff(b, axis=1), np.diff(b, axis=1))
    same(tf.diff(b, axis=0, append=False), np.diff(b, axis=0, append=False))
    same(tf.gradient(np.arange(6) ** 2), np.gradient(np.arange(6) ** 2))
    same(tf.repeat(np.int32(7), 3), np.repeat(np.int32(7), 3))
    for axis in (0, -1):   # NumPy's leniency for a 0-d input (it raised AxisError)
        same(tf.repeat(np.int32(7), 2, axis=axis), np.repeat(np.int32(7), 2, axis=axis))
    same(tf.tile(np.array(2.0), (2, 2)), np.tile(np.array(2.0), (2, 2)))
    same(tf.roll(np.arange(5), 2), np.roll(np.arange(5), 2))
    same(tf.roll(np.zeros((0, 3)), 2, axis=0), np.roll(np.zeros((0, 3)), 2, axis=0))
    same(tf.diff(np.arange(5), n=0), np.diff(np.arange(5), n=0))
    same(tf.ediff1d(np.arange(5) ** 2), np.ediff1d(np.arange(5) ** 2))
    same(tf.insert(np.arange(6).reshape(2, 3), [], 9, axis=1),
         np.insert(np.arange(6).reshape(2, 3), [], 9, axis=1))
    same(tf.insert(np.arange(4), 1, 2.7), np.insert(np.arange(4), 1, 2.7))
    same(tf.delete(np.arange(4), []), np.delete(np.arange(4), []))
    same(tf.repeat(tf.asarray([1, 2]), tf.asarray([2, 3])), np.repeat([1, 2], [2, 3]))
    same(tf.delete(np.arange(5), tf.asarray([1, 3])), np.delete(np.arange(5), [1, 3]))
    same(tf.gradient(np.arange(5.0) ** 2, tf.asarray(2.0)), np.gradient(np.arange(5.0) ** 2,
                                                                          2.0))


def test_gradient_is_differentiable_in_a_scalar_spacing():
    h = tf.tensor(2.0, requires_grad=True)
    tf.gradient(tf.asarray(np.arange(5.0) ** 2), h).sum().backward()
    np.testing.assert_allclose(h.grad.numpy(), -20.0 / 4.0)   # sum = 20 / h


@pytest.mark.parametrize("dims,dtype,sparse", [((2, 3), int, False), ((4,), float, False),
                                               ((2, 0, 3), int, False), ((), int, False),
                                               ((2, 3, 2), np.int32, True)])
def test_indices(dims, dtype, sparse):
    same(tf.indices(dims, dtype=dtype, sparse=sparse), np.indices(dims, dtype=dtype,
                                                                  sparse=sparse))


def test_meshgrid_edge_cases():
    same(tf.meshgrid(), np.meshgrid())
    same(tf.meshgrid([1, 2, 3]), np.meshgrid([1, 2, 3]))
    same(tf.meshgrid(np.zeros(0), [1.0, 2.0]), np.meshgrid(np.zeros(0), [1.0, 2.0]))


def test_stacking_a_tensor_stacks_its_rows():
    same(tf.vstack(tf.asarray(A[0])), np.vstack(A[0]))
    same(tf.column_stack(A[0]), np.column_stack(A[0]))


def test_stack_dtype_keyword():
    same(tf.hstack([[1, 2], [3]], dtype="float32"), np.hstack([[1, 2], [3]], dtype="float32"))
    same(tf.vstack([[1, 2], [3, 4]], dtype=np.float64),
         np.vstack([[1, 2], [3, 4]], dtype=np.float64))
    with pytest.raises(TypeError, match="cannot cast"):
        tf.vstack([[1.5, 2]], dtype="int64", casting="safe")


@pytest.mark.parametrize("name", ["concatenate", "stack", "vstack", "hstack"])
def test_join_dtype_follows_the_casting_rule(name):
    """dtype= casts under casting= ("same_kind" by default) as NumPy's joins: float to int
    raises naming the function (it truncated silently), "unsafe" allows it."""
    a = np.array([1.5, -2.5], np.float32)
    t = tf.asarray(a)
    with pytest.raises(TypeError):
        getattr(np, name)([a, a], dtype="int64")
    with pytest.raises(TypeError, match="tenferro.%s: cannot cast float32 to int64" % name):
        getattr(tf, name)([t, t], dtype="int64")
    with pytest.raises(TypeError, match="tenferro.%s: cannot cast" % name):
        getattr(np, name)([t, t], dtype="int64")   # through __array_function__
    for kw in ({"dtype": "int64", "casting": "unsafe"}, {"dtype": "float64"},
               {"dtype": "float64", "casting": "safe"}):
        same(getattr(tf, name)([t, t], **kw), getattr(np, name)([a, a], **kw))
    with pytest.raises(TypeError, match="cannot cast float64 to float32"):
        getattr(tf, name)([tf.asarray([1.0]), tf.asarray([2.0])], dtype="float32",
                          casting="safe")


@pytest.mark.parametrize("call,err,match", [
    (lambda: tf.diff(np.array(1.0)), ValueError, "at least one dimensional"),
    (lambda: tf.diff([1, 2], n=-1), ValueError, "non-negative"),
    (lambda: tf.diff([1, 2], axis=1), np.exceptions.AxisError, "diff"),
    (lambda: tf.gradient([1.0]), ValueError, "too small"),
    (lambda: tf.gradient([1.0, 2.0, 3.0], edge_order=3), ValueError, "edge_order"),
    (lambda: tf.gradient(np.ones((3, 3)), 1.0, 2.0, 3.0), TypeError, "invalid number"),
    (lambda: tf.gradient([1.0, 2.0, 3.0], [1.0, 2.0]), ValueError, "must match"),
    (lambda: tf.ediff1d([1, 2, 3], to_end=[1.5]), TypeError, "same_kind"),
    (lambda: tf.repeat([1, 2], [1, -1]), ValueError, "negative"),
    (lambda: tf.repeat([1, 2], [1, 2, 3]), ValueError, "broadcast"),
    (lambda: tf.tile([1, 2], -1), ValueError, "negative"),
    (lambda: tf.flipud(np.array(1.0)), ValueError, ">= 1-d"),
    (lambda: tf.fliplr([1.0]), ValueError, ">= 2-d"),
    (lambda: tf.rot90(np.ones((2, 2)), axes=(0, 0)), ValueError, "different"),
    (lambda: tf.rot90(np.ones((2, 2)), axes=(0,)), ValueError, "len"),
    (lambda: tf.rot90(np.ones((2, 2)), axes=(0, 3)), ValueError, "rot90"),
    (lambda: tf.insert([1, 2], 5, 0), IndexError, "out of bounds"),
    (lambda: tf.insert([1, 2], [[0]], 0), ValueError, "one dimensional"),
    (lambda: tf.delete([1, 2], 2), IndexError, "out of bounds"),
    (lambda: tf.delete([1, 2], [True]), ValueError, "boolean"),
    (lambda: tf.split(np.arange(5), 2), ValueError, "equal division"),
    (lambda: tf.array_split(np.arange(5), 0), ValueError, "larger than 0"),
    (lambda: tf.hsplit(np.array(1.0), 1), ValueError, "hsplit"),
    (lambda: tf.vsplit(np.arange(4), 2), ValueError, "vsplit"),
    (lambda: tf.dsplit(np.ones((2, 2)), 2), ValueError, "dsplit"),
    (lambda: tf.meshgrid([1], indexing="yx"), ValueError, "indexing"),
    (lambda: tf.hstack([]), ValueError, "at least one"),
    (lambda: tf.hstack(x for x in [np.ones(2)]), TypeError, "sequence"),
])
def test_errors_name_the_function(call, err, match):
    with pytest.raises(err, match=match):
        call()
