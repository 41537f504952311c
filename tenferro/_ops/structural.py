"""Rearranging along axes: diff, ediff1d, gradient, roll, repeat, tile, flips, rot90,
append, insert and delete, with NumPy's semantics.

Each is a composition of existing ops (slices, concatenate, take, broadcast_to,
reshape, flip, permute_dims), so it is differentiable and runs on every device where
its parts do.  Where the output's shape depends on integer arguments given as data
(``repeat``'s array of repeats, ``insert``/``delete``'s indices), those are read on
the host and the gather index is built there and sent to the tensor's device: the
tensor's own data never leaves its device.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _dtypes
from .._tensor import Tensor
from ._common import normalize_axis, normalize_axes, to_tensor
from .shape import broadcast_to, flip, moveaxis, permute_dims, reshape, zero_d_axis

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import SupportsIndex

    import numpy.typing as npt

    from .._tensor import ArrayLike, AxisLike, ShapeLike

    # integer positions (insert/delete's ``obj``, repeat's counts, tile's reps): an int,
    # a sequence or array of them, or an integer tensor
    IntsLike = SupportsIndex | Sequence[SupportsIndex] | npt.NDArray[Any] | Tensor

_NOVALUE: Any = object()   # "not given" (diff's prepend and append)


def along(x, axis, start=None, stop=None, step=None):
    """``x[..., start:stop:step, ...]`` with the slice on ``axis`` (a view)."""
    return x[(slice(None),) * axis + (slice(start, stop, step),)]


def _host_ints(op, obj):
    """Integer (or bool) positions given as a Python int, sequence, ndarray or tensor,
    as an ndarray on the host (they decide the output's shape)."""
    if isinstance(obj, Tensor):
        obj = obj.numpy()
    a = np.asarray(obj)
    if a.dtype.kind not in "iub" and a.size:
        raise IndexError("tenferro.%s: indices must be integers, got dtype %s" % (op, a.dtype))
    return a


def _flat_axis(op, a, axis):
    """(``a``, axis): the flattened ``a`` and 0 for ``axis=None``."""
    if axis is None:
        return reshape(a, (-1,)), 0
    return a, normalize_axis(op, axis, a.ndim)


# -- differences -------------------------------------------------------------------------

def _edge(v, a, axis):
    """``prepend``/``append`` of diff: a scalar is broadcast to ``a``'s shape with size 1
    on ``axis``."""
    v = to_tensor(v, device=a._device)
    if v.ndim == 0:
        shape = list(a.shape)
        shape[axis] = 1
        v = broadcast_to(v, tuple(shape))
    return v


def diff(a: ArrayLike, n: int = 1, axis: SupportsIndex = -1, prepend: ArrayLike = _NOVALUE,
         append: ArrayLike = _NOVALUE) -> Tensor:
    """The ``n``-th discrete difference of ``a`` along ``axis`` (``numpy.diff``).

    The first difference is ``out[i] = a[i + 1] - a[i]``; higher ones apply it
    repeatedly.  ``prepend`` and ``append`` are joined to ``a`` along ``axis`` first
    (scalars are broadcast to a slice of ``a``).  Booleans differ by ``!=``, as
    NumPy's.

    Parameters
    ----------
    a : Tensor or array_like
        The input, at least 1-D.
    n : int, default 1
        How many times to difference; 0 returns ``a``.
    axis : int, default -1
        The axis along which to difference.
    prepend, append : Tensor, array_like or scalar, optional
        Values joined before / after ``a`` along ``axis``.

    Returns
    -------
    Tensor
        ``a``'s shape with ``axis`` shorter by ``n`` (empty once ``n`` reaches its
        length).

    Raises
    ------
    ValueError
        If ``n`` is negative or ``a`` is 0-d.
    AxisError
        If ``axis`` is out of range.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (slices,
    ``concatenate`` and ``subtract``; the rules of tenferro/autograd/_rules/, from JAX's
    lax transpose rules).

    See Also
    --------
    numpy.diff, ediff1d, gradient

    Examples
    --------
    >>> a = tf.asarray([1, 4, 9, 16])
    >>> tf.diff(a)
    tensor([3, 5, 7])
    >>> tf.diff(a, n=2)
    tensor([2, 2])
    """
    from .elementwise import not_equal, subtract
    from .joining import concatenate

    a = to_tensor(a)
    if n < 0:
        raise ValueError("tenferro.diff: order must be non-negative, got %r" % (n,))
    if a.ndim == 0:
        raise ValueError("tenferro.diff: diff requires input that is at least one "
                         "dimensional")
    axis = normalize_axis("diff", axis, a.ndim)
    if n == 0:
        return a
    parts = ([_edge(prepend, a, axis)] if prepend is not _NOVALUE else []) + [a] + \
        ([_edge(append, a, axis)] if append is not _NOVALUE else [])
    if len(parts) > 1:
        a = concatenate(parts, axis=axis)
    op = not_equal if a.dtype == _dtypes.bool_ else subtract
    for _ in range(min(n, a.shape[axis])):   # (n >= the length leaves it empty)
        a = op(along(a, axis, 1), along(a, axis, None, -1))
    return a


def ediff1d(ary: ArrayLike, to_end: ArrayLike | None = None,
            to_begin: ArrayLike | None = None) -> Tensor:
    """Differences between consecutive elements of the flattened ``ary``
    (``numpy.ediff1d``).

    ``to_begin`` and ``to_end`` are joined before and after the differences; they are
    cast to ``ary``'s dtype, which NumPy's ``same_kind`` rule must allow.

    Parameters
    ----------
    ary : Tensor or array_like
        The input (flattened).
    to_end : Tensor, array_like or scalar, optional
        Values appended after the differences.
    to_begin : Tensor, array_like or scalar, optional
        Values prepended before the differences.

    Returns
    -------
    Tensor, 1-D
        ``ary.size - 1`` differences (plus the joined values), of ``ary``'s dtype.

    Raises
    ------
    TypeError
        If ``to_begin`` or ``to_end`` cannot be cast to ``ary``'s dtype under the
        ``same_kind`` rule.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (slices,
    ``subtract`` and ``concatenate``).

    See Also
    --------
    numpy.ediff1d, diff

    Examples
    --------
    >>> tf.ediff1d(tf.asarray([1, 4, 9, 16]), to_begin=0)
    tensor([0, 3, 5, 7])
    """
    from .elementwise import subtract
    from .joining import concatenate

    ary = reshape(to_tensor(ary), (-1,))
    parts = [subtract(along(ary, 0, 1), along(ary, 0, None, -1))]
    for name, v in (("to_begin", to_begin), ("to_end", to_end)):
        if v is None:
            continue
        v = reshape(to_tensor(v, device=ary._device), (-1,))
        if not np.can_cast(v.dtype, ary.dtype, casting="same_kind"):
            raise TypeError("tenferro.ediff1d: dtype of `%s` must be compatible with input "
                            "`ary` under the `same_kind` rule, got %s for %s"
                            % (name, v.dtype, ary.dtype))
        v = v.astype(ary.dtype)
        parts = [v] + parts if name == "to_begin" else parts + [v]
    return concatenate(parts) if len(parts) > 1 else parts[0]


def _spacings(op, f, axes, varargs):
    """One spacing per axis: a scalar (Python, NumPy or 0-d tensor), or a 1-D
    coordinate tensor."""
    n = len(varargs)
    if n == 0:
        return [1.0] * len(axes)
    if n == 1 and np.ndim(varargs[0]) == 0:
        return [varargs[0]] * len(axes)
    if n != len(axes):
        raise TypeError("tenferro.%s: invalid number of arguments: %d spacings for %d axes"
                        % (op, n, len(axes)))
    out = []
    for ax, d in zip(axes, varargs):
        if np.ndim(d) == 0:
            out.append(d)
            continue
        if not isinstance(d, Tensor):
            d = np.asarray(d)
            if d.dtype not in f._device.driver.dtypes:   # (float64 on WebGPU)
                d = d.astype(_dtypes.real_dtype(f.dtype))
        d = to_tensor(d, device=f._device)
        if d.ndim != 1:
            raise ValueError("tenferro.%s: distances must be either scalars or 1d" % op)
        if d.shape[0] != f.shape[ax]:
            raise ValueError("tenferro.%s: when 1d, distances must match the length of the "
                             "corresponding dimension" % op)
        out.append(d if d.dtype.kind in "fc" else d.astype(_dtypes.float64))
    return out


def _coeffs(dx, axis, ndim):
    """A 1-D coefficient tensor shaped to broadcast along ``axis`` of an ``ndim`` tensor."""
    return reshape(dx, (1,) * axis + (-1,) + (1,) * (ndim - axis - 1))


def _gradient_axis(f, axis, h, edge_order):
    """NumPy's second-order central differences inside, first- or second-order one-sided
    differences at the edges, for uniform (scalar ``h``) or coordinate spacing."""
    from .joining import concatenate

    def at(i):   # the i-th slice along axis, kept as an axis of length 1
        return along(f, axis, i, i + 1 or None)

    lo, mid_, hi = along(f, axis, None, -2), along(f, axis, 1, -1), along(f, axis, 2)

    if isinstance(h, Tensor) and h.ndim == 1:
        dx = diff(h)
        dx1, dx2 = _coeffs(along(dx, 0, None, -1), axis, f.ndim), \
            _coeffs(along(dx, 0, 1), axis, f.ndim)
        mid = (-dx2 / (dx1 * (dx1 + dx2))) * lo + ((dx2 - dx1) / (dx1 * dx2)) * mid_ \
            + (dx1 / (dx2 * (dx1 + dx2))) * hi
        d = [dx[i] for i in (0, 1, -2, -1)] if dx.shape[0] > 1 else [dx[0]] * 4
    else:
        mid = (hi - lo) / (2.0 * h)
        d = [h] * 4
    if edge_order == 1:
        first = (at(1) - at(0)) / d[0]
        last = (at(-1) - at(-2)) / d[3]
    else:
        a, b = d[0], d[1]
        first = (-(2.0 * a + b) / (a * (a + b))) * at(0) + ((a + b) / (a * b)) * at(1) \
            - (a / (b * (a + b))) * at(2)
        a, b = d[2], d[3]
        last = (b / (a * (a + b))) * at(-3) - ((a + b) / (a * b)) * at(-2) \
            + ((2.0 * b + a) / (b * (a + b))) * at(-1)
    return concatenate([first, mid, last], axis=axis)


def gradient(f: ArrayLike, *varargs: ArrayLike, axis: AxisLike = None,
             edge_order: int = 1) -> Any:
    """The gradient of a sampled function ``f`` by finite differences (``numpy.gradient``).

    Interior points use second-order central differences,
    :math:`(f_{i+1} - f_{i-1}) / 2h` for a uniform spacing ``h`` (NumPy's formula for
    non-uniform coordinates otherwise); the edges use first- or second-order one-sided
    differences (``edge_order``).  Integer input is computed in float64.

    Parameters
    ----------
    f : Tensor or array_like
        The samples, with at least ``edge_order + 1`` of them along each axis used.
    *varargs : scalar or 1-D Tensor/array_like
        The spacing: none (1 along every axis), one scalar for all axes, or one per
        axis, each a scalar step or the 1-D coordinates of the samples along it.
    axis : int or tuple of ints, optional
        The axes to differentiate along; all if None.
    edge_order : {1, 2}, default 1
        The accuracy order of the one-sided differences at the edges.

    Returns
    -------
    Tensor or tuple of Tensor
        One tensor of ``f``'s shape per axis (a single tensor for a single axis), of
        ``f``'s dtype (float64 for integer ``f``).

    Raises
    ------
    ValueError
        If an axis has fewer than ``edge_order + 1`` samples, ``edge_order`` is not 1
        or 2, or coordinates are not 1-D or do not match the axis length.
    TypeError
        If the number of spacings matches neither 1 nor the number of axes.
    AxisError
        If an axis is out of range.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order, in ``f``
    (a linear map: slices, arithmetic and ``concatenate``) and in tensor coordinates.

    See Also
    --------
    numpy.gradient, diff

    Examples
    --------
    >>> tf.gradient(tf.asarray([1.0, 4.0, 9.0, 16.0]))
    tensor([3., 4., 6., 7.])
    >>> tf.gradient(tf.asarray([1.0, 4.0, 9.0, 16.0]), 2.0)
    tensor([1.5, 2. , 3. , 3.5])
    """
    f = to_tensor(f)
    axes = normalize_axes("gradient", axis, f.ndim)
    if isinstance(axis, (tuple, list)):   # in the order given, as NumPy's
        axes = tuple(normalize_axis("gradient", a, f.ndim) for a in axis)
    if edge_order not in (1, 2):
        raise ValueError("tenferro.gradient: 'edge_order' greater than 2 not supported, "
                         "got %r" % (edge_order,))
    if f.dtype.kind not in "fc":
        f = f.astype(_dtypes.float64)
    out = []
    for ax, h in zip(axes, _spacings("gradient", f, axes, varargs)):
        if f.shape[ax] < edge_order + 1:
            raise ValueError("tenferro.gradient: shape of the array too small to calculate a "
                             "numerical gradient, at least (edge_order + 1) elements are "
                             "required")
        g = _gradient_axis(f, ax, h, edge_order)
        # f's dtype, as NumPy's (coordinates of a wider dtype are computed in it)
        out.append(g if g.dtype == f.dtype else g.astype(f.dtype))
    return out[0] if len(out) == 1 else tuple(out)


# -- moving, repeating, flipping ---------------------------------------------------------

def roll(a: ArrayLike, shift: ShapeLike, axis: AxisLike = None) -> Tensor:
    """Shift the elements of ``a`` cyclically along ``axis`` (``numpy.roll``).

    Elements shifted beyond the last position come back at the first.  ``shift`` and
    ``axis`` may be tuples (broadcast together); shifts along one axis add up.

    Parameters
    ----------
    a : Tensor or array_like
        The tensor.
    shift : int or tuple of ints
        The number of places to shift (negative: towards the start).
    axis : int or tuple of ints, optional
        The axes; the flattened tensor (its shape restored afterwards) if None.

    Returns
    -------
    Tensor
        A new tensor of ``a``'s shape.

    Raises
    ------
    ValueError
        If ``shift`` and ``axis`` are not ints or 1-D sequences that broadcast.
    AxisError
        If an axis is out of range.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (slices
    and ``concatenate``).

    See Also
    --------
    numpy.roll, rot90

    Examples
    --------
    >>> tf.roll(tf.arange(5), 2)
    tensor([3, 4, 0, 1, 2])
    """
    from .joining import concatenate

    a = to_tensor(a)
    if axis is None:
        if a.ndim != 1:
            return reshape(roll(reshape(a, (-1,)), shift, 0), a.shape)
        axis = 0
    if type(shift) is int and type(axis) is int:   # (the usual call: no NumPy parsing)
        total = {normalize_axis("roll", axis, a.ndim): shift}
    else:
        pairs = np.broadcast(np.asarray(shift), np.asarray(axis))
        if pairs.nd > 1:
            raise ValueError("tenferro.roll: shift and axis must be ints or 1-D sequences")
        total = {}
        for s, ax in pairs:
            ax = normalize_axis("roll", int(ax), a.ndim)
            total[ax] = total.get(ax, 0) + int(s)
    out = a
    for ax, s in total.items():
        n = a.shape[ax]
        if n and s % n:
            k = n - s % n
            out = concatenate([along(out, ax, k), along(out, ax, None, k)], axis=ax)
    return out if out is not a else a.copy()   # a new tensor, as NumPy's, never `a` itself


def repeat(a: ArrayLike, repeats: IntsLike, axis: SupportsIndex | None = None) -> Tensor:
    """Repeat each element of ``a`` along ``axis`` (``numpy.repeat``).

    ``repeats`` is one count for all elements, or one count per element along ``axis``;
    the counts decide the output's shape, so they are read on the host (a tensor of
    counts is copied there).

    Parameters
    ----------
    a : Tensor or array_like
        The tensor.
    repeats : int or 1-D sequence/ndarray/Tensor of ints
        Non-negative counts.
    axis : int, optional
        The axis to repeat along; the flattened tensor if None.

    Returns
    -------
    Tensor
        ``a``'s shape with ``axis`` of length ``sum(repeats)`` (1-D for ``axis=None``).

    Raises
    ------
    ValueError
        If a count is negative, ``repeats`` is more than 1-D, or it has neither one nor
        ``a.shape[axis]`` counts.
    IndexError
        If the counts are not integers.
    AxisError
        If ``axis`` is out of range.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order in ``a``
    (a broadcast or a gather: JAX's ``_gather_transpose_rule``); not in ``repeats``
    (integers).

    See Also
    --------
    numpy.repeat, tile

    Examples
    --------
    >>> tf.repeat(tf.asarray([1, 2]), 2)
    tensor([1, 1, 2, 2])
    >>> tf.repeat(tf.asarray([1, 2]), [1, 3])
    tensor([1, 2, 2, 2])
    """
    from .indexing import take

    a = to_tensor(a)
    if zero_d_axis(axis, a.ndim):   # NumPy's leniency: axis 0 or -1 names a 0-d scalar
        axis = None
    a, axis = _flat_axis("repeat", a, axis)
    r = _host_ints("repeat", repeats)
    if r.ndim > 1:
        raise ValueError("tenferro.repeat: repeats must be an int or 1-D, got %d dimensions"
                         % r.ndim)
    if (r < 0).any():
        raise ValueError("tenferro.repeat: repeats may not contain negative values")
    n = a.shape[axis]
    if r.ndim == 0 or r.shape == (1,):
        k = int(r.reshape(()))
        shape = a.shape[:axis + 1] + (k,) + a.shape[axis + 1:]
        b = broadcast_to(reshape(a, a.shape[:axis + 1] + (1,) + a.shape[axis + 1:]), shape)
        out = reshape(b, a.shape[:axis] + (n * k,) + a.shape[axis + 1:])
        return out.copy() if k == 1 else out   # (k == 1: a view of `a`; NumPy copies)
    if r.shape[0] != n:
        raise ValueError("tenferro.repeat: operands could not be broadcast together: %d "
                         "repeats for an axis of length %d" % (r.shape[0], n))
    idx = np.repeat(np.arange(n, dtype=np.int64), r.astype(np.int64))
    return take(a, to_tensor(idx, device=a._device), axis=axis)


def tile(A: ArrayLike, reps: IntsLike) -> Tensor:
    """Repeat the whole of ``A`` ``reps`` times along each axis (``numpy.tile``).

    If ``reps`` is longer than ``A.ndim``, ``A`` gets leading size-1 axes; if shorter,
    ``reps`` gets leading ones.

    Parameters
    ----------
    A : Tensor or array_like
        The tensor.
    reps : int or sequence of ints
        Non-negative repetitions per axis.

    Returns
    -------
    Tensor
        A new tensor with ``max(A.ndim, len(reps))`` dimensions, each ``A``'s size times
        its repetitions.

    Raises
    ------
    ValueError
        If a repetition is negative.
    IndexError
        If ``reps`` are not integers.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (a
    broadcast and a reshape: JAX's ``_broadcast_in_dim_transpose_rule``).

    See Also
    --------
    numpy.tile, repeat

    Examples
    --------
    >>> tf.tile(tf.asarray([1, 2]), 2)
    tensor([1, 2, 1, 2])
    >>> tf.tile(tf.asarray([1, 2]), (2, 1))
    tensor([[1, 2],
            [1, 2]])
    """
    A = to_tensor(A)
    reps = tuple(int(r) for r in (np.atleast_1d(_host_ints("tile", reps))))
    if any(r < 0 for r in reps):
        raise ValueError("tenferro.tile: negative dimensions are not allowed, got %s" % (reps,))
    d = max(len(reps), A.ndim)
    reps = (1,) * (d - len(reps)) + reps
    shape = (1,) * (d - A.ndim) + A.shape
    inter = tuple(x for s in shape for x in (1, s))
    big = tuple(x for r, s in zip(reps, shape) for x in (r, s))
    b = broadcast_to(reshape(A, inter), big)
    return reshape(b, tuple(r * s for r, s in zip(reps, shape))).copy()


def flipud(m: ArrayLike) -> Tensor:
    m = to_tensor(m)
    if m.ndim < 1:
        raise ValueError("tenferro.flipud: input must be >= 1-d, got 0-d")
    return flip(m, 0)


def fliplr(m: ArrayLike) -> Tensor:
    m = to_tensor(m)
    if m.ndim < 2:
        raise ValueError("tenferro.fliplr: input must be >= 2-d, got %d-d" % m.ndim)
    return flip(m, 1)


_FLIP_DOC = """``m`` reversed along axis {axis}, {dir} (``numpy.{name}``); a view.

``{name}(m)`` is ``flip(m, {axis})``; ``m`` needs at least {nd} dimension{s}.

Parameters
----------
m : Tensor or array_like
    The tensor.

Returns
-------
Tensor
    A view of ``m``'s shape with negative strides along axis {axis}.

Raises
------
ValueError
    If ``m`` has fewer than {nd} dimension{s}.

Notes
-----
Differentiable: yes, forward and reverse, real and complex, to any order (a slice:
JAX's ``_slice_transpose_rule``).

See Also
--------
numpy.{name}, flip, {other}

Examples
--------
>>> tf.{name}(tf.asarray([[1, 2], [3, 4]]))
{out}
"""
for _fn, _axis, _dir, _nd, _other, _out in (
        (flipud, 0, "up/down", 1, "fliplr", "tensor([[3, 4],\n        [1, 2]])"),
        (fliplr, 1, "left/right", 2, "flipud", "tensor([[2, 1],\n        [4, 3]])")):
    _fn.__doc__ = _FLIP_DOC.format(name=_fn.__name__, axis=_axis, dir=_dir, nd=_nd,
                                   s="s" if _nd > 1 else "", other=_other, out=_out)


def rot90(m: ArrayLike, k: int = 1, axes: Sequence[SupportsIndex] = (0, 1)) -> Tensor:
    """Rotate ``m`` by 90 degrees ``k`` times in the plane of ``axes``
    (``numpy.rot90``); a view.

    The rotation goes from the first axis towards the second: for a matrix and ``k=1``
    the last column becomes the first row.

    Parameters
    ----------
    m : Tensor or array_like
        A tensor with at least 2 dimensions.
    k : int, default 1
        The number of rotations (negative: the other way).
    axes : sequence of two ints, default (0, 1)
        The plane of the rotation.

    Returns
    -------
    Tensor
        A view (``m`` itself when ``k`` is a multiple of 4).

    Raises
    ------
    ValueError
        If ``axes`` does not name two different axes.
    AxisError
        If an axis is out of range.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (flips and
    a permutation of axes).

    See Also
    --------
    numpy.rot90, flip, transpose

    Examples
    --------
    >>> tf.rot90(tf.asarray([[1, 2], [3, 4]]))
    tensor([[2, 4],
            [1, 3]])
    """
    m = to_tensor(m)
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("tenferro.rot90: len(axes) must be 2, got %d" % len(axes))
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == m.ndim:
        raise ValueError("tenferro.rot90: axes must be different, got %s" % (axes,))
    a0, a1 = (normalize_axis("rot90", a, m.ndim) for a in axes)
    k %= 4
    if k == 0:
        return m
    if k == 2:
        return flip(m, (a0, a1))
    perm = list(range(m.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return permute_dims(flip(m, a1), perm)
    return flip(permute_dims(m, perm), a1)


# -- append, insert, delete --------------------------------------------------------------

def append(arr: ArrayLike, values: ArrayLike, axis: SupportsIndex | None = None) -> Tensor:
    """Join ``values`` to the end of ``arr`` (``numpy.append``).

    Without ``axis`` both are flattened; with one, they are concatenated along it and
    must have matching shapes off it.  The result has the promoted dtype.

    Parameters
    ----------
    arr : Tensor or array_like
        The tensor.
    values : Tensor or array_like
        The values to append.
    axis : int, optional
        The axis to append along; flattened inputs if None.

    Returns
    -------
    Tensor
        A new tensor.

    Raises
    ------
    ValueError
        If the shapes do not match off ``axis`` or the dimensions differ.
    AxisError
        If ``axis`` is out of range.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (a
    ``concatenate``).

    See Also
    --------
    numpy.append, concatenate, insert

    Examples
    --------
    >>> tf.append(tf.asarray([1, 2]), [3, 4])
    tensor([1, 2, 3, 4])
    """
    from .joining import concatenate

    arr = to_tensor(arr)
    values = to_tensor(values, device=arr._device)
    if axis is None:
        return concatenate([reshape(arr, (-1,)), reshape(values, (-1,))])
    return concatenate([arr, values], axis=axis)


def insert(arr: ArrayLike, obj: IntsLike | slice, values: ArrayLike,
           axis: SupportsIndex | None = None) -> Tensor:
    """Insert ``values`` before the positions ``obj`` along ``axis`` (``numpy.insert``).

    ``obj`` is an index, a slice or a sequence of indices (or a boolean mask) into the
    original ``arr``; ``values`` take ``arr``'s dtype and broadcast to the inserted
    block.  The positions decide the output's shape, so they are read on the host.

    Parameters
    ----------
    arr : Tensor or array_like
        The tensor.
    obj : int, slice or sequence of ints
        The positions before which ``values`` are inserted.
    values : Tensor, array_like or scalar
        The values to insert.
    axis : int, optional
        The axis to insert along; the flattened ``arr`` if None.

    Returns
    -------
    Tensor
        A new tensor, longer along ``axis``.

    Raises
    ------
    IndexError
        If a position is out of bounds or not an integer.
    ValueError
        If ``obj`` is more than 1-D or ``values`` does not broadcast to the block.
    AxisError
        If ``axis`` is out of range.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order in ``arr``
    and ``values`` (``concatenate`` and a gather: JAX's ``_gather_transpose_rule``).

    See Also
    --------
    numpy.insert, delete, append

    Examples
    --------
    >>> tf.insert(tf.asarray([1, 2, 3]), 1, 9)
    tensor([1, 9, 2, 3])
    """
    from .indexing import take
    from .joining import concatenate

    arr, axis = _flat_axis("insert", to_tensor(arr), axis)
    n = arr.shape[axis]
    idx = np.arange(*obj.indices(n)) if isinstance(obj, slice) else _host_ints("insert", obj)
    if idx.dtype == np.bool_:
        if idx.ndim != 1:
            raise ValueError("tenferro.insert: boolean array argument obj must be one "
                             "dimensional")
        idx = np.flatnonzero(idx)
    if idx.ndim > 1:
        raise ValueError("tenferro.insert: index array argument obj must be one dimensional "
                         "or scalar")
    idx = idx.astype(np.int64)
    if ((idx < -n) | (idx > n)).any():
        raise IndexError("tenferro.insert: index %s is out of bounds for axis %d with size %d"
                         % (obj, axis, n))
    idx = np.where(idx < 0, idx + n, idx)
    values = to_tensor(values, device=arr._device)
    values = values.astype(arr.dtype) if values.dtype != arr.dtype else values
    values = reshape(values, (1,) * (arr.ndim - values.ndim) + values.shape)
    shape = list(arr.shape)
    if idx.size == 1:
        if idx.ndim == 0:
            values = moveaxis(values, 0, axis)
        shape[axis] = values.shape[axis]
        i = int(idx.reshape(()))
        return concatenate([along(arr, axis, None, i), broadcast_to(values, tuple(shape)),
                            along(arr, axis, i)], axis=axis)
    k = idx.shape[0]
    shape[axis] = k
    # the new positions: index i of the inserted block goes to idx (in sorted order) +
    # the number inserted before it; the old elements fill the rest in order
    pos = idx.copy()
    pos[np.argsort(idx, kind="stable")] += np.arange(k)
    gather = np.empty(n + k, dtype=np.int64)
    old = np.ones(n + k, dtype=bool)
    old[pos] = False
    gather[old] = np.arange(n)
    gather[pos] = n + np.arange(k)
    src = concatenate([arr, broadcast_to(values, tuple(shape))], axis=axis)
    return take(src, to_tensor(gather, device=arr._device), axis=axis)


def delete(arr: ArrayLike, obj: IntsLike | slice, axis: SupportsIndex | None = None
           ) -> Tensor:
    """``arr`` without the entries ``obj`` along ``axis`` (``numpy.delete``).

    ``obj`` is an index, a slice, a sequence of indices or a boolean mask of the axis's
    length; it is read on the host (the output's shape depends on it).

    Parameters
    ----------
    arr : Tensor or array_like
        The tensor.
    obj : int, slice, sequence of ints or boolean mask
        The entries to remove.
    axis : int, optional
        The axis to delete along; the flattened ``arr`` if None.

    Returns
    -------
    Tensor
        A new tensor, shorter along ``axis``.

    Raises
    ------
    IndexError
        If an index is out of bounds or not an integer.
    ValueError
        If a boolean mask does not match the axis's length.
    AxisError
        If ``axis`` is out of range.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order in ``arr``
    (a gather: JAX's ``_gather_transpose_rule``).

    See Also
    --------
    numpy.delete, insert

    Examples
    --------
    >>> tf.delete(tf.arange(5), [0, 2])
    tensor([1, 3, 4])
    """
    from .indexing import take

    arr, axis = _flat_axis("delete", to_tensor(arr), axis)
    n = arr.shape[axis]
    keep = np.ones(n, dtype=bool)
    if isinstance(obj, slice):
        keep[obj] = False
    else:
        idx = _host_ints("delete", obj)
        if idx.dtype == np.bool_:
            if idx.shape != (n,):
                raise ValueError("tenferro.delete: boolean array argument obj must be one "
                                 "dimensional and match the axis length of %d" % n)
            keep = ~idx
        else:
            idx = idx.astype(np.int64)
            if ((idx < -n) | (idx >= n)).any():
                raise IndexError("tenferro.delete: index %s is out of bounds for axis %d with "
                                 "size %d" % (obj, axis, n))
            keep[idx] = False
    if keep.all():
        return arr.copy()
    return take(arr, to_tensor(np.flatnonzero(keep).astype(np.int64), device=arr._device),
                axis=axis)
