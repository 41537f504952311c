"""tenferro.vmap's API (JAX's jax.vmap): in_axes/out_axes (ints, negative, None, pytree
prefixes), keyword arguments, axis_size, size-0 and size-1 batches, nesting, the loop
fallback and the errors; tests/test_vmap_compose.py checks the compositions with the
transforms and tests/test_vmap_rules.py each primitive's rule."""
import numpy as np
import pytest

import tenferro as tf
from tenferro.autograd.extend import Primitive, def_batch_loop, def_impl

RNG = np.random.default_rng(0)


def _t(*shape, dtype="float64"):
    v = RNG.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        v = v + 1j * RNG.normal(size=shape)
    return tf.asarray(v.astype(dtype))


def f(x, y):
    return tf.sin(x) * y + tf.sum(x * x)


def _loop(fn, xs, ys):
    return np.stack([fn(tf.asarray(a), tf.asarray(b)).numpy() for a, b in zip(xs, ys)])


@pytest.mark.parametrize("ax, ay", [(0, 0), (1, 0), (-1, 1), (0, -2)])
def test_in_axes(ax, ay):
    xb, yb = _t(4, 5, 2), _t(4, 5, 2)   # the batch (4) first, moved to the mapped axes
    x, y = tf.moveaxis(xb, 0, ax), tf.moveaxis(yb, 0, ay)
    got = tf.vmap(f, in_axes=(ax, ay))(x, y)
    want = _loop(f, xb.numpy(), yb.numpy())
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_in_axes_none_and_list():
    x, y = _t(4, 5), _t(5)
    got = tf.vmap(f, in_axes=[0, None])(x, y)
    np.testing.assert_allclose(got.numpy(), _loop(f, x.numpy(), [y.numpy()] * 4), rtol=1e-12)


@pytest.mark.parametrize("out_axes", [0, 1, -1])
def test_out_axes(out_axes):
    x = _t(3, 4, 2)
    got = tf.vmap(lambda v: tf.exp(v), out_axes=out_axes)(x)
    np.testing.assert_allclose(got.numpy(), np.moveaxis(np.exp(x.numpy()), 0, out_axes))


def test_out_axes_none_for_an_unbatched_output():
    x, w = _t(3, 4), _t(4)
    out, same = tf.vmap(lambda v: (v * w, w + 1), out_axes=(0, None))(x)
    np.testing.assert_allclose(same.numpy(), w.numpy() + 1)
    assert out.shape == (3, 4)
    # an unbatched output with an int out_axes is broadcast along the batch
    b = tf.vmap(lambda v: w, out_axes=1)(x)
    np.testing.assert_allclose(b.numpy(), np.broadcast_to(w.numpy()[:, None], (4, 3)))


def test_pytrees():
    xs = {"a": _t(3, 2), "b": (_t(2, 3), _t(3))}
    c = _t(2)

    def g(d, c):
        return {"s": d["a"] * d["b"][0] + c, "t": [d["b"][1] * 2.0]}
    out = tf.vmap(g, in_axes=({"a": 0, "b": (1, 0)}, None), out_axes={"s": 1, "t": [0]})(xs, c)
    a, b0, b1 = xs["a"].numpy(), xs["b"][0].numpy(), xs["b"][1].numpy()
    np.testing.assert_allclose(out["s"].numpy(), (a * b0.T + c.numpy()).T)
    np.testing.assert_allclose(out["t"][0].numpy(), 2 * b1)
    # an int applies to a whole subtree; a dict prefix whose keys differ is refused
    out2 = tf.vmap(lambda d: d["a"] + d["b"][1], in_axes=({"a": 0, "b": 0},))(
        {"a": xs["a"], "b": (xs["a"], xs["b"][1])})
    np.testing.assert_allclose(out2.numpy(), a + b1[:, None])
    with pytest.raises(ValueError, match="keys"):
        tf.vmap(g, in_axes=({"a": 0}, None))(xs, c)
    with pytest.raises(ValueError, match="tree prefix"):
        tf.vmap(g, in_axes=((0, 0), None))(xs, c)


def test_kwargs_are_mapped_along_axis_0():
    x, y = _t(3, 2), _t(3, 2)
    got = tf.vmap(lambda x, y: x * y)(x, y=y)
    np.testing.assert_allclose(got.numpy(), x.numpy() * y.numpy())


def test_numpy_arrays_and_scalars():
    got = tf.vmap(lambda a, s: a * s, in_axes=(0, None))(np.arange(6.0).reshape(3, 2), 2.0)
    np.testing.assert_allclose(got.numpy(), 2 * np.arange(6.0).reshape(3, 2))


def test_axis_size():
    w = _t(2)
    out = tf.vmap(lambda w: w * 2.0, in_axes=None, axis_size=4)(w)
    np.testing.assert_allclose(out.numpy(), np.broadcast_to(2 * w.numpy(), (4, 2)))
    with pytest.raises(ValueError, match="axis_size"):
        tf.vmap(lambda w: w, in_axes=None)(w)


@pytest.mark.parametrize("n", [0, 1])
def test_size_0_and_1(n):
    x, m = _t(n, 3, 3), _t(3, 3)
    got = tf.vmap(lambda a: tf.linalg.det(a @ m + 3 * tf.eye(3)) * tf.sum(a, axis=0))(x)
    assert got.shape == (n, 3)
    want = [np.linalg.det(a @ m.numpy() + 3 * np.eye(3)) * a.sum(0) for a in x.numpy()]
    np.testing.assert_allclose(got.numpy(), np.array(want).reshape(n, 3), rtol=1e-12)


def test_nested():
    x, y = _t(3, 2), _t(4, 2)
    d = tf.vmap(tf.vmap(lambda a, b: tf.sum((a - b) ** 2), (None, 0)), (0, None))(x, y)
    want = ((x.numpy()[:, None] - y.numpy()[None]) ** 2).sum(-1)
    np.testing.assert_allclose(d.numpy(), want, rtol=1e-12)
    # inner over axis 1, outer over axis 0 of one 3-d tensor
    z = _t(2, 3, 4)
    got = tf.vmap(tf.vmap(lambda v: tf.cumsum(v), in_axes=1, out_axes=1))(z)
    np.testing.assert_allclose(got.numpy(), np.cumsum(z.numpy(), axis=1))


def test_inconsistent_sizes_name_the_arguments():
    with pytest.raises(ValueError) as e:
        tf.vmap(lambda a, d: a + d["k"], in_axes=(0, {"k": 1}))(_t(3), {"k": _t(2, 5)})
    msg = str(e.value)
    assert "args[0]" in msg and "size 3" in msg and "args[1]['k']" in msg and "size 5" in msg
    with pytest.raises(ValueError, match="axis_size=4"):
        tf.vmap(lambda a: a, axis_size=4)(_t(3))


def test_axis_errors():
    with pytest.raises(ValueError, match="out of range"):
        tf.vmap(lambda a: a, in_axes=2)(_t(3, 2))
    with pytest.raises(ValueError, match="out of range"):
        tf.vmap(lambda a: a, in_axes=0)(2.0)
    with pytest.raises(ValueError, match="out of range"):
        tf.vmap(lambda a: a, out_axes=-3)(_t(3))
    with pytest.raises(ValueError, match=r"out_axes is None for output, but"):
        tf.vmap(lambda a: a, out_axes=None)(_t(3))
    with pytest.raises(ValueError, match=r"out_axes is None for output\[1\], but"):
        tf.vmap(lambda a: (a, a), out_axes=(0, None))(_t(3))
    with pytest.raises(ValueError, match="length 1"):
        tf.vmap(f, in_axes=(0,))(_t(3), _t(3))
    with pytest.raises(TypeError, match="in_axes must be an int"):
        tf.vmap(f, in_axes="0")
    with pytest.raises(TypeError, match="expected a function"):
        tf.vmap(3)
    with pytest.raises(ValueError, match="fallback"):
        tf.vmap(f, fallback="python")


def test_host_reads_raise():
    with pytest.raises(tf.ConcretizationError, match="vmap: float"):
        tf.vmap(lambda a: float(a[0]))(_t(3, 2))
    with pytest.raises(tf.ConcretizationError, match="vmap"):
        tf.vmap(lambda a: a if bool(a.sum() > 0) else -a)(_t(3, 2))


# a primitive without a batching rule: raises naming it, or loops when asked to
_plus_p = Primitive("_test_vmap_plus_one", lambda x: x)
def_impl(_plus_p, "cpu", lambda x: x + 1.0)


def test_missing_rule_raises_naming_the_primitive():
    with pytest.raises(NotImplementedError, match="'_test_vmap_plus_one' has no batching rule"):
        tf.vmap(lambda a: _plus_p.bind(a))(_t(3, 2))


def test_loop_fallback_and_loop_only():
    x = _t(3, 2)
    np.testing.assert_allclose(tf.vmap(lambda a: _plus_p.bind(a), fallback="loop")(x).numpy(),
                               x.numpy() + 1)
    assert tf.vmap(lambda a: _plus_p.bind(a), fallback="loop")(_t(0, 2)).shape == (0, 2)
    loop_p = Primitive("_test_vmap_loop_only", lambda x: x)
    def_impl(loop_p, "cpu", lambda x: x * 2.0)
    def_batch_loop(loop_p)
    np.testing.assert_allclose(tf.vmap(lambda a: loop_p.bind(a))(x).numpy(), 2 * x.numpy())


def test_random_draws_are_shared_by_the_batch():
    """As JAX with an unbatched key: a draw inside vmap is one draw, the same for every
    example (docs/vmap.md)."""
    out = tf.vmap(lambda a: a + tf.random.normal(size=(2,)))(tf.zeros((3, 2)))
    np.testing.assert_allclose(out.numpy()[0], out.numpy()[1])


def test_a_leaked_tracer_is_reported():
    leak = []
    tf.vmap(lambda a: leak.append(a) or a)(_t(3))
    with pytest.raises(RuntimeError, match="vmap"):
        tf.sin(leak[0])


def test_docs_example():
    """docs/vmap.md's examples run as written."""
    import os
    import re

    doc = open(os.path.join(os.path.dirname(__file__), os.pardir, "docs", "vmap.md")).read()
    blocks = re.findall(r"```python\n(.*?)```", doc, re.S)
    assert len(blocks) >= 3
    ns = {}
    for block in blocks:
        exec(compile(block, "docs/vmap.md", "exec"), ns)


def test_kernel_errors_name_the_example():
    a = tf.asarray(np.stack([np.eye(3), np.zeros((3, 3))]))
    with pytest.raises(tf.LinAlgError, match="matrix 1 of the batch is singular"):
        tf.vmap(tf.linalg.solve)(a, tf.ones((2, 3)))
