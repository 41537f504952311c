"""Autodiff never gives a silent zero (issue 15): host reads of differentiated values
raise, lists of tensors stay in the graph, NumPy reads of tensors that require grad
raise (PyTorch), rules/hooks/.grad are validated, and the optimizer idiom works.

Expected derivatives are central finite differences or closed forms, never the code
under test."""
import numpy as np
import pytest
import scipy.linalg as sl

import tenferro as tf
import tenferro.linalg as tl
from tenferro.autograd import extend
from test_tensor import fake  # noqa: F401  (the fixture of a second, fake device)

X = np.array([0.3, -1.2, 0.7])


def _fd(f, x, eps=1e-6):
    """Central finite differences of a real scalar ``f`` of a float64 ndarray."""
    x = np.asarray(x, dtype=np.float64)
    g = np.zeros_like(x)
    for k in range(x.size):
        e = np.zeros_like(x)
        e.flat[k] = eps
        g.flat[k] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


def _value(f, x):
    return float(f(tf.asarray(x)))


# -- 1. host reads inside functional transforms -----------------------------------------

READS = {
    "float()": lambda u: float(u.sum()) * u.sum(),
    "int()": lambda u: int(u.sum()) * u.sum(),
    "bool()": lambda u: u.sum() * 2.0 if bool(u.sum()) else u.sum(),
    "complex()": lambda u: complex(u.sum()).real * u.sum(),
    "item()": lambda u: u.sum().item() * u.sum(),
    "tolist()": lambda u: u.sum() * len(u.tolist()),
    "numpy()": lambda u: u.sum() * u.numpy().sum(),
    "numpy.asarray()": lambda u: u.sum() * np.asarray(u).sum(),
    # a NumPy function tenferro lacks: computed by NumPy on host data, so refused here
    # (np.linalg.norm is tenferro's own now: tests/test_numpy_protocols.py)
    "numpy.convolve": lambda u: tf.asarray(np.convolve(u, u)).sum() * 1.0 + 0 * u.sum(),
    "numpy.asarray()/scipy": lambda u: tf.asarray(sl.norm(u)) + 0 * u.sum(),
    "format()": lambda u: u.sum() * float("{:.3f}".format(u.sum())),
}

# each transform applied to a scalar function ``f`` of a vector (evaluated at X)
TRANSFORMS = {
    "grad": lambda f, x: tf.grad(f)(x),
    "value_and_grad": lambda f, x: tf.value_and_grad(f)(x),
    "vjp": lambda f, x: tf.vjp(f, x)[1](tf.asarray(1.0)),
    "jvp": lambda f, x: tf.jvp(f, (x,), (tf.ones_like(x),)),
    "linearize": lambda f, x: tf.linearize(f, x)[1](tf.ones_like(x)),
    "jacfwd": lambda f, x: tf.jacfwd(f)(x),
    "jacrev": lambda f, x: tf.jacrev(f)(x),
    "hessian": lambda f, x: tf.hessian(f)(x),
    "hvp": lambda f, x: tf.hvp(f, (x,), (tf.ones_like(x),)),
}


@pytest.mark.parametrize("read", sorted(READS))
@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
def test_host_read_inside_transform_raises_concretization_error(transform, read):
    """Today: tf.grad(lambda u: float((u*u).sum()))(x) returned zeros."""
    name = read.split("/")[0]
    with pytest.raises(tf.ConcretizationError, match=r"%s.*stop_gradient" % re_escape(name)):
        TRANSFORMS[transform](READS[read], tf.asarray(X))


def re_escape(s):
    import re
    return re.escape(s)


def test_issue_examples_float_and_numpy_norm_no_longer_zero():
    x = tf.asarray(X)
    with pytest.raises(tf.ConcretizationError, match=r"float\(\) reads the value"):
        tf.grad(lambda u: float((u * u).sum()))(x)
    # np.linalg.norm of a tensor is tenferro's norm (NumPy's __array_function__): exact
    np.testing.assert_allclose(tf.grad(lambda u: np.linalg.norm(u))(x).numpy(),
                               X / np.linalg.norm(X), rtol=1e-14)


def test_stop_gradient_and_detach_reads_are_constants():
    x = tf.asarray(X)

    def f(u):   # the read value is a constant: d/du (c * sum(u)) = c
        return tf.stop_gradient(u).numpy().sum() * u.sum() + float(u.detach().sum()) * u[0]
    g = tf.grad(f)(x)
    want = np.full(3, X.sum())
    want[0] += X.sum()
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-14)
    # jvp of the same: J t with t = ones
    _, t = tf.jvp(f, (x,), (tf.ones_like(x),))
    np.testing.assert_allclose(float(t), want.sum(), rtol=1e-14)


def test_repr_and_str_of_tracers_keep_working():
    seen = []

    def f(u):
        seen.append((repr(u), str(u), u.shape, len(u)))
        return (u * u).sum()
    tf.grad(f)(tf.asarray(X))
    tf.jvp(f, (tf.asarray(X),), (tf.asarray(X),))
    assert all("primal=" in r and "primal=" in s and sh == (3,) and n == 3
               for r, s, sh, n in seen)


def test_jit_host_read_still_concretization_error():
    with pytest.raises(tf.ConcretizationError, match=r"tenferro.make_graph: float\(\)"):
        tf.make_graph(lambda u: float(u.sum()) * u, tf.TensorSpec((3,)))


def test_internal_reads_under_nested_transforms_still_work():
    """Library code reading values to steer a computation (check_finite) reads the
    primal as a constant, also under grad-of-grad and jvp-of-grad."""
    a = np.array([[4.0, 1.0], [1.0, 3.0]])

    def f(m):
        return tl.cholesky(m * m + tf.asarray(a)).sum()
    h = tf.hessian(f)(tf.asarray(a)).numpy().reshape(4, 4)
    g = tf.grad(f)
    eps = 1e-6
    for k in range(4):   # each Hessian column against central differences of the gradient
        e = np.zeros(4)
        e[k] = eps
        col = (g(tf.asarray((a.ravel() + e).reshape(2, 2))).numpy()
               - g(tf.asarray((a.ravel() - e).reshape(2, 2))).numpy()) / (2 * eps)
        np.testing.assert_allclose(h[:, k], col.ravel(), rtol=1e-6, atol=1e-8)
    # control flow on a comparison reads no derivative: allowed (as in jax.grad)
    assert float(tf.grad(lambda u: u * 2.0 if bool(u > 0) else u)(tf.asarray(1.5))) == 2.0


# -- 2. lists and tuples of tensors stay in the graph -----------------------------------

LIST_CASES = {   # name: (function of a 0-d x, closed-form derivative at x)
    "asarray": (lambda x: (tf.asarray([x, 2 * x]) ** 2).sum(), lambda x: 10 * x),   # 30 at 3
    "tensor": (lambda x: tf.tensor([[x, 1.0], (2, x * x)]).sum(), lambda x: 1 + 2 * x),
    "mean": (lambda x: tf.mean([x, x + 2]), lambda x: 1.0),
    "linalg.norm": (lambda x: tl.norm([x, x + 2]), lambda x: (2 * x + 2) / np.hypot(x, x + 2)),
    "linspace": (lambda x: tf.linspace(x, 2 * x, 5).sum(), lambda x: 7.5),
    "full": (lambda x: (tf.full((2, 3), x) * tf.arange(6.0).reshape(2, 3)).sum(),
             lambda x: 15.0),
    "stack-of-nested": (lambda x: tf.sum(tf.asarray(([x, 1.0], [2.0, x ** 3]))),
                        lambda x: 1 + 3 * x ** 2),
    "einsum-operand": (lambda x: tf.einsum("i,i->", [x, 2 * x], [1.0, 3.0]), lambda x: 7.0),
}


@pytest.mark.parametrize("case", sorted(LIST_CASES))
def test_lists_of_tensors_stay_in_the_graph(case):
    f, df = LIST_CASES[case]
    x0 = 3.0
    want = df(x0)
    np.testing.assert_allclose(_fd(lambda v: _value(f, v[0]), [x0]), [want], rtol=1e-6)
    # functional reverse and forward mode
    np.testing.assert_allclose(float(tf.grad(f)(tf.asarray(x0))), want, rtol=1e-12)
    _, t = tf.jvp(f, (tf.asarray(x0),), (tf.asarray(1.0),))
    np.testing.assert_allclose(float(t), want, rtol=1e-12)
    # eager tape
    x = tf.tensor(x0, requires_grad=True)
    f(x).backward()
    np.testing.assert_allclose(float(x.grad), want, rtol=1e-12)
    # jit (graph tracers in the list)
    np.testing.assert_allclose(float(tf.jit(tf.grad(f))(tf.asarray(x0))), want, rtol=1e-12)


def test_issue_list_examples_values():
    x = tf.asarray(3.0)
    assert float(tf.grad(LIST_CASES["asarray"][0])(x)) == pytest.approx(30.0)
    assert float(tf.grad(LIST_CASES["mean"][0])(x)) == pytest.approx(1.0)
    assert float(tf.grad(LIST_CASES["linspace"][0])(x)) == pytest.approx(7.5)
    assert float(tf.grad(LIST_CASES["linalg.norm"][0])(tf.asarray(0.0))) == pytest.approx(1.0)


def test_list_of_followed_tensors_matches_numpy_values_dtype_and_shape():
    x = tf.tensor([1.5, 2.5], dtype="float32", requires_grad=True)
    got = tf.asarray([[x, x * 2], [x, [1, 2]]])
    want = np.asarray([[[1.5, 2.5], [3.0, 5.0]], [[1.5, 2.5], [1, 2]]], dtype=np.float64)
    assert got.dtype == want.dtype == np.asarray([np.float32(1), 2.0]).dtype
    np.testing.assert_array_equal(got.detach().numpy(), want)
    assert tf.asarray([x, x], dtype="float64").dtype == np.float64
    assert tf.asarray([x, x]).dtype == np.float32
    with pytest.raises(ValueError, match=r"asarray: .*inhomogeneous shape"):
        tf.asarray([x, [1.0, 2.0, 3.0]])


@pytest.mark.parametrize("endpoint", [True, False])
@pytest.mark.parametrize("num", [0, 1, 2, 7])
def test_linspace_with_followed_ends_matches_numpy_and_differentiates(num, endpoint):
    a, b = np.array([0.5, -1.0]), np.array([2.0, 4.0])
    got = tf.grad(lambda s, e: (tf.linspace(s, e, num, endpoint=endpoint) ** 2).sum(),
                  argnums=(0, 1))(tf.asarray(a), tf.asarray(b))
    ref = lambda s, e: (np.linspace(s, e, num, endpoint=endpoint) ** 2).sum()  # noqa: E731
    np.testing.assert_allclose(got[0].numpy(), _fd(lambda v: ref(v, b), a), atol=1e-6)
    np.testing.assert_allclose(got[1].numpy(), _fd(lambda v: ref(a, v), b), atol=1e-6)
    s = tf.tensor(a, requires_grad=True)
    np.testing.assert_allclose(tf.linspace(s, b, num, endpoint=endpoint).detach().numpy(),
                               np.linspace(a, b, num, endpoint=endpoint), rtol=1e-14)


def test_arange_with_followed_start_is_differentiable_and_traced_length_raises():
    w = tf.tensor(0.5, requires_grad=True)
    r = tf.arange(w, 4.0, 1.5)
    np.testing.assert_allclose(r.detach().numpy(), np.arange(0.5, 4.0, 1.5))
    r.sum().backward()
    assert float(w.grad) == 3.0      # d/dw sum(w + 1.5 k), k = 0, 1, 2
    with pytest.raises(tf.ConcretizationError, match=r"arange's length"):
        tf.grad(lambda u: tf.arange(u, 4.0).sum())(tf.asarray(0.5))
    with pytest.raises(tf.ConcretizationError, match=r"arange's length"):
        tf.make_graph(lambda u: tf.arange(u), tf.TensorSpec(()))
    with pytest.raises(ValueError, match=r"arange: step must be non-zero"):
        tf.arange(w, 4.0, tf.tensor(0.0, requires_grad=True))


# -- 3. NumPy reads of tensors that require grad (PyTorch) -----------------------------

@pytest.mark.parametrize("read", ["numpy()", "np.asarray", "__array__", "asarray(np.asarray)"])
@pytest.mark.parametrize("kind", ["leaf", "non-leaf", "leaf under no_grad"])
def test_numpy_of_tensor_requiring_grad_raises(read, kind):
    w = tf.tensor(X, requires_grad=True)
    v = w if kind != "non-leaf" else w * 2
    fn = {"numpy()": lambda t: t.numpy(), "np.asarray": np.asarray,
          "__array__": lambda t: t.__array__(),   # (NumPy functions: test_numpy_protocols)
          "asarray(np.asarray)": lambda t: tf.asarray(np.asarray(t))}[read]
    with pytest.raises(RuntimeError, match=r"requires grad.*detach\(\)"):
        if kind == "leaf under no_grad":
            with tf.no_grad():
                fn(v)
        else:
            fn(v)


def test_printing_and_python_scalars_of_tensor_requiring_grad_work():
    w = tf.tensor(X, requires_grad=True)
    assert "requires_grad=True" in repr(w) and "0.3" in str(w)
    s = (w * w).sum()
    assert float(s) == pytest.approx((X * X).sum()) and s.item() == pytest.approx(float(s))
    assert w.tolist() == X.tolist() and "%.2f" % s == "%.2f" % (X * X).sum()
    np.testing.assert_array_equal(w.detach().numpy(), X)
    np.testing.assert_array_equal(np.asarray(w.detach()), X)


# -- 4. validation -----------------------------------------------------------------------

def _prim(name, vjp=None, jvp=None):
    p = extend.Primitive(name, lambda x: x)
    extend.def_impl(p, "cpu", lambda x: x * 3.0)
    if vjp is not None:
        extend.def_vjp_rule(p, vjp)
    if jvp is not None:
        extend.def_jvp_rule(p, jvp)
    return p


def test_vjp_rule_with_wrong_number_of_cotangents_raises_naming_it():
    p = _prim("_test_trust_two_cts", vjp=lambda ct, primals, out, params, needs: (ct * 3, ct))
    x = tf.tensor(X, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"VJP rule of _test_trust_two_cts returned 2 "
                                           r"cotangents for its 1 inputs"):
        p.bind(x).sum().backward()
    with pytest.raises(RuntimeError, match=r"VJP rule of _test_trust_two_cts returned 2"):
        tf.grad(lambda u: p.bind(u).sum())(tf.asarray(X))
    with pytest.raises(RuntimeError, match=r"VJP rule of _test_trust_two_cts returned 2"):
        tf.jit(tf.grad(lambda u: p.bind(u).sum()))(tf.asarray(X))


def test_vjp_rule_with_wrong_shape_or_type_raises_naming_it():
    p = _prim("_test_trust_bad_shape", vjp=lambda ct, primals, out, params, needs: (ct.sum(),))
    with pytest.raises(RuntimeError, match=r"VJP rule of _test_trust_bad_shape returned a "
                                           r"cotangent of shape \(\)"):
        tf.grad(lambda u: p.bind(u).sum())(tf.asarray(X))
    q = _prim("_test_trust_bad_type", vjp=lambda ct, primals, out, params, needs: (3.0,))
    with pytest.raises(TypeError, match=r"VJP rule of _test_trust_bad_type returned a float"):
        tf.grad(lambda u: q.bind(u).sum())(tf.asarray(X))


def test_jvp_rule_with_wrong_shape_raises_naming_it():
    p = _prim("_test_trust_bad_jvp", jvp=lambda ts, primals, out, params: ts[0].sum())
    with pytest.raises(RuntimeError, match=r"JVP rule of _test_trust_bad_jvp returned a tangent "
                                           r"of shape \(\) for an output of shape \(3,\)"):
        tf.jvp(p.bind, (tf.asarray(X),), (tf.asarray(X),))
    q = _prim("_test_trust_complex_jvp", jvp=lambda ts, primals, out, params: ts[0] * 1j)
    with pytest.raises(RuntimeError, match=r"JVP rule of _test_trust_complex_jvp returned a "
                                           r"complex tangent"):
        tf.jvp(q.bind, (tf.asarray(X),), (tf.asarray(X),))


def test_grad_setter_validates():
    w = tf.tensor(X, requires_grad=True)
    with pytest.raises(TypeError, match=r"grad must be a Tensor or None, got list"):
        w.grad = [1.0, 2.0, 3.0]
    with pytest.raises(RuntimeError, match=r"assigned grad has shape \(2,\)"):
        w.grad = tf.zeros(2)
    with pytest.raises(RuntimeError, match=r"dtype float32"):
        w.grad = tf.zeros(3, dtype="float32")
    w.grad = tf.ones(3)
    w.grad = None
    assert w.grad is None


def test_hook_changing_gradient_dtype_raises():
    w = tf.tensor(X, requires_grad=True)
    w.register_hook(lambda g: g.astype("complex128"))
    with pytest.raises(RuntimeError, match=r"hook on a leaf tensor .* dtype float64.*complex128"):
        (w * w).sum().backward()
    v = tf.tensor(X, requires_grad=True)
    y = v * 2
    y.register_hook(lambda g: g.astype("float32"))
    with pytest.raises(RuntimeError, match=r"hook on a tensor .*float32"):
        y.sum().backward()


def test_grad_of_integer_inputs_or_outputs_raises_type_error():
    with pytest.raises(TypeError, match=r"tenferro.grad: .*int64.*integers have no derivative"):
        tf.grad(lambda u: (u * 1.0).sum())(tf.asarray([1, 2]))
    with pytest.raises(TypeError, match=r"tenferro.grad: .*integers have no derivative"):
        tf.grad(lambda u: u * 2.0)(3)
    with pytest.raises(TypeError, match=r"real floating-point scalar, got dtype int64"):
        tf.grad(lambda u: (u > 0).sum())(tf.asarray(X))
    with pytest.raises(TypeError, match=r"real scalar, got dtype complex128"):
        tf.grad(lambda u: (u * 1j).sum())(tf.asarray(X))
    assert float(tf.grad(lambda u: u * 2.0)(3.0)) == 2.0


@pytest.mark.parametrize("jac", ["jacrev", "jacfwd", "hessian"])
def test_jacobian_of_integer_or_bool_output_raises_type_error(jac):
    """Sibling of grad's check: these returned zeros (or False) for a bool output."""
    with pytest.raises(TypeError, match=r"tenferro.jac\w+: outputs of dtype bool: integer "
                                        r"and bool values have no derivative"):
        getattr(tf, jac)(lambda u: u > 0)(tf.asarray(X))


def test_tensor_spec_negative_dimension_raises():
    with pytest.raises(ValueError, match=r"TensorSpec: dimensions must be non-negative"):
        tf.TensorSpec((3, -1))
    with pytest.raises(TypeError, match=r"TensorSpec: shape must be a tuple of ints"):
        tf.TensorSpec((3, 2.5))
    assert tf.TensorSpec((np.int64(3), 0)).shape == (3, 0)


# -- 5. the optimizer idiom ----------------------------------------------------------------

def test_sgd_loop_with_inplace_update_under_no_grad_converges():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((20, 3)), rng.standard_normal(20)
    want = np.linalg.lstsq(a, b, rcond=None)[0]
    at, bt = tf.asarray(a), tf.asarray(b)
    w = tf.zeros(3, requires_grad=True)
    for _ in range(400):
        loss = ((at @ w - bt) ** 2).mean()
        loss.backward()
        with tf.no_grad():
            w -= 0.2 * w.grad
        w.grad.zero_()
    assert w.is_leaf and w.requires_grad
    np.testing.assert_allclose(w.detach().numpy(), want, rtol=1e-10)


def test_inplace_on_leaf_requiring_grad_outside_no_grad_raises():
    w = tf.tensor(X, requires_grad=True)
    for op in (lambda: w.__isub__(1.0), lambda: w.zero_(), lambda: w.fill_(1.0),
               lambda: w.copy_(tf.ones(3)), lambda: w.__setitem__(0, 2.0)):
        with pytest.raises(RuntimeError, match=r"a leaf tensor that requires grad .* in-place"):
            op()
    np.testing.assert_array_equal(w.detach().numpy(), X)


def test_inplace_ops_on_leaf_under_no_grad_and_saved_use_caught():
    w = tf.tensor(X, requires_grad=True)
    y = (w * w).sum()
    with tf.no_grad():
        w[0] = 5.0
        w *= 2.0
    np.testing.assert_array_equal(w.detach().numpy(), [10.0, 2 * X[1], 2 * X[2]])
    with pytest.raises(RuntimeError, match=r"modified by an in-place operation"):
        y.backward()
    with tf.no_grad():
        w.copy_(tf.asarray(X)).fill_(0.5)
    np.testing.assert_array_equal(w.detach().numpy(), [0.5] * 3)
    with tf.no_grad():
        w.zero_()
    (w + 1.0).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [1.0] * 3)
    assert w.is_leaf and w.requires_grad and w.grad_fn is None


def test_writing_a_tensor_requiring_grad_into_a_plain_one_under_no_grad_works():
    w = tf.tensor(X, requires_grad=True)
    buf = tf.zeros(3)
    with pytest.raises(RuntimeError, match=r"would lose its gradient"):
        buf[:] = w * 2
    with tf.no_grad():   # e.g. an optimizer's momentum buffer (PyTorch allows it)
        buf[:] = w * 2
        buf.copy_(buf + w)
    np.testing.assert_array_equal(buf.numpy(), 3 * X)


@pytest.mark.parametrize("data", ["leaf", "non-leaf", "list", "tracer"])
def test_tensor_constructor_refuses_to_cut_a_derivative(data):
    """Sibling: tf.Tensor(data) built a new object over data's values, dropping its
    derivative silently."""
    w = tf.tensor(X, requires_grad=True)
    make = {"leaf": lambda: tf.Tensor(w), "non-leaf": lambda: tf.Tensor(w * 2),
            "list": lambda: tf.Tensor([w[0], 1.0]),
            "tracer": lambda: tf.grad(lambda u: tf.Tensor(u).sum())(tf.asarray(X))}[data]
    with pytest.raises(TypeError, match=r"tenferro.Tensor\(data\): .*detach\(\)"):
        make()
    np.testing.assert_array_equal(tf.Tensor(w.detach()).numpy(), X)


def test_grad_setter_and_hook_refuse_another_device(fake):
    w = tf.tensor(X, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"assigned grad .* on fake:0 .* on cpu"):
        w.grad = tf.zeros(3).to("fake")
    w.register_hook(lambda g: g.to("fake"))
    with pytest.raises(RuntimeError, match=r"hook on a leaf tensor .*device cpu.*fake:0"):
        (w * 2.0).sum().backward()
