"""Every JVP/VJP rule against finite differences: forward, reverse (functional and eager
tape), to second order, real and complex (specs in tests/autodiff_specs.py)."""
import numpy as np
import pytest

import tenferro as tf
from tenferro import autograd
from tenferro.autograd._gradcheck import GradcheckError

from autodiff_specs import SPECS, sample
from conftest import stable_rng

CASES = [pytest.param(s, d, id="%s-%s" % (s.name, d)) for s in SPECS for d in s.dtypes]


@pytest.mark.parametrize("spec,dtype", CASES)
def test_rule_against_finite_differences(spec, dtype):
    rng = stable_rng(spec.name, dtype)
    args = [sample(a, dtype, rng) for a in spec.args]
    modes = tuple(spec.modes) + ("eager",) if "vjp" in spec.modes else tuple(spec.modes)
    autograd.gradcheck(spec.fn, args, modes=modes, order=spec.order, rtol=spec.rtol,
                       atol=spec.atol)


def test_every_differentiable_primitive_is_covered_by_a_spec():
    from tenferro.autograd.extend import registry

    covered = {p for s in SPECS for p in s.prims}
    missing = sorted(n for n, p in registry.items()
                     if p.differentiable and n not in covered and not n.startswith("_test"))
    assert not missing, "no gradcheck spec covers: %s" % ", ".join(missing)


def test_gradcheck_float32_tolerances():
    x = tf.asarray(np.array([0.3, -0.4, 1.2], dtype=np.float32))
    autograd.gradcheck(lambda x: tf.tanh(x) * x, (x,), modes=("jvp", "vjp"), order=2)


def test_gradcheck_rejects_bad_arguments():
    with pytest.raises(TypeError, match="argument 0 must be a floating-point"):
        autograd.gradcheck(lambda x: x, (tf.asarray([1, 2]),))
    with pytest.raises(ValueError, match="unknown mode 'sideways'"):
        autograd.gradcheck(lambda x: x, (tf.asarray([1.0]),), modes=("sideways",))


def test_one_mode_vocabulary_jvp_vjp():
    """Modes are "jvp"/"vjp" everywhere (Primitive.rule, AdContext, gradcheck); gradcheck's
    old "fwd"/"rev" still work, with a DeprecationWarning, and still check."""
    x = tf.asarray([0.3, 0.7])
    with pytest.warns(DeprecationWarning, match="'jvp'/'vjp'"):
        assert autograd.gradcheck(tf.sin, (x,), modes=("fwd", "rev"), order=1)
    sin = tf.autograd.extend.registry["sin"]
    assert sin.rule("jvp") is sin.jvp and sin.rule("vjp") is sin.vjp
    with pytest.raises(ValueError, match="mode must be 'jvp' or 'vjp', got 'fwd'"):
        sin.rule("fwd")


def test_gradcheck_catches_wrong_complex_convention():
    # a VJP that returns JAX's conjugate convention for a holomorphic op is an error
    from tenferro.autograd import extend

    p = extend.Primitive("_test_jaxconv", lambda x: x)
    extend.def_impl(p, "cpu", lambda z: z * z)
    extend.defjvp(p, lambda t, z, *, out: 2 * z * t)
    extend.defvjp(p, lambda ct, z, *, out: ct * 2 * z)  # should be ct * conj(2z)
    z = tf.asarray(np.array([1 + 2j, 0.5 - 1j]))
    autograd.gradcheck(lambda z: p.bind(z), (z,), modes=("jvp",), order=1)
    with pytest.raises(GradcheckError, match="reverse mode .* disagrees with finite differences"):
        autograd.gradcheck(lambda z: p.bind(z), (z,), modes=("vjp",), order=1)


# -- values at ties and kinks (where finite differences do not apply) -------------------

def _g(f, x):
    return tf.grad(lambda v: f(v).sum())(tf.asarray(np.asarray(x, dtype=float))).numpy()


def test_max_min_split_the_gradient_among_ties():
    np.testing.assert_allclose(_g(tf.max, [1.0, 3.0, 3.0, 2.0]), [0, 0.5, 0.5, 0])
    np.testing.assert_allclose(_g(tf.min, [1.0, 1.0, 1.0]), [1 / 3] * 3)
    np.testing.assert_allclose(_g(lambda x: tf.max(x, axis=1), [[2.0, 2.0], [1.0, 5.0]]),
                               [[0.5, 0.5], [0, 1]])
    _, t = tf.jvp(tf.max, (tf.asarray([1.0, 3.0, 3.0]),), (tf.asarray([5.0, 1.0, 2.0]),))
    np.testing.assert_allclose(float(t), 1.5)


def test_maximum_minimum_ties_and_abs_at_zero():
    x = tf.asarray([1.0, 2.0])
    g = tf.grad(lambda a, b: tf.maximum(a, b).sum(), argnums=(0, 1))(x, tf.asarray([1.0, 3.0]))
    np.testing.assert_allclose(g[0].numpy(), [0.5, 0.0])
    np.testing.assert_allclose(g[1].numpy(), [0.5, 1.0])
    np.testing.assert_allclose(_g(tf.abs, [0.0, -2.0]), [0.0, -1.0])
    np.testing.assert_allclose(tf.grad(lambda z: tf.abs(z).sum())(tf.asarray([0j])).numpy(), [0])
    np.testing.assert_allclose(_g(lambda x: tf.clip(x, 0.0, 1.0), [-1.0, 0.5, 2.0]), [0, 1, 0])


def test_cumprod_with_zeros():
    x = [2.0, 0.0, 3.0, 0.0, 4.0]
    want = np.zeros(5)
    for i in range(5):  # d/dx_i sum_k prod_{j<=k} x_j
        for k in range(i, 5):
            want[i] += np.prod([x[j] for j in range(k + 1) if j != i])
    np.testing.assert_allclose(_g(tf.cumprod, x), want)
    np.testing.assert_allclose(_g(tf.prod, [2.0, 0.0, 3.0]), [0.0, 6.0, 0.0])
    np.testing.assert_allclose(_g(tf.prod, [0.0, 0.0, 3.0]), [0.0, 0.0, 0.0])


def test_nondifferentiable_primitives():
    x = tf.asarray([1.5, -0.5])
    for f in (tf.floor, tf.ceil, tf.round, tf.sign, tf.trunc):
        np.testing.assert_array_equal(_g(f, [1.5, -0.5]), [0.0, 0.0])
        np.testing.assert_array_equal(tf.jvp(f, (x,), (x,))[1].numpy(), [0.0, 0.0])
    with pytest.raises(TypeError, match="not differentiable"):
        tf.autograd.extend.registry["floor"].rule("vjp")


def test_complex_sign_is_not_passed_off_as_piecewise_constant():
    z = tf.tensor([1 + 1j], requires_grad=True)
    with pytest.raises(TypeError, match="sign: not differentiable for complex input"):
        tf.sign(z)
    with pytest.raises(TypeError, match="sign: not differentiable for complex input"):
        tf.grad(lambda z: tf.abs(tf.sign(z)).sum())(tf.asarray([1 + 1j]))
    np.testing.assert_allclose(tf.sign(tf.asarray([3 + 4j])).numpy(), [0.6 + 0.8j])


def test_one_sided_clip_gives_the_bound_gradient_to_x():
    np.testing.assert_allclose(_g(lambda x: tf.clip(x, 1.0, None), [1.0, 0.0, 2.0]), [1, 0, 1])
    np.testing.assert_allclose(_g(lambda x: tf.clip(x, None, 1.0), [1.0, 0.0, 2.0]), [1, 1, 0])


# -- random compositions ---------------------------------------------------------------

from hypothesis import given, strategies as st  # noqa: E402

from conftest import hyp_settings  # noqa: E402

_UNARY_CHAIN = [tf.sin, tf.tanh, tf.exp, lambda v: v * v, lambda v: v * 0.5 + 1.0,
                lambda v: tf.sum(v, axis=-1, keepdims=True) * v, lambda v: tf.flip(v, axis=0),
                lambda v: tf.cumsum(v, axis=-1), lambda v: v.T.T[::-1] * 2.0,
                lambda v: tf.concatenate([v[:1], v[1:] * 3.0]), lambda v: tf.logsumexp(v) - v]


@hyp_settings(25)
@given(st.lists(st.integers(0, len(_UNARY_CHAIN) - 1), min_size=1, max_size=4),
       st.sampled_from(["float64", "complex128"]), st.integers(0, 2**32 - 1))
def test_random_compositions_against_finite_differences(ops, dtype, seed):
    fns = [_UNARY_CHAIN[i] for i in ops]
    if dtype == "complex128":  # logsumexp of complex and exp chains: keep values tame
        fns = [f for f in fns if f is not tf.exp]
        if not fns:
            fns = [tf.sin]

    def f(x):
        for g in fns:
            x = g(x)
        return x
    rng = np.random.default_rng(seed)
    x = rng.uniform(-0.5, 0.5, (3, 2))
    if dtype == "complex128":
        x = x + 1j * rng.uniform(-0.5, 0.5, (3, 2))
    autograd.gradcheck(f, (tf.asarray(x),), modes=("jvp", "vjp", "eager"), order=2,
                       atol=1e-5, rtol=1e-4)
