"""tenferro.checkpoint inside traced graphs (issue 6): the segment is one ``checkpoint``
node over a traced sub-graph, and the backward program recomputes it from its inputs.
Values and derivatives are compared with the same function run eagerly without
checkpoint (eager functional transforms) and with central finite differences;
recomputation is counted with a user primitive, and memory measured with tracemalloc."""
import tracemalloc

import numpy as np
import pytest

import tenferro as tf
from tenferro.autograd.extend import Primitive, def_impl, defjvp, defvjp

from conftest import assert_close, sample, stable_rng

TOL = dict(rtol=1e-12, atol=1e-12)


def _t(shape, *key, dtype="float64"):
    return tf.asarray(sample(stable_rng("traced-ckpt", *key), shape, dtype))


def segment(x, w):
    return tf.sin(x * w) * tf.exp(0.5 * x)


def loss(x, w, ckpt=True):
    u = tf.cos(w)                                   # an outer value the segment closes over
    y = tf.checkpoint(lambda x: segment(x, w) + u, x) if ckpt else segment(x, w) + u
    return tf.sum(tf.abs(y * y + w) ** 2)


def plain(x, w):
    return loss(x, w, ckpt=False)


def _fd_check(f, args, grads, key):
    """Central differences of the real scalar ``f`` along a random direction of each
    argument against ``Re <grad, d>`` (tenferro's complex convention)."""
    h = 1e-6
    for i, (a, g) in enumerate(zip(args, grads)):
        d = sample(stable_rng("traced-ckpt-fd", key, i), a.shape, a.dtype)
        hi = [x if j != i else tf.asarray(a.numpy() + h * d) for j, x in enumerate(args)]
        lo = [x if j != i else tf.asarray(a.numpy() - h * d) for j, x in enumerate(args)]
        fd = (float(f(*hi)) - float(f(*lo))) / (2 * h)
        assert abs(np.real(np.vdot(g.numpy(), d)) - fd) <= 1e-6 * max(1.0, abs(fd))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_values_and_derivatives_equal_eager_without_checkpoint(dtype):
    x, w = _t((4,), "x", dtype=dtype), _t((4,), "w", dtype=dtype)
    g = tf.make_graph(loss, x, w)
    assert "checkpoint" in [n.prim.name for n in g.nodes]
    assert_close(tf.compile(g)(x, w), plain(x, w).numpy(), **TOL)
    grads = [tf.compile(g.grad(i))(x, w) for i in (0, 1)]
    for i, gi in enumerate(grads):
        assert_close(gi, tf.grad(plain, argnums=i)(x, w).numpy(), **TOL)
    _fd_check(plain, [x, w], grads, dtype)
    # vjp and jvp graphs
    ct = tf.asarray(np.asarray(0.7))
    for c, want in zip(tf.compile(g.vjp())(x, w, ct), tf.vjp(plain, x, w)[1](ct)):
        assert_close(c, want.numpy(), **TOL)
    tx, tw = _t((4,), "tx", dtype=dtype), _t((4,), "tw", dtype=dtype)
    out, dout = tf.compile(g.jvp())(x, w, tx, tw)
    want, dwant = tf.jvp(plain, (x, w), (tx, tw))
    assert_close(out, want.numpy(), **TOL)
    assert_close(dout, dwant.numpy(), **TOL)


def test_second_order_grad_of_grad_and_jvp_of_grad():
    x, w, v = _t((3,), "x2"), _t((3,), "w2"), _t((3,), "v2")
    g = tf.make_graph(loss, x, w)

    def gsum(x, w):
        return tf.grad(plain)(x, w).sum()
    assert_close(tf.compile(g.grad().jvp())(x, w, v, tf.zeros(3))[1],
                 tf.hvp(lambda x: plain(x, w), (x,), (v,))[0].numpy(), **TOL)
    gg = tf.make_graph(lambda x, w: tf.grad(loss)(x, w).sum(), x, w).grad(1)
    want = tf.grad(gsum, argnums=1)(x, w)
    assert_close(tf.compile(gg)(x, w), want.numpy(), **TOL)
    _fd_check(gsum, [x, w], [tf.grad(gsum)(x, w), want], "2nd")
    # and jit of the composed functional transforms
    j = tf.jit(tf.grad(lambda x, w: tf.grad(loss)(x, w).sum(), argnums=1))
    assert_close(j(x, w), want.numpy(), **TOL)


def test_closure_conversion_of_outer_values():
    x, w = _t((3,), "cx"), _t((3,), "cw")
    const = tf.asarray(np.array([1.0, 2.0, 3.0]))

    def f(x, w):
        u = tf.exp(w)                    # computed outside, used inside
        return tf.checkpoint(lambda x: tf.sin(x * u) * w + const, x).sum()

    def f0(x, w):
        return (tf.sin(x * tf.exp(w)) * w + const).sum()
    g = tf.make_graph(f, x, w)
    node, = [n for n in g.nodes if n.prim.name == "checkpoint"]
    sub = node.params["graph"]
    # x, then the captured u and w (in order of first use); the concrete tensor is a
    # constant of the sub-graph, not an input
    assert len(node.inputs) == len(sub.in_vars) == 3
    assert node.inputs[0] is g.in_vars[0] and node.inputs[2] is g.in_vars[1]
    assert node.inputs[1] is g.nodes[0].outputs[0] and g.nodes[0].prim.name == "exp"
    assert any(i is const for n in sub.nodes for i in n.inputs)
    assert_close(tf.compile(g)(x, w), f0(x, w).numpy(), **TOL)
    for i in (0, 1):
        assert_close(tf.compile(g.grad(i))(x, w), tf.grad(f0, argnums=i)(x, w).numpy(),
                     **TOL)
    # a closed-over value of a functional transform inside the trace is captured too
    # (and differentiated through)
    h = tf.make_graph(lambda x, w: tf.grad(lambda w: f(x, w))(w), x, w)
    assert_close(tf.compile(h)(x, w), tf.grad(f0, argnums=1)(x, w).numpy(), **TOL)


def test_multiple_outputs_and_multi_output_graph_vjp():
    x, w = _t((3,), "mx"), _t((3,), "mw")

    def two(x, w):
        return tf.checkpoint(lambda x, w: (tf.sin(x) * w, tf.exp(x * w)), x, w)

    def two0(x, w):
        return tf.sin(x) * w, tf.exp(x * w)
    g = tf.make_graph(two, x, w)
    a, b = tf.compile(g)(x, w)
    assert_close(a, two0(x, w)[0].numpy(), **TOL)
    assert_close(b, two0(x, w)[1].numpy(), **TOL)
    ca, cb = _t((3,), "ca"), _t((3,), "cb")
    want = tf.vjp(two0, x, w)[1]((ca, cb))
    vg = tf.compile(g.vjp())
    for got in (vg(x, w, (ca, cb)), vg(x, w, ca, cb)):   # structured or flat cotangents
        for c, wc in zip(got, want):
            assert_close(c, wc.numpy(), **TOL)
    # one output's cotangent only (the other is zero inside the rule)
    g1 = tf.make_graph(lambda x, w: two(x, w)[1].sum(), x, w)
    assert_close(tf.compile(g1.grad(1))(x, w),
                 tf.grad(lambda x, w: two0(x, w)[1].sum(), argnums=1)(x, w).numpy(), **TOL)
    # Graph.vjp of a multi-output graph without checkpoint
    want = tf.vjp(two0, x, w)[1]((ca, cb))
    for c, wc in zip(tf.compile(tf.make_graph(two0, x, w).vjp())(x, w, (ca, cb)), want):
        assert_close(c, wc.numpy(), **TOL)


# -- recomputation, counted and measured --------------------------------------------------

CALLS = []
counted_sin_p = Primitive("_test_traced_checkpoint_counted_sin", lambda x: x)
def_impl(counted_sin_p, "cpu", lambda x: CALLS.append(1) or np.sin(x))
defjvp(counted_sin_p, lambda t, x: t * tf.cos(x))
defvjp(counted_sin_p, lambda ct, x: ct * tf.cos(x))


def counted_sin(x):
    return counted_sin_p.bind(x)


def _counted_loss(ckpt):
    def f(x):
        seg = lambda x: tf.exp(counted_sin(x))   # noqa: E731  (exp's VJP needs its output)
        y = tf.checkpoint(seg, x) if ckpt else seg(x)
        return (y * y).sum()                   # backward needs y: the forward is kept
    return f


def _calls(fn, *args):
    del CALLS[:]
    out = fn(*args)
    return len(CALLS), out


@pytest.mark.parametrize("ckpt, runs", [(True, 2), (False, 1)])
def test_backward_program_recomputes_the_segment(ckpt, runs):
    x = _t((5,), "count")
    want = tf.grad(_counted_loss(False))(x).numpy()
    p = tf.compile(tf.make_graph(_counted_loss(ckpt), x).grad())
    for _ in range(2):
        n, g = _calls(p, x)
        assert n == runs
        assert_close(g, want, **TOL)
    # jit, and the eager tape through a jitted program
    n, g = _calls(tf.jit(tf.grad(_counted_loss(ckpt))), x)
    assert n == runs
    assert_close(g, want, **TOL)
    xr = tf.asarray(x.numpy()).requires_grad_()
    j = tf.jit(_counted_loss(ckpt))
    n, out = _calls(lambda: j(xr).backward())
    assert n == runs
    assert_close(xr.grad, want, **TOL)


def test_backward_part_references_only_the_segment_inputs():
    x = _t((5,), "refs")
    p = tf.compile(tf.make_graph(_counted_loss(True), x).grad())
    nodes = p.graph.nodes
    ck = [n for n in nodes if n.prim.name == "checkpoint"]
    assert len(ck) == 2                       # forward and recomputing backward, not merged
    fwd, bwd = ck
    assert not any(n.prim is counted_sin_p for n in nodes)   # the segment is opaque
    assert bwd.inputs[0] is fwd.inputs[0] is p.graph.in_vars[0]
    assert not any(i is o for i in bwd.inputs for o in fwd.outputs)
    # the backward sub-program recomputes the forward from the input; it is compiled
    # once
    p(x)
    prog = bwd.params["graph"].derived["checkpoint"]["program"]
    assert [n.prim for n in prog.graph.nodes].count(counted_sin_p) == 1
    p(x)
    assert bwd.params["graph"].derived["checkpoint"]["program"] is prog


def _peak(program, x):
    program(x)
    tracemalloc.start()
    try:
        program(x)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_checkpoint_sequential_lowers_the_measured_peak():
    n = 100_000
    x = tf.asarray(np.linspace(0.0, 1.0, n))
    fs = [tf.sin] * 16

    def chained(x):
        for f in fs:
            x = f(x)
        return x.sum()
    # unfused: fusing all 16 sins and their derivatives into one kernel keeps no
    # intermediates at all, a different way to save the memory
    passes = tuple(p for p in tf.graph.PASSES if p != "fuse")
    seq = tf.compile(tf.make_graph(lambda x: tf.checkpoint_sequential(fs, 4, x).sum(), x).grad(),
                     passes)
    full = tf.compile(tf.make_graph(chained, x).grad(), passes)
    assert_close(seq(x), tf.grad(chained)(x).numpy(), **TOL)
    assert_close(full(x), tf.grad(chained)(x).numpy(), **TOL)
    # 16 intermediates kept (and their cotangents) against 3 segment boundaries plus
    # one segment's recomputation at a time
    assert _peak(seq, x) < 0.7 * _peak(full, x)


# -- printout, passes, errors --------------------------------------------------------------

def test_printout_nests_the_segment():
    g = tf.make_graph(lambda x: tf.checkpoint(tf.sin, x) * 2.0, tf.TensorSpec((2,)))
    assert str(g).splitlines() == [
        "{ lambda a:f64[2] .",
        "    b:f64[2] = checkpoint[",
        "      graph={ lambda c:f64[2] .",
        "          d:f64[2] = sin[out_dtype=float64] c",
        "        in (d) }",
        "    ] a",
        "    e:f64[2] = multiply[out_dtype=float64] b const(2.0)",
        "  in (e) }"]


def test_unsupported_device_lists_the_segments_primitives():
    p = tf.compile(tf.make_graph(lambda x: tf.checkpoint(tf.sin, x) + 1.0, tf.TensorSpec((2,))))

    class NoDriver:
        class driver:
            implementations = {}
    assert p.unsupported(NoDriver) == ["add", "sin"]


def test_errors_inside_a_checkpointed_function():
    spec = tf.TensorSpec((3,))
    with pytest.raises(TypeError, match="checkpoint: the function must return a tensor or "
                                        "a tuple of tensors, got float"):
        tf.make_graph(lambda x: tf.checkpoint(lambda x: 1.0, x), spec)
    with pytest.raises(TypeError, match="checkpoint: positional arguments must be tensors"):
        tf.make_graph(lambda x: tf.checkpoint(lambda x, k: x * k, x, 2), spec)

    def branchy(x):
        return x if x.sum() > 0 else -x
    with pytest.raises(tf.ConcretizationError, match=r"bool\(\) needs the value of a traced"):
        tf.make_graph(lambda x: tf.checkpoint(branchy, x), spec)
    with pytest.raises(tf.ConcretizationError, match=r"bool\(\)"):
        tf.make_graph(tf.grad(lambda x: tf.checkpoint(branchy, x).sum()), spec)
    # the traces were closed: tracing works again
    x = _t((3,), "after")
    assert_close(tf.jit(lambda x: tf.checkpoint(tf.exp, x))(x), np.exp(x.numpy()), **TOL)


def test_eager_checkpoint_outside_traces_is_unchanged():
    x = tf.asarray(_t((4,), "eager").numpy()).requires_grad_()
    n, _ = _calls(lambda: _counted_loss(True)(x).backward())
    assert n == 2                     # eager backward() recomputes (CheckpointNode)
    assert_close(x.grad, tf.grad(_counted_loss(False))(x.detach()).numpy(),
                 **TOL)
    n, _ = _calls(tf.grad(_counted_loss(True)), x.detach())
    assert n == 1                     # under eager functional transforms f is just called


def test_nested_checkpoints_capture_through_both_levels():
    x, w = _t((3,), "nx"), _t((3,), "nw")

    def f(x, w):
        def outer(x):   # the inner segment closes over w, two traces out
            return tf.checkpoint(lambda y: tf.sin(y * w), tf.exp(x)) * w
        return (tf.checkpoint(outer, x) ** 2).sum()

    def f0(x, w):
        return ((tf.sin(tf.exp(x) * w) * w) ** 2).sum()
    g = tf.make_graph(f, x, w)
    node, = g.nodes[:1]
    inner = [n for n in node.params["graph"].nodes if n.prim.name == "checkpoint"]
    assert len(inner) == 1 and len(node.params["graph"].in_vars) == 2
    grads = [tf.compile(g.grad(i))(x, w) for i in (0, 1)]
    for i, gi in enumerate(grads):
        assert_close(gi, tf.grad(f0, argnums=i)(x, w).numpy(), **TOL)
    _fd_check(f0, [x, w], grads, "nested")


# -- shrew's checkpoint_sequential edge cases and is_checkpointing (issue 22) ------------

def _leaf(shape, *key):
    return _t(shape, *key).requires_grad_()


def test_checkpoint_sequential_edge_cases():
    fns = [tf.sin, lambda v: v * 2.0, tf.exp]
    x = _leaf((4,), "seq-edges")
    assert tf.checkpoint_sequential([], 3, x) is x            # no functions: the input
    want = tf.exp(tf.sin(x) * 2.0)
    g_want, = tf.autograd.grad(want.sum(), [x])
    for segments in (1, 2, 3, 4, 10):                        # more segments than functions
        y = tf.checkpoint_sequential(fns, segments, x)
        assert_close(y.detach(), want.detach().numpy(), **TOL)
        g, = tf.autograd.grad(y.sum(), [x])
        assert_close(g, g_want.numpy(), **TOL)
    # with more segments than functions, each function but the last is one checkpoint
    y = tf.checkpoint_sequential(fns, 10, x)
    assert y.grad_fn.name == "ExpBackward"
    assert y.grad_fn.next_functions[0][0].name == "CheckpointBackward"
    assert y.grad_fn.next_functions[0][0].next_functions[0][0].name == "CheckpointBackward"
    for bad in (0, -2, 1.5, True, None):
        with pytest.raises(ValueError, match="segments must be a positive int"):
            tf.checkpoint_sequential(fns, bad, x)
    with pytest.raises(ValueError, match="segments"):
        tf.checkpoint_sequential([], 0, x)
    # traced: the same edge cases
    g = tf.make_graph(lambda v: tf.checkpoint_sequential(fns, 7, v).sum(), x.detach())
    assert_close(g(x.detach()), want.sum().detach().numpy(), **TOL)


def test_is_checkpointing_is_true_only_in_recomputations():
    seen = []

    def block(v):
        seen.append(tf.is_checkpointing())
        return tf.sin(v) * v
    x = _leaf((3,), "is-ckpt")
    assert not tf.is_checkpointing()
    y = tf.checkpoint(block, x)
    assert seen == [False]                  # the forward run
    y.sum().backward()
    assert seen == [False, True]            # the recomputation
    assert not tf.is_checkpointing()
    assert tf.autograd.is_checkpointing is tf.is_checkpointing
    # no recording (no_grad, plain tensors): f just runs
    del seen[:]
    tf.checkpoint(block, x.detach())
    assert seen == [False]
    # traced: f is traced once; the recomputation is the compiled program's
    del seen[:]
    tf.make_graph(lambda v: tf.checkpoint(block, v).sum(), x.detach()).grad()(x.detach())
    assert seen == [False]


def test_is_checkpointing_nests_and_survives_errors():
    seen = []

    def inner(v):
        seen.append(("inner", tf.is_checkpointing()))
        return tf.exp(v)

    def outer(v):
        seen.append(("outer", tf.is_checkpointing()))
        return tf.checkpoint(inner, tf.sin(v)) * 2.0
    x = _leaf((3,), "nested-is-ckpt")
    tf.checkpoint(outer, x).sum().backward()
    # forward: outer, inner; backward: outer re-run (its inner call's forward sees the
    # flag of the outer recomputation), then inner re-run
    assert seen == [("outer", False), ("inner", False), ("outer", True), ("inner", True),
                    ("inner", True)]
    assert not tf.is_checkpointing()

    def failing(v):
        if tf.is_checkpointing():
            raise ValueError("recomputation failed")
        return v * 3.0
    y = tf.checkpoint(failing, x)
    with pytest.raises(ValueError, match="recomputation failed"):
        y.sum().backward()
    assert not tf.is_checkpointing()


def test_is_checkpointing_is_per_thread():
    import threading

    other, started, release = [], threading.Event(), threading.Event()

    def watcher():
        started.set()
        release.wait(5)
        other.append(tf.is_checkpointing())

    def block(v):
        if tf.is_checkpointing():
            release.set()
            t.join(5)
            other.append(tf.is_checkpointing())
        return tf.sin(v)
    t = threading.Thread(target=watcher)
    t.start()
    started.wait(5)
    x = _leaf((2,), "thread-is-ckpt")
    tf.checkpoint(block, x).sum().backward()
    assert other == [False, True]   # the other thread, then this one, during the re-run


def test_a_function_that_draws_nothing_is_not_replayed():
    x = _leaf((3,), "no-draws")
    y = tf.checkpoint(lambda v: tf.sin(v), x)
    assert y.grad_fn.rng_state is None
    z = tf.checkpoint(lambda v: v * tf.random.normal(size=3), x)
    assert z.grad_fn.rng_state is not None
    assert tf.checkpoint(lambda v: v * tf.random.normal(size=3), x,
                         preserve_rng_state=False).grad_fn.rng_state is None
