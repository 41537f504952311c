"""Derivatives of tenferro.fft: gradcheck to order 2 in forward and reverse mode, real
and complex, for every transform (odd and even lengths, every norm, n/s cropping and
zero-padding, several axes); losses against central differences (|rfft(x)|^2,
Re(irfft(z)) w, ...); the adjoint identities the rules rest on; eager backward();
the transforms under tenferro.make_graph / jit, values and gradients."""
import numpy as np
import pytest
import scipy.fft as sf

import tenferro as tf
import tenferro.fft as F
from tenferro.autograd import gradcheck

from conftest import assert_close, central_grad, sample, stable_rng

NORMS = [None, "ortho", "forward"]


def _t(key, shape, dtype="float64"):
    return tf.asarray(sample(stable_rng("fft-ad", key, shape, dtype), shape, dtype))


def _bins(n):
    return n // 2 + 1


# name -> [(f(x, norm), input shape, input dtype)], lengths odd and even
CASES = {
    "fft": lambda n: [(lambda x, nm: F.fft(x, norm=nm), (2, n), "complex128"),
                      (lambda x, nm: F.fft(x, n=n + 2, axis=0, norm=nm), (3, n), "float64")],
    "ifft": lambda n: [(lambda x, nm: F.ifft(x, n=n - 1 or 1, norm=nm), (2, n), "complex128")],
    "fftn": lambda n: [(lambda x, nm: F.fftn(x, s=(2, n + 1), norm=nm), (3, n), "complex128")],
    "ifft2": lambda n: [(lambda x, nm: F.ifft2(x, norm=nm), (2, 3, n), "complex128")],
    "rfft": lambda n: [(lambda x, nm: F.rfft(x, norm=nm), (2, n), "float64"),
                       (lambda x, nm: F.rfft(x, n=n + 3, norm=nm), (2, n), "float64"),
                       (lambda x, nm: F.rfft(x, n=max(1, n - 2), axis=0, norm=nm), (n, 2),
                        "float64")],
    "irfft": lambda n: [(lambda x, nm: F.irfft(x, n=n, norm=nm), (2, _bins(n)), "complex128"),
                        (lambda x, nm: F.irfft(x, n=n, norm=nm), (2, _bins(n) + 2),
                         "complex128"),
                        (lambda x, nm: F.irfft(x, n=n + 5, norm=nm), (2, _bins(n)),
                         "complex128")],
    "hfft": lambda n: [(lambda x, nm: F.hfft(x, n=n, norm=nm), (2, _bins(n)), "complex128")],
    "ihfft": lambda n: [(lambda x, nm: F.ihfft(x, norm=nm), (2, n), "float64")],
    "rfftn": lambda n: [(lambda x, nm: F.rfftn(x, norm=nm), (3, n), "float64"),
                        (lambda x, nm: F.rfft2(x, s=(2, n), axes=(1, 0), norm=nm), (n, 3),
                         "float64")],
    "irfftn": lambda n: [(lambda x, nm: F.irfftn(x, s=(3, n), norm=nm), (3, _bins(n)),
                          "complex128"),
                         (lambda x, nm: F.irfft2(x, s=(n, 2), axes=(1, 0), norm=nm),
                          (2, n), "complex128")],
    "hfftn": lambda n: [(lambda x, nm: F.hfftn(x, s=(3, n), norm=nm), (3, _bins(n)),
                         "complex128")],
    "ihfftn": lambda n: [(lambda x, nm: F.ihfftn(x, norm=nm), (3, n), "float64")],
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("n", [1, 2, 5, 6])
@pytest.mark.parametrize("norm", NORMS)
def test_gradcheck_fourier(name, n, norm):
    for i, (f, shape, dtype) in enumerate(CASES[name](n)):
        x = _t((name, n, i), shape, dtype)
        assert gradcheck(lambda x: f(x, norm), (x,), modes=("jvp", "vjp"), order=2)


@pytest.mark.parametrize("name", ["dct", "idct", "dst", "idst"])
@pytest.mark.parametrize("type", [1, 2, 3, 4])
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("ortho", [None, True, False])
def test_gradcheck_dct_dst(name, type, norm, ortho):
    f = getattr(F, name)
    for dtype in ("float64", "complex128"):
        x = _t((name, type, dtype), (2, 5), dtype)
        assert gradcheck(lambda x: f(x, type=type, norm=norm, orthogonalize=ortho),
                         (x,), order=2)
        assert gradcheck(lambda x: f(x, type=type, n=7, axis=0, norm=norm,
                                     orthogonalize=ortho), (x,), order=1)


@pytest.mark.parametrize("name", ["dctn", "idctn", "dstn", "idstn"])
@pytest.mark.parametrize("type", [1, 2, 3, 4])
def test_gradcheck_dctn_dstn(name, type):
    x = _t((name, type), (3, 4, 2), "float64")
    for norm, ortho in ((None, None), ("ortho", None), ("ortho", False), ("forward", True)):
        assert gradcheck(lambda x: getattr(F, name)(x, type=type, s=(4, 3), axes=(1, 0),
                                                    norm=norm, orthogonalize=ortho),
                         (x,), order=2)


def test_gradcheck_single_precision():
    x = _t("f32", (3, 8), "float32")
    assert gradcheck(lambda x: F.irfft(F.rfft(x) * F.rfft(x), n=8), (x,), order=2)
    z = _t("c64", (3, 5), "complex64")
    assert gradcheck(lambda z: F.hfft(F.fft(z), n=9, norm="ortho"), (z,), order=2)
    assert F.rfft(x).dtype == tf.complex64 and F.dct(x).dtype == tf.float32


def _loss_check(loss_tf, loss_np, x, h=1e-6, tol=1e-6):
    xt = tf.asarray(x)
    g = tf.grad(loss_tf)(xt)
    want = central_grad(loss_np, x, h)
    assert_close(g, want, rtol=tol, atol=tol * max(1.0, np.abs(want).max()))
    xt.requires_grad_(True)
    loss_tf(xt).backward()   # the eager tape agrees
    assert_close(xt.grad, want, rtol=tol, atol=tol * max(1.0, np.abs(want).max()))


@pytest.mark.parametrize("n", [7, 8])
def test_losses_against_finite_differences(n):
    x = sample(stable_rng("loss", n), (3, n), "float64")
    _loss_check(lambda x: tf.sum(tf.abs(F.rfft(x)) ** 2),
                lambda x: np.sum(np.abs(sf.rfft(x)) ** 2), x)
    _loss_check(lambda x: tf.sum(tf.abs(F.rfft(x, n=n + 3, norm="ortho")) ** 2),
                lambda x: np.sum(np.abs(sf.rfft(x, n=n + 3, norm="ortho")) ** 2), x)
    w = sample(stable_rng("w", n), (3, n), "float64")
    z = sample(stable_rng("z", n), (3, _bins(n)), "complex128")
    _loss_check(lambda z: tf.sum(tf.real(F.irfft(z, n=n)) * tf.asarray(w)),
                lambda z: np.sum(sf.irfft(z, n=n) * w), z)
    _loss_check(lambda z: tf.sum(F.hfft(z, n=n, norm="forward") ** 3),
                lambda z: np.sum(sf.hfft(z, n=n, norm="forward") ** 3), z)
    _loss_check(lambda z: tf.sum(tf.abs(F.fft2(z, s=(4, 4))) ** 2),
                lambda z: np.sum(np.abs(sf.fft2(z, s=(4, 4))) ** 2), z)
    _loss_check(lambda x: tf.sum(F.dct(x, type=1, norm="ortho") ** 2 * tf.asarray(w)),
                lambda x: np.sum(sf.dct(x, type=1, norm="ortho") ** 2 * w), x)


def _matrix(f, n, dtype):
    """The matrix of the linear map f on length-n inputs (columns: images of e_j)."""
    return np.stack([f(np.eye(n, dtype=dtype)[j]) for j in range(n)], axis=-1)


@pytest.mark.parametrize("n", [5, 6])
def test_vjp_is_the_adjoint(n):
    """The reverse rule applied to a basis of cotangents is the adjoint matrix (the real
    transpose of the real-linear map in (Re, Im) coordinates for rfft/irfft)."""
    for norm in NORMS:
        m = _matrix(lambda e: sf.fft(e, norm=norm), n, complex)
        _, pull = tf.vjp(lambda x: F.fft(x, norm=norm), tf.asarray(np.zeros(n, complex)))
        got = np.stack([pull(tf.asarray(np.eye(n, dtype=complex)[k]))[0].numpy()
                        for k in range(n)], axis=0)
        assert_close(tf.asarray(got), m.conj(), rtol=1e-12, atol=1e-12)   # rows: A^H e_k
        m = _matrix(lambda e: sf.rfft(e, norm=norm), n, float)   # [bins, n], complex
        _, pull = tf.vjp(lambda x: F.rfft(x, norm=norm), tf.asarray(np.zeros(n)))
        for k in range(_bins(n)):
            for unit in (1, 1j):   # Re<unit e_k, A x> = x . Re(conj(unit) A[k])
                ct = np.zeros(_bins(n), complex)
                ct[k] = unit
                assert_close(pull(tf.asarray(ct))[0], (np.conj(unit) * m[k]).real,
                             rtol=1e-12, atol=1e-12)


def test_traced_and_jit():
    x = _t("jit", (4, 8), "float64")
    z = _t("jitz", (4, 5), "complex128")

    def f(x, z):
        return tf.sum(tf.abs(F.rfft(x, norm="ortho") * z) ** 2) + \
            tf.sum(F.irfft(z, n=9) * F.dct(x, n=9, type=3)) + tf.sum(tf.real(F.fft2(z)))

    g = tf.make_graph(f, tf.TensorSpec((4, 8), tf.float64), tf.TensorSpec((4, 5), tf.complex128))
    assert {"fft.r2c", "fft.c2r", "fft.r2r", "fft.c2c"} <= {nd.prim.name for nd in g.nodes}
    assert_close(tf.compile(g)(x, z), f(x, z), rtol=1e-12)
    jg = tf.jit(tf.grad(f, argnums=(0, 1)))
    for got, want in zip(jg(x, z), tf.grad(f, argnums=(0, 1))(x, z)):
        assert_close(got, want, rtol=1e-12, atol=1e-12)
    h = tf.jit(tf.hessian(lambda x: tf.sum(tf.abs(F.rfft(x)) ** 2)))(x[0])
    dft = sf.rfft(np.eye(8), axis=0)   # |rfft(x)|^2 = x^T Re(D^H D) x
    assert_close(h, 2 * (dft.conj().T @ dft).real, rtol=1e-10, atol=1e-10)


def test_eager_backward_through_a_pipeline():
    x = _t("eager", (2, 16), "float32")
    x.requires_grad_(True)
    y = F.irfft(F.rfft(x) * F.rfft(x), n=16)   # circular autocorrelation-like
    tf.sum(y * y).backward()
    xn = x.detach().numpy().astype(np.float64)
    want = central_grad(lambda v: np.sum(sf.irfft(sf.rfft(v) ** 2, n=16) ** 2), xn, 1e-5)
    assert x.grad.dtype == tf.float32
    assert_close(x.grad, want.astype(np.float32), rtol=2e-3, atol=2e-3 * np.abs(want).max())


def test_docs_example_runs():
    """docs/fft.md's opening example runs as written and its gradient is the central
    differences' of scipy's same power."""
    import os
    import re

    path = os.path.join(os.path.dirname(__file__), os.pardir, "docs", "fft.md")
    code = re.search(r"```python\n(.*?)```", open(path).read(), re.S).group(1)
    ns = {}
    exec(compile(code, "docs/fft.md", "exec"), ns)
    x = ns["x"].numpy().astype(np.float64)
    assert ns["X"].dtype == tf.complex64 and ns["back"].dtype == tf.float32
    assert_close(ns["back"], x.astype(np.float32), rtol=1e-5, atol=1e-5)
    want = central_grad(lambda v: np.sum(np.abs(sf.rfft(v, norm="ortho")) ** 2), x, 1e-6)
    assert_close(ns["g"], want.astype(np.float32), rtol=1e-4, atol=1e-4)
