"""The four FFT primitives, their CPU kernels (scipy.fft's pocketfft) and their rules.

* ``fft.c2c`` (x complex; axes, forward, inorm, workers): the complex DFT over ``axes``;
* ``fft.r2c`` (x real; same params): the DFT of a real x, the last axis halved to
  n//2 + 1 bins (``forward=False``: its conjugate, scipy's ihfft);
* ``fft.c2r`` (x complex; ``lastsize`` too): the real x whose r2c is x's Hermitian
  half (``forward=True``: scipy's hfft);
* ``fft.r2r`` (x real or complex; kind 'dct'/'dst', type, axes, inorm, ortho, workers):
  the DCT/DST of type 1-4 (complex x: of its real and imaginary parts).

``inorm`` is pocketfft's normalization: 0 none, 1 divide by sqrt(N), 2 by N (N the
product of the transform lengths: for r2c/c2r the real lengths, for r2r pocketfft's
2(L-1), 2(L+1) or 2L per axis).  The public functions (``_basic``/``_realtransforms``)
turn scipy's ``norm`` into it and pad or slice the input to the transform's length, so
the primitives never resize: their rules are exact linear maps.

Every transform is (real-)linear, so the JVP is the primitive applied to the tangent;
the VJP is the adjoint under tenferro's (PyTorch's) product ``Re <conj(a), b>``.  The
rules are binds of these primitives times constant weights, so they differentiate
again.  ``workers=None`` runs on tenferro's thread count at the time of the call.
"""

import numpy as np
from scipy.fft._pocketfft import pypocketfft as _pf   # what scipy.fft's functions call

from .. import _caches
from ..autograd.extend import Primitive, def_impl, deflinear
from ..devices.cpu import threads as _threads
from .._ops import asarray

_COMPLEX = {np.dtype("float32"): np.dtype("complex64"),
            np.dtype("float64"): np.dtype("complex128")}
_REAL = {c: r for r, c in _COMPLEX.items()}


def _nthreads(workers):
    return _threads.current if workers is None else workers


def _resized(shape, axis, n):
    return shape[:axis] + (n,) + shape[axis + 1:]


c2c_p = Primitive("fft.c2c", lambda x, **p: x,
                  doc="The complex DFT of x over axes (params axes, forward, inorm, workers).")
r2c_p = Primitive(
    "fft.r2c", lambda x, *, axes, **p: (_resized(x[0], axes[-1], x[0][axes[-1]] // 2 + 1),
                                        _COMPLEX[x[1]]),
    doc="The DFT of a real x over axes, the last one halved to n//2 + 1 bins (params "
        "axes, forward, inorm, workers).")
c2r_p = Primitive(
    "fft.c2r", lambda x, *, axes, lastsize, **p: (_resized(x[0], axes[-1], lastsize),
                                                  _REAL[x[1]]),
    doc="The real inverse of r2c: x's last axis holds lastsize//2 + 1 bins (params axes, "
        "lastsize, forward, inorm, workers).")
r2r_p = Primitive("fft.r2r", lambda x, **p: x,
                  doc="The DCT or DST of type 1-4 over axes (params kind, type, axes, inorm, "
                      "ortho, workers); of the real and imaginary parts of a complex x.")


def _c2c_cpu(x, *, axes, forward, inorm, workers):
    return _pf.c2c(x, axes, forward, inorm, None, _nthreads(workers))


def _r2c_cpu(x, *, axes, forward, inorm, workers):
    return _pf.r2c(x, axes, forward, inorm, None, _nthreads(workers))


def _c2r_cpu(x, *, axes, lastsize, forward, inorm, workers):
    return _pf.c2r(x, axes, lastsize, forward, inorm, None, _nthreads(workers))


def _r2r_cpu(x, *, kind, type, axes, inorm, ortho, workers):
    f, nt = getattr(_pf, kind), _nthreads(workers)
    if x.dtype.kind != "c":
        return f(x, type, axes, inorm, None, nt, ortho)
    out = np.empty(x.shape, x.dtype)
    f(x.real, type, axes, inorm, out.real, nt, ortho)
    f(x.imag, type, axes, inorm, out.imag, nt, ortho)
    return out


def_impl(c2c_p, "cpu", _c2c_cpu)
def_impl(r2c_p, "cpu", _r2c_cpu)
def_impl(c2r_p, "cpu", _c2r_cpu)
def_impl(r2r_p, "cpu", _r2r_cpu)


# -- rules -----------------------------------------------------------------------------
# Constant weights [.., L, ..] along the transformed axes (ones elsewhere), in the real
# dtype of the cotangent they multiply.

@_caches.memoize("fft.weights", maxsize=256)
def _weight(ndim, axes, vectors, dtype):
    w = np.ones((1,) * ndim)
    for ax, v in zip(axes, vectors):
        if v is not None:
            w = w * np.asarray(v).reshape(_resized((1,) * ndim, ax, len(v)))
    return asarray(w.astype(_REAL.get(np.dtype(dtype), dtype)))


def _times(ct, axes, vectors):
    """``ct`` times the outer product of per-axis weight ``vectors`` (None: ones)."""
    if all(v is None for v in vectors):
        return ct
    return ct * _weight(ct.ndim, tuple(axes), tuple(vectors), ct.dtype)


def _half_weights(n, interior):
    """The weights of the bins 0..n//2 of a real length-n signal's spectrum: 1 for the
    zero frequency (and the Nyquist one, n even), ``interior`` for the others, which
    stand for two conjugate bins of the full spectrum."""
    w = [interior] * (n // 2 + 1)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    return tuple(w)


# c2c is C-linear: its adjoint is the DFT of the opposite sign with the same scale,
# i.e. the inverse transform with the adjoint norm (JAX jax/_src/lax/fft.py
# `_fft_transpose_rule`; PyTorch derivatives.yaml `_fft_c2c`: the same call, !forward).
deflinear(c2c_p, lambda ct, x, *, axes, forward, inorm, workers:
          c2c_p.bind(ct, axes=axes, forward=not forward, inorm=inorm, workers=workers))


# r2c: the adjoint of x -> the bins 0..n//2 of its DFT is Re(DFT^H of ct zero-extended),
# which is c2r of ct with the interior bins halved (c2r counts them twice, and ignores
# the imaginary parts of the zero and Nyquist bins as Re does).  JAX `_rfft_transpose`,
# PyTorch FunctionsManual.cpp `fft_r2c_backward`.
def _r2c_vjp(ct, x, *, axes, forward, inorm, workers):
    n = x.shape[axes[-1]]
    ct = _times(ct, axes[-1:], (_half_weights(n, 0.5),))
    return c2r_p.bind(ct, axes=axes, lastsize=n, forward=not forward, inorm=inorm,
                      workers=workers)


# c2r: y_j = Re z_0 + 2 sum_interior Re(z_k w^jk) (+ Re z_{n/2} (-1)^j), whose adjoint is
# r2c of ct with the interior bins doubled.  JAX `_irfft_transpose`, PyTorch
# FunctionsManual.cpp `fft_c2r_backward`.
def _c2r_vjp(ct, x, *, axes, lastsize, forward, inorm, workers):
    g = r2c_p.bind(ct, axes=axes, forward=not forward, inorm=inorm, workers=workers)
    return _times(g, axes[-1:], (_half_weights(lastsize, 2.0),))


deflinear(r2c_p, _r2c_vjp)
deflinear(c2r_p, _c2r_vjp)


# r2r: a real matrix M = O_out C O_in per axis (C the plain transform, O the diagonal
# orthogonalization); M^T = O_in C^T O_out, with C^T = post * C' (pre * .) for the
# transposed type C' (DCT-II^T = DCT-III with input 0 doubled, DCT-I^T = e C e^-1,
# e = 2 inside and 1 at the ends, ...: read off the sums that define each type in
# scipy.fft.dct's and dst's docstrings; docs/fft.md lists them).  Checked by gradcheck
# against finite differences, every type, norm and orthogonalize (tests/test_fft_ad.py).
_TRANSPOSED = {1: 1, 2: 3, 3: 2, 4: 4}
_R2 = 2 ** 0.5


def _r2r_vectors(kind, type, ortho, L):
    """(pre, post) weight vectors of length L (None: ones) of the transpose rule."""
    pre, post = np.ones(L), np.ones(L)
    end = 0 if kind == "dct" else L - 1   # the entry that DCT-II/III (DST-II/III) treat apart
    if type == 1 and kind == "dct":
        pre[1:-1], post[1:-1] = 0.5, 2.0   # e^-1 before C, e after
        if ortho:
            pre[[0, -1]] /= _R2
            post[[0, -1]] *= _R2
    elif type == 2:
        pre[end] = 2.0 / _R2 if ortho else 2.0
    elif type == 3:
        post[end] = _R2 / 2.0 if ortho else 0.5
    return tuple(None if (v == 1.0).all() else tuple(v) for v in (pre, post))


def _r2r_vjp(ct, x, *, kind, type, axes, inorm, ortho, workers):
    pres, posts = zip(*(_r2r_vectors(kind, type, ortho, x.shape[a]) for a in axes))
    g = r2r_p.bind(_times(ct, axes, pres), kind=kind, type=_TRANSPOSED[type], axes=axes,
                   inorm=inorm, ortho=False, workers=workers)
    return _times(g, axes, posts)


deflinear(r2r_p, _r2r_vjp)
