"""The eager tape (PyTorch-style): recording, backward, grad accumulation, hooks, memory."""
import gc
import weakref

import numpy as np
import pytest

import tenferro as tf
from tenferro import autograd


def leaf(values, dtype=None):
    return tf.tensor(values, dtype=dtype, requires_grad=True)


def test_requires_grad_flags_and_leaves():
    x = tf.Tensor([1.0, 2.0], requires_grad=True)
    assert x.requires_grad and x.is_leaf and x.grad_fn is None
    y = tf.ones(2).requires_grad_()
    assert y.requires_grad
    z = x * y
    assert z.requires_grad and not z.is_leaf
    assert tf.ones(2).is_leaf and not tf.ones(2).requires_grad
    with pytest.raises(RuntimeError, match="only floating-point and complex tensors.*int64"):
        tf.tensor([1, 2], requires_grad=True)


def test_grad_fn_is_inspectable():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    y = (x * w).sum()
    assert y.grad_fn.name == "SumBackward"
    (mul, idx), = y.grad_fn.next_functions
    assert mul.name == "MultiplyBackward" and idx == 0
    assert [n.name for n, _ in mul.next_functions] == ["AccumulateGrad", "AccumulateGrad"]
    assert mul.next_functions[0][0].variable is x
    np.testing.assert_array_equal(mul.inputs[1].detach().numpy(), [3.0, 4.0])


def test_backward_accumulates_and_zero_grad():
    x = leaf([1.0, 2.0, 3.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0, 6.0])
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 8.0, 12.0])
    x.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 0.0])
    x.grad = None
    (x * 3.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0, 3.0])
    x.zero_grad()
    assert x.grad is None


def test_backward_root_errors():
    x = leaf([1.0, 2.0])
    y = x * 2.0
    with pytest.raises(RuntimeError, match=r"implicitly created only for scalar.*shape \(2,\)"):
        y.backward()
    with pytest.raises(RuntimeError, match=r"gradient 0 has shape \(3,\).*\(2,\)"):
        y.backward(tf.ones(3))
    y.backward(tf.tensor([1.0, 10.0]))
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 20.0])
    with pytest.raises(RuntimeError, match="does not require grad"):
        tf.ones(2).sum().backward()
    with pytest.raises(RuntimeError, match="does not require grad"):
        tf.argmax(x).backward()  # integer output: asking for its gradient makes no sense
    z = tf.tensor([1 + 2j], requires_grad=True).sum()
    with pytest.raises(RuntimeError, match="real scalar outputs"):
        z.backward()


def test_second_backward_through_freed_graph_suggests_retain_graph():
    x = leaf([1.0, 2.0])
    y = (tf.exp(x) * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        y.backward()


def test_many_uses_are_summed():
    x = leaf([1.5, -2.0])
    y = (x * x + x + tf.sin(x)).sum()
    y.backward()
    xv = np.array([1.5, -2.0])
    np.testing.assert_allclose(x.grad.numpy(), 2 * xv + 1 + np.cos(xv))


def test_broadcast_gradient_is_unbroadcast():
    a = leaf(np.ones((3, 1)))
    b = leaf(np.arange(4.0))
    (a * b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.full((3, 1), 6.0))
    np.testing.assert_allclose(b.grad.numpy(), np.full(4, 3.0))


def test_detach_and_no_grad():
    x = leaf([1.0, 2.0])
    d = x.detach()
    assert not d.requires_grad and d.grad_fn is None
    assert np.shares_memory(d.numpy(), x.detach().numpy())
    with tf.no_grad():
        y = x * 2
        with tf.enable_grad():
            z = x * 3
    assert y.grad_fn is None and not y.requires_grad
    assert z.grad_fn is not None

    @tf.no_grad()
    def f(v):
        return v * v
    assert f(x).grad_fn is None
    assert tf.is_grad_enabled()
    tf.set_grad_enabled(False)
    try:
        assert not tf.is_grad_enabled() and (x * 2).grad_fn is None
    finally:
        tf.set_grad_enabled(True)
    with tf.set_grad_enabled(False):
        assert (x * 2).grad_fn is None
    assert tf.is_grad_enabled()


def test_autograd_grad_leaves_dot_grad_alone_and_allow_unused():
    x, y = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    out = (x * x).sum()
    g, = autograd.grad(out, [x], retain_graph=True)
    np.testing.assert_allclose(g.numpy(), [2.0, 4.0])
    assert x.grad is None
    with pytest.raises(RuntimeError, match="input 1.*not used.*allow_unused"):
        autograd.grad(out, [x, y], retain_graph=True)
    gx, gy = autograd.grad(out, [x, y], allow_unused=True)
    assert gy is None
    gy = autograd.grad((x * x).sum(), [x, y], materialize_grads=True)[1]
    np.testing.assert_array_equal(gy.numpy(), [0.0, 0.0])


def test_create_graph_gives_higher_derivatives():
    x = leaf([0.5, 2.0])
    y = (x ** 3).sum()
    g, = autograd.grad(y, [x], create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 3 * np.array([0.5, 2.0]) ** 2)
    h, = autograd.grad(g.sum(), [x], create_graph=True)
    np.testing.assert_allclose(h.detach().numpy(), 6 * np.array([0.5, 2.0]))
    t, = autograd.grad(h.sum(), [x])
    np.testing.assert_allclose(t.numpy(), [6.0, 6.0])
    # backward(create_graph=True) leaves a differentiable .grad
    x2 = leaf([1.0, 3.0])
    (tf.sin(x2).sum()).backward(create_graph=True)
    gg, = autograd.grad(x2.grad.sum(), [x2])
    np.testing.assert_allclose(gg.numpy(), -np.sin([1.0, 3.0]))


def test_backward_inputs_restricts_accumulation():
    x, y = leaf([1.0]), leaf([2.0])
    (x * y).sum().backward(inputs=[y])
    assert x.grad is None
    np.testing.assert_allclose(y.grad.numpy(), [1.0])


def test_hooks():
    x = leaf([1.0, 2.0])
    seen = []
    h = x.register_hook(lambda g: g * 2)
    x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.numpy().copy()))
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 6.0])
    np.testing.assert_allclose(seen[0], [6.0, 6.0])
    h.remove()
    x.grad = None
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])
    # a hook on a non-leaf sees (and may replace) the full summed gradient
    x.grad = None
    y = x * 1.0
    got = []
    y.register_hook(lambda g: got.append(g.numpy().copy()))
    y.register_hook(lambda g: g * 0)
    ((y + y) * 5).sum().backward()
    np.testing.assert_allclose(got[0], [10.0, 10.0])
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0])
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        tf.ones(2).register_hook(lambda g: g)
    with pytest.raises(RuntimeError, match="leaf tensors"):
        y.register_post_accumulate_grad_hook(lambda t: None)


def test_retain_grad_on_non_leaf():
    x = leaf([1.0, 2.0])
    y = x * 2
    y.retain_grad()
    y.retain_grad()  # twice is once
    (y * y).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [4.0, 8.0])
    assert y.retains_grad


def test_deep_chain_has_no_recursion_limit():
    x = leaf([1.0])
    y = x
    for _ in range(100_000):
        y = y + 1.0
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0])


def test_saved_tensors_are_freed_after_backward_unless_retained():
    x = leaf(np.ones(4))
    mid = tf.exp(x)
    ref = weakref.ref(mid)
    y = (mid * mid).sum()
    del mid
    assert ref() is not None  # saved by the multiply node
    y.backward(retain_graph=True)
    assert ref() is not None
    y.backward()
    assert ref() is None


def test_training_step_leaves_no_reference_cycles():
    gc.collect()
    gc.disable()
    try:
        w = leaf(np.ones((3, 3)))
        x = tf.ones((2, 3))
        refs = []
        for _ in range(3):
            h = tf.tanh(x @ w)
            refs.append(weakref.ref(h))
            loss = (h * h).sum()
            loss.backward()
            with tf.no_grad():
                w2 = w - 0.1 * w.grad
            w = w2.requires_grad_()
            del h, loss
        assert all(r() is None for r in refs)  # freed by reference counting alone
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_grad_of_shared_cotangent_is_not_aliased():
    x, y = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    (x + y).sum().backward()
    x.grad *= 10  # must not change y.grad
    np.testing.assert_array_equal(y.grad.numpy(), [1.0, 1.0])


def test_piecewise_constant_ops_give_zero_gradients():
    x = leaf([1.3, -2.7])
    (tf.floor(x) + tf.sign(x) + tf.round(x)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])
    m = (x > 0)
    assert m.grad_fn is None and not m.requires_grad


def test_in_place_modification_of_saved_tensor_is_detected():
    x = leaf([1.0, 2.0])
    c = tf.tensor([3.0, 4.0])
    y = (x * c).sum()
    c[0] = 0.0
    with pytest.raises(RuntimeError, match="input 1 of MultiplyBackward.*modified by an in-place"):
        y.backward()
    c2 = tf.tensor([3.0, 4.0])
    y = (x * c2).sum()
    c2 += 1
    with pytest.raises(RuntimeError, match="in-place"):
        y.backward()


def test_in_place_ops_refuse_autodiff_tensors():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="requires grad"):
        x[0] = 3.0
    plain = tf.zeros(2)
    with pytest.raises(RuntimeError, match="would lose its gradient"):
        plain[:] = x * 2
    with pytest.raises(RuntimeError, match="requires grad"):
        x += 1


def test_complex_leaf_follows_pytorch_convention():
    z = tf.tensor([1 + 2j, -0.5 + 1j], requires_grad=True)
    (z * tf.conj(z)).real.sum().backward()  # |z|^2: dL/dRe + i dL/dIm = 2z
    np.testing.assert_allclose(z.grad.numpy(), 2 * np.array([1 + 2j, -0.5 + 1j]))


def test_checkpoint_matches_and_recomputes():
    calls = []

    def block(v):
        calls.append(1)
        for _ in range(5):
            v = tf.tanh(v * 1.5)
        return v
    xv = np.linspace(-1, 1, 6)
    x1, x2 = leaf(xv), leaf(xv)
    block(x1).sum().backward()
    out = tf.checkpoint(block, x2)
    assert len(calls) == 2 and out.grad_fn.name == "CheckpointBackward"
    out.sum().backward()
    assert len(calls) == 3  # recomputed in backward
    np.testing.assert_allclose(x2.grad.numpy(), x1.grad.numpy(), rtol=1e-14)


def _live_tensors():
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, tf.Tensor))


def test_checkpoint_drops_intermediates():
    def block(v):
        for _ in range(20):
            v = tf.sin(v) * 1.01
        return v
    x = leaf(np.ones(1000))
    base = _live_tensors()
    y = block(x)
    plain_peak = _live_tensors() - base
    del y
    y = tf.checkpoint(block, x)
    ckpt_peak = _live_tensors() - base
    assert ckpt_peak < plain_peak / 5, (ckpt_peak, plain_peak)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), _block_grad(np.ones(1000)), rtol=1e-12)


def _block_grad(v):
    g = np.ones_like(v)
    for _ in range(20):
        g = g * np.cos(v) * 1.01
        v = np.sin(v) * 1.01
    return g


def test_checkpoint_replays_randomness():
    def noisy(v):
        return v * tf.random.normal(size=v.shape)
    tf.random.seed(7)
    x = leaf(np.ones(5))
    y = tf.checkpoint(noisy, x)
    tf.random.normal(size=3)  # advance the generator before backward
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.detach().numpy())


def test_checkpoint_sequential_and_double_backward():
    fns = [lambda v: v * v, tf.sin, lambda v: v * 2.0, tf.exp]
    xv = np.array([0.3, -0.7])
    x1, x2 = leaf(xv), leaf(xv)
    y1 = x1
    for f in fns:
        y1 = f(y1)
    y2 = tf.checkpoint_sequential(fns, 2, x2)
    np.testing.assert_allclose(y2.detach().numpy(), y1.detach().numpy())
    g1, = autograd.grad(y1.sum(), [x1], create_graph=True)
    g2, = autograd.grad(y2.sum(), [x2], create_graph=True)
    np.testing.assert_allclose(g2.detach().numpy(), g1.detach().numpy(), rtol=1e-13)
    h1, = autograd.grad(g1.sum(), [x1])
    h2, = autograd.grad(g2.sum(), [x2])
    np.testing.assert_allclose(h2.numpy(), h1.numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="segments"):
        tf.checkpoint_sequential(fns, 0, x2)


def test_factories_take_requires_grad():
    for t in (tf.ones((2, 2), requires_grad=True), tf.zeros(3, requires_grad=True),
              tf.full((2,), 1.5, requires_grad=True), tf.arange(3.0, requires_grad=True),
              tf.eye(2, requires_grad=True), tf.zeros_like(tf.ones(2), requires_grad=True)):
        assert t.requires_grad and t.is_leaf
    assert not tf.ones(2).requires_grad


def test_create_graph_leaves_no_cycle():
    # (backward(create_graph=True) itself makes leaf -> .grad -> graph -> leaf, as in
    # PyTorch, which warns about it; autograd.grad returns the gradient instead)
    gc.collect()
    gc.disable()
    try:
        x = leaf([1.0, 2.0])
        g, = autograd.grad((x ** 3).sum(), [x], create_graph=True)
        h, = autograd.grad(g.sum(), [x])
        np.testing.assert_allclose(h.numpy(), [6.0, 12.0])
        ref = weakref.ref(g)
        del x, g
        assert ref() is None
        assert gc.collect() == 0
    finally:
        gc.enable()
