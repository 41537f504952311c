"""Property test of autodiff: random programs (hypothesis draws 2-6 ops) of differentiable
ops (elementwise unary/binary, reductions, reshape/transpose/indexing, matmul/einsum and a
few linalg ops on well-conditioned inputs), real and complex, under ``tf.grad``,
``tf.vjp``, ``tf.jvp`` and eager ``backward()``, must match central finite differences of
the same program written in NumPy/SciPy (complex inputs in tenferro's, i.e. PyTorch's,
convention: grad = dL/dRe z + i dL/dIm z), and a nonzero finite-difference derivative is
never an all-zero AD result.  Every op is smooth on the whole domain it can receive
(composites such as log1p(|u|^2) and SPD-shifted matrices keep away from branch cuts,
kinks and singularities by construction), so finite differences are reliable.

Budgets come from the loaded hypothesis profile (tests/conftest.py); set
``TENFERRO_FUZZ_EXAMPLES`` for a larger local run.
"""
import os
import sys

import numpy as np
import scipy.linalg as sla
from hypothesis import assume, given
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from conftest import central_grad, stable_rng  # noqa: E402
from test_fuzz_numpy import budget  # noqa: E402  (one budget rule for both files)

import tenferro as tf  # noqa: E402
import tenferro.linalg as tl  # noqa: E402


def _h(u):  # conjugate transpose of the last two axes, in either library
    return (tf.conj(tf.matrix_transpose(u)) if isinstance(u, tf.Tensor)
            else np.conj(np.swapaxes(u, -1, -2)))


def _spd(m, u, shift=3.0):
    """u u^H + shift I: Hermitian positive definite, eigenvalues >= shift."""
    n = u.shape[-1]
    eye = tf.eye(n, dtype=u.dtype) if m is tf else np.eye(n)
    return m.matmul(u, _h(u)) + shift * eye


# name -> (applies to shape/dtype?, f(m, u, x) where m is tf or np, u the current value,
#          x the program's input).  Both libraries run the same expression.
def _square(u):
    return u.ndim == 2 and u.shape[0] == u.shape[1]


OPS = {
    # elementwise unary, smooth everywhere on their inputs
    "sin": (lambda u: True, lambda m, u, x: m.sin(u)),
    "tanh_small": (lambda u: True, lambda m, u, x: m.tanh(0.3 * u)),
    "exp_bounded": (lambda u: True, lambda m, u, x: m.exp(m.sin(u))),
    "square": (lambda u: True, lambda m, u, x: m.square(u)),
    "log1p_abs2": (lambda u: True, lambda m, u, x: m.log1p(m.real(u * m.conj(u)))),
    "sqrt_shift": (lambda u: u.dtype.kind == "f",
                   lambda m, u, x: m.sqrt(2.0 + m.sin(u))),
    "conj": (lambda u: True, lambda m, u, x: m.conj(u)),
    "real_imag": (lambda u: True, lambda m, u, x: m.real(u) - 2 * m.imag(u)),
    "div_shift": (lambda u: u.dtype.kind == "f", lambda m, u, x: u / (1.5 + m.cos(u))),
    # elementwise binary with the input (broadcast where the shapes allow)
    "mul_x": (lambda u: u.shape == (3, 3), lambda m, u, x: u * x),
    "add_row": (lambda u: u.ndim >= 1 and u.shape[-1] == 3, lambda m, u, x: u + x[0]),
    "hypot_like": (lambda u: True, lambda m, u, x: m.sqrt(1.0 + m.real(u * m.conj(u)))),
    # reductions
    "sum0": (lambda u: u.ndim >= 1, lambda m, u, x: m.sum(u, axis=0)),
    "mean_keep": (lambda u: u.ndim >= 1, lambda m, u, x: m.mean(u, axis=-1, keepdims=True)),
    "prod_last": (lambda u: u.ndim >= 1 and u.shape[-1] <= 3,
                  lambda m, u, x: m.prod(u, axis=-1)),
    # shapes and indexing
    "reshape": (lambda u: u.size == 9, lambda m, u, x: m.reshape(u, (9,))),
    "to_square": (lambda u: u.shape == (9,), lambda m, u, x: m.reshape(u, (3, 3))),
    "transpose": (lambda u: u.ndim == 2, lambda m, u, x: u.T),
    "flip_slice": (lambda u: u.ndim >= 1 and u.shape[0] >= 2, lambda m, u, x: u[::-1][1:]),
    "take": (lambda u: u.ndim >= 1 and u.shape[0] >= 3,
             lambda m, u, x: u[(m.asarray([2, 0, 2, 1]) if m is tf else np.array([2, 0, 2, 1]))]),
    "mask": (lambda u: u.shape == (3, 3),
             lambda m, u, x: u[(m.asarray(_MASK) if m is tf else _MASK)]),
    # contractions
    "matmul": (lambda u: u.ndim == 2 and u.shape[1] == 3, lambda m, u, x: m.matmul(u, x)),
    "einsum_ij_kj": (lambda u: u.ndim == 2, lambda m, u, x: m.einsum("ij,kj->ik", u, m.sin(u))),
    "einsum_trace": (lambda u: _square(u), lambda m, u, x: m.einsum("ii->i", u) * 2.0),
    # linalg on well-conditioned inputs
    "inv_spd": (lambda u: _square(u), lambda m, u, x: (tl if m is tf else sla).inv(_spd(m, u))),
    "solve_spd": (lambda u: u.shape == (3, 3),
                  lambda m, u, x: (tl if m is tf else sla).solve(_spd(m, u), x[:, 0] + 0 * u[0])),
    "logdet_spd": (lambda u: _square(u),
                   lambda m, u, x: (tl if m is tf else np.linalg).slogdet(_spd(m, u))[1]),
    "eigvalsh_spd": (lambda u: u.shape == (3, 3),
                     lambda m, u, x: (tl if m is tf else sla).eigvalsh(
                         _spd(m, u) + (2 * np.diag([0.0, 3.0, 6.0]) if m is np
                                       else 2 * tf.asarray(np.diag([0.0, 3.0, 6.0]))))),
    "expm_small": (lambda u: _square(u),
                   lambda m, u, x: (tl if m is tf else sla).expm(0.2 * u)),
}
_MASK = np.array([[True, False, True], [False, True, True], [True, False, False]])


@st.composite
def programs(draw):
    """A list of op names applicable in sequence to a (3, 3) input (2-6 ops)."""
    n = draw(st.integers(2, 6))
    kind = draw(st.sampled_from(["f", "c"]))
    x0 = np.full((3, 3), 0.1, np.complex128 if kind == "c" else np.float64)
    names, probe = [], x0
    for _ in range(n):
        ok = sorted(k for k, (pred, _) in OPS.items() if pred(probe))
        name = draw(st.sampled_from(ok))
        names.append(name)
        probe = np.asarray(OPS[name][1](np, probe + 0.1, x0))
        if probe.ndim == 0:
            break
    return names, kind, draw(st.integers(0, 2**16))


def run(m, names, x):
    u = x
    for name in names:
        u = OPS[name][1](m, u, x)
    return u


def tame(names, x, bound=8.0):
    """Every intermediate value of the program stays within ``bound``: exp/sin of large
    complex values would overflow and make finite differences meaningless."""
    u = x
    for name in names:
        u = np.asarray(OPS[name][1](np, u, x))
        if not np.all(np.abs(u) <= bound):
            return False
    return True


def _data(kind, seed, shape=(3, 3)):
    r = stable_rng("ad", seed)
    a = r.uniform(-1, 1, shape)
    return a + 1j * r.uniform(-1, 1, shape) if kind == "c" else a


def _loss_np(names, w):
    return lambda a: float(np.real(np.sum(np.conj(w) * np.asarray(run(np, names, a)))))


def _loss_tf(names, w):
    return lambda t: tf.real(tf.sum(tf.conj(tf.asarray(w)) * run(tf, names, t)))


def _check(got, want, what, names):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (what, names, got.shape, want.shape)
    if np.max(np.abs(want)) > 1e-6:
        assert np.any(got != 0), ("silent zero", what, names, want)
    scale = max(1.0, np.max(np.abs(want), initial=0))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6 * scale,
                               err_msg="%s of %s" % (what, names))


def _setup(prog):
    """The program, its input x, NumPy's output y and a cotangent/loss weight w."""
    names, kind, seed = prog
    x = _data(kind, seed)
    assume(tame(names, x))
    y = np.asarray(run(np, names, x))
    w = _data(kind if np.iscomplexobj(y) else "f", seed + 1, y.shape)
    return names, kind, seed, x, y, w


@budget(60)
@given(programs())
def test_grad_matches_finite_differences(prog):
    names, kind, seed, x, y, w = _setup(prog)
    want = central_grad(_loss_np(names, w), x)
    _check(tf.grad(_loss_tf(names, w))(tf.asarray(x)), want, "grad", names)
    # eager backward of the same loss
    t = tf.asarray(x.copy())
    t.requires_grad = True
    _loss_tf(names, w)(t).backward()
    _check(t.grad, want, "backward", names)


@budget(40)
@given(programs())
def test_vjp_and_jvp_match_finite_differences(prog):
    names, kind, seed, x, y, w = _setup(prog)
    out, pullback = tf.vjp(lambda t: run(tf, names, t), tf.asarray(x))
    np.testing.assert_allclose(np.asarray(out), y, rtol=1e-9, atol=1e-12)
    _check(pullback(tf.asarray(w.astype(y.dtype)))[0],
           central_grad(_loss_np(names, w), x), "vjp", names)
    v = _data(kind, seed + 2)
    h = 1e-6
    want = (np.asarray(run(np, names, x + h * v)) - np.asarray(run(np, names, x - h * v))) / (2 * h)
    primal, tangent = tf.jvp(lambda t: run(tf, names, t), (tf.asarray(x),), (tf.asarray(v),))
    _check(tangent, want, "jvp", names)
