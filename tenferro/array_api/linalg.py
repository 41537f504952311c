"""The Array API ``linalg`` extension over :mod:`tenferro.linalg` (which is scipy-style).

The standard's conventions differ from scipy's: ``cholesky`` gives the lower factor,
``qr``'s default mode is ``"reduced"``, decompositions return named tuples, norms
are split into ``vector_norm``/``matrix_norm``, ``diagonal``/``trace`` act on the last
two axes, tolerances are ``rtol`` relative to the largest singular value.  The
annotations are the standard's (its ``array`` is :class:`tenferro.Tensor`).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

from .. import _dtypes, _ops, linalg as _la
from .._ops._common import normalize_axes
from .._tensor import Tensor
from ._functions import vecdot  # noqa: F401

if TYPE_CHECKING:
    from typing import Literal, Union

    from .._tensor import DTypeLike

    Tolerance = Union[float, Tensor, None]

__all__ = ["cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul",
           "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer",
           "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace",
           "vecdot", "vector_norm"]

matmul = _ops.matmul
matrix_transpose = _ops.matrix_transpose
outer = _ops.outer
tensordot = _ops.tensordot
cross = _ops.cross


class EighResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


class QRResult(NamedTuple):
    Q: Tensor
    R: Tensor


class SlogdetResult(NamedTuple):
    sign: Tensor
    logabsdet: Tensor


class SVDResult(NamedTuple):
    U: Tensor
    S: Tensor
    Vh: Tensor


def cholesky(x: Tensor, /, *, upper: bool = False) -> Tensor:
    return _la.cholesky(x, lower=not upper)


def det(x: Tensor, /) -> Tensor:
    return _la.det(x)


def diagonal(x: Tensor, /, *, offset: int = 0) -> Tensor:
    return _ops.diagonal(x, offset=offset, axis1=-2, axis2=-1)


def eigh(x: Tensor, /) -> EighResult:
    return EighResult(*_la.eigh(x))


def eigvalsh(x: Tensor, /) -> Tensor:
    return _la.eigvalsh(x)


def inv(x: Tensor, /) -> Tensor:
    return _la.inv(x)


def matrix_power(x: Tensor, n: int, /) -> Tensor:
    return _la.matrix_power(x, n)


def _rtol(x: Tensor, rtol: Tolerance) -> float | Tensor:
    if rtol is None:
        return max(x.shape[-2:]) * _dtypes.finfo(x.dtype).eps
    return rtol


def _cutoff(x: Tensor, s: Tensor, rtol: Tolerance) -> Tensor:
    """The singular values ``s`` of ``x`` at or below this count as zero."""
    rtol = _rtol(x, rtol)
    if isinstance(rtol, Tensor):   # one per matrix of the batch
        rtol = _ops.expand_dims(rtol, -1)
    return _ops.multiply(_ops.max(s, axis=-1, keepdims=True), rtol)


def matrix_rank(x: Tensor, /, *, rtol: Tolerance = None) -> Tensor:
    s = _la.svdvals(x)
    tol = _cutoff(x, s, rtol) if s.shape[-1] else 0.0
    return _ops.count_nonzero(_ops.greater(s, tol), axis=-1)


def pinv(x: Tensor, /, *, rtol: Tolerance = None) -> Tensor:
    if not isinstance(rtol, Tensor):
        return _la.pinv(x, rtol=_rtol(x, rtol))
    # a tolerance per matrix of the batch: through the SVD (tenferro.linalg.pinv takes a
    # float)
    shape = x.shape[:-2] + (x.shape[-1], x.shape[-2])
    if x.size == 0:
        return _ops.zeros(shape, dtype=x.dtype, device=x.device)
    u, s, vh = _la.svd(x, full_matrices=False)
    s_inv = _ops.where(_ops.greater(s, _cutoff(x, s, rtol)), _ops.reciprocal(s), 0)
    return _ops.matmul(_ops.conj(_ops.matrix_transpose(vh)) * _ops.expand_dims(s_inv, -2),
                       _ops.conj(_ops.matrix_transpose(u)))


def qr(x: Tensor, /, *, mode: Literal["reduced", "complete"] = "reduced") -> QRResult:
    if mode not in ("reduced", "complete"):
        raise ValueError("tenferro.array_api.linalg.qr: mode must be 'reduced' or "
                         "'complete', got %r" % (mode,))
    return QRResult(*_la.qr(x, mode="economic" if mode == "reduced" else "full"))


def slogdet(x: Tensor, /) -> SlogdetResult:
    return SlogdetResult(*_la.slogdet(x))


def solve(x1: Tensor, x2: Tensor, /) -> Tensor:
    return _la.solve(x1, x2)


def svd(x: Tensor, /, *, full_matrices: bool = True) -> SVDResult:
    return SVDResult(*_la.svd(x, full_matrices=full_matrices))


def svdvals(x: Tensor, /) -> Tensor:
    return _la.svdvals(x)


def trace(x: Tensor, /, *, offset: int = 0, dtype: DTypeLike = None) -> Tensor:
    return _ops.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def vector_norm(x: Tensor, /, *, axis: int | tuple[int, ...] | None = None,
                keepdims: bool = False, ord: int | float = 2) -> Tensor:
    """The ``ord``-norm of ``x`` as one vector along ``axis`` (all axes, one, or any
    tuple of them: scipy's ``norm`` would take two axes for a matrix norm)."""
    axes = normalize_axes("linalg.vector_norm", axis, x.ndim)
    rest = tuple(i for i in range(x.ndim) if i not in axes)
    size = math.prod(x.shape[i] for i in axes)
    flat = _ops.reshape(_ops.permute_dims(x, rest + axes),
                        tuple(x.shape[i] for i in rest) + (size,))
    out = _la.norm(flat, ord=ord, axis=-1)
    if keepdims:
        out = _ops.reshape(out, tuple(1 if i in axes else n for i, n in enumerate(x.shape)))
    return out


def matrix_norm(x: Tensor, /, *, keepdims: bool = False,
                ord: int | float | Literal["fro", "nuc"] = "fro") -> Tensor:
    return _la.norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)
