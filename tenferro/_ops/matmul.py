"""Matrix products (BLAS for float/complex, exact own kernels for int/bool)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _dtypes
from .._errors import DeviceMismatchError
from .._primitive import Primitive, bind
from ._common import broadcast_shapes, to_tensor
from .shape import broadcast_to, expand_dims, squeeze

if TYPE_CHECKING:
    from .._tensor import ArrayLike, Tensor


def _matmul_aval(a, b):
    return (a[0][:-2] + (a[0][-2], b[0][-1]), a[1])


matmul_p = Primitive("matmul", _matmul_aval,
                     doc="Batched matrix product of [..., M, K] and [..., K, N] with equal "
                         "batch shapes and dtypes.")


def matmul(x1: ArrayLike, x2: ArrayLike) -> Tensor:
    """NumPy's ``matmul`` (``@``): 1-D operands promoted, batch dimensions broadcast."""
    a = to_tensor(x1)
    b = to_tensor(x2, device=a.device)
    if a._device is not b._device:
        raise DeviceMismatchError("matmul", [a._device, b._device])
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("tenferro.matmul: operands must be at least 1-D (use * for scalars), "
                         "got shapes %s and %s" % (a.shape, b.shape))
    dt = _dtypes.result_type(a, b)
    a = a if a.dtype == dt else a.astype(dt)
    b = b if b.dtype == dt else b.astype(dt)
    va, vb = a.ndim == 1, b.ndim == 1
    if va:
        a = expand_dims(a, 0)
    if vb:
        b = expand_dims(b, 1)
    if a.shape[-1] != b.shape[-2]:
        raise ValueError("tenferro.matmul: contracted dimensions differ: shapes %s and %s "
                         "(%d != %d)" % (x1.shape if hasattr(x1, "shape") else a.shape,
                                         x2.shape if hasattr(x2, "shape") else b.shape,
                                         a.shape[-1], b.shape[-2]))
    a, b = broadcast_batch("matmul", a, b)
    r = bind(matmul_p, (a, b), {})
    if va and vb:
        return squeeze(r, (-2, -1))
    if va:
        return squeeze(r, -2)
    if vb:
        return squeeze(r, -1)
    return r


def broadcast_batch(op, a, b):
    """Stacks of matrices ``a`` [..., m, n] and ``b`` [..., p, q] with their leading
    (batch) dims broadcast to a common shape (views)."""
    batch = broadcast_shapes(op, a.shape[:-2], b.shape[:-2])
    if a.shape[:-2] != batch:
        a = broadcast_to(a, batch + a.shape[-2:])
    if b.shape[:-2] != batch:
        b = broadcast_to(b, batch + b.shape[-2:])
    return a, b


def dot(a: ArrayLike, b: ArrayLike) -> Tensor:
    """numpy.dot for 1-D and 2-D operands (matmul semantics there); scalars multiply."""
    a, b = to_tensor(a), to_tensor(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if a.ndim <= 2 and b.ndim <= 2:
        return matmul(a, b)
    raise ValueError("tenferro.dot: operands of more than 2 dimensions are not supported; use "
                     "matmul or tensordot (got shapes %s and %s)" % (a.shape, b.shape))


def vdot(a: ArrayLike, b: ArrayLike) -> Tensor:
    """Conjugated dot product of flattened operands."""
    from .elementwise import conj

    a, b = to_tensor(a), to_tensor(b)
    return matmul(conj(a.reshape(-1)), b.reshape(-1))


def outer(a: ArrayLike, b: ArrayLike) -> Tensor:
    a, b = to_tensor(a), to_tensor(b)
    return expand_dims(a.reshape(-1), 1) * expand_dims(b.reshape(-1), 0)
