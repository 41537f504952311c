"""The discrete cosine and sine transforms of types 1-4 with scipy.fft's signatures:
dct, idct, dst, idst and their N-D forms dctn, idctn, dstn, idstn; one bind of the
``fft.r2r`` primitive each.  The inverse of type 2 is type 3 and conversely, as scipy;
``orthogonalize`` (None: ``norm == "ortho"``) scales the boundary entries so that with
``norm="ortho"`` the matrix is orthogonal.  A complex input is transformed in its real
and imaginary parts (scipy 1.17 ignores ``orthogonalize`` there; tenferro applies it).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from . import _util as u
from ._prims import r2r_p

if TYPE_CHECKING:
    from .._tensor import ArrayLike, AxisLike, ShapeLike, Tensor
    from ._util import Norm

_INVERSE_TYPE = {1: 1, 2: 3, 3: 2, 4: 4}


def _r2r(op, kind, forward, x, type, shape, axes, norm, workers, orthogonalize):
    if type not in (1, 2, 3, 4) or isinstance(type, bool):
        raise ValueError("%s: type must be 1, 2, 3 or 4, got %r" % (u.name(op), type))
    if not axes:
        return x   # scipy: nothing to transform, x unchanged
    if type == 1 and kind == "dct" and min(shape) < 2:
        raise ValueError("%s: the DCT of type 1 needs at least 2 points, got %s"
                         % (u.name(op), list(shape)))
    x = u.fix_shape(x, shape, axes)
    code = u.inorm(op, norm, forward)
    ortho = code == 1 if orthogonalize is None else bool(orthogonalize)
    return r2r_p.bind(x, kind=kind, type=type if forward else _INVERSE_TYPE[type],
                      axes=axes, inorm=code, ortho=ortho, workers=u.workers(op, workers))


def _one(op, kind, forward, x, type, n, axis, norm, workers, orthogonalize):
    x = u.as_inexact(op, x)
    shape, axes = u.one_axis(op, x, n, axis)
    return _r2r(op, kind, forward, x, type, shape, axes, norm, workers, orthogonalize)


def _many(op, kind, forward, x, type, s, axes, norm, workers, orthogonalize):
    x = u.as_inexact(op, x)
    shape, axes = u.shape_and_axes(op, x, s, axes)
    return _r2r(op, kind, forward, x, type, shape, axes, norm, workers, orthogonalize)


def dct(x: ArrayLike, type: int = 2, n: Optional[int] = None, axis: int = -1,
        norm: Norm = None, overwrite_x: bool = False, workers: Optional[int] = None,
        orthogonalize: Optional[bool] = None) -> Tensor:
    """scipy.fft.dct: the discrete cosine transform of ``type`` 1-4 along ``axis``."""
    return _one("dct", "dct", True, x, type, n, axis, norm, workers, orthogonalize)


def idct(x: ArrayLike, type: int = 2, n: Optional[int] = None, axis: int = -1,
         norm: Norm = None, overwrite_x: bool = False, workers: Optional[int] = None,
         orthogonalize: Optional[bool] = None) -> Tensor:
    """scipy.fft.idct: the inverse of dct of ``type`` (a DCT of the inverse type)."""
    return _one("idct", "dct", False, x, type, n, axis, norm, workers, orthogonalize)


def dst(x: ArrayLike, type: int = 2, n: Optional[int] = None, axis: int = -1,
        norm: Norm = None, overwrite_x: bool = False, workers: Optional[int] = None,
        orthogonalize: Optional[bool] = None) -> Tensor:
    """scipy.fft.dst: the discrete sine transform of ``type`` 1-4 along ``axis``."""
    return _one("dst", "dst", True, x, type, n, axis, norm, workers, orthogonalize)


def idst(x: ArrayLike, type: int = 2, n: Optional[int] = None, axis: int = -1,
         norm: Norm = None, overwrite_x: bool = False, workers: Optional[int] = None,
         orthogonalize: Optional[bool] = None) -> Tensor:
    """scipy.fft.idst: the inverse of dst of ``type``."""
    return _one("idst", "dst", False, x, type, n, axis, norm, workers, orthogonalize)


def dctn(x: ArrayLike, type: int = 2, s: ShapeLike | None = None, axes: AxisLike = None,
         norm: Norm = None, overwrite_x: bool = False, workers: Optional[int] = None, *,
         orthogonalize: Optional[bool] = None) -> Tensor:
    """scipy.fft.dctn: the N-D discrete cosine transform over ``axes``."""
    return _many("dctn", "dct", True, x, type, s, axes, norm, workers, orthogonalize)


def idctn(x: ArrayLike, type: int = 2, s: ShapeLike | None = None, axes: AxisLike = None,
          norm: Norm = None, overwrite_x: bool = False, workers: Optional[int] = None,
          orthogonalize: Optional[bool] = None) -> Tensor:
    """scipy.fft.idctn: the inverse of dctn."""
    return _many("idctn", "dct", False, x, type, s, axes, norm, workers, orthogonalize)


def dstn(x: ArrayLike, type: int = 2, s: ShapeLike | None = None, axes: AxisLike = None,
         norm: Norm = None, overwrite_x: bool = False, workers: Optional[int] = None,
         orthogonalize: Optional[bool] = None) -> Tensor:
    """scipy.fft.dstn: the N-D discrete sine transform over ``axes``."""
    return _many("dstn", "dst", True, x, type, s, axes, norm, workers, orthogonalize)


def idstn(x: ArrayLike, type: int = 2, s: ShapeLike | None = None, axes: AxisLike = None,
          norm: Norm = None, overwrite_x: bool = False, workers: Optional[int] = None,
          orthogonalize: Optional[bool] = None) -> Tensor:
    """scipy.fft.idstn: the inverse of dstn."""
    return _many("idstn", "dst", False, x, type, s, axes, norm, workers, orthogonalize)
