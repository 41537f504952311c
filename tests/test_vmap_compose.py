"""tenferro.vmap composed with grad, jvp, vjp, jacfwd/jacrev, jit and checkpoint, in
both orders, real and complex: against a Python loop of the same transform, and
(gradcheck) against finite differences."""
import numpy as np
import pytest

import tenferro as tf

from test_vmap import _t

B = 4


def loss(x, w):
    """A real scalar of a vector x and a matrix w (complex allowed)."""
    h = tf.tanh(w @ x) if x.dtype.kind == "f" else tf.sin(w @ x)
    return tf.sum(tf.abs(h) ** 2) + tf.real(tf.sum(x * tf.conj(x))) * 0.5


def _stack(results):
    return np.stack([r.numpy() for r in results])


DTYPES = ["float64", "complex128"]


@pytest.mark.parametrize("dt", DTYPES)
def test_vmap_of_grad_is_per_example_gradients(dt):
    xs, w = _t(B, 3, dtype=dt), _t(2, 3, dtype=dt)
    got = tf.vmap(tf.grad(loss), in_axes=(0, None))(xs, w)
    want = _stack([tf.grad(loss)(x, w) for x in xs])
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    # per-example gradients of a shared parameter
    gw = tf.vmap(tf.grad(loss, argnums=1), in_axes=(0, None))(xs, w)
    np.testing.assert_allclose(gw.numpy(), _stack([tf.grad(loss, 1)(x, w) for x in xs]),
                               rtol=1e-12)


@pytest.mark.parametrize("dt", DTYPES)
def test_grad_of_vmap(dt):
    xs, w = _t(B, 3, dtype=dt), _t(2, 3, dtype=dt)
    g = tf.grad(lambda w: tf.sum(tf.vmap(loss, in_axes=(0, None))(xs, w)))(w)
    want = sum(tf.grad(loss, 1)(x, w).numpy() for x in xs)
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("dt", DTYPES)
def test_gradcheck_of_vmap(dt):
    """Forward and reverse mode through vmap, to order 2, against finite differences."""
    xs, w = _t(3, 3, dtype=dt), _t(2, 3, dtype=dt)
    assert tf.autograd.gradcheck(tf.vmap(loss, in_axes=(0, None)), (xs, w))
    assert tf.autograd.gradcheck(tf.vmap(lambda x, w: tf.exp(w @ x), in_axes=(1, None),
                                         out_axes=1), (xs, w))


@pytest.mark.parametrize("dt", DTYPES)
def test_jvp_and_vmap(dt):
    xs, ts, w = _t(B, 3, dtype=dt), _t(B, 3, dtype=dt), _t(2, 3, dtype=dt)
    fn = lambda x: tf.exp(w @ x)   # noqa: E731
    loop = [tf.jvp(fn, (x,), (t,)) for x, t in zip(xs, ts)]
    out, tan = tf.jvp(tf.vmap(fn), (xs,), (ts,))
    np.testing.assert_allclose(out.numpy(), _stack([o for o, _ in loop]), rtol=1e-12)
    np.testing.assert_allclose(tan.numpy(), _stack([t for _, t in loop]), rtol=1e-12)
    out2, tan2 = tf.vmap(lambda x, t: tf.jvp(fn, (x,), (t,)))(xs, ts)
    np.testing.assert_allclose(tan2.numpy(), tan.numpy(), rtol=1e-12)
    # a tangent shared by the batch
    _, tan3 = tf.vmap(lambda x: tf.jvp(fn, (x,), (ts[0],)))(xs)
    np.testing.assert_allclose(tan3.numpy(), _stack([tf.jvp(fn, (x,), (ts[0],))[1]
                                                     for x in xs]), rtol=1e-12)


@pytest.mark.parametrize("dt", DTYPES)
def test_vjp_and_vmap(dt):
    xs, cts, w = _t(B, 3, dtype=dt), _t(B, 2, dtype=dt), _t(2, 3, dtype=dt)
    fn = lambda x: tf.sin(w @ x)   # noqa: E731
    want = _stack([tf.vjp(fn, x)[1](c)[0] for x, c in zip(xs, cts)])
    _, pull = tf.vjp(tf.vmap(fn), xs)
    np.testing.assert_allclose(pull(cts)[0].numpy(), want, rtol=1e-12)
    got = tf.vmap(lambda x, c: tf.vjp(fn, x)[1](c)[0])(xs, cts)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_jacobians_and_hessians():
    xs, w = _t(B, 3), _t(2, 3)
    fn = lambda x: tf.tanh(w @ x)   # noqa: E731
    for jac in (tf.jacfwd, tf.jacrev):
        got = tf.vmap(jac(fn))(xs)
        np.testing.assert_allclose(got.numpy(), _stack([jac(fn)(x) for x in xs]), rtol=1e-12)
    # the Jacobian of the batched map is block diagonal
    j = tf.jacfwd(tf.vmap(fn))(xs).numpy()
    for i in range(B):
        np.testing.assert_allclose(j[i, :, i, :], tf.jacfwd(fn)(xs[i]).numpy(), rtol=1e-12)
    h = tf.vmap(tf.hessian(lambda x: loss(x, w)))(xs)
    np.testing.assert_allclose(h.numpy(), _stack([tf.hessian(lambda x: loss(x, w))(x)
                                                  for x in xs]), rtol=1e-10)


def _graph_sizes(fn, *shapes):
    return [len(tf.jit(fn).trace(*[_t(*s) for s in ss]).nodes) for ss in shapes]


def test_jit_of_vmap_is_one_batched_program():
    w = _t(2, 3)
    fn = tf.jit(tf.vmap(lambda x: loss(x, w)))
    xs = _t(B, 3)
    np.testing.assert_allclose(fn(xs).numpy(), _stack([loss(x, w) for x in xs]), rtol=1e-12)
    # the traced program does not grow with the batch: no per-example loop inside
    small, large = _graph_sizes(tf.vmap(lambda x: loss(x, w)), [(2, 3)], [(50, 3)])
    assert small == large
    # and it holds one matmul, over the whole batch
    g = tf.jit(tf.vmap(lambda x: loss(x, w))).trace(_t(50, 3))
    mm = [n for n in g.nodes if n.prim.name == "matmul"]
    assert len(mm) == 1 and mm[0].outputs[0].shape == (2, 50)   # one GEMM, batch as columns
    # gradients of the compiled batched program
    gx = tf.jit(tf.vmap(tf.grad(lambda x: loss(x, w))))(xs)
    np.testing.assert_allclose(gx.numpy(), _stack([tf.grad(loss)(x, w) for x in xs]),
                               rtol=1e-12)


def test_vmap_of_jit_compiles_jit_of_vmap():
    w = _t(2, 3)
    xs = _t(B, 3)
    jf = tf.jit(lambda x, w: loss(x, w))
    got = tf.vmap(jf, in_axes=(0, None))(xs, w)
    np.testing.assert_allclose(got.numpy(), _stack([loss(x, w) for x in xs]), rtol=1e-12)
    # one batched program, compiled once for this batching pattern and size
    batched, = jf._vmapped.values()
    assert batched.cache_info().misses == 1
    tf.vmap(jf, in_axes=(0, None))(xs * 2.0, w)
    assert batched.cache_info() == (1, 1, 1, batched.maxsize)
    mm = [n for n in batched.trace(xs, w).nodes if n.prim.name == "matmul"]
    assert len(mm) == 1 and mm[0].outputs[0].shape == (2, B)
    # nested in other transforms, and with pytree arguments (then node by node)
    gw = tf.grad(lambda w: tf.sum(tf.vmap(jf, in_axes=(0, None))(xs, w)))(w)
    np.testing.assert_allclose(gw.numpy(), sum(tf.grad(loss, 1)(x, w).numpy() for x in xs),
                               rtol=1e-12)
    pair = tf.jit(lambda p: loss(*p))
    np.testing.assert_allclose(tf.vmap(pair, in_axes=((0, None),))((xs, w)).numpy(),
                               got.numpy(), rtol=1e-12)
    g = tf.vmap(tf.grad(tf.jit(lambda x: loss(x, w))))(xs)
    np.testing.assert_allclose(g.numpy(), _stack([tf.grad(loss)(x, w) for x in xs]),
                               rtol=1e-12)


def _segment(x, w):
    return tf.checkpoint(lambda x, w: tf.sin(w @ x) * tf.exp(x[:2]), x, w)


@pytest.mark.parametrize("dt", DTYPES)
def test_checkpoint(dt):
    xs, w = _t(B, 3, dtype=dt), _t(2, 3, dtype=dt)
    want = _stack([_segment(x, w) for x in xs])
    np.testing.assert_allclose(tf.vmap(_segment, (0, None))(xs, w).numpy(), want, rtol=1e-12)
    # traced: one checkpoint node over the batch, still differentiable
    jf = tf.jit(tf.vmap(_segment, (0, None)))
    np.testing.assert_allclose(jf(xs, w).numpy(), want, rtol=1e-12)
    g = jf.trace(xs, w)
    assert [n.prim.name for n in g.nodes].count("checkpoint") == 1
    scalar = lambda x, w: tf.sum(tf.abs(_segment(x, w)) ** 2)   # noqa: E731
    gw = tf.jit(tf.grad(lambda w: tf.sum(tf.vmap(scalar, (0, None))(xs, w))))(w)
    np.testing.assert_allclose(gw.numpy(), sum(tf.grad(scalar, 1)(x, w).numpy() for x in xs),
                               rtol=1e-12)
    gx = tf.jit(tf.vmap(tf.grad(scalar), (0, None)))(xs, w)
    np.testing.assert_allclose(gx.numpy(), _stack([tf.grad(scalar)(x, w) for x in xs]),
                               rtol=1e-12)


def test_linalg_solve_with_gradients():
    a = _t(B, 4, 4) + 4 * tf.eye(4)
    b = _t(B, 4)
    x = tf.vmap(tf.linalg.solve)(a, b)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a.numpy(), b.numpy()[..., None])[..., 0],
                               rtol=1e-12)
    x1 = tf.vmap(tf.linalg.solve, (None, 0))(a[0], b)   # one matrix for the batch
    np.testing.assert_allclose(x1.numpy(), np.linalg.solve(a[0].numpy(), b.numpy().T).T,
                               rtol=1e-12)
    f = lambda a, b: tf.sum(tf.linalg.solve(a, b) ** 2)   # noqa: E731
    g = tf.vmap(tf.grad(f))(a, b)
    np.testing.assert_allclose(g.numpy(), _stack([tf.grad(f)(ai, bi) for ai, bi in zip(a, b)]),
                               rtol=1e-10)
    gb = tf.vmap(tf.grad(f, 1), (None, 0))(a[0], b)
    np.testing.assert_allclose(gb.numpy(), _stack([tf.grad(f, 1)(a[0], bi) for bi in b]),
                               rtol=1e-10)


def test_nested_vmap_of_grad_and_the_eager_tape():
    xs, w = _t(2, B, 3), _t(2, 3)
    g = tf.vmap(tf.vmap(tf.grad(loss), in_axes=(0, None)), in_axes=(0, None))(xs, w)
    want = np.stack([_stack([tf.grad(loss)(x, w) for x in row]) for row in xs])
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-12)
    # the eager tape records the batched primitives: backward() through a vmap
    wt = tf.asarray(w.numpy()).requires_grad_()
    tf.sum(tf.vmap(loss, in_axes=(0, None))(xs[0], wt)).backward()
    want = sum(tf.grad(loss, 1)(x, w).numpy() for x in xs[0])
    np.testing.assert_allclose(wt.grad.numpy(), want, rtol=1e-12)


def test_on_every_device(device):
    """The rules are written with ops and bind, so vmap runs wherever the ops do."""
    xs, w = _t(B, 3).astype("float32"), _t(2, 3).astype("float32")
    on = [tf.asarray(v.numpy(), device=device) for v in (xs, w)]
    for fn in (tf.vmap(tf.grad(loss), in_axes=(0, None)),
               tf.jit(tf.vmap(tf.grad(loss), in_axes=(0, None))),
               tf.vmap(tf.jacrev(lambda x, w: tf.tanh(w @ x)), in_axes=(0, None))):
        got = fn(*on)
        assert got.device == on[0].device
        np.testing.assert_allclose(got.to("cpu").numpy(), fn(xs, w).numpy(), rtol=1e-4,
                                   atol=1e-5)
