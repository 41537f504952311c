"""tenferro-rs's EagerRuntime services in Python (docs/design.md, "Runtimes and
contexts"): clear_grads over the live leaves, the errors of mixing devices or traces
(tenferro-rs's ContextMismatch), and moving a tensor to another device as detach_into."""
import gc
import pickle
import threading
import weakref

import numpy as np
import pytest

import tenferro as tf
from tenferro import AdContext
from tenferro.autograd import _leaves


def other_device():
    others = [d for d in tf.devices.available() if not d.startswith("cpu")]
    if not others:
        pytest.skip("no device besides the CPU (set TENFERRO_CUDA_SIMULATOR=1)")
    return others[0]


# -- clear_grads --------------------------------------------------------------------------

def test_clear_grads_clears_every_leaf():
    a = tf.asarray(np.arange(3.0)).requires_grad_()
    b = tf.tensor([1.0, 2.0], requires_grad=True)
    c = tf.zeros(2, requires_grad=True)
    d = tf.asarray(np.ones(2))
    d.requires_grad = True
    ((a * a).sum() + (b * c).sum() + (d * 3.0).sum()).backward()
    assert all(t.grad is not None for t in (a, b, c, d))
    tf.clear_grads()
    assert all(t.grad is None for t in (a, b, c, d))
    (a * 2.0).sum().backward()      # accumulates afresh
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 2.0, 2.0])


def test_clear_grads_keeps_nothing_alive_and_skips_plain_tensors():
    plain = tf.asarray(np.ones(3))
    x = tf.asarray(np.ones(3)).requires_grad_()
    r = weakref.ref(x)
    assert any(t is x for t in _leaves.live_leaves())
    assert not any(t is plain for t in _leaves.live_leaves())
    del x
    gc.collect()
    assert r() is None
    tf.clear_grads()   # with dead entries gone: nothing to do, no error


def test_clear_grads_reaches_unpickled_leaves_and_tolerates_threads():
    x = pickle.loads(pickle.dumps(tf.asarray(np.ones(2)).requires_grad_()))
    (x * x).sum().backward()

    def make():
        for _ in range(200):
            tf.asarray(np.ones(2)).requires_grad_()

    ts = [threading.Thread(target=make) for _ in range(3)]
    for t in ts:
        t.start()
    for _ in range(20):
        tf.clear_grads()
    for t in ts:
        t.join()
    tf.clear_grads()
    assert x.grad is None and tf.autograd.clear_grads is tf.clear_grads


# -- mixing devices (tenferro-rs: tensors of two runtimes) ----------------------------------

@pytest.mark.parametrize("op", ["add", "matmul", "einsum", "stack", "where"])
def test_two_devices_in_one_op_name_both(op):
    other = other_device()
    x = tf.asarray(np.arange(3.0))
    y = tf.asarray(np.arange(3.0), device=other)
    call = {"add": lambda: x + y, "matmul": lambda: tf.matmul(x, y),
            "einsum": lambda: tf.einsum("i,i->", x, y), "stack": lambda: tf.stack([x, y]),
            "where": lambda: tf.where(x > 0, x, y)}[op]
    with pytest.raises(tf.DeviceMismatchError) as e:
        call()
    assert op in str(e.value) and "cpu" in str(e.value) and other in str(e.value)


def test_program_refuses_inputs_of_two_devices():
    other = other_device()
    f = tf.jit(lambda a, b: a + b)
    with pytest.raises(tf.DeviceMismatchError, match=other):
        f(tf.asarray(np.ones(2)), tf.asarray(np.ones(2), device=other))


# -- mixing traces (tenferro-rs: a tensor of another context) ---------------------------

def test_tracer_of_a_returned_transform_is_refused():
    leak = []
    x = tf.asarray(np.arange(3.0))

    def f(t):
        leak.append(t)
        return (t * t).sum()

    tf.grad(f)(x)
    with pytest.raises(RuntimeError, match="already returned"):
        leak[0] + x
    with pytest.raises(RuntimeError, match="already returned"):
        tf.grad(lambda u: (u * leak[0]).sum())(x)


def test_value_of_another_graph_trace_is_refused():
    leak = []
    spec = tf.TensorSpec((3,), tf.float64)
    tf.make_graph(lambda t: leak.append(t) or t + 1, spec)
    with pytest.raises(tf.TenferroError, match="another trace"):
        tf.make_graph(lambda u: u + leak[0], spec)
    with pytest.raises(RuntimeError, match="already returned"):
        leak[0] + tf.asarray(np.ones(3))


def test_tensors_recorded_under_two_ad_contexts_combine():
    # no ContextMismatch: each operation keeps the rules in force when it was recorded
    double_exp = AdContext({"exp": {"vjp": lambda ct, primals, out, params, needs:
                                    (ct * out * 2,)}})
    x = tf.asarray(np.array([0.1, 0.2])).requires_grad_()
    with double_exp:
        y = tf.exp(x).sum()
    z = tf.exp(x).sum()
    (y + z).backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.exp([0.1, 0.2]))


# -- detach_into: a tensor moved to another device ----------------------------------------

def test_to_and_asarray_move_tensors_between_devices():
    other = other_device()
    x = tf.asarray(np.arange(4.0)).requires_grad_()
    moved = x.detach().to(other)                     # tenferro-rs's detach_into
    assert str(moved.device) == other and not moved.requires_grad
    np.testing.assert_array_equal(moved.to("cpu").numpy(), np.arange(4.0))
    a = tf.asarray(x.detach(), device=other)
    assert str(a.device) == other and not a.requires_grad
    # without detach the move is differentiable (tenferro-rs has no such move)
    y = x.to(other)
    (y * y).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 2 * np.arange(4.0))
    assert x.grad.device == x.device
