"""Public indexing under tenferro.vmap with batched index tensors: ``x[i]``, ``x[i, j]``,
``x[:, i]``, ``take``, ``take_along_axis``, ``scatter_add``, boolean masks and
``nonzero``, ``searchsorted`` with batched sorted arrays; against a Python loop of the
same function and NumPy, real and complex, int32/int64 and negative indices, the
bounds error of eager under vmap, empty and one-example batches, nested vmap, and
composed with grad, jvp and jit."""
import numpy as np
import pytest

import tenferro as tf

from test_vmap import _t as _x

B = 3
RNG = np.random.default_rng(20)


def _i(lo, hi, *shape, dtype="int64"):
    return tf.asarray(RNG.integers(lo, hi, size=shape).astype(dtype))


def _leaves(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def check(fn, args, in_axes=0, out_axes=0, **kw):
    """vmap(fn) equals stacking fn over the examples (every output)."""
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    size = next(a.shape[ax] for a, ax in zip(args, axes) if ax is not None)
    got = _leaves(tf.vmap(fn, in_axes=in_axes, out_axes=out_axes, **kw)(*args))
    per = [_leaves(fn(*[a if ax is None else tf.take(a, k, axis=ax)
                        for a, ax in zip(args, axes)])) for k in range(size)]
    for n, g in enumerate(got):
        want = np.moveaxis(np.stack([p[n].numpy() for p in per]), 0, out_axes) if size else None
        if want is None:
            assert g.shape[0] == 0
            continue
        assert g.shape == want.shape and g.dtype == want.dtype, (n, g.shape, want.shape)
        np.testing.assert_array_equal(g.numpy(), want, err_msg=str(n))
    return got


# -- getitem -------------------------------------------------------------------------

KEYS = [
    ("x[i]", lambda x, i, j: x[i]),
    ("x[i, j]", lambda x, i, j: x[i, j]),
    ("x[:, i]", lambda x, i, j: x[:, i]),
    ("x[i, :, j]", lambda x, i, j: x[i, :, j]),         # not adjacent: result axes first
    ("x[..., j]", lambda x, i, j: x[..., j]),
    ("x[None, 1:, i]", lambda x, i, j: x[None, 1:, i]),
    ("x[1, i]", lambda x, i, j: x[1, i]),
    ("x[i, 0, j]", lambda x, i, j: x[i, 0, j]),
]


@pytest.mark.parametrize("name, fn", KEYS, ids=[k[0] for k in KEYS])
@pytest.mark.parametrize("dt, it", [("float64", "int64"), ("complex128", "int32")])
def test_getitem_every_batching(name, fn, dt, it):
    """Every combination of batched and shared x and indices, negative indices among
    them; the results are NumPy's."""
    x = _x(B, 3, 5, 5, dtype=dt)
    i, j = _i(-3, 3, B, 2, 3, dtype=it), _i(-5, 5, B, 3, dtype=it)
    for axes in [(0, 0, 0), (None, 0, 0), (0, None, 0), (0, 0, None), (None, None, 0)]:
        args = [x[0] if axes[0] is None else x, i[0] if axes[1] is None else i,
                j[0] if axes[2] is None else j]
        got = check(fn, args, axes)[0]
        want = [fn(args[0].numpy() if axes[0] is None else args[0].numpy()[k],
                   *[a.numpy() if ax is None else a.numpy()[k]
                     for a, ax in zip(args[1:], axes[1:])]) for k in range(B)]
        np.testing.assert_array_equal(got.numpy(), np.stack(want))


def test_getitem_in_axes_and_out_axes():
    x = _x(3, B, 4)                       # the batch along axis 1
    i = _i(0, 4, 5, B)                    # indices: the batch along axis 1
    check(lambda x, i: x[:, i], [x, i], (1, 1))
    check(lambda x, i: x[:, i], [x, i], (1, -1), out_axes=-1)


def test_zero_d_batched_index_is_an_integer():
    """One index per example (each a 0-d tensor): x[i] is each example's row, as an
    integer index gives."""
    x, i = _x(B, 4, 4), tf.asarray(np.array([3, -1, 0]))
    got = check(lambda x, i: x[i], [x, i])[0]
    np.testing.assert_array_equal(got.numpy(), x.numpy()[np.arange(B), [3, 3, 0]])
    got = check(lambda x, i: x[:, i], [x[0], i], (None, 0))[0]
    assert got.shape == (B, 4)


@pytest.mark.parametrize("op", ["getitem", "take", "take_along_axis", "scatter_add"])
def test_out_of_bounds_under_vmap_is_eagers_error(op):
    """An index out of range in any example raises eager's IndexError (naming the op,
    the index and the axis size); negative ones down to -n are in range."""
    x = _x(B, 4)
    i = tf.asarray(np.array([[0, -4], [1, 2], [3, 7]]))
    fns = {"getitem": lambda x, i: x[i],
           "take": lambda x, i: tf.take(x, i),
           "take_along_axis": lambda x, i: tf.take_along_axis(x, i, axis=0),
           "scatter_add": lambda x, i: tf.scatter_add((4,), i, x[:2], axis=0)}
    with pytest.raises(IndexError, match="tenferro.%s: index 7 is out of bounds for axis 0 "
                       "with size 4" % op) as vm:
        tf.vmap(fns[op])(x, i)
    with pytest.raises(IndexError) as eager:
        fns[op](x[2], i[2])
    assert str(vm.value) == str(eager.value)
    with pytest.raises(IndexError, match="index -8 is out of bounds"):
        tf.vmap(fns[op])(x, i - 4)


# -- take, take_along_axis, scatters -------------------------------------------------

@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("dt", ["float32", "complex64"])
def test_take(axis, dt):
    x = _x(B, 3, 4, dtype=dt)
    i = _i(-3, 3, B, 2, 2, dtype="int32")
    for axes in [(0, 0), (None, 0), (0, None), (2, 1)]:
        xa = x if axes[0] is not None else x[0]
        xa = tf.moveaxis(xa, 0, 2) if axes[0] == 2 else xa
        ia = i if axes[1] is not None else i[0]
        ia = tf.moveaxis(ia, 0, 1) if axes[1] == 1 else ia
        check(lambda x, i: tf.take(x, i, axis=axis), [xa, ia], axes)


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_take_along_axis(axis):
    x = _x(B, 3, 4, dtype="complex128")
    i = _i(-3, 3, B, 3, 4) if axis is not None else _i(-12, 12, B, 5)
    for axes in [(0, 0), (None, 0), (0, None)]:
        xa, ia = (x if axes[0] == 0 else x[0]), (i if axes[1] == 0 else i[0])
        check(lambda x, i: tf.take_along_axis(x, i, axis=axis), [xa, ia], axes)
    x2 = _x(B, 3, 4)   # broadcasting index
    check(lambda x, i: tf.take_along_axis(x, i, axis=1), [x2, _i(0, 4, B, 1, 2)])


def test_scatter_add_batched_indices():
    v, i = _x(B, 2, 5, dtype="complex128"), _i(-3, 3, B, 5)
    for axes in [(0, 0), (None, 0), (0, None)]:
        va, ia = (v if axes[0] == 0 else v[0]), (i if axes[1] == 0 else i[0])
        check(lambda v, i: tf.scatter_add((2, 3), i, v, axis=1), [va, ia], axes)
    ii = _i(0, 3, B, 2, 4)
    check(lambda v, i: tf.scatter_add_along_axis((2, 3), i, v, axis=1), [_x(B, 2, 4), ii])
    check(lambda v, i: tf.scatter_add_along_axis((2, 3), i, v, axis=1), [_x(B, 1, 1), ii])


def test_setitem_on_a_batched_index_raises():
    """In-place writes cannot be batched (as under grad and jit): build a new tensor."""
    def f(i):
        y = tf.zeros(4)
        y[i] = 1.0
        return y

    with pytest.raises(RuntimeError, match="in-place"):
        tf.vmap(f)(tf.asarray([0, 1, 2]))
    # the functional form: a scatter
    got = tf.vmap(lambda i: tf.scatter_add((4,), i, tf.ones(()), axis=0))(tf.asarray([0, 3, 3]))
    np.testing.assert_array_equal(got.numpy(), np.eye(4)[[0, 3, 3]])


# -- boolean masks, nonzero ----------------------------------------------------------

def test_mask_with_equal_counts_is_one_nonzero():
    x = _x(B, 4, 3)
    m = tf.asarray(np.array([[[1, 0, 1]] * 4, [[0, 1, 1]] * 4, [[1, 1, 0]] * 4], bool))
    check(lambda x, m: x[m], [x, m])
    check(lambda x, m: x[:, m[0]], [x, m])
    check(lambda x, m: x[m], [x[0], m], (None, 0))
    check(lambda m: tf.nonzero(m) + (tf.argwhere(m), tf.flatnonzero(m)), [m])
    # x[True] (a 0-d mask per example) adds an axis of one
    check(lambda x, m: x[m], [x, tf.asarray([True] * B)])
    check(lambda x, m: x[m], [x, tf.asarray([False] * B)])


def test_mask_with_unequal_counts_raises():
    """The result's size would differ between examples: JAX's refusal, with the counts."""
    x = tf.asarray(np.arange(12.0).reshape(3, 4))
    with pytest.raises(IndexError, match="tenferro.vmap: nonzero .* have 0 and 4"):
        tf.vmap(lambda x: x[x > 3.5])(x)
    with pytest.raises(IndexError, match="have 0 and 1"):
        tf.vmap(lambda x, m: x[m])(x, tf.asarray([True, False, True]))


def test_mask_in_nested_vmap_and_empty_batches():
    m = tf.asarray(np.tile(np.array([1, 0, 1, 1], bool), (2, B, 1)))
    got = tf.vmap(tf.vmap(tf.nonzero))(m)[0]
    np.testing.assert_array_equal(got.numpy(), np.broadcast_to([0, 2, 3], (2, B, 3)))
    assert tf.vmap(lambda m: tf.argwhere(m))(m[0, :0]).shape == (0, 0, 1)


# -- searchsorted --------------------------------------------------------------------

def _sorted_rows(dt, n=7):
    if dt == "bool":
        return np.sort(RNG.integers(0, 2, size=(B, n)).astype(bool), axis=-1)
    v = RNG.integers(-4, 4, size=(B, n)).astype(dt)
    if np.dtype(dt).kind == "f":
        v[:, -2:] = np.nan
    if np.dtype(dt).kind == "c":   # (NaN real part, NaN imaginary part, both)
        v = v + 1j * RNG.integers(-2, 2, size=(B, n))
        v[:, -3:] = [complex(1, np.nan), complex(np.nan, 0), complex(np.nan, np.nan)]
    return np.sort(v, axis=-1)


@pytest.mark.parametrize("dt", ["float64", "float32", "complex128", "int32", "int64", "bool"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_batched_sorted_array(dt, side):
    """A batched sorted array (NaN last, complex lexicographic with NumPy's NaN rules):
    the insertion points of np.searchsorted, row by row, for batched and shared
    queries, without a loop."""
    a = _sorted_rows(dt)
    v = np.concatenate([a[:, ::2], _sorted_rows(dt, 5)], axis=1)[:, :, None]
    if dt not in ("bool",):
        v[0, 0, 0] = a.dtype.type(100) if np.dtype(dt).kind != "c" else 100 + 0j
    want = np.stack([np.searchsorted(a[k], v[k], side=side) for k in range(B)])
    fn = lambda a, v: tf.searchsorted(a, v, side=side)   # noqa: E731
    got = tf.vmap(fn)(tf.asarray(a), tf.asarray(v))
    np.testing.assert_array_equal(got.numpy(), want)
    got = tf.vmap(fn, in_axes=(0, None))(tf.asarray(a), tf.asarray(v[1]))
    np.testing.assert_array_equal(got.numpy(),
                                  [np.searchsorted(a[k], v[1], side=side) for k in range(B)])


def test_searchsorted_batched_edges():
    fn = tf.searchsorted
    check(fn, [tf.zeros((B, 0)), _x(B, 4)])                      # nothing to search in
    check(fn, [tf.asarray(np.sort(RNG.normal(size=(B, 1)))), _x(B, 4)])
    check(fn, [tf.asarray(np.sort(RNG.normal(size=(B, 9)))), _x(B, 0)])
    check(fn, [tf.asarray(np.sort(RNG.normal(size=(B, 9)))), _x(B)])   # 0-d queries
    check(fn, [tf.zeros((0, 5)), _x(0, 4)])
    a = _x(B, 6)
    check(lambda a, s, v: tf.searchsorted(a, v, sorter=s), [a, tf.argsort(a, axis=1), _x(B, 3)])
    # nested: a batch of batches
    a2 = tf.asarray(np.sort(RNG.normal(size=(2, B, 8)), axis=-1))
    got = tf.vmap(tf.vmap(fn))(a2, _x(2, B, 4))
    assert got.shape == (2, B, 4)


def test_searchsorted_batched_is_one_program():
    """Batched sorted arrays take no per-example loop: the jitted program's node count
    does not grow with the batch."""
    def nodes(b):
        a, v = tf.TensorSpec((b, 16), "float64"), tf.TensorSpec((b, 5), "float64")
        return len(tf.make_graph(tf.vmap(tf.searchsorted), a, v).nodes)
    assert nodes(2) == nodes(50)


# -- nested, sizes, composition --------------------------------------------------------

def test_nested_vmap():
    x, i = _x(2, B, 5, 5), _i(-5, 5, 2, B, 3)
    got = tf.vmap(tf.vmap(lambda x, i: x[i]))(x, i)
    xn, inn = x.numpy(), i.numpy()
    np.testing.assert_array_equal(
        got.numpy(), [[xn[a, b][inn[a, b]] for b in range(B)] for a in range(2)])
    got = tf.vmap(tf.vmap(lambda x, i: x[:, i], in_axes=(None, 0)), in_axes=(0, 1))(
        x[:, 0], tf.moveaxis(i, 0, 1))                    # i's outer batch along its axis 1
    np.testing.assert_array_equal(
        got.numpy(), [[xn[a, 0][:, inn[a, b]] for b in range(B)] for a in range(2)])
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 5"):
        tf.vmap(tf.vmap(lambda x, i: x[i]))(x, tf.asarray(np.where(inn == inn[1, 2, 0], 5, inn)))


@pytest.mark.parametrize("size", [0, 1])
def test_empty_and_one_example_batches(size):
    x, i = _x(size, 4, 3), _i(-3, 3, size, 2)
    for fn in (lambda x, i: x[i], lambda x, i: x[:, i[0]], lambda x, i: tf.take(x, i, 1),
               lambda x, i: tf.take_along_axis(x, i[:, None], 0)):
        check(fn, [x, i])
        check(fn, [x[0] if size else tf.zeros((4, 3)), i], (None, 0))


@pytest.mark.parametrize("dt", ["float64", "complex128"])
def test_vmap_of_grad_and_grad_of_vmap(dt):
    x, i = _x(B, 5, dtype=dt), _i(-5, 5, B, 4)

    def loss(x, i):
        return tf.sum(tf.abs(x[i]) ** 2) + tf.real(tf.sum(tf.take(x, i[:2]) ** 3))

    got = tf.vmap(tf.grad(loss))(x, i)
    want = np.stack([tf.grad(loss)(x[k], i[k]).numpy() for k in range(B)])
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    total = tf.grad(lambda x: tf.sum(tf.vmap(loss)(x, i)))(x)
    np.testing.assert_allclose(total.numpy(), want, rtol=1e-12)
    assert tf.autograd.gradcheck(lambda x: tf.vmap(loss)(x, i), (x,))
    # per-example gradients with the data shared and the indices batched
    g = tf.vmap(tf.grad(loss), in_axes=(None, 0))(x[0], i)
    np.testing.assert_allclose(
        g.numpy(), [tf.grad(loss)(x[0], i[k]).numpy() for k in range(B)], rtol=1e-12)


def test_jvp_and_grad_through_masks_and_sorted_gathers():
    x, t, i = _x(B, 6), _x(B, 6), _i(0, 6, B, 6)
    f = lambda x, i: tf.take_along_axis(x, i, axis=0) * x[i]   # noqa: E731
    out, tan = tf.vmap(lambda x, t, i: tf.jvp(lambda x: f(x, i), (x,), (t,)))(x, t, i)
    for k in range(B):
        o, tk = tf.jvp(lambda x: f(x, i[k]), (x[k],), (t[k],))
        np.testing.assert_allclose(out[k].numpy(), o.numpy())
        np.testing.assert_allclose(tan[k].numpy(), tk.numpy())
    m = tf.asarray(np.array([[1, 0, 1, 0, 1, 1]] * B, bool))
    check(tf.grad(lambda x, m: tf.sum(x[m] ** 3)), [x, m])


def test_with_jit():
    """Indices known when jit traces (constants, vmap of them) work; traced indices raise
    jit's ConcretizationError, with vmap inside jit as without it."""
    x, i = _x(B, 5), _i(-5, 5, B, 2)
    got = tf.jit(lambda x: tf.vmap(lambda x, i: x[i])(x, i))(x)
    np.testing.assert_array_equal(got.numpy(), np.stack([x.numpy()[k][i.numpy()[k]]
                                                         for k in range(B)]))
    with pytest.raises(tf.ConcretizationError, match="make_graph: int\\(\\)") as plain:
        tf.jit(lambda x, i: x[i])(x[0], i[0])
    with pytest.raises(tf.ConcretizationError, match="make_graph: int\\(\\)") as batched:
        tf.jit(tf.vmap(lambda x, i: x[i]))(x, i)
    assert str(plain.value).split("(")[0] == str(batched.value).split("(")[0]
    with pytest.raises(tf.ConcretizationError, match="make_graph"):
        tf.vmap(tf.jit(lambda x, i: x[i]))(x, i)
    # searchsorted needs no host read: it compiles
    a = tf.asarray(np.sort(RNG.normal(size=(B, 8)), axis=-1))
    got = tf.jit(tf.vmap(tf.searchsorted))(a, x)
    np.testing.assert_array_equal(
        got.numpy(), [np.searchsorted(a.numpy()[k], x.numpy()[k]) for k in range(B)])


def test_on_every_device(device):
    """The rules and the bounds check are ops and bind: batched indexing runs where the
    ops do (the bisection of a batched searchsorted needs no searchsorted kernel)."""
    x = np.asarray(RNG.normal(size=(B, 6)), dtype="float32")
    i = RNG.integers(-6, 6, size=(B, 3))
    a = np.sort(np.asarray(RNG.normal(size=(B, 9)), dtype="float32"), axis=-1)
    a[:, -1] = np.nan
    m = np.array([[1, 0, 1, 0, 0, 1]] * B, bool)
    on = lambda v: tf.asarray(v, device=device)   # noqa: E731
    cases = [(lambda x, i: x[i], (x, i)), (lambda x, i: tf.take_along_axis(x, i, 0), (x, i)),
             (lambda x, m: x[m], (x, m)), (lambda a, v: tf.searchsorted(a, v), (a, x))]
    for fn, args in cases:
        got = tf.vmap(fn)(*[on(v) for v in args])
        assert got.device == device
        want = tf.vmap(fn)(*[tf.asarray(v) for v in args])
        np.testing.assert_array_equal(got.to("cpu").numpy(), want.numpy())
    with pytest.raises(IndexError, match="index 6 is out of bounds for axis 0 with size 6"):
        tf.vmap(lambda x, i: x[i])(on(x), on(np.where(i == i[1, 1], 6, i)))
