"""Regression tests for the blind spots of the rule and kernel tests (issue 15): bugs
planted one at a time in the rule tables, the linalg broadening and the reduction
kernels that the rest of the suite let through.  Expectations come from NumPy or from
hand-derived values, never from tenferro itself."""
import numpy as np
import pytest

import tenferro as tf
import tenferro.linalg as tl
from tenferro import autograd

NAN, INF = np.nan, np.inf


def _grads(f, x, y):
    g = tf.grad(lambda a, b: f(a, b).sum(), argnums=(0, 1))(tf.asarray(x), tf.asarray(y))
    return g[0].numpy(), g[1].numpy()


# -- maximum/minimum/fmax/fmin: the gradient goes to the operand NumPy returns ---------
# x, y and NumPy's choice: the output is x (1), y (0) or a tie (0.5 each)
_X = np.array([NAN, 1.0, NAN, 2.0, 3.0, 1.0, INF, -INF, NAN])
_Y = np.array([1.0, NAN, NAN, 2.0, 1.0, 3.0, INF, 0.0, INF])


def _numpy_share(op, x, y):
    """x's share of the gradient: 1 where op returns x (the first on double NaNs, as
    NumPy documents), 0.5 on ties of equal non-NaN values, else 0."""
    out = getattr(np, op)(x, y)
    same_x = (out == x) | (np.isnan(out) & np.isnan(x))
    same_y = (out == y) | (np.isnan(out) & np.isnan(y))
    both_nan = np.isnan(x) & np.isnan(y)
    return np.where(both_nan, 1.0, np.where(same_x & same_y, 0.5, np.where(same_x, 1.0, 0.0)))


@pytest.mark.parametrize("op", ["maximum", "minimum", "fmax", "fmin"])
def test_minmax_gradient_goes_to_the_returned_operand_with_nans(op):
    # regression: fmax/fmin with the NaN masks swapped sent the gradient to the NaN
    # operand; maximum/minimum gave the full gradient to both operands of a NaN
    gx, gy = _grads(getattr(tf, op), _X, _Y)
    want = _numpy_share(op, _X, _Y)
    np.testing.assert_array_equal(gx, want)
    np.testing.assert_array_equal(gy, 1.0 - want)


@pytest.mark.parametrize("op", ["maximum", "minimum", "fmax", "fmin"])
def test_minmax_jvp_routes_like_the_vjp_with_nans(op):
    f = getattr(tf, op)
    want = _numpy_share(op, _X, _Y)
    tx, ty = np.full(_X.shape, 3.0), np.full(_X.shape, 5.0)
    _, t = tf.jvp(f, (tf.asarray(_X), tf.asarray(_Y)), (tf.asarray(tx), tf.asarray(ty)))
    np.testing.assert_array_equal(t.numpy(), want * tx + (1 - want) * ty)


@pytest.mark.parametrize("op", ["maximum", "minimum", "fmax", "fmin"])
def test_minmax_ties_split_the_gradient_half_and_half(op):
    gx, gy = _grads(getattr(tf, op), [2.0, -1.0, 0.0], [2.0, -1.0, -0.0])
    np.testing.assert_array_equal(gx, [0.5, 0.5, 0.5])
    np.testing.assert_array_equal(gy, [0.5, 0.5, 0.5])


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_reduction_gradient_goes_to_the_nans(op):
    # the NaN extremum is "taken" from the NaN positions: they share the gradient as ties
    # do (was: 0/0, NaN everywhere, including the positions that cannot matter)
    x = tf.asarray([1.0, NAN, 3.0, NAN, -2.0])
    g = tf.grad(lambda v: getattr(tf, op)(v))(x).numpy()
    np.testing.assert_array_equal(g, [0, 0.5, 0, 0.5, 0])
    _, t = tf.jvp(getattr(tf, op), (x,), (tf.asarray([1.0, 2.0, 3.0, 4.0, 5.0]),))
    assert float(t) == 3.0
    xs = tf.asarray([[1.0, NAN], [4.0, 2.0]])
    g = tf.grad(lambda v: getattr(tf, op)(v, axis=1).sum())(xs).numpy()
    np.testing.assert_array_equal(g, [[0, 1], [op == "max", op == "min"]])


# -- exactly zero and repeated singular values / eigenvalues ----------------------------
# docs/linalg.md promises finite gradients at exact degeneracies and exact ones for
# functions of the spectrum.  Regression: the broadening returning 1/s made every
# gradient NaN at an exactly zero singular value, and no test had one.


def _signed_perm(n, seed, dtype):
    """A permutation matrix with entries +-1 (+-1j too for complex): unitary, exact."""
    rng = np.random.default_rng(seed)
    ph = np.array([1, -1, 1j, -1j]) if np.dtype(dtype).kind == "c" else np.array([1, -1])
    return (np.eye(n)[rng.permutation(n)] * rng.choice(ph, n)).astype(dtype)


def _block(m, n, diag, dtype, seed=0, hermitian=False):
    """A dense random 2x2 block beside diag(``diag``), padded with zeros to (m, n):
    LAPACK returns the block's values and ``diag``'s exactly (exact zeros and exactly
    repeated values; a rotated dense matrix would have them only to rounding)."""
    rng = np.random.default_rng(seed)
    b = rng.standard_normal((2, 2)) + 2 * np.eye(2)
    if np.dtype(dtype).kind == "c":
        b = b + 1j * rng.standard_normal((2, 2))
    if hermitian:
        b = b + b.conj().T
    a = np.zeros((m, n), dtype)
    a[:2, :2] = b
    for i, d in enumerate(diag):
        a[2 + i, 2 + i] = d
    return a


def _with_singular_values(m, n, diag, dtype, seed=0):
    """Singular values: the block's two, |diag|, and zeros for the rest."""
    return (_signed_perm(m, seed + 1, dtype) @ _block(m, n, diag, dtype, seed)
            @ _signed_perm(n, seed + 2, dtype))


def _with_eigenvalues(diag, dtype, seed=0, hermitian=True):
    """P (B + diag) P^H: eigenvalues the block's two and ``diag`` exactly."""
    n = 2 + len(diag)
    p = _signed_perm(n, seed + 1, dtype)
    return p @ _block(n, n, diag, dtype, seed, hermitian) @ p.conj().T


def _weights(shape, dtype, seed=7):
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        w = w + 1j * rng.standard_normal(shape)
    return w.astype(dtype)


def _rdot(w, x):
    """Re <w, x> (a real, linear loss of x)."""
    return tf.sum(tf.real(tf.conj(tf.asarray(w)) * x))


# diagonal entries beside the dense block: exact zeros, exactly repeated values
SPECTRA = {"zero": [0.0], "zeros": [0.0, 0.0], "repeated": [2.0, -2.0],
           "zero_and_repeated": [0.0, 1.5, 1.5]}
SHAPES = [(0, 0), (2, 0), (0, 2)]     # (extra rows, extra columns) beside the square


def _svd_losses(wu, wm, wp=None):
    """Losses of svd's outputs: of U, S, V^H jointly (phase-invariant), of s alone."""
    return {
        "reconstruct": lambda a: (lambda u, s, vh: _rdot(wm, (u * s.astype(u.dtype)) @ vh))(
            *tl.svd(a, full_matrices=False)),
        "sin_s": lambda a: (lambda u, s, vh: _rdot(wm, (u * tf.sin(s).astype(u.dtype)) @ vh))(
            *tl.svd(a, full_matrices=False)),
        "abs_u": lambda a: (lambda u, s, vh: tf.sum(tf.abs(u) ** 2 * tf.asarray(wu)))(
            *tl.svd(a, full_matrices=False)),
        "s_squared": lambda a: tf.sum(tl.svdvals(a) ** 2),
        "nuc": lambda a: tl.norm(a, "nuc"),
        "ord2": lambda a: tl.norm(a, 2),
        "pinv": lambda a: _rdot(wp, tl.pinv(a)),
    }


def _assert_finite_grads(loss, a):
    """Reverse (functional and eager) and forward derivatives of ``loss`` are finite."""
    g = tf.grad(loss)(tf.asarray(a)).numpy()
    assert np.all(np.isfinite(g)), g
    t = tf.asarray(_weights(a.shape, a.dtype, seed=3))
    _, d = tf.jvp(loss, (tf.asarray(a),), (t,))
    assert np.isfinite(d.numpy()), d
    x = tf.asarray(a).detach()
    x.requires_grad = True
    loss(x).backward()
    assert np.all(np.isfinite(x.grad.numpy()))
    return g


def _svd_cases(test):
    """Parametrize ``test(a)`` over spectra, shapes (square, tall, wide) and dtypes."""
    @pytest.mark.parametrize("dtype", ["float64", "complex128"])
    @pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "%dx%d" % s)
    @pytest.mark.parametrize("spectrum", sorted(SPECTRA))
    def wrapped(spectrum, shape, dtype):
        k = 2 + len(SPECTRA[spectrum])
        test(_with_singular_values(k + shape[0], k + shape[1], SPECTRA[spectrum], dtype))
    wrapped.__name__ = test.__name__
    return wrapped


@_svd_cases
def test_svd_gradients_finite_at_zero_and_repeated_singular_values(a):
    (m, n), dtype = a.shape, a.dtype
    losses = _svd_losses(_weights((m, min(m, n)), "float64"), _weights((m, n), dtype),
                         _weights((n, m), dtype))
    for name, loss in losses.items():
        try:
            _assert_finite_grads(loss, a)
        except AssertionError as e:
            raise AssertionError("%s: %s" % (name, e)) from None


@_svd_cases
def test_svd_functions_of_singular_values_exact_at_degeneracies(a):
    # sum(s^2) = ||A||_F^2 and sum(s^4) = ||A^H A||_F^2 are smooth: gradients 2A, 4 A A^H A
    g2 = tf.grad(lambda x: tf.sum(tl.svdvals(x) ** 2))(tf.asarray(a)).numpy()
    np.testing.assert_allclose(g2, 2 * a, atol=1e-12)
    g4 = tf.grad(lambda x: (lambda u, s, vh: tf.sum(s ** 4))(*tl.svd(x)))(tf.asarray(a))
    np.testing.assert_allclose(g4.numpy(), 4 * a @ a.conj().T @ a, atol=1e-11)
    t = _weights(a.shape, a.dtype, seed=5)
    _, d = tf.jvp(lambda x: tf.sum(tl.svdvals(x) ** 2), (tf.asarray(a),), (tf.asarray(t),))
    np.testing.assert_allclose(float(d), 2 * np.real(np.vdot(a, t)), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_svd_reconstruction_exact_at_a_zero_singular_value(dtype):
    # real square A with one (simple) exactly zero singular value: U S V^H is A, its
    # gradient the weights, in reverse and forward mode, through svd and through the
    # smooth U sin(S) V^H (sin(A) of the odd series: finite differences apply)
    a = _with_singular_values(3, 3, [0.0], "float64").astype(dtype)
    w = _weights((3, 3), dtype)
    loss = _svd_losses(None, w)["reconstruct"]
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(tf.grad(loss)(tf.asarray(a)).numpy(), w, atol=tol)
    t = _weights((3, 3), dtype, seed=4)
    _, d = tf.jvp(loss, (tf.asarray(a),), (tf.asarray(t),))
    np.testing.assert_allclose(float(d), float(np.sum(w * t)), rtol=tol * 10)
    if dtype == "float64":
        autograd.gradcheck(lambda x: (lambda u, s, vh: (u * tf.sin(s)) @ vh)(*tl.svd(x)),
                           (tf.asarray(a),), modes=("jvp", "vjp"), order=1)


def test_norm_ord2_exact_with_a_zero_singular_value():
    # ||A||_2 = s_1 (simple) is smooth even where another singular value is 0: u1 v1^T
    a = _with_singular_values(4, 3, [0.0], "float64")
    u, s, vh = np.linalg.svd(a)
    g = tf.grad(lambda x: tl.norm(x, 2))(tf.asarray(a)).numpy()
    np.testing.assert_allclose(g, np.outer(u[:, 0], vh[0]), atol=1e-12)


EIG_SPECTRA = {"zero": [0.0], "zeros": [0.0, 0.0], "repeated": [1.0, 1.0],
               "zero_and_repeated": [0.0, 0.7, 0.7]}


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("spectrum", sorted(EIG_SPECTRA))
def test_eigh_gradients_at_zero_and_repeated_eigenvalues(spectrum, dtype):
    import scipy.linalg

    a = _with_eigenvalues(EIG_SPECTRA[spectrum], dtype)
    w = _weights(a.shape, "float64")
    # finite for eigenvector losses (|v|^2, V f(w) V^H: the limitation at exact
    # degeneracy is documented, but never NaN or inf)
    _assert_finite_grads(lambda x: (lambda e, v: tf.sum(tf.abs(v) ** 2 * tf.asarray(w)))(
        *tl.eigh(x)), a)
    _assert_finite_grads(lambda x: (lambda e, v: _rdot(w, (v * tf.sin(e).astype(v.dtype))
                                                         @ tf.conj(v.mT)))(*tl.eigh(x)), a)
    # exact for functions of the eigenvalues: tr exp(A) -> exp(A) (Hermitian A: the
    # gradient of Re tr f(A) is f(A)^H = f(A)), sum(w^2) = ||A||_F^2 -> 2A; eigh reads
    # the lower triangle, so the gradient lives there (off-diagonal entries doubled)
    for f, want in ((lambda x: tf.sum(tf.exp(tl.eigh(x)[0])), scipy.linalg.expm(a)),
                    (lambda x: tf.sum(tf.exp(tl.eigvalsh(x))), scipy.linalg.expm(a)),
                    (lambda x: tf.sum(tl.eigvalsh(x) ** 2), 2 * a)):
        want = np.tril(2 * want, -1) + np.diag(np.diag(want))
        np.testing.assert_allclose(tf.grad(f)(tf.asarray(a)).numpy(), want, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("spectrum", sorted(EIG_SPECTRA))
def test_eig_gradients_at_zero_and_repeated_eigenvalues(spectrum, dtype):
    # a non-normal dense block beside exact zero/repeated eigenvalues
    a = _with_eigenvalues(EIG_SPECTRA[spectrum], dtype, hermitian=False)
    w = _weights(a.shape, "float64")
    _assert_finite_grads(lambda x: (lambda e, v: tf.sum(tf.abs(v) ** 2 * tf.asarray(w)))(
        *tl.eig(x)), a)
    # exact: Re sum(w^2) = Re tr(A^2), gradient conj(2 A^T) (tenferro's convention)
    for f in (lambda x: tf.sum(tf.real(tl.eig(x)[0] ** 2)),
              lambda x: tf.sum(tf.real(tl.eigvals(x) ** 2))):
        g = tf.grad(f)(tf.asarray(a)).numpy()
        np.testing.assert_allclose(g, np.conj(2 * a.T), atol=1e-9)


# -- empty shapes in indexing, setitem and take, against NumPy -------------------------
_E_INT = np.zeros(0, np.int64)
EMPTY_KEYS = {
    "list": lambda a: [],
    "int_array": lambda a: _E_INT,
    "bool_none_true": lambda a: np.zeros(a.shape[0], bool),
    "bool_2d_none_true": lambda a: np.zeros(a.shape, bool),
    "cols_list": lambda a: (slice(None), []),
    "cols_bool": lambda a: (slice(None), np.zeros(a.shape[1], bool)),
    "pairs": lambda a: (_E_INT, _E_INT),
    "empty_then_int": lambda a: ([], 1),
    "ellipsis_empty": lambda a: (Ellipsis, []),
    "newaxis_empty": lambda a: (None, []),
    "empty_slice": lambda a: slice(2, 2),
    "empty_slice_and_list": lambda a: (slice(3, 1), [0, 1]),
    "broadcast_empty": lambda a: (np.zeros((0, 1), np.int64), np.array([0, 1])),
}
EMPTY_SOURCES = {"3x4": (3, 4), "0x4": (0, 4), "3x0": (3, 0)}


def _keyed(a, name):
    key = EMPTY_KEYS[name](a)
    try:
        want = a[key]
    except IndexError as e:
        return key, None, e
    return key, want, None


@pytest.mark.parametrize("dtype", ["bool", "int32", "float64", "complex128"])
@pytest.mark.parametrize("src", sorted(EMPTY_SOURCES))
@pytest.mark.parametrize("name", sorted(EMPTY_KEYS))
def test_empty_index_getitem_and_setitem_match_numpy(name, src, dtype):
    a = (np.arange(int(np.prod(EMPTY_SOURCES[src]))).reshape(EMPTY_SOURCES[src]) % 3
         ).astype(dtype)
    key, want, err = _keyed(a, name)
    t = tf.asarray(a.copy())
    if err is not None:          # NumPy refuses the key (e.g. a mask of the wrong size)
        with pytest.raises(IndexError):
            t[key]
        return
    got = t[key]
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got.numpy(), want)
    # setitem with a scalar and with a value of the selection's shape: a no-op when empty
    for value in (np.ones((), dtype), np.ones(want.shape, dtype)):
        b = a.copy()
        b[key] = value
        t = tf.asarray(a.copy())
        t[key] = tf.asarray(value)
        np.testing.assert_array_equal(t.numpy(), b)


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_take_with_empty_indices_matches_numpy(axis):
    a = np.arange(12.0).reshape(3, 4)
    for idx in (_E_INT, np.zeros((2, 0), np.int64), np.zeros((0, 3), np.int64)):
        want = np.take(a, idx, axis=axis)
        got = tf.take(tf.asarray(a), tf.asarray(idx), axis=axis)
        assert got.shape == want.shape
        np.testing.assert_array_equal(got.numpy(), want)
    # an empty axis: taking nothing from it is fine, anything else is out of bounds
    e = np.zeros((0, 4))
    np.testing.assert_array_equal(tf.take(tf.asarray(e), tf.asarray(_E_INT), axis=0).numpy(),
                                  np.take(e, _E_INT, axis=0))
    with pytest.raises(IndexError, match="out of bounds|out of range"):
        tf.take(tf.asarray(e), tf.asarray([0]), axis=0)


def test_gradient_through_empty_selections_is_zero_of_the_right_shape():
    x = tf.asarray(np.arange(12.0).reshape(3, 4))
    for key in ([], (slice(None), []), np.zeros(3, bool)):
        g = tf.grad(lambda v: tf.sum(v[key] * 2.0))(x)
        assert g.shape == (3, 4)
        np.testing.assert_array_equal(g.numpy(), np.zeros((3, 4)))
    g = tf.grad(lambda v: tf.sum(tf.take(v, tf.asarray(_E_INT), axis=1)))(x)
    np.testing.assert_array_equal(g.numpy(), np.zeros((3, 4)))


# -- compile passes: what the mutation run (tests/mutate.py) found unguarded -----------

@pytest.mark.parametrize("f,ref", [
    (lambda v: 0.0 - v, lambda a: 0.0 - a),
    (lambda v: 1.0 / v, lambda a: 1.0 / a),
    (lambda v: tf.zeros_like(v) - v * 2.0, lambda a: -2.0 * a),
    (lambda v: v - 0.0, lambda a: a),
    (lambda v: 0.0 + v * 1.0, lambda a: a),
])
def test_simplification_keeps_non_commutative_units(f, ref):
    # x - 0 and x / 1 simplify to x; 0 - x and 1 / x must not (a mutation that let the
    # left operand be dropped survived every traced test)
    a = np.array([0.5, -2.0, 4.0])
    x = tf.asarray(a)
    np.testing.assert_array_equal(tf.jit(f)(x).numpy(), ref(a))
    prog = tf.compile(tf.make_graph(f, tf.TensorSpec((3,), tf.float64)))
    np.testing.assert_array_equal(prog(x).numpy(), ref(a))


# -- derivatives at zeros (where finite differences do not reach; PyTorch's values) ----

def _rev_fwd(f, x):
    """(reverse-mode gradient of sum(f), forward-mode derivative along ones)."""
    x = tf.asarray(x)
    g = tf.grad(lambda v: tf.sum(tf.real(f(v))))(x).numpy()
    _, t = tf.jvp(f, (x,), (tf.ones_like(x),))
    return g, t.numpy()


def test_power_derivatives_at_zero_base_and_exponent():
    # PyTorch pow_backward_self: 0 where the exponent is 0 (not 0 * 0**-1 = nan);
    # pow_backward_exponent: 0 where the base is 0 and the exponent >= 0 (not 1 * log 0)
    for y in (0.0, 2.0):
        g, t = _rev_fwd(lambda v: tf.power(v, y), [0.0, 3.0])
        np.testing.assert_array_equal(g, [0.0, 0.0 if y == 0 else 6.0])
        np.testing.assert_array_equal(t, g)
        g, t = _rev_fwd(lambda v: tf.power(tf.asarray([0.0, 0.0]), v), [y, y])
        np.testing.assert_array_equal(g, [0.0, 0.0])
        np.testing.assert_array_equal(t, [0.0, 0.0])
    g, _ = _rev_fwd(lambda v: tf.power(tf.asarray([0j, 0j]), v), np.array([0j, 2 + 0j]))
    np.testing.assert_array_equal(g, [0.0, 0.0])


def test_copysign_derivative_at_zero():
    g, t = _rev_fwd(lambda v: tf.copysign(v, tf.asarray([-1.0, 1.0, -1.0])), [0.0, 0.0, 2.0])
    np.testing.assert_array_equal(g, [0.0, 0.0, -1.0])
    np.testing.assert_array_equal(t, g)


@pytest.mark.parametrize("op", ["abs", "angle"])
def test_complex_abs_and_angle_derivatives_at_zero(op):
    # sgn(0) = 0 and angle's i z / |z|^2 at 0 = 0 (PyTorch), in both modes, not nan
    z = np.array([0j, 3 + 4j])
    g, t = _rev_fwd(getattr(tf, op), z)
    want_g = [0, (3 + 4j) / 5] if op == "abs" else [0, 1j * (3 + 4j) / 25]
    np.testing.assert_allclose(g, want_g, atol=1e-15)
    want_t = [0, 3 / 5] if op == "abs" else [0, -4 / 25]   # Re/Im(conj(z) 1) / |z|^(1|2)
    np.testing.assert_allclose(t, want_t, atol=1e-15)
