"""Lazy mode (``tenferro.lazy``), part two: the registry (ids, lookup, cleanup, no
leaks, substitution on diamonds, buffers written once), autodiff, in-place writes,
mixing with eager tensors, jit and NumPy, random draws, errors, nesting, threads and
devices (WebGPU, CUDA).  Part one is tests/test_lazy.py."""
import gc
import threading
import weakref

import numpy as np
import pytest

import tenferro as tf
from tenferro import _lazy
from tenferro._lazy import LazyTensor, is_lazy, tensor_id
from test_lazy import (A, B, L, RNG, _no_leftovers, fused_groups, has_cuda,  # noqa: F401
                       has_webgpu, twenty, x_)


# -- the registry --------------------------------------------------------------------------

def test_ids_lookup_and_cleanup():
    with L():
        a = x_() + 1
        b = a * 2
        ia, ib = tensor_id(a), tensor_id(b)
        assert ia != ib and isinstance(ia, int)
        ea = tf.lazy.get_tensor(ia)
        assert ea.shape == (3, 4) and ea.dtype == np.float64 and not ea.realized
        assert {ia, ib} <= {e.id for e in tf.lazy.live_tensors()}
        del ea
        ref = weakref.ref(b)
        del b                        # the registry keeps nothing alive
        gc.collect()
        assert ref() is None and tf.lazy.get_tensor(ib) is None
        assert ib not in {e.id for e in tf.lazy.live_tensors()}
        assert tf.lazy.gc_dead_refs() == 0   # the weak references' callbacks did it
    assert tensor_id(tf.asarray(1.0)) is None and tensor_id(3) is None
    assert not is_lazy(tf.asarray(1.0))


def test_no_leak_of_dead_tensors():
    x = x_()
    before = len(_lazy._registry._registry)
    for _ in range(50):
        with L():
            y = tf.sin(x) * 2
            del y
    gc.collect()
    assert len(_lazy._registry._registry) <= before
    with L():
        y = x * 2
        e = weakref.ref(tf.lazy.get_tensor(tensor_id(y)))
    z = y + 1   # y realized and used: a plain tensor, its entry gone
    del z
    gc.collect()
    assert e() is None


def test_buffer_is_written_once():
    with L():
        y = x_() * 2
        e = tf.lazy.get_tensor(tensor_id(y))
        tf.realize(y)
    assert e.realized
    with pytest.raises(RuntimeError, match="written once"):
        e.set_buffer(np.zeros((3, 4)))
    np.testing.assert_allclose(e.buffer, A * 2)
    np.testing.assert_allclose(e.tensor().numpy(), A * 2)


def diamond(x):
    a = tf.exp(x)
    b = a * 2.0
    c = a + 1.0
    return a, b, c, b + c


def test_diamond_substitution_keeps_every_tensor_consistent():
    """svod's apply_map_to_tensors: replacing a's value rewrites b, c and d at once;
    b and c are rebuilt once and d reads those very rebuilt values."""
    x = x_(RNG.uniform(0.5, 1.5, 40))
    with L():
        a, b, c, d = diamond(x)
        a2 = tf.cos(x)
        va = tf.lazy.get_tensor(tensor_id(a)).value
        n = tf.lazy.apply_map_to_tensors({va: tf.lazy.get_tensor(tensor_id(a2)).value})
        assert n == 4                # a, b, c, d (a2 unaffected)
        eb, ec, ed = (tf.lazy.get_tensor(tensor_id(t)) for t in (b, c, d))
        assert ed.value.op.srcs[0] is eb.value and ed.value.op.srcs[1] is ec.value
        assert eb.value.op.srcs[0] is ec.value.op.srcs[0]   # still one shared a
        bad = x_() * 1
        with pytest.raises(ValueError, match="shape"):
            tf.lazy.apply_map_to_tensors({va: tf.lazy.get_tensor(tensor_id(bad)).value})
    prog = tf.lazy.last_program()
    names = [m.prim.name for n in prog.graph.nodes
             for m in (n.params["graph"].nodes if n.prim.name == "fused_elementwise"
                       else [n])]
    assert names.count("cos") == 1 and "exp" not in names   # each computed once
    cx = np.cos(x.numpy())
    for t, want in zip((a, b, c, d), (cx, cx * 2, cx + 1, cx * 3 + 1)):
        np.testing.assert_allclose(t.numpy(), want)


def test_diamond_realizing_one_branch_keeps_the_shared_part():
    """Realizing b computes a (which c still needs) once: c's graph is rewritten to read
    a's buffer; a is not computed again for c."""
    x = x_(RNG.uniform(0.5, 1.5, 40))
    with L():
        b = tf.exp(x) * 2.0
        ea = tf.lazy.get_tensor(tensor_id(b)).value.op.srcs[0]   # the dead temporary a
        c = None
        # c reads the same a: record it through the graph (as a diamond would)
        from tenferro._lazy._registry import LazyOp, LazyValue, TensorEntry
        from tenferro._lazy._tensor import lazy_tensor
        from tenferro._primitive import registry
        add = registry["add"]
        one = tf.asarray(1.0)
        op = LazyOp(add, {"out_dtype": np.dtype("float64")}, (ea, one), x.device,
                    (((40,), np.dtype("float64")),))
        c = lazy_tensor(TensorEntry(LazyValue(op, 0, (40,), "float64"), None))
        tf.realize(b)
        ec = tf.lazy.get_tensor(tensor_id(c))
        src = ec.value.op.srcs[0]
        assert isinstance(src, tf.Tensor)                 # a's buffer now
        np.testing.assert_allclose(src.numpy(), np.exp(x.numpy()))
        tf.realize(c)
    names = [m.prim.name for n in tf.lazy.last_program().graph.nodes
             for m in (n.params["graph"].nodes if n.prim.name == "fused_elementwise"
                       else [n])]
    assert "exp" not in names
    np.testing.assert_allclose(c.numpy(), np.exp(x.numpy()) + 1)


# -- autodiff ------------------------------------------------------------------------------

def loss_fn(x):
    return (tf.sin(x) * x + tf.exp(x) / 3.0).sum()


def test_backward_in_lazy_mode_matches_eager():
    xe = x_().requires_grad_()
    loss_fn(xe).backward()
    xl = x_().requires_grad_()
    with L():
        loss = loss_fn(xl)
        assert is_lazy(loss) and loss.requires_grad and loss.grad_fn is not None
        loss.backward()
    np.testing.assert_allclose(xl.grad.numpy(), xe.grad.numpy(), rtol=1e-14)
    assert float(loss) == pytest.approx(float(loss_fn(xe)))


def test_backward_after_the_block():
    xl = x_().requires_grad_()
    with L():
        loss = loss_fn(xl)
    loss.backward()
    want = np.cos(A) * A + np.sin(A) + np.exp(A) / 3
    np.testing.assert_allclose(xl.grad.numpy(), want, rtol=1e-14)


def test_backward_of_temporaries_and_an_optimizer_step():
    w = x_().requires_grad_()
    with L():
        for _ in range(3):
            loss = (tf.exp(w * 0.5) * w).sum()     # exp's output: a dead temporary
            loss.backward()
            with tf.no_grad():
                w -= 0.01 * w.grad
            w.grad = None
    we = x_().requires_grad_()
    for _ in range(3):
        loss = (tf.exp(we * 0.5) * we).sum()
        loss.backward()
        with tf.no_grad():
            we -= 0.01 * we.grad
        we.grad = None
    np.testing.assert_allclose(w.detach().numpy(), we.detach().numpy(), rtol=1e-14)


def test_functional_grad_of_a_function_in_lazy_mode():
    def f(x):
        with L():
            return loss_fn(x)
    g = tf.grad(f)(x_())
    np.testing.assert_allclose(g.numpy(), tf.grad(loss_fn)(x_()).numpy(), rtol=1e-14)
    with L():
        g2 = tf.grad(loss_fn)(x_())
    np.testing.assert_allclose(g2.numpy(), g.numpy(), rtol=1e-14)


def test_a_lazy_leaf_that_requires_grad():
    with L():
        w = x_() * 2
        w.requires_grad_()          # a pending leaf
        (w * w).sum().backward()
    assert type(w) is tf.Tensor and w.requires_grad
    np.testing.assert_allclose(w.grad.numpy(), 4 * A, rtol=1e-14)

def test_transforms_inside_a_block():
    f = lambda r: (tf.sin(r) * r).sum()   # noqa: E731
    with L():
        v = tf.vmap(f)(x_())
        h = tf.hessian(lambda t: (t ** 3).sum())(tf.asarray([1.0, 2.0]))
        assert is_lazy(v)
    np.testing.assert_allclose(v.numpy(), tf.vmap(f)(x_()).numpy(), rtol=1e-14)
    np.testing.assert_allclose(h.numpy(), [[6.0, 0.0], [0.0, 12.0]])


def test_checkpoint_and_double_backward_inside_a_block():
    x = x_().requires_grad_()
    with L():
        y = tf.checkpoint(lambda t: tf.sin(t) * 2, x)
        y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.cos(A), rtol=1e-14)
    x.grad = None
    with L():
        g = tf.autograd.grad((tf.exp(x) ** 2).sum(), x, create_graph=True)
        g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 4 * np.exp(2 * A), rtol=1e-14)


# -- in-place writes, mixing ---------------------------------------------------------------

def test_setitem_on_a_lazy_tensor():
    with L():
        y = x_() * 2
        z = y + 1                  # reads y before the write
        y[0, 0] = 100.0
        w = y + 1                  # after it
    assert float(z[0, 0]) == A[0, 0] * 2 + 1
    assert float(w[0, 0]) == 101.0 and float(y[0, 0]) == 100.0


def test_write_to_a_concrete_tensor_a_pending_op_reads():
    x = x_()
    with L():
        y = x * 2                  # pending, reads x
        x[0, 0] = -5.0             # computed first: y sees the old value
        x += 1                     # the same for in-place operators
        z = x * 2
    assert float(y[0, 0]) == A[0, 0] * 2
    assert float(z[0, 0]) == (-5.0 + 1) * 2
    np.testing.assert_allclose(z.numpy()[1:], (A[1:] + 1) * 2)


def test_inplace_operators_and_copy_on_lazy_tensors():
    with L():
        y = x_() * 2
        alias = y
        y += 1                     # in place: the alias sees it, as eagerly
        v = y[1]                   # a view of the (realized) tensor
        y.copy_(x_(B))
    np.testing.assert_allclose(alias.numpy(), B)
    np.testing.assert_allclose(v.numpy(), B[1])


def test_out_argument_with_lazy_operands():
    out = tf.empty((3, 4))
    with L():
        y = x_() * 2
        tf.add(y, 1.0, out=out)
    np.testing.assert_allclose(out.numpy(), A * 2 + 1)


def test_mixing_lazy_and_concrete_and_jit():
    x = x_()
    jf = tf.jit(lambda t: t * 3 + 1)
    with L():
        y = x * 2                   # lazy
        z = y + x                   # lazy with a concrete operand
        j = jf(y)                   # jit on a lazy argument: realized, then the program
        g = tf.make_graph(lambda t: t * tf.asarray(2.0), x)
        w = g(z)
    np.testing.assert_allclose(z.numpy(), A * 3)
    np.testing.assert_allclose(j.numpy(), A * 6 + 1)
    np.testing.assert_allclose(w.numpy(), A * 6)


def test_pickle_copy_and_numpy_protocols():
    import copy
    import pickle

    for f in (lambda t: pickle.loads(pickle.dumps(t)), copy.copy, copy.deepcopy):
        with L():
            y = x_() * 2
            c = f(y)
        assert type(c) is tf.Tensor
        np.testing.assert_allclose(c.numpy(), A * 2)
    with L():
        y = np.sin(x_()) + 1          # NumPy's protocols reach the ops: recorded too
        assert is_lazy(y)
    np.testing.assert_allclose(y.numpy(), np.sin(A) + 1)


def test_random_draws_match_eager():
    tf.random.seed(7)
    want = (tf.random.normal(size=(3, 4)) * 2).numpy()
    tf.random.seed(7)
    with L():
        got = tf.random.normal(size=(3, 4)) * 2
    np.testing.assert_array_equal(got.numpy(), want)


# -- errors ----------------------------------------------------------------------------------

def test_shape_errors_at_record_time_name_the_op():
    with L():
        y = x_() * 2
        with pytest.raises(ValueError, match="tenferro.add: shapes"):
            y + tf.asarray(np.ones(5))
        with pytest.raises(ValueError, match="matmul"):
            y @ y
        assert is_lazy(y)           # still fine
    np.testing.assert_allclose(y.numpy(), A * 2)


def test_errors_while_computing_name_the_pending_ops():
    def boom(graph):
        raise RuntimeError("boom")
    tf.graph.register_pass("lazy_boom", boom)
    try:
        with pytest.raises(RuntimeError, match="boom") as info:
            with L():
                y = tf.sin(x_()) * 2
                y.numpy()
    finally:
        tf.graph.unregister_pass("lazy_boom")
    assert any("2 pending operations (multiply, sin)" in n for n in info.value.__notes__)
    np.testing.assert_allclose(y.numpy(), np.sin(A) * 2)   # computed again on next read


# -- nesting, threads, WebGPU ----------------------------------------------------------------

def test_nested_blocks_join_the_outer_one():
    with L():
        with L():
            y = x_() * 2
        assert is_lazy(y)           # the inner block's end realizes nothing
        with tf.lazy(False):
            z = x_() * 3            # eager inside lazy(False)
            assert not isinstance(z, LazyTensor)
            w = y + 1               # an eager op on a lazy tensor computes it
            assert not is_lazy(y) and not isinstance(w, LazyTensor)
        assert tf.lazy.is_lazy_mode()
    assert not tf.lazy.is_lazy_mode()


def test_lazy_mode_is_per_thread():
    seen = {}

    def other():
        seen["mode"] = tf.lazy.is_lazy_mode()
        seen["type"] = type(x_() * 2)
        seen["lazy_read"] = float(y[0, 0])    # another thread's lazy tensor: computed

    with L():
        y = x_() * 2
        th = threading.Thread(target=other)
        th.start()
        th.join()
        z = x_() * 2
        assert is_lazy(z)
    assert seen == {"mode": False, "type": tf.Tensor, "lazy_read": A[0, 0] * 2}


def test_threads_record_and_realize_concurrently():
    errors = []

    def work(k):
        try:
            for _ in range(20):
                with L():
                    y = twenty(x_(np.full(30, 0.1 * k)))
                np.testing.assert_allclose(y.numpy(), twenty(x_(np.full(30, 0.1 * k))).numpy())
        except Exception as e:   # noqa: BLE001
            errors.append(e)
    ths = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    assert not errors


@pytest.mark.skipif(not has_webgpu(), reason="no WebGPU adapter")
def test_webgpu_runs_the_same_compiled_path():
    a = RNG.uniform(0.5, 1.5, 64).astype("float32")
    x = tf.asarray(a).to("webgpu")
    with L():
        y = twenty(x)
        assert is_lazy(y) and y.device == tf.device("webgpu")
    assert fused_groups(tf.lazy.last_program()) == 1
    got = y.to("cpu").numpy()
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, twenty(x).to("cpu").numpy(), rtol=1e-5)
    with L():
        with pytest.raises(tf.DeviceMismatchError):
            x * 2.0 + tf.asarray(a)  # devices mixed: refused at record time


@pytest.mark.skipif(not has_cuda(), reason="no CUDA device (or TENFERRO_CUDA_SIMULATOR)")
def test_cuda_runs_the_same_compiled_path():
    x = tf.asarray(RNG.standard_normal(100)).to("cuda")
    with L():
        y = tf.sin(x) * 2 + 1
        s = y.sum()
    prog = tf.lazy.last_program()
    assert [n.prim.name for n in prog.graph.nodes] == ["fused_elementwise", "sum"]
    np.testing.assert_allclose(y.to("cpu").numpy(), np.sin(x.to("cpu").numpy()) * 2 + 1)
    assert float(s.to("cpu")) == pytest.approx(float(y.to("cpu").numpy().sum()))


def test_write_through_another_array_over_the_same_memory():
    """Two tensors over one buffer that share no base object (two frombuffer arrays,
    as two from_dlpack calls give): a write through one computes the pending ops that
    read the other first, as eagerly (the hook compared base objects and missed it)."""
    buf = bytearray(np.arange(8.0).tobytes())
    x1 = tf.asarray(np.frombuffer(buf, dtype=np.float64))
    x2 = tf.asarray(np.frombuffer(buf, dtype=np.float64))
    with tf.lazy():
        y = x2 * 2
        x1[0] = 555.0
        z = x2 * 2
    np.testing.assert_array_equal(np.asarray(y), np.arange(8.0) * 2)
    assert float(z[0]) == 1110.0
