"""Joining and padding: concatenate, stack, pad (all modes built from slices)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import _dtypes
from .._primitive import Primitive, bind
from ._common import common_device, normalize_axis, to_tensor
from .._tensor import Tensor
from .shape import flip, reshape, reshape_p

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import SupportsIndex

    from .._tensor import ArrayLike, DTypeLike


def _concat_aval(*xs, axis):
    s = list(xs[0][0])
    s[axis] = sum(x[0][axis] for x in xs)
    return (tuple(s), xs[0][1])


concatenate_p = Primitive("concatenate", _concat_aval, doc="Join along an existing axis.")


def concatenate(tensors: Sequence[ArrayLike], axis: SupportsIndex | None = 0,
                dtype: DTypeLike = None, casting: str = "same_kind") -> Tensor:
    """Join tensors along an existing axis (``numpy.concatenate``; ``concat`` is the same
    function, the Array API's name).

    Shapes must match off ``axis``.  The result has the promoted dtype of the inputs, or
    ``dtype`` when given (each cast must obey ``casting``).  All tensors must be on one
    device.

    Parameters
    ----------
    tensors : sequence of Tensor or array_like
        The tensors, at least 1-D and all with the same number of dimensions.
    axis : int or None, default 0
        The axis to join along; None flattens the inputs first.
    dtype : dtype or str, optional
        The result's dtype; the promoted dtype if None.
    casting : {"no", "equiv", "safe", "same_kind", "unsafe"}, default "same_kind"
        The rule the casts to ``dtype`` must obey, as NumPy's.

    Returns
    -------
    Tensor
        A new tensor, the inputs' lengths along ``axis`` summed.

    Raises
    ------
    ValueError
        If ``tensors`` is empty, a tensor is 0-d, or the dimensions or the shapes off
        ``axis`` differ.
    TypeError
        If a cast to ``dtype`` breaks the ``casting`` rule.
    AxisError
        If ``axis`` is out of range.
    DeviceMismatchError
        If the tensors are on different devices.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (the VJP
    slices the cotangent back into the inputs' parts; tenferro/autograd/_rules/
    structural.py).

    See Also
    --------
    numpy.concatenate, stack, hstack, vstack

    Examples
    --------
    >>> a, b = tf.asarray([[1, 2]]), tf.asarray([[3, 4]])
    >>> tf.concatenate([a, b])
    tensor([[1, 2],
            [3, 4]])
    >>> tf.concatenate([a, b], axis=1)
    tensor([[1, 2, 3, 4]])
    """
    ts = [t if isinstance(t, Tensor) else to_tensor(t) for t in tensors]
    if not ts:
        raise ValueError("tenferro.concatenate: need at least one tensor to concatenate")
    common_device("concatenate", ts)
    if axis is None:
        ts = [reshape(t, (-1,)) for t in ts]
        axis = 0
    return _join(ts, normalize_axis("concatenate", axis, _ndim(ts)), dtype, casting)


def _ndim(ts):
    nd = ts[0].ndim
    if nd == 0:
        raise ValueError("tenferro.concatenate: zero-dimensional tensors cannot be concatenated")
    return nd


def _join(ts, a, dtype, casting="same_kind", op="concatenate"):
    """``concatenate`` of the tensors ``ts`` (one device, at least 1-D) along the
    normalized axis ``a``, cast to ``dtype`` (if given) under the rule ``casting``: one
    primitive bind after the checks, Python's least per input (the per-call cost of
    small joins is all here)."""
    shape0, dt0 = ts[0].shape, ts[0].dtype
    same = True
    for i, t in enumerate(ts):
        s = t.shape
        if s != shape0:
            if len(s) != len(shape0):
                raise ValueError("tenferro.concatenate: all tensors must have the same number "
                                 "of dimensions; tensor 0 has %d and tensor %d has %d"
                                 % (len(shape0), i, len(s)))
            if s[:a] != shape0[:a] or s[a + 1:] != shape0[a + 1:]:
                raise ValueError("tenferro.concatenate: sizes must match except along axis "
                                 "%d; tensor 0 has shape %s and tensor %d has shape %s"
                                 % (a, shape0, i, s))
        if same and t.dtype != dt0:
            same = False
    if dtype is not None:
        dt = check_casting(op, ts, dtype, casting)
    else:
        dt = dt0 if same else _dtypes.result_type(*ts)
    if not same or dt != dt0:
        ts = [t if t.dtype == dt else t.astype(dt) for t in ts]
    if len(ts) == 1:
        return ts[0].copy()
    return bind(concatenate_p, tuple(ts), {"axis": a})


def check_casting(op, ts, dtype, casting):
    """``dtype`` as a dtype, once every tensor of ``ts`` may be cast to it under the rule
    ``casting`` (NumPy's joins' ``dtype=``/``casting=``); TypeError naming ``op``."""
    dt = _dtypes.dtype(dtype)
    for t in ts:
        if t.dtype != dt and not _dtypes.can_cast(t.dtype, dt, casting):
            raise TypeError("tenferro.%s: cannot cast %s to %s according to the rule %r"
                            % (op, t.dtype, dt, casting))
    return dt


def _view(t, shape):
    """``t`` reshaped to ``shape`` (same size, computed by the caller): the reshape
    primitive without ``reshape``'s argument parsing."""
    return bind(reshape_p, (t,), {"shape": shape, "copy": None})


concat = concatenate


def stack(tensors: Sequence[ArrayLike], axis: SupportsIndex = 0, *, dtype: DTypeLike = None,
          casting: str = "same_kind") -> Tensor:
    """Join tensors of one shape along a new axis (``numpy.stack``).

    The result has one more dimension than the inputs; ``axis`` is its position in the
    result.  Dtypes are promoted (or cast to ``dtype``) as in :func:`concatenate`.

    Parameters
    ----------
    tensors : sequence of Tensor or array_like
        The tensors, all of one shape and on one device.
    axis : int, default 0
        The position of the new axis in the result.
    dtype : dtype or str, optional
        The result's dtype (keyword-only); the promoted dtype if None.
    casting : {"no", "equiv", "safe", "same_kind", "unsafe"}, default "same_kind"
        The rule the casts to ``dtype`` must obey (keyword-only).

    Returns
    -------
    Tensor
        Shape ``shape[:axis] + (len(tensors),) + shape[axis:]``.

    Raises
    ------
    ValueError
        If ``tensors`` is empty or the shapes differ.
    TypeError
        If a cast to ``dtype`` breaks the ``casting`` rule.
    AxisError
        If ``axis`` is out of range.
    DeviceMismatchError
        If the tensors are on different devices.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (one
    ``concatenate`` and a reshape).

    See Also
    --------
    numpy.stack, concatenate, vstack

    Examples
    --------
    >>> tf.stack([tf.asarray([1, 2]), tf.asarray([3, 4])], axis=1)
    tensor([[1, 3],
            [2, 4]])
    """
    ts = [t if isinstance(t, Tensor) else to_tensor(t) for t in tensors]
    if not ts:
        raise ValueError("tenferro.stack: need at least one tensor to stack")
    shape = ts[0].shape
    for i, t in enumerate(ts):
        if t.shape != shape:
            raise ValueError("tenferro.stack: all tensors must have the same shape; tensor 0 has "
                             "shape %s and tensor %d has shape %s" % (shape, i, t.shape))
    common_device("stack", ts)
    nd = len(shape)
    a = normalize_axis("stack", axis, nd + 1)
    out_shape = shape[:a] + (len(ts),) + shape[a:]
    if a == nd:
        return _join([_view(t, shape + (1,)) for t in ts], a, dtype, casting, "stack")
    return _view(_join(ts, a, dtype, casting, "stack"), out_shape)


def _pad_widths(op, pad_width, ndim):
    import numpy as np

    try:
        w = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (ndim, 2))
    except ValueError:
        raise ValueError("tenferro.%s: pad_width %r cannot be broadcast to (%d, 2)"
                         % (op, pad_width, ndim)) from None
    if (w < 0).any():
        raise ValueError("tenferro.%s: pad widths must be non-negative, got %r" % (op, pad_width))
    return [(int(a), int(b)) for a, b in w]


def pad(x: ArrayLike, pad_width: Any, mode: str = "constant",
        constant_values: Any = 0) -> Tensor:
    """Pad a tensor (``numpy.pad``) with the modes ``constant``, ``edge``, ``reflect``,
    ``symmetric`` and ``wrap``.

    ``reflect`` mirrors without repeating the edge (``[3, 2 | 1, 2, 3]``),
    ``symmetric`` with it (``[2, 1 | 1, 2, 3]``), ``wrap`` repeats the other end;
    widths larger than the axis are padded repeatedly, as NumPy's.  NumPy's statistical
    modes (``mean``, ``median``, ...), ``linear_ramp`` and ``empty`` are not
    supported, nor ``reflect_type``.

    Parameters
    ----------
    x : Tensor or array_like
        The tensor to pad.
    pad_width : int, (before, after) or sequence of (before, after)
        The widths per axis, broadcast to ``(x.ndim, 2)`` as NumPy does.
    mode : str, default "constant"
        One of ``"constant"``, ``"edge"``, ``"reflect"``, ``"symmetric"``, ``"wrap"``.
    constant_values : scalar, default 0
        The value of the padding for ``mode="constant"`` (one value for all sides).

    Returns
    -------
    Tensor
        A new tensor, each axis longer by its two widths.

    Raises
    ------
    ValueError
        If a width is negative, ``pad_width`` does not broadcast to ``(x.ndim, 2)``,
        ``mode`` is not supported, or a non-constant mode extends an empty axis.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order in ``x``
    (slices, flips and ``concatenate``).

    See Also
    --------
    numpy.pad, concatenate

    Examples
    --------
    >>> tf.pad(tf.asarray([1, 2, 3]), (2, 1))
    tensor([0, 0, 1, 2, 3, 0])
    >>> tf.pad(tf.asarray([1, 2, 3]), 2, mode="reflect")
    tensor([3, 2, 1, 2, 3, 2, 1])
    """
    from .creation import full

    x = to_tensor(x)
    widths = _pad_widths("pad", pad_width, x.ndim)
    modes = ("constant", "edge", "reflect", "symmetric", "wrap")
    if mode not in modes:
        raise ValueError("tenferro.pad: mode %r is not supported; expected one of %s"
                         % (mode, ", ".join(modes)))
    for axis, (before, after) in enumerate(widths):
        if before == 0 and after == 0:
            continue
        n = x.shape[axis]
        if mode != "constant" and n == 0:
            raise ValueError("tenferro.pad: can't extend empty axis %d using mode %r"
                             % (axis, mode))
        parts = []
        for side, w in (("before", before), ("after", after)):
            if w == 0:
                parts.append(None)
                continue
            if mode == "constant":
                s = list(x.shape)
                s[axis] = w
                parts.append(full(tuple(s), constant_values, dtype=x.dtype, device=x.device))
            else:
                parts.append(_pad_block(x, axis, w, side, mode))
        seq = [p for p in (parts[0], x, parts[1]) if p is not None]
        x = concatenate(seq, axis=axis)
    return x


def _slice_axis(x, axis, start, stop):
    key = [slice(None)] * x.ndim
    key[axis] = slice(start, stop)
    return x[tuple(key)]


def _pad_block(x, axis, w, side, mode):
    """The ``w`` elements added on ``side`` of ``axis`` for a non-constant pad mode."""
    n = x.shape[axis]
    if mode == "edge":
        edge = _slice_axis(x, axis, 0, 1) if side == "before" else _slice_axis(x, axis, n - 1, n)
        s = list(x.shape)
        s[axis] = w
        from .shape import broadcast_to

        return broadcast_to(edge, tuple(s)).copy()
    blocks = []
    remaining = w
    # Build outward from the edge, period by period (numpy pads large widths repeatedly).
    cur = x
    while remaining > 0:
        m = cur.shape[axis]
        if mode == "wrap":
            take_n = min(remaining, m)
            blk = (_slice_axis(cur, axis, m - take_n, m) if side == "before"
                   else _slice_axis(cur, axis, 0, take_n))
        else:
            src_len = m - 1 if mode == "reflect" else m
            if src_len == 0:
                s = list(cur.shape)
                s[axis] = remaining
                from .shape import broadcast_to

                blk = broadcast_to(cur, tuple(s)).copy()
                take_n = remaining
            else:
                take_n = min(remaining, src_len)
                off = 1 if mode == "reflect" else 0
                if side == "before":
                    blk = flip(_slice_axis(cur, axis, off, off + take_n), axis)
                else:
                    blk = flip(_slice_axis(cur, axis, m - off - take_n, m - off), axis)
        blocks.append(blk)
        remaining -= take_n
        if remaining > 0:
            cur = concatenate([blk, cur] if side == "before" else [cur, blk], axis=axis) \
                if mode != "wrap" else cur
    if side == "before":
        blocks = blocks[::-1]
    return blocks[0] if len(blocks) == 1 else concatenate(blocks, axis=axis)
