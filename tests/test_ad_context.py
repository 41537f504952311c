"""AdContext (tenferro-rs's explicit AD rule set): rule overrides by primitive in force
in a ``with`` block (eager tape, functional transforms, jit) or passed to the graph
transforms (``Graph.grad/vjp/jvp(ctx=...)``); nesting, parents, fallback to the
registry, restoration after exceptions, and clear errors.  Expected derivatives are
written in NumPy from the overriding rule's formula (or are the registry's, checked
against the untouched eager transforms)."""
import numpy as np
import pytest

import tenferro as tf
from tenferro import _primitive
from tenferro.autograd import AdContext, extend

floor_p, sqrt_p, exp_p = (extend.registry[n] for n in ("floor", "sqrt", "exp"))


def t(v, dtype=None):
    return tf.asarray(np.asarray(v, dtype=dtype))


def straight_through():
    """floor's gradient passed through unchanged (a straight-through estimator)."""
    return AdContext({floor_p: {"vjp": lambda ct, primals, out, params, needs: (ct,),
                                "jvp": lambda tangents, primals, out, params: tangents[0]}})


def clipped_sqrt(eps=1e-3):
    """sqrt's derivative 1 / (2 max(sqrt x, eps)): finite at 0."""
    ctx = AdContext()
    ctx.defvjp(sqrt_p, lambda ct, x, *, out: ct * 0.5 / tf.maximum(out, eps))
    ctx.defjvp(sqrt_p, lambda tn, x, *, out: tn * 0.5 / tf.maximum(out, eps))
    return ctx


def floor_loss(x):
    return (tf.floor(x) * x).sum()


X = [1.5, -2.25, 0.75]
ST_GRAD = np.floor(X) + np.asarray(X)      # d/dx floor(x) x with d floor = 1
ZERO_GRAD = np.floor(X)                    # the registry's: d floor = 0


def _eager_tape_grad(f, x, ctx=None):
    xe = tf.tensor(x, requires_grad=True)
    if ctx is None:
        f(xe).backward()
    else:
        with ctx:
            f(xe).backward()
    return xe.grad.numpy()


def test_straight_through_floor_inside_the_context_only():
    x = t(X)
    ctx = straight_through()
    with ctx:
        np.testing.assert_allclose(tf.grad(floor_loss)(x).numpy(), ST_GRAD)
        np.testing.assert_allclose(_eager_tape_grad(floor_loss, X), ST_GRAD)
        np.testing.assert_allclose(tf.jit(tf.grad(floor_loss))(x).numpy(), ST_GRAD)
        _, tan = tf.jvp(floor_loss, (x,), (tf.ones(3),))
        np.testing.assert_allclose(float(tan), ST_GRAD.sum())
    np.testing.assert_allclose(tf.grad(floor_loss)(x).numpy(), ZERO_GRAD)
    np.testing.assert_allclose(_eager_tape_grad(floor_loss, X), ZERO_GRAD)
    np.testing.assert_allclose(tf.jit(tf.grad(floor_loss))(x).numpy(), ZERO_GRAD)
    assert _primitive.state.context is None


def test_clipped_sqrt_gradient_at_zero_in_every_mode():
    x = t([0.0, 4.0, 0.25])
    f = lambda x: tf.sqrt(x).sum()  # noqa: E731
    want = 0.5 / np.maximum(np.sqrt([0.0, 4.0, 0.25]), 1e-3)
    with np.errstate(divide="ignore"):
        assert np.isinf(tf.grad(f)(x).numpy()[0])          # the registry's rule
    with clipped_sqrt():
        np.testing.assert_allclose(tf.grad(f)(x).numpy(), want)
        np.testing.assert_allclose(tf.jacfwd(lambda x: tf.sqrt(x))(x).numpy(), np.diag(want))
        np.testing.assert_allclose(tf.jacrev(lambda x: tf.sqrt(x))(x).numpy(), np.diag(want))
        np.testing.assert_allclose(_eager_tape_grad(f, [0.0, 4.0, 0.25]), want)


def test_graph_transforms_take_the_context_explicitly():
    x, ct = t(X), t(0.5)
    g = tf.make_graph(floor_loss, tf.TensorSpec((3,)))
    ctx = straight_through()
    with ctx:
        want_grad = tf.grad(floor_loss)(x).numpy()
        want_jvp = tf.jvp(floor_loss, (x,), (t([1.0, 2.0, 3.0]),))
    np.testing.assert_allclose(want_grad, ST_GRAD)
    np.testing.assert_allclose(tf.compile(g.grad(ctx=ctx))(x).numpy(), want_grad)
    np.testing.assert_allclose(g.vjp(ctx=ctx)(x, ct)[0].numpy(), 0.5 * want_grad)
    out, tan = tf.compile(g.jvp(ctx=ctx))(x, t([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(out.numpy(), want_jvp[0].numpy())
    np.testing.assert_allclose(tan.numpy(), want_jvp[1].numpy())
    # without ctx: the registry's rules; the graph keeps the rules it was built with
    gg = g.grad()
    np.testing.assert_allclose(gg(x).numpy(), ZERO_GRAD)
    with ctx:
        np.testing.assert_allclose(g.grad()(x).numpy(), ST_GRAD)   # the context in force
        np.testing.assert_allclose(gg(x).numpy(), ZERO_GRAD)
    # an explicit ctx alone applies, whatever context is entered around the call
    with ctx:
        np.testing.assert_allclose(g.grad(ctx=AdContext())(x).numpy(), ZERO_GRAD)
        assert _primitive.state.context.chain == (ctx,)
    assert _primitive.state.context is None


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_override_on_real_and_complex_inputs(dtype):
    # exp's VJP doubled: ct * conj(exp z) * 2 (tenferro's convention: ct * conj(f'(z)))
    ctx = AdContext({"exp": {"vjp": lambda ct, primals, out, params, needs:
                             (ct * tf.conj(out) * 2,)}})
    z0 = np.array([0.3 + 0.4j, -0.2 + 1.1j]) if dtype == "complex128" else np.array([0.3, -0.2])
    z = t(z0)
    f = lambda z: tf.real(tf.exp(z) * tf.exp(z)).sum() if dtype == "complex128" \
        else (tf.exp(z) * tf.exp(z)).sum()  # noqa: E731
    want = 2 * tf.grad(f)(z).numpy()       # registry: d Re(e^{2z}) = 2 conj(e^{2z})
    np.testing.assert_allclose(tf.grad(f)(z).numpy(), 2 * np.conj(np.exp(2 * z0)))
    with ctx:
        np.testing.assert_allclose(tf.grad(f)(z).numpy(), want)
        np.testing.assert_allclose(tf.jit(tf.grad(f))(z).numpy(), want)
    np.testing.assert_allclose(tf.make_graph(f, z).grad(ctx=ctx)(z).numpy(), want)


def test_nested_contexts_shadow_and_fall_back_outward():
    x = t([0.0, 4.0])
    f = lambda x: (tf.sqrt(x) + tf.floor(x)).sum()  # noqa: E731
    sq = 0.5 / np.maximum(np.sqrt([0.0, 4.0]), 1e-3)
    outer, inner = clipped_sqrt(), straight_through()
    with outer:
        np.testing.assert_allclose(tf.grad(f)(x).numpy(), sq)
        with inner:  # inner's floor rule, outer's sqrt rule
            np.testing.assert_allclose(tf.grad(f)(x).numpy(), sq + 1)
            with clipped_sqrt(eps=1.0):   # shadows outer's sqrt rule
                np.testing.assert_allclose(tf.grad(f)(x).numpy(),
                                           0.5 / np.maximum([0.0, 2.0], 1.0) + 1)
            np.testing.assert_allclose(tf.grad(f)(x).numpy(), sq + 1)
        np.testing.assert_allclose(tf.grad(f)(x).numpy(), sq)
        with outer:   # re-entering the same context
            np.testing.assert_allclose(tf.grad(f)(x).numpy(), sq)
        np.testing.assert_allclose(tf.grad(f)(x).numpy(), sq)
    assert _primitive.state.context is None


def test_missing_rule_falls_back_to_parent_then_registry():
    parent = clipped_sqrt()
    child = AdContext(parent=parent)
    child.def_vjp(floor_p, lambda ct, primals, out, params, needs: (ct * 3,))
    assert set(child.rules(sqrt_p)) == {"jvp", "vjp"} and child.rules("sin") == {}
    assert set(child.rules(floor_p)) == {"vjp"}
    x = t([0.0, 1.5])
    f = lambda x: (tf.sqrt(x) + tf.floor(x) + tf.sin(x)).sum()  # noqa: E731
    with child:
        g = tf.grad(f)(x).numpy()
        # floor has no JVP override: forward mode keeps the registry's zero derivative
        _, tan = tf.jvp(lambda x: tf.floor(x), (x,), (t([1.0, 1.0]),))
    np.testing.assert_allclose(g, 0.5 / np.maximum(np.sqrt([0.0, 1.5]), 1e-3) + 3
                               + np.cos([0.0, 1.5]))
    np.testing.assert_array_equal(tan.numpy(), [0.0, 0.0])
    z = t([1j])
    with pytest.raises(TypeError, match="sign: not differentiable for complex input"):
        tf.jvp(tf.sign, (z,), (z,))     # the registry's answer ...
    with AdContext({"sign": {"vjp": lambda ct, primals, out, params, needs: (ct,)}}):
        with pytest.raises(TypeError, match="sign: not differentiable for complex input"):
            tf.jvp(tf.sign, (z,), (z,))   # ... kept by the mode not overridden
    np.testing.assert_allclose(tf.make_graph(f, x).grad(ctx=child)(x).numpy(), g)


def test_rules_are_fixed_when_recorded():
    ctx = straight_through()
    x = t(X)
    xe = tf.tensor(X, requires_grad=True)
    with ctx:
        y = floor_loss(xe)
        _, vjp_fn = tf.vjp(floor_loss, x)
    y.backward()
    np.testing.assert_allclose(xe.grad.numpy(), ST_GRAD)
    np.testing.assert_allclose(vjp_fn(t(1.0))[0].numpy(), ST_GRAD)
    xe2 = tf.tensor(X, requires_grad=True)
    y2 = floor_loss(xe2)
    with ctx:
        y2.backward()
    np.testing.assert_allclose(xe2.grad.numpy(), ZERO_GRAD)


def test_context_and_grad_mode_restored_after_exceptions_and_no_grad():
    ctx = straight_through()
    with pytest.raises(ZeroDivisionError):
        with ctx:
            1 / 0
    assert _primitive.state.context is None and _primitive.state.enabled
    with ctx:
        with tf.no_grad():
            assert not _primitive.state.enabled
        xe = tf.tensor(X, requires_grad=True)
        floor_loss(xe).backward()   # recorded with the context's rules after no_grad
        np.testing.assert_allclose(xe.grad.numpy(), ST_GRAD)
    with tf.no_grad():
        with ctx:
            assert not _primitive.state.enabled
        assert not _primitive.state.enabled
    assert _primitive.state.enabled
    with pytest.raises(TypeError, match="must return a scalar"):   # raised inside ctx
        tf.make_graph(lambda x: tf.floor(x) * 2, t(X)).grad(ctx=ctx)
    assert _primitive.state.context is None


def test_jit_retraces_under_another_rule_set():
    x = t(X)
    ctx = straight_through()
    gj = tf.jit(tf.grad(floor_loss))
    np.testing.assert_allclose(gj(x).numpy(), ZERO_GRAD)
    with ctx:
        np.testing.assert_allclose(gj(x).numpy(), ST_GRAD)
        np.testing.assert_allclose(gj(x).numpy(), ST_GRAD)
    np.testing.assert_allclose(gj(x).numpy(), ZERO_GRAD)
    assert gj.cache_info()[:3] == (2, 2, 2)
    ctx.def_vjp(floor_p, lambda ct, primals, out, params, needs: (ct * 2,))
    with ctx:
        np.testing.assert_allclose(gj(x).numpy(), np.floor(X) + 2 * np.asarray(X))
    assert gj.cache_info().misses == 3


def test_second_order_through_an_overriding_rule():
    # the rule is written in tenferro ops, so it is differentiated in turn
    ctx = AdContext()
    ctx.defvjp(exp_p, lambda ct, x, *, out: ct * out * x)   # "d exp(x) = x exp(x)"
    x = t([0.3, -0.7])
    with ctx:
        h = tf.grad(lambda x: tf.grad(lambda y: tf.exp(y).sum())(x).sum())(x).numpy()
    xs = np.array([0.3, -0.7])
    # d/dx [x exp(x)] with the same rule for exp's own derivative: exp(x) + x * x exp(x)
    np.testing.assert_allclose(h, np.exp(xs) * (1 + xs * xs))


def test_bad_rules_and_arguments_are_clear_errors():
    with pytest.raises(TypeError, match=r"AdContext: the VJP rule of floor must be callable"):
        AdContext().def_vjp(floor_p, 3)
    with pytest.raises(ValueError, match=r"rules of floor must be a dict with keys 'jvp'"):
        AdContext({floor_p: {"grad": len}})
    with pytest.raises(ValueError, match=r"rules of floor must be a dict"):
        AdContext({floor_p: len})
    with pytest.raises(TypeError, match=r"rules must be a dict .* got list"):
        AdContext([floor_p])
    with pytest.raises(KeyError, match=r"no primitive named 'nope'"):
        AdContext({"nope": {"vjp": len}})
    with pytest.raises(TypeError, match=r"keyed by a Primitive or its name, got function"):
        AdContext().def_jvp(tf.sin, len)
    with pytest.raises(TypeError, match=r"parent must be an AdContext or None, got dict"):
        AdContext(parent={})
    g = tf.make_graph(floor_loss, t(X))
    for op in ("grad", "vjp", "jvp"):
        with pytest.raises(TypeError, match=r"Graph.%s: ctx must be an AdContext" % op):
            getattr(g, op)(ctx="st")
    # a rule returning the wrong shape is caught, naming the primitive
    bad = AdContext({floor_p: {"vjp": lambda ct, primals, out, params, needs:
                               (ct.sum(),)}})
    with bad, pytest.raises(RuntimeError, match=r"VJP rule of floor returned a cotangent of "
                                                r"shape \(\)"):
        tf.grad(floor_loss)(t(X))
    # a primitive without rules given only a VJP in a context: its missing JVP rule
    # stays a clear error (no zero-derivative fallback: it is not piecewise constant)
    p = extend.Primitive("_test_ctx_norules", lambda x: x)
    extend.def_impl(p, "cpu", lambda x: x * 2)
    with AdContext({p: {"vjp": lambda ct, primals, out, params, needs: (ct * 2,)}}):
        np.testing.assert_allclose(tf.grad(lambda x: p.bind(x).sum())(t([1.0])).numpy(), [2.0])
        with pytest.raises(NotImplementedError, match=r"_test_ctx_norules: no JVP rule"):
            tf.jvp(lambda x: p.bind(x), (t([1.0]),), (t([1.0]),))
