"""The traced twin of every eager functional-transform test (issue 6: "every eager-mode AD
test has a traced twin, same values to rounding").

These test the TRACER (trace, jit, compile), not the derivative rules: a twin compares
tenferro with tenferro, so a wrong rule gives the same wrong value in both and passes.
They are marked ``tracer_twin`` and do not count as rule tests; the rules are checked
against finite differences in tests/test_autograd_rules.py (gradcheck), per device in
tests/test_devices_ops.py, and against NumPy/SciPy in the tests the twins mirror.

Each case of ``CASES`` is one computation of tests/test_autograd_functional.py (or of a
test of tests/test_autograd_eager.py about what is differentiated rather than how the
tape works), written as a function of tensors returning a pytree.  It runs eagerly (the
reference, which the eager tests check against NumPy) and under ``tf.jit`` (twice: a
cache hit) and ``tf.compile(tf.make_graph(...))``; every leaf must agree to rounding, with
the same dtype and shape.  The eager tests' errors and refusals are checked under
``jit`` too.

Twinned from test_autograd_functional.py: every test except
``test_every_differentiable_primitive_has_both_rules`` (a registry walk, no transform)
and ``test_gradcheck_catches_a_wrong_rule`` (gradcheck's own machinery; traced rules are
checked by tests/test_traced_specs.py).  ``test_is_differentiated`` has a twin whose
answer differs on purpose: inside a trace every value is differentiable (the graph may be
differentiated later by ``Graph.grad``), so rules never take their non-differentiable
shortcuts while tracing.

Twinned from test_autograd_eager.py (transform semantics): many uses summed, broadcast
gradients unbroadcast, create_graph's higher derivatives (as nested grad), piecewise-
constant ops' zero gradients, the complex convention, checkpoint's values, a deep chain,
and detach (as stop_gradient).  Not twinned, having no traced meaning: requires_grad
flags, grad_fn inspection, ``.grad`` accumulation and zero_grad, backward's root and
inputs= arguments, retain_graph and freed buffers, hooks and retain_grad, no_grad
(functional transforms ignore it), reference cycles and memory release, aliasing of
``.grad``, in-place modification of saved tensors (a trace refuses in-place writes: see
``test_in_place_writes_are_refused_under_jit``), factories' requires_grad, checkpoint's
recomputation count and random replay.
"""
import numpy as np
import pytest

import tenferro as tf
from tenferro.autograd import extend
from tenferro.autograd import tree_flatten, tree_map, tree_unflatten

# tracer tests, not rule tests: ``pytest -m "not tracer_twin"`` leaves them out
pytestmark = pytest.mark.tracer_twin


def t(v, dtype=None):
    return tf.asarray(np.asarray(v, dtype=dtype))


def _sin_y(x, y):
    return (tf.sin(x) * y).sum()


def _pytree_f(p):
    return {"s": (p["a"] * p["b"][0]).sum(), "v": [p["b"][1] * 2.0]}


P = {"a": np.array([1.0, 2.0]), "b": (np.array([3.0, 4.0]), 5.0)}
A = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
X3 = [0.3, -0.2, 0.5]


def _sin_sum(x):
    return tf.sin(x).sum()


def _cube_sum(x):
    return (x ** 3).sum()


def _fourth_derivatives(x):
    d = [_sin_sum]
    for _ in range(4):
        d.append(tf.grad(d[-1]))
    return tuple(g(x) for g in d[1:])


def _confusion_rev(x):
    return tf.grad(lambda x: (x * tf.grad(lambda y: (x + y).sum())(t(1.0))).sum())(x)


def _confusion_fwd(x):
    return tf.grad(lambda x: (x * tf.jvp(lambda y: x + y, (t(1.0),), (t(1.0),))[1]).sum())(x)


def _block(v):
    for _ in range(5):
        v = tf.tanh(v * 1.5)
    return v


def _deep_chain(x):
    def f(y):
        for _ in range(1200):   # deeper than Python's default recursion limit
            y = y + 1.0
        return y.sum()
    return tf.grad(f)(x)


_softplus_p = extend.Primitive("_test_twin_softplus", lambda x: x)
extend.def_impl(_softplus_p, "cpu", lambda x: np.logaddexp(0.0, x))
extend.defjvp(_softplus_p, lambda tn, x, *, out: tn * tf.sigmoid(x))
extend.defvjp(_softplus_p, lambda ct, x, *, out: ct * tf.sigmoid(x))


def _softplus_sum(x):
    return _softplus_p.bind(x).sum()


# name (the eager test it twins): (function of tensors -> pytree, its arguments)
CASES = {
    # test_autograd_functional.py
    "grad_argnums_has_aux: grad": (tf.grad(_sin_y), ([0.1, 0.2], [3.0, 4.0])),
    "grad_argnums_has_aux: argnums=(0,1)": (tf.grad(_sin_y, argnums=(0, 1)),
                                            ([0.1, 0.2], [3.0, 4.0])),
    "grad_argnums_has_aux: value_and_grad": (tf.value_and_grad(_sin_y, argnums=1),
                                             ([0.1, 0.2], [3.0, 4.0])),
    "grad_argnums_has_aux: has_aux": (
        tf.grad(lambda x: ((x * x).sum(), x * 2), has_aux=True), ([0.1, 0.2],)),
    "grad_argnums_has_aux: argnums=-1": (tf.grad(_sin_y, argnums=-1),
                                         ([0.1, 0.2], [3.0, 4.0])),
    "vjp_and_jvp_on_pytrees: vjp": (
        lambda p, ct: (lambda r: (r[0], r[1](ct)))(tf.vjp(_pytree_f, p)),
        (P, {"s": 1.0, "v": [1.0]})),
    "vjp_and_jvp_on_pytrees: jvp": (
        lambda p, tp: tf.jvp(_pytree_f, (p,), (tp,)),
        (P, {"a": np.array([1.0, 0.0]), "b": (np.array([0.0, 1.0]), 1.0)})),
    "outputs_not_depending_on_inputs: jvp": (
        lambda x: tf.jvp(lambda x: tf.ones(3), (x,), (x,)), ([1.0, 2.0],)),
    "outputs_not_depending_on_inputs: grad": (
        tf.grad(lambda x: tf.ones(()).sum()), ([1.0, 2.0],)),
    "perturbation_confusion: rev in rev": (_confusion_rev, (3.0,)),
    "perturbation_confusion: fwd in rev": (_confusion_fwd, (3.0,)),
    "nesting_to_higher_orders: 4 grads": (_fourth_derivatives, (0.7,)),
    "nesting_to_higher_orders: jvp of grad": (
        lambda x: tf.jvp(tf.grad(_sin_sum), (x,), (t(1.0),)), (0.7,)),
    "nesting_to_higher_orders: grad of jvp": (
        tf.grad(lambda x: tf.jvp(lambda y: tf.sin(y).sum(), (x,), (t(1.0),))[1]), (0.7,)),
    "jacobians_and_hessian: jacrev": (tf.jacrev(lambda x: tf.matmul(t(A), tf.sin(x))), (X3,)),
    "jacobians_and_hessian: jacfwd": (tf.jacfwd(lambda x: tf.matmul(t(A), tf.sin(x))), (X3,)),
    "jacobians_and_hessian: jacfwd matrix": (tf.jacfwd(lambda X: X * X),
                                             (np.arange(6.0).reshape(2, 3) / 10,)),
    "jacobians_and_hessian: jacrev matrix": (tf.jacrev(lambda X: X * X),
                                             (np.arange(6.0).reshape(2, 3) / 10,)),
    "jacobians_and_hessian: jacrev two args, tuple out": (
        tf.jacrev(lambda a, b: (a * b, a.sum()), argnums=(0, 1)), ([1.0, 2.0], [3.0, 4.0])),
    "jacobians_and_hessian: hessian": (
        tf.hessian(lambda x: (x ** 3).sum() + x[0] * x[1]), (X3,)),
    "jacobians_and_hessian: jacfwd(jacrev)": (tf.jacfwd(tf.jacrev(_cube_sum)), (X3,)),
    "jacobians_and_hessian: hvp": (lambda x, v: tf.hvp(_cube_sum, (x,), (v,)),
                                   (X3, [1.0, 2.0, 3.0])),
    "jacobians_and_hessian: jacrev, jacfwd with has_aux": (
        lambda x: tuple(j(lambda x: (tf.sin(x) * x, x.sum() * 3), has_aux=True)(x)
                        for j in (tf.jacrev, tf.jacfwd)), (X3,)),
    "jacobians_and_hessian: value_and_grad with has_aux": (
        tf.value_and_grad(lambda x: ((x * x).sum(), tf.cos(x)), has_aux=True), (X3,)),
    "holomorphic_jacobians: hessian": (tf.hessian(lambda z: (z * z * z).sum(),
                                                  holomorphic=True), ([1 + 1j, 0.5 - 2j],)),
    "holomorphic_jacobians: jacfwd": (tf.jacfwd(lambda z: z * z, holomorphic=True),
                                      ([1 + 1j, 0.5 - 2j],)),
    "holomorphic_jacobians: jacrev": (tf.jacrev(lambda z: z * z, holomorphic=True),
                                      ([1 + 1j, 0.5 - 2j],)),
    "linearize": (lambda x, tn: (lambda r: (r[0], r[1](tn)))(tf.linearize(tf.exp, x)),
                  ([0.1, 0.2], [1.0, 2.0])),
    "complex_gradient_convention": (tf.grad(lambda z: (tf.abs(z) ** 2 + z.real).sum()),
                                    ([1 + 2j, -1j],)),
    "stop_gradient": (tf.grad(lambda x: (x * tf.stop_gradient(x)).sum()), ([2.0],)),
    "extension_api_example: grad": (tf.grad(_softplus_sum), ([-1.0, 0.5, 2.0],)),
    "extension_api_example: jvp": (lambda x, tn: tf.jvp(_softplus_sum, (x,), (tn,)),
                                   ([-1.0, 0.5, 2.0], [1.0, -1.0, 0.5])),
    # test_autograd_eager.py
    "many_uses_are_summed": (tf.grad(lambda x: (x * x + x + tf.sin(x)).sum()), ([1.5, -2.0],)),
    "broadcast_gradient_is_unbroadcast": (tf.grad(lambda a, b: (a * b).sum(), argnums=(0, 1)),
                                          (np.ones((3, 1)), np.arange(4.0))),
    "create_graph_gives_higher_derivatives": (
        lambda x: (tf.grad(_cube_sum)(x), tf.grad(lambda x: tf.grad(_cube_sum)(x).sum())(x),
                   tf.grad(lambda x: tf.grad(lambda x: tf.grad(_cube_sum)(x).sum())(x)
                           .sum())(x)), ([0.5, 2.0],)),
    "piecewise_constant_ops_give_zero_gradients": (
        tf.grad(lambda x: (tf.floor(x) + tf.sign(x) + tf.round(x) + x * x).sum()),
        ([1.3, -2.7],)),
    "complex_leaf_follows_pytorch_convention": (
        tf.grad(lambda z: (z * tf.conj(z)).real.sum()), ([1 + 2j, -0.5 + 1j],)),
    "checkpoint_matches": (tf.grad(lambda x: tf.checkpoint(_block, x).sum()),
                           (np.linspace(-1, 1, 6),)),
    "deep_chain": (_deep_chain, ([1.0],)),
}


def _tensors(args):
    """Each argument as tensors: a list of numbers is one tensor; in a dict or a tuple,
    each leaf (a number or an array) is."""
    return tuple(tree_map(t, a) if isinstance(a, (dict, tuple)) else t(a) for a in args)


def _assert_same(got, want):
    g, gtree = tree_flatten(got)
    w, wtree = tree_flatten(want)
    assert gtree == wtree, (gtree, wtree)
    for a, b in zip(g, w):
        assert type(a) is tf.Tensor, type(a)
        assert (a.shape, a.dtype) == (b.shape, b.dtype), ((a.shape, a.dtype), (b.shape, b.dtype))
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("name", list(CASES))
def test_traced_twin(name):
    fn, raw = CASES[name]
    args = _tensors(raw)
    want = fn(*args)
    jf = tf.jit(fn)
    _assert_same(jf(*args), want)
    _assert_same(jf(*args), want)          # a cache hit runs the same program again
    assert jf.cache_info()[:3] == (1, 1, 1)
    flat, tree = tree_flatten(args)
    prog = tf.compile(tf.make_graph(lambda *xs: fn(*tree_unflatten(tree, list(xs))), *flat))
    _assert_same(prog(*flat), want)
    _assert_same(prog(*flat), want)
    assert prog.runs == 2


def test_jit_retraces_on_new_shapes_and_dtypes_with_eager_values():
    f = lambda x: (tf.abs(tf.sin(x)) ** 2).sum()  # noqa: E731
    jg = tf.jit(tf.grad(f))
    calls = [([0.1, 0.2, 0.3], None), ([0.1, 0.2, 0.3], None), ([0.4, 0.5], None),
             ([0.1, 0.2, 0.3], "float32"), ([0.1 + 0.2j, -0.3j, 1.0], None),
             ([0.6, 0.7], None)]
    for v, dt in calls:
        x = t(v, dt)
        got, want = jg(x), tf.grad(f)(x)
        assert (got.dtype, got.shape) == (want.dtype, want.shape)
        tol = 1e-6 if dt == "float32" else 1e-13
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol, atol=tol)
    info = jg.cache_info()
    assert (info.hits, info.misses, info.size) == (2, 4, 4)


@pytest.mark.parametrize("fn,args,exc,match", [
    (tf.grad(lambda x: x * 2), ([1.0, 2.0],), TypeError, r"scalar.*shape \(2,\)"),
    (tf.grad(lambda x: (x * 1j).sum()), ([1.0, 2.0],), TypeError, "real scalar.*complex128"),
    (tf.grad(lambda x: x.sum()), ([1, 2],), TypeError,
     "floating-point or complex dtype, got int64"),
    (tf.grad(lambda x: x.sum(), argnums=3), ([1.0, 2.0],), ValueError, "argnums"),
    (lambda x: tf.vjp(_pytree_f, {"a": x, "b": (x, x[0])})[1]({"s": t(1.0)}),
     ([1.0, 2.0],), ValueError, "structure"),
    (lambda x: tf.jvp(lambda x: x, (x,), (t([1.0, 2.0, 3.0]),)), ([1.0, 2.0],), ValueError,
     r"tangent 0 has shape \(3,\)"),
    (lambda x: tf.jvp(lambda x: x, (x,), (t([1j]),)), ([1.0],), TypeError, "complex128"),
    (tf.jacfwd(lambda z: z * z), ([1 + 1j, 0.5 - 2j],), TypeError, "holomorphic=True"),
], ids=["grad of non-scalar", "grad of complex", "grad of ints", "argnums",
        "vjp structure", "jvp tangent shape", "jvp complex tangent", "jacfwd complex"])
def test_errors_are_the_same_under_jit(fn, args, exc, match):
    args = _tensors(args)
    with pytest.raises(exc, match=match):
        fn(*args)
    with pytest.raises(exc, match=match):
        tf.jit(fn)(*args)


def test_missing_rule_raises_under_jit_naming_primitive_and_mode():
    p = extend.Primitive("_test_twin_norules", lambda x: x)
    extend.def_impl(p, "cpu", lambda x: x * 2)
    x = t([1.0])
    with pytest.raises(NotImplementedError, match=r"_test_twin_norules: no JVP rule.*forward"):
        tf.jit(lambda x: tf.jvp(lambda x: p.bind(x), (x,), (x,)))(x)
    with pytest.raises(NotImplementedError, match=r"_test_twin_norules: no VJP rule.*reverse"):
        tf.jit(tf.grad(lambda x: p.bind(x).sum()))(x)


def test_leaked_tracer_is_reported_under_jit():
    box = []

    def f(x):
        box.append(x)
        return (x * 2).sum()

    def g(x):
        tf.grad(f)(x)
        return box[-1] * 2      # the grad's tracer, after grad returned
    with pytest.raises(RuntimeError, match="already returned"):
        tf.jit(g)(t([1.0]))


def test_in_place_writes_are_refused_under_jit():
    def f(x):
        y = tf.zeros(2)
        y[0] = x[0]
        return y.sum()
    with pytest.raises(RuntimeError, match="in-place writes are not supported"):
        tf.jit(tf.grad(f))(t([1.0, 2.0]))


def test_jitted_transforms_sit_above_the_eager_tape():
    x = tf.tensor([0.5, -1.0], requires_grad=True)
    g = tf.jit(tf.grad(lambda v: tf.sin(v).sum()))(x)   # run through bind: recorded
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), -np.sin([0.5, -1.0]), rtol=1e-15)


def test_is_differentiated_inside_a_trace():
    from tenferro.autograd.extend import is_differentiated
    seen = []
    tf.jit(lambda v: (seen.append(is_differentiated(v)), v * 2)[1])(tf.ones(2))
    tf.jit(tf.grad(lambda v: (seen.append(is_differentiated(v)), tf.sum(v))[1]))(tf.ones(2))
    assert seen == [True, True]
