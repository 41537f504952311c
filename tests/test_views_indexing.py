"""Views (memory sharing, copy rules), broadcasting and indexing properties against
NumPy, assignment, gathers, joining, padding and triangular/diagonal helpers."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tenferro as tf

from conftest import (DTYPES, LAYOUTS, assert_close, hyp_settings, layout_values, make_layout,
                      random_array)

HSET = hyp_settings(80)


def shares(view, base):
    return np.shares_memory(np.asarray(view), np.asarray(base))


# -- views share memory ---------------------------------------------------------------

VIEWS = {
    "reshape": (lambda t: tf.reshape(t, (6, 4)), lambda a: a.reshape(6, 4)),
    "reshape_method": (lambda t: t.reshape(2, 12), lambda a: a.reshape(2, 12)),
    "ravel": (lambda t: tf.ravel(t), lambda a: a.ravel()),
    "transpose": (lambda t: tf.transpose(t), lambda a: a.T),
    "T": (lambda t: t.T, lambda a: a.T),
    "mT": (lambda t: t.mT, lambda a: np.swapaxes(a, -1, -2)),
    "permute_dims": (lambda t: tf.permute_dims(t, (1, 2, 0)), lambda a: a.transpose(1, 2, 0)),
    "swapaxes": (lambda t: tf.swapaxes(t, 0, 2), lambda a: a.swapaxes(0, 2)),
    "moveaxis": (lambda t: tf.moveaxis(t, 0, -1), lambda a: np.moveaxis(a, 0, -1)),
    "slice": (lambda t: t[1:, ::2, ::-1], lambda a: a[1:, ::2, ::-1]),
    "int_index": (lambda t: t[1], lambda a: a[1]),
    "ellipsis": (lambda t: t[..., 1], lambda a: a[..., 1]),
    "broadcast_to": (lambda t: tf.broadcast_to(t, (5, 2, 3, 4)),
                     lambda a: np.broadcast_to(a, (5, 2, 3, 4))),
    "diagonal": (lambda t: tf.diagonal(t, 1, 1, 2), lambda a: np.diagonal(a, 1, 1, 2)),
    "expand_dims": (lambda t: tf.expand_dims(t, (0, 2)), lambda a: np.expand_dims(a, (0, 2))),
    "squeeze": (lambda t: tf.squeeze(tf.expand_dims(t, 1)), lambda a: a),
    "flip": (lambda t: tf.flip(t, 1), lambda a: np.flip(a, 1)),
    "flip_all": (lambda t: tf.flip(t), lambda a: np.flip(a)),
    "newaxis": (lambda t: t[None, :, None], lambda a: a[None, :, None]),
}


@pytest.mark.parametrize("name", list(VIEWS))
def test_views_share_memory_and_match_numpy(name):
    a = random_array((2, 3, 4), "float64", seed=1)
    t = tf.asarray(a.copy())
    tf_fn, np_fn = VIEWS[name]
    v = tf_fn(t)
    assert shares(v, t), name
    assert_close(v, np_fn(a))


def test_view_writes_show_in_base():
    t = tf.zeros((3, 4))
    v = t[1:, ::2]
    v[...] = 7.0
    exp = np.zeros((3, 4))
    exp[1:, ::2] = 7
    assert_close(t, exp)
    tf.flip(t, 0)[0] = -1.0
    exp[-1] = -1
    assert_close(t, exp)


def test_reshape_copies_only_when_needed():
    a = np.arange(24.0).reshape(4, 6)
    t = tf.asarray(a)
    assert shares(tf.reshape(t, (6, 4)), t)
    assert shares(tf.reshape(t, (2, 2, 6)), t)
    tt = t.T  # F-ordered: reshape to 1-D needs a copy
    r = tf.reshape(tt, (-1,))
    assert not shares(r, t)
    assert_close(r, a.T.reshape(-1))
    # merging non-contiguous axes that are still compatible stays a view
    s = t[:, ::2]
    assert shares(tf.reshape(s, (4, 3, 1)), t)
    with pytest.raises(ValueError, match=r"reshape: cannot reshape a tensor of shape \(6, 4\) "
                       r"and strides .* without copying \(copy=False\)"):
        tf.reshape(tt, (24,), copy=False)
    assert shares(tf.reshape(t, (24,), copy=False), t)
    c = tf.reshape(t, (6, 4), copy=True)
    assert not shares(c, t)
    assert_close(c, a.reshape(6, 4))
    assert_close(tf.reshape(t, (3, -1)), a.reshape(3, -1))


def test_reshape_errors():
    t = tf.ones((2, 3))
    with pytest.raises(ValueError, match=r"cannot reshape tensor of size 6 into shape \(4,\)"):
        tf.reshape(t, (4,))
    with pytest.raises(ValueError, match="can only specify one unknown dimension"):
        tf.reshape(t, (-1, -1))
    with pytest.raises(ValueError, match=r"cannot reshape tensor of size 6 into shape \(4, -1\)"):
        tf.reshape(t, (4, -1))


def test_view_op_errors():
    t = tf.ones((2, 3, 4))
    with pytest.raises(ValueError, match="permute_dims: axes .* are not a permutation"):
        tf.permute_dims(t, (0, 0, 1))
    with pytest.raises(tf.AxisError, match="swapaxes: axis 3 is out of bounds"):
        tf.swapaxes(t, 0, 3)
    with pytest.raises(ValueError, match=r"squeeze: cannot select an axis to squeeze out which "
                       r"has size not equal to one \(axis 1 of shape \(2, 3, 4\)\)"):
        tf.squeeze(t, 1)
    with pytest.raises(ValueError, match="diagonal: axis1 and axis2 cannot be the same"):
        tf.diagonal(t, 0, 1, 1)
    with pytest.raises(ValueError, match=r"broadcast_to: .*\(2, 3, 4\).*\(3, 3, 4\)"):
        tf.broadcast_to(t, (3, 3, 4))
    with pytest.raises(ValueError, match="broadcast_to: cannot broadcast a tensor of shape"):
        tf.broadcast_to(t, (3, 4))
    with pytest.raises(ValueError, match="moveaxis: source"):
        tf.moveaxis(t, (0, 1), (0,))
    for src, dst, what in (((0, 0), (1, 2), "source"), ((0, 1), (2, 2), "destination"),
                           ((0, 1), (2, -1), "destination")):
        with pytest.raises(ValueError, match="moveaxis: repeated axis in `%s`" % what):
            tf.moveaxis(t, src, dst)
    with pytest.raises(ValueError, match="Tensor.mT: expected a tensor with at least 2"):
        tf.ones(3).mT


def test_broadcast_view_is_read_only():
    b = tf.broadcast_to(tf.ones(3), (2, 3))
    with pytest.raises(ValueError, match="read-only"):
        b[0, 0] = 5.0


@pytest.mark.parametrize("case", [((2, 3, 4), 0, 0, 1), ((3, 5), 2, 0, 1), ((5, 3), -2, 1, 0),
                                  ((4, 4), 9, 0, 1), ((2, 3, 4), -1, 2, 0)])
def test_diagonal_vs_numpy(case):
    shape, off, a1, a2 = case
    a = random_array(shape, "complex128", seed=2)
    assert_close(tf.diagonal(tf.asarray(a), off, a1, a2), np.diagonal(a, off, a1, a2))


# -- broadcasting property --------------------------------------------------------------

shape_st = st.lists(st.integers(0, 3), min_size=0, max_size=4).map(tuple)


@HSET
@given(shape_st, shape_st)
def test_broadcasting_property(s1, s2):
    try:
        exp = np.broadcast_shapes(s1, s2)
    except ValueError:
        with pytest.raises(ValueError, match=r"add: shapes .* do not broadcast"):
            tf.add(tf.zeros(s1), tf.zeros(s2))
        with pytest.raises(ValueError):
            tf.broadcast_to(tf.zeros(s1), s2) if len(s2) >= len(s1) else \
                tf.broadcast_to(tf.zeros(s2), s1)
        return
    a = np.arange(np.prod(s1), dtype=np.float64).reshape(s1)
    b = np.arange(np.prod(s2), dtype=np.float64).reshape(s2) * 10
    r = tf.add(tf.asarray(a), tf.asarray(b))
    assert r.shape == exp
    assert_close(r, a + b)
    assert [x.shape for x in tf.broadcast_tensors(tf.asarray(a), tf.asarray(b))] == [exp, exp]


# -- indexing property ---------------------------------------------------------------------

@st.composite
def index_case(draw):
    ndim = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=ndim, max_size=ndim)))
    key = []
    axis = 0
    used_ellipsis = False
    n_adv = 0
    while axis < ndim and len(key) < 6:
        kind = draw(st.sampled_from(["int", "slice", "slice", "none", "ellipsis", "array",
                                     "mask", "stop"]))
        n = shape[axis]
        if kind == "stop":
            break
        if kind == "int":
            key.append(draw(st.integers(-n, n - 1)))
            axis += 1
        elif kind == "slice":
            start = draw(st.none() | st.integers(-n - 2, n + 2))
            stop = draw(st.none() | st.integers(-n - 2, n + 2))
            step = draw(st.none() | st.sampled_from([1, 2, 3, -1, -2]))
            key.append(slice(start, stop, step))
            axis += 1
        elif kind == "none":
            key.append(None)
        elif kind == "ellipsis":
            if used_ellipsis:
                continue
            used_ellipsis = True
            key.append(Ellipsis)
            # the ellipsis takes whatever the rest of the key leaves: stop drawing axes
            rest = draw(st.integers(0, ndim - axis))
            axis = ndim - rest
            tail = []
            for i in range(axis, ndim):
                tail.append(draw(st.one_of(
                    st.integers(-shape[i], shape[i] - 1),
                    st.just(slice(None, None, -1)),
                    st.lists(st.integers(-shape[i], shape[i] - 1), min_size=1,
                             max_size=3).map(lambda l: np.array(l, dtype=np.int64)))))
            key.extend(tail)
            axis = ndim
        elif kind == "array":
            if n_adv >= 3:
                continue
            n_adv += 1
            ishape = draw(st.sampled_from([(), (2,), (1,), (2, 1), (1, 3), (3,)]))
            idx = draw(st.lists(st.integers(-n, n - 1), min_size=int(np.prod(ishape)),
                                max_size=int(np.prod(ishape))))
            key.append(np.array(idx, dtype=draw(st.sampled_from([np.int64, np.int32])))
                       .reshape(ishape))
            axis += 1
        elif kind == "mask":
            k = draw(st.integers(1, min(2, ndim - axis)))
            mshape = shape[axis:axis + k]
            bits = draw(st.lists(st.booleans(), min_size=int(np.prod(mshape)),
                                 max_size=int(np.prod(mshape))))
            key.append(np.array(bits, dtype=bool).reshape(mshape))
            axis += k
    return shape, tuple(key)


def _np_result(a, key):
    try:
        return a[key], None
    except (IndexError, ValueError) as e:
        return None, e


@HSET
@given(index_case(), st.booleans())
def test_getitem_property(case, as_tensor_keys):
    shape, key = case
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    t = tf.asarray(a.copy())
    tkey = tuple(tf.asarray(k) if as_tensor_keys and isinstance(k, np.ndarray) else k
                 for k in key)
    exp, err = _np_result(a, key)
    if err is not None:
        with pytest.raises(type(err)):
            t[tkey]
        return
    got = t[tkey]
    assert_close(got, exp)
    # basic-only keys give views, advanced ones copies, like NumPy
    if not any(isinstance(k, np.ndarray) for k in key) and exp.size:
        assert shares(got, t)


@HSET
@given(index_case())
def test_setitem_property(case):
    shape, key = case
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    exp = a.copy()
    try:
        target_shape = exp[key].shape
    except (IndexError, ValueError):
        return
    # duplicate advanced indices: last write wins in both (same values anyway below)
    val = -np.arange(int(np.prod(target_shape)), dtype=np.int64).reshape(target_shape) - 1
    exp[key] = val
    t = tf.asarray(a.copy())
    t[key] = tf.asarray(val)
    if any(isinstance(k, np.ndarray) and k.dtype != bool for k in key):
        # with repeated indices NumPy's winner is the last; only compare positions that
        # are written once
        b = a.copy()
        b[key] = 1
        cnt = np.zeros(a.size, int)
        flat = np.arange(a.size).reshape(shape)[key].ravel()
        np.add.at(cnt, flat, 1)
        once = (cnt <= 1).reshape(shape)
        np.testing.assert_array_equal(np.asarray(t)[once], exp[once])
    else:
        assert_close(t, exp)
    # scalar broadcast assignment
    exp2 = a.copy()
    exp2[key] = 5
    t2 = tf.asarray(a.copy())
    t2[key] = 5
    assert_close(t2, exp2)


def test_advanced_dims_placement():
    a = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)
    t = tf.asarray(a)
    i = np.array([[0, 1], [1, 0]])
    j = np.array([1, 2])
    for key in [(slice(None), i, j), (i, slice(None), j), (slice(None), i, slice(None), j),
                (Ellipsis, i, j), (0, slice(None), j), (slice(None), 1, j), (i, j),
                (None, slice(None), i, j), (slice(None), i, None, j)]:
        exp = a[key]
        got = t[key]
        assert got.shape == exp.shape, key
        assert_close(got, exp)


def test_index_errors():
    t = tf.ones((3, 4))
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
        t[3]
    with pytest.raises(IndexError, match="index -5 is out of bounds for axis 1 with size 4"):
        t[0, -5]
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 1 with size 4"):
        t[:, [0, 7]]
    with pytest.raises(IndexError, match="too many indices for a tensor of dimension 2"):
        t[0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        t[..., ...]
    with pytest.raises(IndexError, match=r"boolean index of shape \(2,\) does not match"):
        t[np.array([True, False])]
    with pytest.raises(IndexError, match=r"shape mismatch: indexing arrays could not be "
                       r"broadcast together with shapes \(2,\) \(3,\)"):
        t[[0, 1], [0, 1, 2]]
    with pytest.raises(IndexError, match="only integers, slices"):
        t[1.5]
    with pytest.raises(IndexError, match="only integers, slices"):
        t[np.array([0.5])]
    with pytest.raises(IndexError, match="out of bounds"):
        t[3] = 1.0


def test_bool_scalar_and_tensor_int_keys():
    a = np.arange(6.0).reshape(2, 3)
    t = tf.asarray(a)
    assert_close(t[True], a[True])
    assert_close(t[False], a[False])
    assert_close(t[tf.asarray(1)], a[1])
    assert_close(t[tf.asarray(np.int32(1)), tf.asarray(2)], a[1, 2])
    assert_close(t[np.int64(-1)], a[-1])
    assert_close(t[[]], a[[]])


def test_setitem_basic_cases_and_cast():
    a = np.zeros((3, 4), np.int32)
    t = tf.asarray(a.copy())
    t[1] = 5
    t[:, 2] = tf.asarray(np.array([7, 8, 9], np.int64))
    t[0, ::-1] = np.arange(4)
    t[2, 1:3] = 2.9  # unsafe cast, like NumPy's setitem
    a[1] = 5
    a[:, 2] = [7, 8, 9]
    a[0, ::-1] = np.arange(4)
    a[2, 1:3] = 2.9
    assert_close(t, a)
    with pytest.raises(ValueError, match=r"could not broadcast a value of shape \(2,\) into "
                       r"shape \(4,\)"):
        t[0] = tf.asarray(np.array([1, 2], np.int32))
    # overlapping self-assignment reads the old values
    f = np.arange(10.0)
    tt = tf.asarray(f.copy())
    tt[1:] = tt[:-1]
    f[1:] = f[:-1].copy()
    assert_close(tt, f)


def test_setitem_advanced_and_mask():
    a = np.arange(12.0).reshape(3, 4)
    t = tf.asarray(a.copy())
    m = a > 5
    t[tf.asarray(m)] = 0.0
    a[m] = 0.0
    assert_close(t, a)
    t[[0, 2], [1, 3]] = tf.asarray(np.array([-1.0, -2.0]))
    a[[0, 2], [1, 3]] = [-1.0, -2.0]
    assert_close(t, a)
    t[:, [0, 0]] = 9.0
    a[:, [0, 0]] = 9.0
    assert_close(t, a)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "int64", "complex128", "bool"])
def test_setitem_vector_by_index_array(dtype):
    """x[idx] = v on a vector takes idx as the flat positions (no gather from an
    arange): duplicates (last write wins), negative and 2-D indices, int32 indices,
    broadcast and cast values, empty indices, and the same bounds errors as getitem."""
    rng = np.random.default_rng(7)
    a = random_array((50,), dtype, seed=4)
    cases = [
        (rng.integers(-50, 50, 200), random_array((200,), dtype, seed=5)),  # duplicates
        (np.array([[3, -1], [0, 3]]), random_array((2, 2), dtype, seed=6)),  # 2-D
        (np.array([4, 9, -2], np.int32), random_array((1,), dtype, seed=8)),  # broadcast
        (np.array([], np.int64), random_array((0,), dtype, seed=9)),
        ([1, 2, 1], 7),                                                    # list, scalar
    ]
    for idx, val in cases:
        t, want = tf.asarray(a.copy()), a.copy()
        key = tf.asarray(idx) if isinstance(idx, np.ndarray) else idx
        t[key] = tf.asarray(val) if isinstance(val, np.ndarray) else val
        want[idx] = val
        np.testing.assert_array_equal(np.asarray(t), want)
    t = tf.asarray(a.copy())
    view = tf.asarray(a.copy())[::-2]          # a strided vector: positions in the view
    want = a.copy()[::-2]
    view[tf.asarray([0, 3, -1])] = tf.asarray(a[:3])
    want[[0, 3, -1]] = a[:3]
    np.testing.assert_array_equal(np.asarray(view), want)
    with pytest.raises(IndexError, match="getitem: index 50 is out of bounds for axis 0 "
                                         "with size 50"):
        t[tf.asarray([0, 50])] = tf.asarray(a[:2])
    with pytest.raises(IndexError, match="getitem: index -51 is out of bounds"):
        t[[-51]] = 1
    np.testing.assert_array_equal(np.asarray(t), a)   # a failed write changes nothing


# -- take / take_along_axis / nonzero -------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_take(dtype):
    a = random_array((3, 4, 5), dtype, seed=3)
    t = tf.asarray(a)
    idx = np.array([[0, -1], [2, 1]])
    for axis in (None, 0, 1, -1):
        assert_close(tf.take(t, tf.asarray(idx), axis=axis), np.take(a, idx, axis=axis))
    assert_close(t.take([3, 0], axis=1), np.take(a, [3, 0], axis=1))
    assert_close(tf.take(t, 2, axis=0), np.take(a, 2, axis=0))
    assert_close(tf.take(t, np.array([], np.int64), axis=1), np.take(a, [], axis=1))


def test_take_errors():
    t = tf.ones((3, 4))
    with pytest.raises(IndexError, match="take: index 4 is out of bounds for axis 1 with size 4"):
        tf.take(t, [0, 4], axis=1)
    with pytest.raises(IndexError, match="take: index -13 is out of bounds"):
        tf.take(t, [-13])
    with pytest.raises(IndexError, match="take: indices must be integers, got dtype float64"):
        tf.take(t, [0.5])
    with pytest.raises(IndexError, match="take: boolean indices are not allowed"):
        tf.take(t, [True, False])
    with pytest.raises(tf.AxisError, match="take: axis 2 is out of bounds"):
        tf.take(t, [0], axis=2)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_take_along_axis(layout):
    a = random_array((4, 5), "float64", seed=4)
    t = make_layout(a, layout)
    v = layout_values(a, layout)
    for axis in (0, 1, -1):
        idx = np.argsort(v, axis=axis)
        assert_close(tf.take_along_axis(t, tf.asarray(idx), axis), np.take_along_axis(v, idx, axis))
    idx = np.array([[0], [3], [-1], [2]])
    assert_close(tf.take_along_axis(t, idx, 1), np.take_along_axis(v, idx, 1))
    # broadcasting of the non-axis dims
    idx = np.array([[1, 2, 0]])
    assert_close(tf.take_along_axis(t, idx, 1), np.take_along_axis(v, idx, 1))
    assert_close(tf.take_along_axis(t, np.array([4, 0]), None),
                 np.take_along_axis(v, np.array([4, 0]), None))
    with pytest.raises(ValueError, match="take_along_axis: indices and x must have the same "
                       "number of dimensions"):
        tf.take_along_axis(t, np.array([0]), 1)
    with pytest.raises(IndexError, match="out of bounds"):
        tf.take_along_axis(t, np.array([[5]]), 1)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_nonzero_argwhere_count_nonzero(dtype):
    a = random_array((3, 4, 2), dtype, "small", seed=5)
    t = tf.asarray(a)
    got = tf.nonzero(t)
    exp = np.nonzero(a)
    assert len(got) == len(exp)
    for g, e in zip(got, exp):
        assert_close(g, e.astype(np.int64))
    assert_close(tf.argwhere(t), np.argwhere(a).astype(np.int64))
    assert_close(tf.count_nonzero(t), np.int64(np.count_nonzero(a)), check_dtype=False)
    assert_close(tf.count_nonzero(t, axis=1), np.count_nonzero(a, axis=1), check_dtype=False)
    z = np.zeros((2, 3), dtype)
    assert_close(tf.argwhere(tf.asarray(z)), np.argwhere(z).astype(np.int64))
    assert_close(tf.nonzero(tf.asarray(z))[1], np.nonzero(z)[1].astype(np.int64))
    assert_close(tf.nonzero(make_layout(a, "negstride"))[0], np.nonzero(a)[0].astype(np.int64))


def test_nonzero_0d_error():
    with pytest.raises(ValueError, match="nonzero: 0-d tensors are not supported"):
        tf.nonzero(tf.asarray(1.0))


# -- joining ----------------------------------------------------------------------------------

def test_concatenate_and_stack():
    a = random_array((2, 3), "int32", seed=6)
    b = random_array((4, 3), "float32", seed=7)
    c = random_array((2, 3), "bool", seed=8)
    assert_close(tf.concatenate([tf.asarray(a), tf.asarray(b)]), np.concatenate([a, b]))
    assert_close(tf.concatenate([tf.asarray(a), tf.asarray(c)], axis=1),
                 np.concatenate([a, c], axis=1))
    assert_close(tf.concatenate([tf.asarray(a), tf.asarray(b.T[:, :2].T)], axis=None),
                 np.concatenate([a, b.T[:, :2].T], axis=None))
    assert_close(tf.concatenate([tf.asarray(a)], axis=0), a)
    assert_close(tf.concatenate([tf.asarray(a), b[:2]], axis=-1, dtype=tf.complex128),
                 np.concatenate([a, b[:2]], axis=-1, dtype=np.complex128))
    for axis in (0, 1, 2, -1, -3):
        assert_close(tf.stack([tf.asarray(a), tf.asarray(c), tf.asarray(a)], axis=axis),
                     np.stack([a, c, a], axis=axis))
    for lay in LAYOUTS:
        x = make_layout(b, lay)
        v = layout_values(b, lay)
        assert_close(tf.concatenate([x, x], axis=1), np.concatenate([v, v], axis=1))
    e = np.zeros((0, 3), np.float64)
    assert_close(tf.concatenate([tf.asarray(e), tf.asarray(a)]), np.concatenate([e, a]))


def test_concatenate_errors():
    a, b = tf.ones((2, 3)), tf.ones((2, 4))
    with pytest.raises(ValueError, match=r"concatenate: sizes must match except along axis 0; "
                       r"tensor 0 has shape \(2, 3\) and tensor 1 has shape \(2, 4\)"):
        tf.concatenate([a, b])
    with pytest.raises(ValueError, match="concatenate: all tensors must have the same number "
                       "of dimensions; tensor 0 has 2 and tensor 1 has 1"):
        tf.concatenate([a, tf.ones(3)])
    with pytest.raises(ValueError, match="need at least one tensor"):
        tf.concatenate([])
    with pytest.raises(ValueError, match="zero-dimensional tensors cannot be concatenated"):
        tf.concatenate([tf.asarray(1.0), tf.asarray(2.0)])
    with pytest.raises(tf.AxisError, match="concatenate: axis 2 is out of bounds"):
        tf.concatenate([a, a], axis=2)
    with pytest.raises(ValueError, match=r"stack: all tensors must have the same shape; tensor 0 "
                       r"has shape \(2, 3\) and tensor 1 has shape \(2, 4\)"):
        tf.stack([a, b])
    with pytest.raises(tf.AxisError, match="stack: axis 3 is out of bounds"):
        tf.stack([a, a], axis=3)


PAD_MODES = ["constant", "edge", "reflect", "symmetric", "wrap"]


@pytest.mark.parametrize("mode", PAD_MODES)
@pytest.mark.parametrize("widths", [1, (2, 0), ((0, 1), (3, 2)), ((7, 9), (1, 11)),
                                    ((0, 0), (0, 0))])
def test_pad_vs_numpy(mode, widths):
    a = random_array((3, 4), "float64", seed=9)
    kw = {"constant_values": 2.5} if mode == "constant" else {}
    assert_close(tf.pad(tf.asarray(a), widths, mode=mode, **kw), np.pad(a, widths, mode=mode, **kw))
    i = random_array((5,), "int32", seed=10)
    assert_close(tf.pad(tf.asarray(i), (4, 13), mode=mode), np.pad(i, (4, 13), mode=mode))
    one = np.array([[3.0]])
    assert_close(tf.pad(tf.asarray(one), 3, mode=mode), np.pad(one, 3, mode=mode))
    t = make_layout(a, "negstride")
    assert_close(tf.pad(t, ((1, 2), (5, 0)), mode=mode), np.pad(a, ((1, 2), (5, 0)), mode=mode))


def test_pad_errors():
    t = tf.ones((2, 3))
    with pytest.raises(ValueError, match="pad: mode 'median' is not supported"):
        tf.pad(t, 1, mode="median")
    with pytest.raises(ValueError, match="pad: pad widths must be non-negative"):
        tf.pad(t, -1)
    with pytest.raises(ValueError, match=r"pad: pad_width .* cannot be broadcast to \(2, 2\)"):
        tf.pad(t, ((1, 2, 3),))
    with pytest.raises(ValueError, match="can't extend empty axis 0 using mode 'edge'"):
        tf.pad(tf.ones((0, 3)), 1, mode="edge")
    assert_close(tf.pad(tf.ones((0, 3)), 1), np.pad(np.ones((0, 3)), 1))


def test_flip_vs_numpy():
    a = random_array((2, 3, 4), "complex64", seed=11)
    t = tf.asarray(a)
    for axis in (None, 0, -1, (0, 2)):
        assert_close(tf.flip(t, axis), np.flip(a, axis))
    assert_close(tf.flip(tf.flip(t, 1), 1), a)
    with pytest.raises(tf.AxisError, match="flip: axis 3 is out of bounds"):
        tf.flip(t, 3)


@pytest.mark.parametrize("k", [-5, -1, 0, 1, 2, 7])
@pytest.mark.parametrize("dtype", ["bool", "int32", "float32", "complex128"])
def test_tril_triu_diag(k, dtype):
    a = random_array((2, 4, 5), dtype, seed=12)
    t = tf.asarray(a)
    assert_close(tf.tril(t, k), np.tril(a, k))
    assert_close(tf.triu(t, k), np.triu(a, k))
    m = a[0]
    assert_close(tf.diag(tf.asarray(m), k), np.diag(m, k))
    v = random_array((3,), dtype, seed=13)
    assert_close(tf.diag(tf.asarray(v), k), np.diag(v, k))
    assert_close(tf.diag(tf.asarray(v[:0]), k), np.diag(v[:0], k))


def test_tri_diag_errors():
    with pytest.raises(ValueError, match=r"tril: expected a tensor with at least 2 dimensions, "
                       r"got shape \(3,\)"):
        tf.tril(tf.ones(3))
    with pytest.raises(ValueError, match=r"diag: expected a 1-D or 2-D tensor, got shape"):
        tf.diag(tf.ones((2, 2, 2)))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_indexing_on_layouts(layout):
    a = random_array((4, 6), "float64", seed=14)
    t = make_layout(a, layout)
    v = layout_values(a, layout)
    keys = [(np.array([0, 2, 3]), np.array([1, 5, 0])), (slice(None, None, -1), [4, 0]),
            (v > 0.5,), (1, slice(1, None, 2)), (Ellipsis, -1), ([[1], [3]], [0, 2, 4])]
    for key in keys:
        assert_close(t[key], v[key])
    if layout == "broadcast":
        return  # read-only
    for key in keys:
        val = -np.arange(v[key].size, dtype=np.float64).reshape(v[key].shape)
        t[key] = tf.asarray(val)
        v[key] = val
        assert_close(t, v)


def test_scatter_add_public_api():
    idx = np.array([0, 0, 2])
    vals = np.arange(6.0).reshape(3, 2)
    want = np.zeros((3, 2))
    np.add.at(want, idx, vals)
    np.testing.assert_array_equal(tf.scatter_add((3, 2), list(idx), vals, 0).numpy(), want)
    np.testing.assert_array_equal(tf.scatter_add((2, 3), idx, vals.T, -1).numpy(), want.T)
    want2 = np.zeros((2, 3))
    np.add.at(want2, (np.array([[0, 0], [1, 1]]), np.array([[0, 0], [2, 1]])), 1.0)
    np.testing.assert_array_equal(
        tf.scatter_add_along_axis((2, 3), [[0, 0], [2, 1]], 1.0, -1).numpy(), want2)
    with pytest.raises(IndexError, match="scatter_add: index 5 is out of bounds"):
        tf.scatter_add((3,), [5], tf.ones(1), 0)
    with pytest.raises(ValueError, match=r"scatter_add: .*\(2,\)"):
        tf.scatter_add((3,), [0, 1, 2], tf.ones(2), 0)
    with pytest.raises(ValueError, match="do not match shape"):
        tf.scatter_add_along_axis((2, 3), [[0, 0]], 1.0, 1)
