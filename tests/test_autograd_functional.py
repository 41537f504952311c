"""Functional transforms (JAX-style): grad, vjp, jvp, jacobians, nesting, extension API."""
import numpy as np
import pytest

import tenferro as tf
from tenferro import autograd
from tenferro.autograd import extend


def t(v, dtype=None):
    return tf.asarray(np.asarray(v, dtype=dtype))


def test_grad_value_and_grad_argnums_has_aux():
    def f(x, y):
        return (tf.sin(x) * y).sum()
    x, y = t([0.1, 0.2]), t([3.0, 4.0])
    np.testing.assert_allclose(tf.grad(f)(x, y).numpy(), np.cos([0.1, 0.2]) * [3, 4])
    gx, gy = tf.grad(f, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(gy.numpy(), np.sin([0.1, 0.2]))
    v, g = tf.value_and_grad(f, argnums=1)(x, y)
    np.testing.assert_allclose(float(v), np.sum(np.sin([0.1, 0.2]) * [3, 4]))
    g, aux = tf.grad(lambda x: ((x * x).sum(), x * 2), has_aux=True)(x)
    np.testing.assert_allclose(aux.numpy(), [0.2, 0.4])
    assert type(aux) is tf.Tensor  # aux is stripped of tracers
    assert tf.grad(f, argnums=-1)(x, y).shape == (2,)


def test_grad_errors():
    x = t([1.0, 2.0])
    with pytest.raises(TypeError, match=r"scalar.*shape \(2,\)"):
        tf.grad(lambda x: x * 2)(x)
    with pytest.raises(TypeError, match="real scalar.*complex128"):
        tf.grad(lambda x: (x * 1j).sum())(x)
    with pytest.raises(TypeError, match="floating-point or complex dtype, got int64"):
        tf.grad(lambda x: x.sum())(t([1, 2]))
    with pytest.raises(ValueError, match="argnums"):
        tf.grad(lambda x: x.sum(), argnums=3)(x)
    with pytest.raises(TypeError, match="must be tensors"):
        tf.grad(lambda x: x)("a")


def test_vjp_and_jvp_on_pytrees():
    def f(p):
        return {"s": (p["a"] * p["b"][0]).sum(), "v": [p["b"][1] * 2.0]}
    p = {"a": t([1.0, 2.0]), "b": (t([3.0, 4.0]), t(5.0))}
    out, fn = tf.vjp(f, p)
    np.testing.assert_allclose(float(out["s"]), 11.0)
    (g,) = fn({"s": t(1.0), "v": [t(1.0)]})
    np.testing.assert_allclose(g["a"].numpy(), [3.0, 4.0])
    np.testing.assert_allclose(g["b"][0].numpy(), [1.0, 2.0])
    np.testing.assert_allclose(float(g["b"][1]), 2.0)
    with pytest.raises(ValueError, match="structure"):
        fn({"s": t(1.0)})
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        fn({"s": t([1.0, 2.0]), "v": [t(1.0)]})
    tp = {"a": t([1.0, 0.0]), "b": (t([0.0, 1.0]), t(1.0))}
    out, tout = tf.jvp(f, (p,), (tp,))
    np.testing.assert_allclose(float(tout["s"]), 3.0 + 2.0)
    np.testing.assert_allclose(float(tout["v"][0]), 2.0)
    with pytest.raises(ValueError, match=r"tangent 0 has shape \(3,\)"):
        tf.jvp(lambda x: x, (t([1.0, 2.0]),), (t([1.0, 2.0, 3.0]),))
    with pytest.raises(TypeError, match="complex128"):
        tf.jvp(lambda x: x, (t([1.0]),), (t([1j]),))


def test_outputs_not_depending_on_inputs_have_zero_derivatives():
    x = t([1.0, 2.0])
    out, tout = tf.jvp(lambda x: tf.ones(3), (x,), (x,))
    np.testing.assert_array_equal(tout.numpy(), np.zeros(3))
    np.testing.assert_array_equal(tf.grad(lambda x: tf.ones(()).sum())(x).numpy(), [0.0, 0.0])


def test_perturbation_confusion_is_avoided():
    # d/dx [ x * d/dy (x + y) ] = d/dx [x] = 1  (a shared tape would give 2)
    def outer(x):
        return x * tf.grad(lambda y: (x + y).sum())(t(1.0))
    np.testing.assert_allclose(float(tf.grad(lambda x: outer(x).sum())(t(3.0))), 1.0)
    # the same with forward mode inside reverse mode
    def outer_f(x):
        return x * tf.jvp(lambda y: x + y, (t(1.0),), (t(1.0),))[1]
    np.testing.assert_allclose(float(tf.grad(lambda x: outer_f(x).sum())(t(3.0))), 1.0)


def test_nesting_to_higher_orders():
    f = lambda x: tf.sin(x).sum()  # noqa: E731
    x = t(0.7)
    d = [f]
    for _ in range(4):
        d.append(tf.grad(d[-1]))
    np.testing.assert_allclose([float(g(x)) for g in d[1:]],
                               [np.cos(0.7), -np.sin(0.7), -np.cos(0.7), np.sin(0.7)], rtol=1e-13)
    # jvp of grad, grad of jvp
    _, h = tf.jvp(tf.grad(f), (x,), (t(1.0),))
    np.testing.assert_allclose(float(h), -np.sin(0.7))
    g = tf.grad(lambda x: tf.jvp(lambda y: tf.sin(y).sum(), (x,), (t(1.0),))[1])(x)
    np.testing.assert_allclose(float(g), -np.sin(0.7))


def test_jacobians_and_hessian():
    A = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    x = t([0.3, -0.2, 0.5])
    f = lambda x: tf.matmul(t(A), tf.sin(x))  # noqa: E731
    J = A * np.cos([0.3, -0.2, 0.5])
    np.testing.assert_allclose(tf.jacrev(f)(x).numpy(), J)
    np.testing.assert_allclose(tf.jacfwd(f)(x).numpy(), J)
    X = t(np.arange(6.0).reshape(2, 3) / 10)
    Jm = tf.jacfwd(lambda X: X * X)(X).numpy()
    assert Jm.shape == (2, 3, 2, 3)
    np.testing.assert_allclose(Jm.reshape(6, 6), np.diag(2 * np.arange(6.0) / 10))
    np.testing.assert_allclose(tf.jacrev(lambda X: X * X)(X).numpy(), Jm)
    # two arguments, a tuple output
    ja = tf.jacrev(lambda a, b: (a * b, a.sum()), argnums=(0, 1))(t([1.0, 2.0]), t([3.0, 4.0]))
    np.testing.assert_allclose(ja[0][1].numpy(), np.diag([1.0, 2.0]))
    np.testing.assert_allclose(ja[1][0].numpy(), [1.0, 1.0])
    H = tf.hessian(lambda x: (x ** 3).sum() + x[0] * x[1])(x).numpy()
    np.testing.assert_allclose(H, np.diag(6 * np.array([0.3, -0.2, 0.5])) +
                               np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0.0]]))
    np.testing.assert_allclose(
        tf.jacfwd(tf.jacrev(lambda x: (x ** 3).sum()))(x).numpy(), np.diag(6 * x.numpy()))
    v = t([1.0, 2.0, 3.0])
    hv = tf.hvp(lambda x: (x ** 3).sum(), (x,), (v,))
    np.testing.assert_allclose(hv[0].numpy(), 6 * x.numpy() * v.numpy())


def test_holomorphic_jacobians():
    z = t([1 + 1j, 0.5 - 2j])
    f = lambda z: z * z  # noqa: E731
    with pytest.raises(TypeError, match="holomorphic=True"):
        tf.jacfwd(f)(z)
    want = np.diag(2 * z.numpy())
    np.testing.assert_allclose(tf.jacfwd(f, holomorphic=True)(z).numpy(), want)
    np.testing.assert_allclose(tf.jacrev(f, holomorphic=True)(z).numpy(), want)


def test_linearize():
    x = t([0.1, 0.2])
    out, f_jvp = tf.linearize(tf.exp, x)
    np.testing.assert_allclose(out.numpy(), np.exp([0.1, 0.2]))
    np.testing.assert_allclose(f_jvp(t([1.0, 2.0])).numpy(), np.exp([0.1, 0.2]) * [1, 2])


def test_complex_gradient_convention_and_conversion_to_jax():
    # L(z) = |z|^2 + Re(z): dL/dRe z + i dL/dIm z = 2z + 1 (JAX's would be conj)
    z = t([1 + 2j, -1j])
    g = tf.grad(lambda z: (tf.abs(z) ** 2 + z.real).sum())(z)
    np.testing.assert_allclose(g.numpy(), 2 * z.numpy() + 1)
    np.testing.assert_allclose(tf.conj(g).numpy(), np.conj(2 * z.numpy() + 1))


def test_leaked_tracer_is_reported():
    box = []

    def f(x):
        box.append(x)
        return (x * 2).sum()
    tf.grad(f)(t([1.0]))
    with pytest.raises(RuntimeError, match="already returned"):
        box[0] * 2


def test_in_place_writes_on_tracers_are_refused():
    def f(x):
        y = tf.zeros(2)
        y[0] = x[0]
        return y.sum()
    with pytest.raises(RuntimeError, match="in-place writes are not supported"):
        tf.grad(f)(t([1.0, 2.0]))


def test_stop_gradient():
    x = t([2.0])
    g = tf.grad(lambda x: (x * tf.stop_gradient(x)).sum())(x)
    np.testing.assert_allclose(g.numpy(), [2.0])


def test_transforms_sit_above_the_eager_tape():
    x = tf.tensor([0.5], requires_grad=True)
    g = tf.grad(lambda v: tf.sin(v).sum())(x)  # recorded on the tape below
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), -np.sin([0.5]))


# -- rules: registry walk, missing rules, extension API ----------------------------------

def test_every_differentiable_primitive_has_both_rules():
    missing = []
    for name, p in extend.registry.items():
        if name.startswith("_test"):
            continue
        if p.differentiable:
            if p.jvp is None:
                missing.append((name, "jvp"))
            if p.vjp is None:
                missing.append((name, "vjp"))
        else:
            assert p.nondiff_reason, name
    assert not missing


def test_missing_rule_raises_naming_primitive_and_mode():
    p = extend.Primitive("_test_norules", lambda x: x)
    extend.def_impl(p, "cpu", lambda x: x * 2)
    x = t([1.0])
    with pytest.raises(NotImplementedError, match=r"_test_norules: no JVP rule.*forward"):
        tf.jvp(lambda x: p.bind(x), (x,), (x,))
    with pytest.raises(NotImplementedError, match=r"_test_norules: no VJP rule.*reverse"):
        tf.grad(lambda x: p.bind(x).sum())(x)
    xe = tf.tensor([1.0], requires_grad=True)
    y = p.bind(xe).sum()
    with pytest.raises(NotImplementedError, match=r"_test_norules: no VJP rule"):
        y.backward()
    # forward mode really is forward mode: a JVP rule alone suffices for jvp and jacfwd
    extend.defjvp(p, lambda t, x, *, out: t * 2)
    np.testing.assert_allclose(tf.jacfwd(lambda x: p.bind(x))(x).numpy(), [[2.0]])
    with pytest.raises(NotImplementedError, match="no VJP rule"):
        tf.jacrev(lambda x: p.bind(x))(x)


def test_extension_api_example():
    softplus_p = extend.Primitive("_test_softplus", lambda x: x)
    extend.def_impl(softplus_p, "cpu", lambda x: np.logaddexp(0.0, x))
    extend.defjvp(softplus_p, lambda t, x, *, out: t * tf.sigmoid(x))
    extend.defvjp(softplus_p, lambda ct, x, *, out: ct * tf.sigmoid(x))

    def softplus(x):
        return softplus_p.bind(tf.asarray(x))
    x = t([-1.0, 0.5, 2.0])
    np.testing.assert_allclose(softplus(x).numpy(), np.logaddexp(0, x.numpy()))
    autograd.gradcheck(softplus, (x,), modes=("jvp", "vjp", "eager"), order=2)


def test_gradcheck_catches_a_wrong_rule():
    p = extend.Primitive("_test_wrong", lambda x: x)
    extend.def_impl(p, "cpu", lambda x: np.sin(x))
    extend.defjvp(p, lambda t, x, *, out: t * tf.cos(x))
    extend.defvjp(p, lambda ct, x, *, out: ct * tf.cos(x) * 1.01)  # 1% off
    x = t([0.3, 0.9])
    autograd.gradcheck(lambda x: p.bind(x), (x,), modes=("jvp",), order=1)
    with pytest.raises(autograd._gradcheck.GradcheckError, match="reverse mode"):
        autograd.gradcheck(lambda x: p.bind(x), (x,), modes=("vjp",), order=1)
    with pytest.raises(autograd._gradcheck.GradcheckError, match="eager"):
        autograd.gradcheck(lambda x: p.bind(x), (x,), modes=("eager",), order=1)
    # a wrong second derivative (right first derivative, rule not differentiable)
    q = extend.Primitive("_test_wrong2", lambda x: x)
    extend.def_impl(q, "cpu", lambda x: np.sin(x))
    extend.defjvp(q, lambda t, x, *, out: t * tf.stop_gradient(tf.cos(x)))
    autograd.gradcheck(lambda x: q.bind(x), (x,), modes=("jvp",), order=1)
    with pytest.raises(autograd._gradcheck.GradcheckError, match="order 2"):
        autograd.gradcheck(lambda x: q.bind(x), (x,), modes=("jvp",), order=2)


def test_is_differentiated():
    from tenferro.autograd.extend import is_differentiated
    x = tf.ones((2,))
    assert not is_differentiated(x)
    y = tf.ones((2,)).requires_grad_()
    assert is_differentiated(x, y) and is_differentiated(y * 2)
    with autograd.no_grad():
        assert not is_differentiated(y)
    seen = []
    tf.grad(lambda t: (seen.append(is_differentiated(t)), tf.sum(t))[1])(x)
    tf.jvp(lambda t: (seen.append(is_differentiated(t)), t)[1], (x,), (x,))
    assert seen == [True, True]
