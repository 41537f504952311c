"""Indexing: basic (views), advanced (gathers), assignment, take, nonzero.

Advanced indexing follows NumPy's rules exactly, built from a few primitives: the
basic part of the key is applied as a view, the advanced index arrays are broadcast
together and turned into one flat index into the advanced axes, and one ``take``
gathers (its VJP is a scatter-add).  Results land where NumPy puts them: in place of
the advanced axes when those are adjacent in the key, in front otherwise.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _dtypes, _primitive
from .._primitive import Primitive, bind, concrete_values
from .._tensor import Tensor
from ._common import broadcast_shapes, normalize_axis, numel, to_tensor
from .shape import basic_index_p, broadcast_to, permute_dims, reshape, zero_d_axis

if TYPE_CHECKING:
    from typing import SupportsIndex

    from .._tensor import ArrayLike, AxisLike, ShapeLike


def _take_aval(x, idx, *, axis):
    return (x[0][:axis] + idx[0] + x[0][axis + 1:], x[1])


def _tal_aval(x, idx, *, axis):
    return (idx[0], x[1])


take_p = Primitive("take", _take_aval, doc="Gather along an axis with normalised int64 indices.")
take_along_axis_p = Primitive("take_along_axis", _tal_aval,
                              doc="numpy.take_along_axis with normalised, broadcast indices.")
def _scatter_aval(values, idx, *, axis, shape):
    return (shape, values[1])


scatter_add_p = Primitive("scatter_add", _scatter_aval,
                          doc="Adjoint of take: zeros(shape) with values added at indices.")
scatter_add_along_axis_p = Primitive("scatter_add_along_axis", _scatter_aval,
                                     doc="Adjoint of take_along_axis.")
# nonzero's output shape depends on the data: no shape rule (it cannot be traced).
nonzero_p = Primitive("nonzero", None, differentiable=False,
                      nondiff_reason="its output is integer positions")


def _index_tensor(op, idx, device):
    """Integer index operand as an int64 tensor on ``device``."""
    t = to_tensor(idx, device=device)
    if t._device is not device:
        from .._errors import DeviceMismatchError

        raise DeviceMismatchError(op, [device, t._device])
    if t.dtype.kind not in "iu":
        if t.dtype == _dtypes.bool_:
            raise IndexError("tenferro.%s: boolean indices are not allowed here; use a mask "
                             "index x[mask] or nonzero()" % op)
        if t.size == 0:
            t = t.astype(_dtypes.int64)
        else:
            raise IndexError("tenferro.%s: indices must be integers, got dtype %s"
                             % (op, t.dtype))
    if t.dtype != _dtypes.int64:
        t = t.astype(_dtypes.int64)
    return t


def _normalize_indices(op, idx, n, axis):
    """Bounds-check int64 indices against a dimension of size ``n``; make them >= 0."""
    from .elementwise import add, less, where
    from .reduction import max as _max, min as _min

    if idx.size == 0:
        return idx
    # a broadcast index (zero strides) is checked and normalised on the elements it
    # stores, then broadcast again: an index broadcast to 2**40 elements costs as much as
    # its one stored element, and the gather's output allocation fails fast, as NumPy's
    stored = _stored(idx)
    # under vmap the indices are a batch: check every example's (the same error as
    # eager); unknown values (jit) raise the host read's ConcretizationError
    vals = concrete_values(stored)
    vals = stored if vals is None else _stored(vals)
    if vals.size == 0:   # an empty batch
        return idx
    lo = int(_min(vals))
    hi = int(_max(vals))
    if lo < -n or hi >= n:
        bad = hi if hi >= n else lo
        raise IndexError("tenferro.%s: index %d is out of bounds for axis %d with size %d"
                         % (op, bad, axis, n))
    if lo < 0:
        stored = where(less(stored, 0), add(stored, n), stored)
        idx = stored if stored.shape == idx.shape else broadcast_to(stored, idx.shape)
    return idx


def _stored(t):
    """``t`` without its broadcast (zero-stride) axes: those have size 1 in the result,
    which broadcasts back to ``t``."""
    strides = getattr(t._data, "strides", None)
    if strides is None or len(strides) != t.ndim or all(strides):
        return t
    return _basic(t, [("s", slice(0, 1) if s == 0 else slice(None)) for s in strides])


def take(x: ArrayLike, indices: ArrayLike, axis: SupportsIndex | None = None) -> Tensor:
    """Elements of ``x`` at ``indices`` along ``axis`` (``numpy.take``).

    ``take(x, idx, axis)`` is ``x[:, ..., idx, ...]`` with ``idx`` in the place of
    ``axis``: the result's shape is ``x.shape[:axis] + idx.shape + x.shape[axis+1:]``.
    Negative indices count from the end; out-of-range ones raise (NumPy's default
    ``mode="raise"``; ``"wrap"``/``"clip"`` are not offered).  The bounds check reads
    the indices on the host.

    Parameters
    ----------
    x : Tensor or array_like
        The tensor.
    indices : Tensor or array_like of ints
        The positions to gather.
    axis : int, optional
        The axis to gather along; the flattened ``x`` if None.

    Returns
    -------
    Tensor
        The gathered elements, of ``x``'s dtype.

    Raises
    ------
    IndexError
        If an index is out of range, or the indices are not integers (booleans
        included: use ``x[mask]``).
    AxisError
        If ``axis`` is out of range.
    DeviceMismatchError
        If ``indices`` is a tensor on another device.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order in ``x``
    (the VJP scatter-adds the cotangent: JAX's ``_gather_transpose_rule``); not in
    ``indices``.

    See Also
    --------
    numpy.take, take_along_axis, scatter_add

    Examples
    --------
    >>> x = tf.asarray([[10, 20, 30], [40, 50, 60]])
    >>> tf.take(x, [0, 2], axis=1)
    tensor([[10, 30],
            [40, 60]])
    >>> tf.take(x, [5, 0])
    tensor([60, 10])
    """
    x = to_tensor(x)
    if axis is None or zero_d_axis(axis, x.ndim):
        x = reshape(x, (-1,))
        axis = 0
    axis = normalize_axis("take", axis, x.ndim)
    idx = _index_tensor("take", indices, x._device)
    idx = _normalize_indices("take", idx, x.shape[axis], axis)
    return bind(take_p, (x, idx), {"axis": axis})


def take_along_axis(x: ArrayLike, indices: ArrayLike, axis: SupportsIndex | None) -> Tensor:
    """Pick values of ``x`` by matching 1-D slices of ``indices`` along ``axis``
    (``numpy.take_along_axis``).

    ``out[..., j, ...] = x[..., indices[..., j, ...], ...]`` along ``axis``; the other
    axes of ``x`` and ``indices`` broadcast.  It pairs with :func:`argsort`:
    ``take_along_axis(a, argsort(a, axis), axis)`` sorts ``a``.

    Parameters
    ----------
    x : Tensor or array_like
        The tensor.
    indices : Tensor or array_like of ints
        Indices with ``x``'s number of dimensions.
    axis : int or None
        The axis to pick along; the flattened ``x`` (with 1-D ``indices``) if None.

    Returns
    -------
    Tensor
        The broadcast shape, ``indices``'s length along ``axis``.

    Raises
    ------
    ValueError
        If ``indices`` has another number of dimensions than ``x``, or the other axes
        do not broadcast.
    IndexError
        If an index is out of range or the indices are not integers.
    AxisError
        If ``axis`` is out of range.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order in ``x``
    (the VJP scatter-adds the cotangent: PyTorch's ``gather`` backward); not in
    ``indices``.

    See Also
    --------
    numpy.take_along_axis, take, argsort, scatter_add_along_axis

    Examples
    --------
    >>> x = tf.asarray([[10, 20, 30], [40, 50, 60]])
    >>> tf.take_along_axis(x, tf.asarray([[2], [0]]), axis=1)
    tensor([[30],
            [40]])
    """
    x = to_tensor(x)
    if axis is None:
        x = reshape(x, (-1,))
        axis = 0
    idx = _index_tensor("take_along_axis", indices, x._device)
    if idx.ndim != x.ndim:
        raise ValueError("tenferro.take_along_axis: indices and x must have the same number "
                         "of dimensions, got %d and %d" % (idx.ndim, x.ndim))
    axis = normalize_axis("take_along_axis", axis, x.ndim)
    idx = _normalize_indices("take_along_axis", idx, x.shape[axis], axis)
    xs = list(x.shape)
    ids = list(idx.shape)
    xs[axis] = ids[axis] = 1
    b = list(broadcast_shapes("take_along_axis", tuple(xs), tuple(ids)))
    bx = tuple(b[:axis] + [x.shape[axis]] + b[axis + 1:])
    bi = tuple(b[:axis] + [idx.shape[axis]] + b[axis + 1:])
    return bind(take_along_axis_p, (broadcast_to(x, bx), broadcast_to(idx, bi)), {"axis": axis})


def _scatter_args(op, shape, indices, values, axis):
    from ._common import shape_tuple

    values = to_tensor(values)
    shape = shape_tuple(op, shape)
    axis = normalize_axis(op, axis, len(shape))
    idx = _index_tensor(op, indices, values._device)
    idx = _normalize_indices(op, idx, shape[axis], axis)
    return shape, idx, values, axis


def scatter_add(shape: ShapeLike, indices: ArrayLike, values: ArrayLike,
                axis: SupportsIndex) -> Tensor:
    """A tensor of zeros of ``shape`` with ``values`` added at ``indices`` along ``axis``
    (the adjoint of :func:`take`; ``numpy.add.at`` into zeros).

    ``values`` has shape ``shape[:axis] + indices.shape + shape[axis+1:]`` (it is
    broadcast to it); repeated indices accumulate.  There is no NumPy function of this
    name: ``out = np.zeros(shape); np.add.at(out, (slice(None),) * axis + (indices,),
    values)`` is the same.

    Parameters
    ----------
    %(scatter_parts)s

    Raises
    ------
    IndexError
        If an index is out of range or the indices are not integers.
    ValueError
        If ``values`` does not broadcast to the expected shape.
    AxisError
        If ``axis`` is out of range.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order in
    ``values`` (the VJP gathers the cotangent: JAX's ``_scatter_add_transpose_rule``);
    not in ``indices``.

    See Also
    --------
    take, scatter_add_along_axis, numpy.ufunc.at

    Examples
    --------
    >>> tf.scatter_add((4,), [0, 2, 0], tf.asarray([1.0, 2.0, 3.0]), axis=0)
    tensor([4., 0., 2., 0.])
    """
    shape, idx, values, axis = _scatter_args("scatter_add", shape, indices, values, axis)
    want = shape[:axis] + idx.shape + shape[axis + 1:]
    if values.shape != want:
        values = _broadcast_values("scatter_add", values, want)
    return bind(scatter_add_p, (values, idx), {"axis": axis, "shape": shape})


def scatter_add_along_axis(shape: ShapeLike, indices: ArrayLike, values: ArrayLike,
                           axis: SupportsIndex) -> Tensor:
    """A tensor of zeros of ``shape`` with ``values`` added at ``indices`` along ``axis``,
    slice by slice (the adjoint of :func:`take_along_axis`; ``torch.scatter_add``).

    ``out[..., indices[..., j, ...], ...] += values[..., j, ...]`` along ``axis``:
    ``indices`` has ``len(shape)`` dimensions and ``shape``'s sizes off ``axis``;
    ``values`` broadcasts to ``indices.shape``; repeated indices accumulate.

    Parameters
    ----------
    %(scatter_parts)s

    Raises
    ------
    ValueError
        If ``indices`` does not match ``shape`` off ``axis``, or ``values`` does not
        broadcast to it.
    IndexError
        If an index is out of range or the indices are not integers.
    AxisError
        If ``axis`` is out of range.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order in
    ``values`` (the VJP is ``take_along_axis`` of the cotangent: PyTorch's
    ``scatter_add`` backward); not in ``indices``.

    See Also
    --------
    take_along_axis, scatter_add, numpy.put_along_axis

    Examples
    --------
    >>> tf.scatter_add_along_axis((2, 3), tf.asarray([[0], [2]]), tf.asarray([[1.0], [2.0]]), 1)
    tensor([[1., 0., 0.],
            [0., 0., 2.]])
    """
    shape, idx, values, axis = _scatter_args("scatter_add_along_axis", shape, indices, values,
                                             axis)
    if idx.ndim != len(shape) or any(n != m for d, (n, m) in enumerate(zip(idx.shape, shape))
                                     if d != axis):
        raise ValueError("tenferro.scatter_add_along_axis: indices of shape %s do not match "
                         "shape %s off axis %d" % (idx.shape, shape, axis))
    if values.shape != idx.shape:
        values = _broadcast_values("scatter_add_along_axis", values, idx.shape)
    return bind(scatter_add_along_axis_p, (values, idx), {"axis": axis, "shape": shape})


# scatter_add and scatter_add_along_axis take the same arguments and return alike
_SCATTER_PARTS = """shape : int or tuple of ints
    The result's shape.
indices : Tensor or array_like of ints
    The positions along ``axis``.
values : Tensor or array_like
    The values to add (their dtype is the result's).
axis : int
    The axis the indices point along.

Returns
-------
Tensor
    A new tensor of ``shape``."""
for _fn in (scatter_add, scatter_add_along_axis):
    if _fn.__doc__:   # (python -OO)
        _fn.__doc__ = _fn.__doc__.replace("%(scatter_parts)s",
                                          _SCATTER_PARTS.replace("\n", "\n    "))


def _broadcast_values(op, values, shape):
    if broadcast_shapes(op, values.shape, shape) != shape:
        raise ValueError("tenferro.%s: values of shape %s cannot be broadcast to %s"
                         % (op, values.shape, shape))
    return broadcast_to(values, shape)


def argwhere(x: ArrayLike) -> Tensor:
    """The indices of the non-zero elements of ``x``, one row per element
    (``numpy.argwhere``).

    Rows are in C order.  The output's size depends on the data, so ``x`` is read on
    the host (a device sync point); it cannot be traced.

    Parameters
    ----------
    x : Tensor or array_like
        The tensor (non-zero: ``True``, non-zero numbers, NaN).

    Returns
    -------
    Tensor, shape (N, x.ndim)
        int64 indices of the ``N`` non-zero elements.

    Raises
    ------
    ConcretizationError
        If ``x`` is traced.

    Notes
    -----
    Differentiable: no; its output is integer positions.

    See Also
    --------
    numpy.argwhere, nonzero, flatnonzero

    Examples
    --------
    >>> tf.argwhere(tf.asarray([[0, 1], [2, 0]]))
    tensor([[0, 1],
            [1, 0]])
    """
    return bind(nonzero_p, (to_tensor(x),), {})


def nonzero(x: ArrayLike) -> tuple[Tensor, ...]:
    """The indices of the non-zero elements of ``x``, one tensor per axis
    (``numpy.nonzero``).

    ``x[nonzero(x)]`` gives the non-zero values.  The output's size depends on the
    data, so ``x`` is read on the host; it cannot be traced.

    Parameters
    ----------
    x : Tensor or array_like
        A tensor with at least one dimension.

    Returns
    -------
    tuple of Tensor
        ``x.ndim`` int64 tensors of the same length.

    Raises
    ------
    ValueError
        If ``x`` is 0-d (as NumPy 2).
    ConcretizationError
        If ``x`` is traced.

    Notes
    -----
    Differentiable: no; its output is integer positions.

    See Also
    --------
    numpy.nonzero, argwhere, flatnonzero, where

    Examples
    --------
    >>> rows, cols = tf.nonzero(tf.asarray([[0, 1], [2, 0]]))
    >>> rows, cols
    (tensor([0, 1]), tensor([1, 0]))
    """
    x = to_tensor(x)
    if x.ndim == 0:
        raise ValueError("tenferro.nonzero: 0-d tensors are not supported; use "
                         "atleast_1d(x).nonzero()")
    w = argwhere(x)
    return tuple(w[:, i] for i in range(x.ndim))


def flatnonzero(x: ArrayLike) -> Tensor:
    """The indices of the non-zero elements of the flattened ``x``
    (``numpy.flatnonzero``).

    Parameters
    ----------
    x : Tensor or array_like
        The tensor.

    Returns
    -------
    Tensor, 1-D
        int64 indices into ``ravel(x)``.

    Raises
    ------
    ConcretizationError
        If ``x`` is traced (the output's size depends on the data).

    Notes
    -----
    Differentiable: no; its output is integer positions.

    See Also
    --------
    numpy.flatnonzero, nonzero

    Examples
    --------
    >>> tf.flatnonzero(tf.asarray([[0, 1], [2, 0]]))
    tensor([1, 2])
    """
    return nonzero(reshape(to_tensor(x), (-1,)))[0]


def count_nonzero(x: ArrayLike, axis: AxisLike = None, keepdims: bool = False) -> Tensor:
    """The number of non-zero elements of ``x`` along ``axis`` (``numpy.count_nonzero``).

    Parameters
    ----------
    x : Tensor or array_like
        The tensor.
    axis : int or tuple of ints, optional
        The axes to count along; all if None.
    keepdims : bool, default False
        Keep the counted axes with size 1.

    Returns
    -------
    Tensor
        int64 counts (0-d for ``axis=None``).

    Raises
    ------
    AxisError
        If an axis is out of range.

    Notes
    -----
    Differentiable: no; its output is integer counts.

    See Also
    --------
    numpy.count_nonzero, nonzero

    Examples
    --------
    >>> y = tf.asarray([[0, 1], [2, 0]])
    >>> tf.count_nonzero(y), tf.count_nonzero(y, axis=0)
    (tensor(2), tensor([1, 1]))
    """
    from .reduction import sum as _sum
    from .elementwise import not_equal

    return _sum(not_equal(to_tensor(x), 0), axis=axis, keepdims=keepdims)


# ---------------------------------------------------------------------------------
# __getitem__ / __setitem__

def _is_int(k):
    """An integer key: Python's, NumPy's, a 0-d integer tensor with data (a 0-d tracer,
    e.g. one example's index under vmap, is an advanced index)."""
    return isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)) or (
        isinstance(k, Tensor) and k.ndim == 0 and k.dtype.kind in "iu" and k._trace is None)


def _parse(x, key):
    """Split a key into per-axis entries: ('i', int), ('s', slice), ('n',), ('a', tensor)."""
    if not isinstance(key, tuple):
        key = (key,)
    entries = []
    ellipsis = False
    consumed = 0
    for k in key:
        if k is Ellipsis:
            if ellipsis:
                raise IndexError("tenferro.getitem: an index can only have a single ellipsis "
                                 "('...')")
            ellipsis = True
            entries.append(("e",))
        elif k is None:
            entries.append(("n",))
        elif isinstance(k, slice):
            entries.append(("s", k))
            consumed += 1
        elif _is_int(k):
            entries.append(("i", int(k)))
            consumed += 1
        else:
            if isinstance(k, (bool, np.bool_)):
                k = np.asarray(k)
            t = to_tensor(k, device=x._device) if not isinstance(k, Tensor) else k
            if t._device is not x._device:
                from .._errors import DeviceMismatchError

                raise DeviceMismatchError("getitem", [x._device, t._device])
            if t.dtype == _dtypes.bool_:
                entries.append(("m", t))
                consumed += max(t.ndim, 0)
            elif t.dtype.kind in "iu" or t.size == 0:
                entries.append(("a", t.astype(_dtypes.int64, copy=False)))
                consumed += 1
            else:
                raise IndexError("tenferro.getitem: only integers, slices (:), ellipsis (...), "
                                 "None and integer or boolean tensors are valid indices, got "
                                 "%s" % (type(k).__name__ if not isinstance(k, Tensor)
                                         else "a %s tensor" % t.dtype))
    if consumed > x.ndim:
        raise IndexError("tenferro.getitem: too many indices for a tensor of dimension %d "
                         "(%d given)" % (x.ndim, consumed))
    out = []
    for e in entries:
        if e[0] == "e":
            # an ellipsis covering no axis still separates advanced indices (NumPy):
            # keep a marker ("x") that getitem drops after judging adjacency
            out.extend([("s", slice(None))] * (x.ndim - consumed) or [("x",)])
        else:
            out.append(e)
    if not ellipsis:
        out.extend([("s", slice(None))] * (x.ndim - consumed))
    return out


def _expand_masks(x, entries):
    """Boolean masks become one int64 index tensor per axis they cover (NumPy's rule)."""
    out = []
    axis = 0
    for e in entries:
        if e[0] == "m":
            m = e[1]
            shape = x.shape[axis:axis + m.ndim]
            if m.shape != shape:
                raise IndexError("tenferro.getitem: boolean index of shape %s does not match "
                                 "the indexed dimensions of shape %s" % (m.shape, shape))
            if m.ndim == 0:
                # x[True] adds an axis indexed by [0]; x[False] by [] (NumPy): "z" is an
                # advanced index over a new axis, consuming no axis of x
                out.append(("z", _zero_d_mask_index(m)))
                continue
            out.extend(("a", t) for t in nonzero(m))
            axis += m.ndim
        else:
            out.append(e)
            if e[0] not in "nx":
                axis += 1
    return out


def _is_adv(e):
    return e[0] in "az"


def _zero_d_mask_index(m):
    """[0] for True, [] for False (through nonzero, so that a batched m is batched)."""
    return nonzero(reshape(m, (1,)))[0]


def _basic(x, entries):
    key = []
    axis = 0
    for e in entries:
        if e[0] == "n":
            key.append(("n",))
            continue
        n = x.shape[axis]
        if e[0] == "i":
            i = e[1]
            if not -n <= i < n:
                raise IndexError("tenferro.getitem: index %d is out of bounds for axis %d with "
                                 "size %d" % (i, axis, n))
            key.append(("i", i + n if i < 0 else i))
        else:
            start, stop, step = e[1].indices(n)
            key.append(("s", start, stop, step))
        axis += 1
    if all(k[0] == "s" and k[1] == 0 and k[3] == 1 and k[2] == n
           for k, n in zip(key, x.shape)) and len(key) == x.ndim:
        return x
    return bind(basic_index_p, (x,), {"key": tuple(key)})


def getitem(x: Tensor, key: Any) -> Tensor:
    entries = _parse(x, key)
    if not any(e[0] in "am" for e in entries):
        return _basic(x, [e for e in entries if e[0] != "x"])
    entries = _expand_masks(x, entries)
    # Integers next to arrays are advanced indices too (NumPy).
    entries = [("a", e[1]) if e[0] == "i" else e for e in entries]
    adv_pos = [i for i, e in enumerate(entries) if _is_adv(e)]
    adjacent = adv_pos == list(range(adv_pos[0], adv_pos[-1] + 1))
    entries = [e for e in entries if e[0] != "x"]
    # 1. the basic part as a view, keeping every advanced axis whole
    basic = [("s", slice(None)) if e[0] == "a" else ("n",) if e[0] == "z" else e
             for e in entries]
    y = _basic(x, basic)
    yaxes = []
    ax = 0
    for e in entries:
        if _is_adv(e):
            yaxes.append(ax)
        if e[0] != "i":
            ax += 1
    # 2. broadcast index arrays, bounds-check them
    idxs = [e[1] for e in entries if _is_adv(e)]
    idxs = [to_tensor(np.asarray(i, dtype=np.int64), device=x._device) if not isinstance(i, Tensor)
            else i for i in idxs]
    try:
        bshape = broadcast_shapes("getitem", *[i.shape for i in idxs])
    except ValueError:
        raise IndexError("tenferro.getitem: shape mismatch: indexing arrays could not be "
                         "broadcast together with shapes %s"
                         % " ".join(str(tuple(i.shape)) for i in idxs)) from None
    if 0 in bshape:   # nothing selected: NumPy checks no array's bounds (integers' yes)
        idxs = [broadcast_to(i, bshape) if i.ndim else i for i in idxs]
    idxs = [_normalize_indices("getitem", i, y.shape[a], a) for i, a in zip(idxs, yaxes)]
    rest = [a for a in range(y.ndim) if a not in yaxes]
    if len(idxs) == 1:
        return bind(take_p, (y, idxs[0]), {"axis": yaxes[0]})
    # 3. advanced axes to the front, flattened into one; one flat index
    from .elementwise import add, multiply

    y = permute_dims(y, yaxes + rest)
    sizes = [y.shape[i] for i in range(len(yaxes))]
    y = reshape(y, (numel(sizes),) + y.shape[len(yaxes):])
    flat = None
    stride = 1
    for i, n in zip(reversed(idxs), reversed(sizes)):
        term = i if stride == 1 else multiply(i, stride)
        flat = term if flat is None else add(flat, term)
        stride *= n
    flat = broadcast_to(flat, bshape)
    r = bind(take_p, (y, flat), {"axis": 0})
    if adjacent and yaxes[0] > 0:
        nb = len(bshape)
        p = yaxes[0]
        order = list(range(nb, nb + p)) + list(range(nb)) + list(range(nb + p, r.ndim))
        r = permute_dims(r, order)
    return r


def setitem(x: Tensor, key: Any, value: ArrayLike) -> None:
    """``x[key] = value`` (NumPy semantics; not allowed on tensors that require grad)."""
    from .conversion import check_inplace, copy_into

    check_inplace("setitem", x)
    entries = _parse(x, key)
    v = _assigned("setitem", x, value)
    if not any(e[0] in "am" for e in entries):
        view = _basic(x, [e for e in entries if e[0] != "x"])
        copy_into(view, v)
        return
    if x.ndim == 1 and len(entries) == 1 and entries[0][0] == "a":
        # x[idx] = v on a vector: the flat positions are idx itself (checked and made
        # >= 0 as getitem does), no arange to gather from
        positions = _normalize_indices("getitem", entries[0][1], x.shape[0], 0)
    else:
        from .creation import arange

        positions = getitem(reshape(arange(x.size, device=x.device), x.shape), key)
    if v._device is not x._device:
        from .._errors import DeviceMismatchError

        raise DeviceMismatchError("setitem", [x._device, v._device])
    v = broadcast_to(v.astype(x.dtype, copy=False), positions.shape)
    from .conversion import check_mutable

    check_mutable("setitem", x, v if positions._trace is None else positions)
    dev = x._device
    _primitive.driver_call("put", dev, dev.driver.lookup("put", dev, x.dtype),
                           (x._data, positions._data, v._data), {})


def _holds_tensor(seq):
    """Whether the nested list/tuple ``seq`` holds a Tensor (those convert as tensors)."""
    for v in seq:
        if isinstance(v, Tensor) or (isinstance(v, (list, tuple)) and _holds_tensor(v)):
            return True
    return False


def _assigned(op, x, value):
    """``value`` as a tensor to write into ``x``, by NumPy's rules: a Python scalar (or a
    nested list of them) converts as Python's ``int()``/``float()`` do (a complex into a
    real tensor is a TypeError, NaN into an integer one a ValueError, an int out of
    range an OverflowError); an array or tensor is cast unsafely, complex into real
    with NumPy's ComplexWarning."""
    if (isinstance(value, (int, float, complex)) and not isinstance(value, np.generic)) \
            or (isinstance(value, (list, tuple)) and not _holds_tensor(value)):
        try:   # (nested lists convert element by element as NumPy's setitem does)
            a = np.asarray(value, dtype=x.dtype)
        except (TypeError, ValueError, OverflowError) as e:
            raise type(e)("tenferro.%s: cannot write %r into a tensor of dtype %s: %s"
                          % (op, value, x.dtype, e)) from None
        return to_tensor(a, device=x._device)
    v = to_tensor(value, device=x._device)
    if v.dtype.kind == "c" and x.dtype.kind not in "cb":
        import warnings

        warnings.warn("tenferro.%s: casting complex values to real discards the imaginary "
                      "part" % op, np.exceptions.ComplexWarning, stacklevel=4)
    return v


def take_in_range(x, idx, axis=0):
    """``take(x, idx, axis)`` for integer indices known to lie in ``[0, x.shape[axis])``
    (``idx`` as ``x.shape`` off ``axis`` for ``take_along_axis``-style gathers: same
    ndim): the gather primitive without ``take``'s bounds check, which reads the indices
    back to the host -- so no device sync per gather, and traceable."""
    idx = idx.astype(_dtypes.int64, copy=False)
    if idx.ndim == x.ndim and x.ndim > 1:
        return bind(take_along_axis_p, (x, idx), {"axis": axis})
    return bind(take_p, (x, idx), {"axis": axis})
