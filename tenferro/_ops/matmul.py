"""Matrix products (BLAS for float/complex, exact own kernels for int/bool)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _dtypes
from .._errors import DeviceMismatchError
from .._primitive import Primitive, bind
from .._tensor import Tensor
from ._common import broadcast_shapes, to_tensor
from .shape import broadcast_to, expand_dims, squeeze

if TYPE_CHECKING:
    from .._tensor import ArrayLike


def operands(op, a, b):
    """``a`` and ``b`` as tensors on one device: an operand that is not a tensor yet is
    made on the other's device, as the elementwise ops do; tensors on two devices
    raise :class:`DeviceMismatchError` naming ``op``."""
    if not isinstance(a, Tensor):
        a = to_tensor(a, device=b.device if isinstance(b, Tensor) else None)
    if not isinstance(b, Tensor):
        b = to_tensor(b, device=a.device)
    if a._device is not b._device:
        raise DeviceMismatchError(op, [a._device, b._device])
    return a, b


def _matmul_aval(a, b):
    return (a[0][:-2] + (a[0][-2], b[0][-1]), a[1])


matmul_p = Primitive("matmul", _matmul_aval,
                     doc="Batched matrix product of [..., M, K] and [..., K, N] with equal "
                         "batch shapes and dtypes.")


def matmul(x1: ArrayLike, x2: ArrayLike) -> Tensor:
    """Matrix product of two tensors (``x1 @ x2``; NumPy's ``matmul``).

    For 2-D operands ``out[i, k] = sum_j x1[i, j] x2[j, k]``.  Operands of more than two
    dimensions are stacks of matrices in their last two axes, and the leading (batch)
    axes broadcast against each other.  A 1-D ``x1`` is a row vector and a 1-D ``x2``
    a column vector, the added axis being removed from the result (so two vectors give
    their 0-d dot product).  The operands are promoted to one dtype first; floating and
    complex products run on BLAS (or the device's kernel), integer and bool ones on
    exact kernels of tenferro's own (integers wrap as in NumPy; bool gives "any
    ``x1[i, j] and x2[j, k]``").  Unlike NumPy there is no ``out=``, ``dtype=`` or
    ``axes=``; :func:`tenferro.einsum` covers the other layouts.

    Parameters
    ----------
    x1 : Tensor or array_like, shape (..., N, K) or (K,)
        The left operand, at least 1-D.
    x2 : Tensor or array_like, shape (..., K, M) or (K,)
        The right operand, at least 1-D, on the same device as ``x1``.

    Returns
    -------
    Tensor, shape (..., N, M)
        The products, in the operands' promoted dtype; ``...`` is the broadcast batch
        shape, and the ``N`` (``M``) axis is absent when ``x1`` (``x2``) is 1-D.

    Raises
    ------
    ValueError
        If an operand is 0-d (use ``*``), the contracted sizes ``K`` differ, or the
        batch shapes do not broadcast.
    DeviceMismatchError
        If the operands are on different devices (a subclass of ValueError).
    TypeError
        If an operand cannot be made a tensor.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (the
    rules are matrix products again): the product rule of JAX's ``dot_general``
    (``lax.py``) and PyTorch's ``mm_mat1_backward``/``mm_mat2_backward``
    (``x̄1 = ḡ x2^H``, ``x̄2 = x1^H ḡ``), summed over broadcast batch axes
    (``tenferro/autograd/_rules/structural.py``).

    See Also
    --------
    numpy.matmul, dot, vdot, tensordot, einsum

    Examples
    --------
    >>> a = tf.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> a @ a
    tensor([[ 7., 10.],
            [15., 22.]])
    >>> tf.matmul(a, tf.asarray([1.0, 1.0]))
    tensor([3., 7.])
    >>> tf.matmul(tf.ones((5, 2, 3)), tf.ones((3, 4))).shape
    (5, 2, 4)
    """
    a, b = operands("matmul", x1, x2)
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
    """Dot product of vectors, matrix product of matrices (NumPy's ``dot``).

    For 1-D and 2-D operands this is :func:`matmul` (the inner product of two vectors,
    a matrix-vector or a matrix-matrix product); a 0-d operand multiplies the other
    elementwise.  NumPy's ``dot`` of N-D operands (a sum over the last axis of ``a``
    and the second-to-last of ``b``, all other axes kept) is not supported: use
    :func:`matmul` for stacks of matrices or :func:`tensordot`.  The operands are
    promoted to one dtype; unlike NumPy there is no ``out=``.

    Parameters
    ----------
    a : Tensor or array_like
        The left operand: 0-d, 1-D or 2-D.
    b : Tensor or array_like
        The right operand: 0-d, 1-D or 2-D, on the same device as ``a``.

    Returns
    -------
    Tensor
        ``a @ b`` (0-d for two vectors), or ``a * b`` when one is 0-d, in the operands'
        promoted dtype.

    Raises
    ------
    ValueError
        If an operand has more than 2 dimensions, or the contracted sizes differ.
    DeviceMismatchError
        If the operands are on different devices.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order, as
    :func:`matmul` and :func:`multiply`.

    See Also
    --------
    numpy.dot, matmul, vdot, tensordot

    Examples
    --------
    >>> v = tf.asarray([1.0, 2.0, 3.0])
    >>> tf.dot(v, v)
    tensor(14.)
    >>> tf.dot(tf.asarray([[1.0, 0.0], [0.0, 2.0]]), tf.asarray([3.0, 4.0]))
    tensor([3., 8.])
    """
    a, b = operands("dot", a, b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if a.ndim <= 2 and b.ndim <= 2:
        return matmul(a, b)
    raise ValueError("tenferro.dot: operands of more than 2 dimensions are not supported; use "
                     "matmul or tensordot (got shapes %s and %s)" % (a.shape, b.shape))


def vdot(a: ArrayLike, b: ArrayLike) -> Tensor:
    """Dot product of the flattened operands, the first conjugated (NumPy's ``vdot``).

    ``sum(conj(a.ravel()) * b.ravel())``: the inner product ``<a, b>`` of complex
    vectors (and, for matrices, the Frobenius inner product ``trace(a^H b)``).  The
    operands may have any shapes with the same number of elements; they are promoted
    to one dtype.

    Parameters
    ----------
    a : Tensor or array_like
        The conjugated operand (flattened in C order).
    b : Tensor or array_like
        The other operand, with as many elements as ``a``, on the same device.

    Returns
    -------
    Tensor, shape ()
        The inner product, in the promoted dtype (0 for empty operands).

    Raises
    ------
    ValueError
        If ``a`` and ``b`` have different numbers of elements.
    DeviceMismatchError
        If the operands are on different devices.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (through
    :func:`conj` and :func:`matmul`); as a function of complex inputs it is
    antilinear in ``a`` and linear in ``b``.

    See Also
    --------
    numpy.vdot, dot, inner

    Examples
    --------
    >>> tf.vdot(tf.asarray([1 + 2j, 3j]), tf.asarray([1j, 1.0]))
    tensor(2.-2.j)
    >>> a = tf.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> tf.vdot(a, a)
    tensor(30.)
    """
    from .elementwise import conj

    a, b = operands("vdot", a, b)
    if a.size != b.size:
        raise ValueError("tenferro.vdot: the operands have different numbers of elements: "
                         "shapes %s and %s (%d != %d)" % (a.shape, b.shape, a.size, b.size))
    a = a.reshape(-1)
    if a.dtype.kind == "c":   # (conj of a real operand would promote bool to an integer)
        a = conj(a)
    return matmul(a, b.reshape(-1))


def outer(a: ArrayLike, b: ArrayLike) -> Tensor:
    """Outer product of two vectors (NumPy's ``outer``): ``out[i, j] = a[i] * b[j]``.

    Operands of any shape are flattened first, as in NumPy; they are promoted to one
    dtype (no conjugation for complex operands).  Unlike NumPy there is no ``out=``.

    Parameters
    ----------
    a : Tensor or array_like, shape (M,) or any with M elements
        The first vector (flattened in C order).
    b : Tensor or array_like, shape (N,) or any with N elements
        The second vector, on the same device as ``a``.

    Returns
    -------
    Tensor, shape (M, N)
        The products, in the promoted dtype.

    Raises
    ------
    DeviceMismatchError
        If the operands are on different devices.
    TypeError
        If an operand cannot be made a tensor.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (a
    broadcast :func:`multiply`).

    See Also
    --------
    numpy.outer, kron, einsum

    Examples
    --------
    >>> tf.outer(tf.asarray([1, 2, 3]), tf.asarray([1, 10]))
    tensor([[ 1, 10],
            [ 2, 20],
            [ 3, 30]])
    """
    a, b = operands("outer", a, b)
    return expand_dims(a.reshape(-1), 1) * expand_dims(b.reshape(-1), 0)
