"""The discrete Fourier transforms with scipy.fft's signatures and semantics: complex
(fft, ifft, fft2, ifft2, fftn, ifftn), real input (rfft, rfft2, rfftn), real output
(irfft, irfft2, irfftn) and Hermitian (hfft, ihfft and their 2-D and n-D forms), each
one bind of a primitive of ``_prims`` after scipy's argument handling.

``overwrite_x`` is accepted and never used (a tensor the caller holds is never
written); ``workers`` as scipy's, None meaning tenferro's thread count
(:func:`tenferro.set_num_threads`).  ``plan`` must be None, as in scipy.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from . import _util as u
from ._prims import c2c_p, c2r_p, r2c_p

if TYPE_CHECKING:
    from .._tensor import ArrayLike, AxisLike, ShapeLike, Tensor
    from ._util import Norm



def _c2c(op, forward, x, shape, axes, norm, workers):
    x = u.fix_shape(u.as_complex(x), shape, axes)
    return c2c_p.bind(x, axes=axes, forward=forward, inorm=u.inorm(op, norm, forward),
                      workers=u.workers(op, workers))


def _c2c_1d(op, forward, x, n, axis, norm, workers, plan):
    u.no_plan(op, plan)
    x = u.as_inexact(op, x)
    shape, axes = u.one_axis(op, x, n, axis)
    return _c2c(op, forward, x, shape, axes, norm, workers)


def _c2c_nd(op, forward, x, s, axes, norm, workers, plan):
    u.no_plan(op, plan)
    x = u.as_inexact(op, x)
    shape, axes = u.shape_and_axes(op, x, s, axes)
    if not axes:
        return x   # scipy: nothing to transform, x unchanged
    return _c2c(op, forward, x, shape, axes, norm, workers)


def _r2c(op, forward, x, shape, axes, norm, workers, plan):
    u.no_plan(op, plan)
    if not axes:
        raise ValueError("%s: at least 1 axis must be transformed" % u.name(op))
    x = u.fix_shape(x, shape, axes)
    return r2c_p.bind(x, axes=axes, forward=forward, inorm=u.inorm(op, norm, forward),
                      workers=u.workers(op, workers))


def _real(op, x):
    x = u.as_inexact(op, x)
    u.require_real(op, x)
    return x


def _r2c_1d(op, forward, x, n, axis, norm, workers, plan):
    x = _real(op, x)
    shape, axes = u.one_axis(op, x, n, axis)
    return _r2c(op, forward, x, shape, axes, norm, workers, plan)


def _c2r(op, forward, x, shape, axes, norm, workers, plan):
    """c2r to real lengths ``shape`` (the last one, ``lastsize``, read from
    ``shape[-1]//2 + 1`` bins of x)."""
    u.no_plan(op, plan)
    if not axes:
        raise ValueError("%s: at least 1 axis must be transformed" % u.name(op))
    lastsize = shape[-1]
    if lastsize < 1:
        raise ValueError("%s: invalid number of data points (%d) specified%s"
                         % (u.name(op), lastsize, "; pass n (s) for an input of one bin"
                            if lastsize == 0 else ""))
    x = u.fix_shape(u.as_complex(x), shape[:-1] + (lastsize // 2 + 1,), axes)
    return c2r_p.bind(x, axes=axes, lastsize=lastsize, forward=forward,
                      inorm=u.inorm(op, norm, forward), workers=u.workers(op, workers))


def _c2r_1d(op, forward, x, n, axis, norm, workers, plan):
    x = u.as_inexact(op, x)
    shape, axes = u.one_axis(op, x, n, axis)
    if n is None:   # the default: 2 (m - 1) real points for m bins
        shape = (2 * (shape[0] - 1),)
    return _c2r(op, forward, x, shape, axes, norm, workers, plan)


def _c2r_nd(op, forward, x, s, axes, norm, workers, plan):
    x = u.as_inexact(op, x)
    shape, axes = u.shape_and_axes(op, x, s, axes)
    if not axes:
        raise ValueError("%s: at least 1 axis must be transformed" % u.name(op))
    if s is None:
        shape = shape[:-1] + (2 * (shape[-1] - 1),)
    return _c2r(op, forward, x, shape, axes, norm, workers, plan)


# -- complex ---------------------------------------------------------------------------

def fft(x: ArrayLike, n: Optional[int] = None, axis: int = -1, norm: Norm = None,
        overwrite_x: bool = False, workers: Optional[int] = None, *,
        plan: None = None) -> Tensor:
    """scipy.fft.fft: the 1-D discrete Fourier transform along ``axis`` (``n``: the input
    cropped or zero-padded to that length)."""
    return _c2c_1d("fft", True, x, n, axis, norm, workers, plan)


def ifft(x: ArrayLike, n: Optional[int] = None, axis: int = -1, norm: Norm = None,
         overwrite_x: bool = False, workers: Optional[int] = None, *,
         plan: None = None) -> Tensor:
    """scipy.fft.ifft: the 1-D inverse discrete Fourier transform."""
    return _c2c_1d("ifft", False, x, n, axis, norm, workers, plan)


def fftn(x: ArrayLike, s: ShapeLike | None = None, axes: AxisLike = None, norm: Norm = None,
         overwrite_x: bool = False, workers: Optional[int] = None, *,
         plan: None = None) -> Tensor:
    """scipy.fft.fftn: the N-D discrete Fourier transform over ``axes`` (default: the last
    len(s) axes, or all), lengths ``s``."""
    return _c2c_nd("fftn", True, x, s, axes, norm, workers, plan)


def ifftn(x: ArrayLike, s: ShapeLike | None = None, axes: AxisLike = None,
          norm: Norm = None, overwrite_x: bool = False, workers: Optional[int] = None, *,
          plan: None = None) -> Tensor:
    """scipy.fft.ifftn: the N-D inverse discrete Fourier transform."""
    return _c2c_nd("ifftn", False, x, s, axes, norm, workers, plan)


def fft2(x: ArrayLike, s: ShapeLike | None = None, axes: AxisLike = (-2, -1),
         norm: Norm = None, overwrite_x: bool = False, workers: Optional[int] = None, *,
         plan: None = None) -> Tensor:
    """scipy.fft.fft2: fftn over the last two axes."""
    return _c2c_nd("fft2", True, x, s, axes, norm, workers, plan)


def ifft2(x: ArrayLike, s: ShapeLike | None = None, axes: AxisLike = (-2, -1),
          norm: Norm = None, overwrite_x: bool = False, workers: Optional[int] = None, *,
          plan: None = None) -> Tensor:
    """scipy.fft.ifft2: ifftn over the last two axes."""
    return _c2c_nd("ifft2", False, x, s, axes, norm, workers, plan)


# -- real input: r2c (rfft: the half spectrum; ihfft: its conjugate, inverse-scaled) ----

def rfft(x: ArrayLike, n: Optional[int] = None, axis: int = -1, norm: Norm = None,
         overwrite_x: bool = False, workers: Optional[int] = None, *,
         plan: None = None) -> Tensor:
    """scipy.fft.rfft: the DFT of real input, the n//2 + 1 non-negative frequencies."""
    return _r2c_1d("rfft", True, x, n, axis, norm, workers, plan)


def ihfft(x: ArrayLike, n: Optional[int] = None, axis: int = -1, norm: Norm = None,
          overwrite_x: bool = False, workers: Optional[int] = None, *,
          plan: None = None) -> Tensor:
    """scipy.fft.ihfft: the inverse DFT of a real signal with Hermitian symmetry, the
    n//2 + 1 non-negative frequencies."""
    return _r2c_1d("ihfft", False, x, n, axis, norm, workers, plan)


def _r2c_nd(op, forward, x, s, axes, norm, workers, plan):
    x = _real(op, x)
    shape, axes = u.shape_and_axes(op, x, s, axes)
    return _r2c(op, forward, x, shape, axes, norm, workers, plan)


def rfftn(x: ArrayLike, s: ShapeLike | None = None, axes: AxisLike = None,
          norm: Norm = None, overwrite_x: bool = False, workers: Optional[int] = None, *,
          plan: None = None) -> Tensor:
    """scipy.fft.rfftn: the N-D DFT of real input (the last axis of ``axes`` halved)."""
    return _r2c_nd("rfftn", True, x, s, axes, norm, workers, plan)


def rfft2(x: ArrayLike, s: ShapeLike | None = None, axes: AxisLike = (-2, -1),
          norm: Norm = None, overwrite_x: bool = False, workers: Optional[int] = None, *,
          plan: None = None) -> Tensor:
    """scipy.fft.rfft2: rfftn over the last two axes."""
    return _r2c_nd("rfft2", True, x, s, axes, norm, workers, plan)


def ihfftn(x: ArrayLike, s: ShapeLike | None = None, axes: AxisLike = None,
           norm: Norm = None, overwrite_x: bool = False, workers: Optional[int] = None, *,
           plan: None = None) -> Tensor:
    """scipy.fft.ihfftn: the N-D inverse DFT of a real Hermitian-symmetric signal."""
    return _r2c_nd("ihfftn", False, x, s, axes, norm, workers, plan)


def ihfft2(x: ArrayLike, s: ShapeLike | None = None, axes: AxisLike = (-2, -1),
           norm: Norm = None, overwrite_x: bool = False, workers: Optional[int] = None, *,
           plan: None = None) -> Tensor:
    """scipy.fft.ihfft2: ihfftn over the last two axes."""
    return _r2c_nd("ihfft2", False, x, s, axes, norm, workers, plan)


# -- real output: c2r (irfft: inverse of rfft; hfft: the DFT of a Hermitian signal) ----

def irfft(x: ArrayLike, n: Optional[int] = None, axis: int = -1, norm: Norm = None,
          overwrite_x: bool = False, workers: Optional[int] = None, *,
          plan: None = None) -> Tensor:
    """scipy.fft.irfft: the inverse of rfft, ``n`` real outputs (default 2*(m - 1) for m
    input bins; pass n = 2*m - 1 for an odd length)."""
    return _c2r_1d("irfft", False, x, n, axis, norm, workers, plan)


def hfft(x: ArrayLike, n: Optional[int] = None, axis: int = -1, norm: Norm = None,
         overwrite_x: bool = False, workers: Optional[int] = None, *,
         plan: None = None) -> Tensor:
    """scipy.fft.hfft: the DFT of a signal with Hermitian symmetry given by its first
    half, ``n`` real outputs (default 2*(m - 1))."""
    return _c2r_1d("hfft", True, x, n, axis, norm, workers, plan)


def irfftn(x: ArrayLike, s: ShapeLike | None = None, axes: AxisLike = None,
           norm: Norm = None, overwrite_x: bool = False, workers: Optional[int] = None, *,
           plan: None = None) -> Tensor:
    """scipy.fft.irfftn: the inverse of rfftn (the last output length 2*(m - 1) unless
    ``s`` says)."""
    return _c2r_nd("irfftn", False, x, s, axes, norm, workers, plan)


def irfft2(x: ArrayLike, s: ShapeLike | None = None, axes: AxisLike = (-2, -1),
           norm: Norm = None, overwrite_x: bool = False, workers: Optional[int] = None, *,
           plan: None = None) -> Tensor:
    """scipy.fft.irfft2: irfftn over the last two axes."""
    return _c2r_nd("irfft2", False, x, s, axes, norm, workers, plan)


def hfftn(x: ArrayLike, s: ShapeLike | None = None, axes: AxisLike = None,
          norm: Norm = None, overwrite_x: bool = False, workers: Optional[int] = None, *,
          plan: None = None) -> Tensor:
    """scipy.fft.hfftn: the N-D DFT of a Hermitian-symmetric signal (real output)."""
    return _c2r_nd("hfftn", True, x, s, axes, norm, workers, plan)


def hfft2(x: ArrayLike, s: ShapeLike | None = None, axes: AxisLike = (-2, -1),
          norm: Norm = None, overwrite_x: bool = False, workers: Optional[int] = None, *,
          plan: None = None) -> Tensor:
    """scipy.fft.hfft2: hfftn over the last two axes."""
    return _c2r_nd("hfft2", True, x, s, axes, norm, workers, plan)
