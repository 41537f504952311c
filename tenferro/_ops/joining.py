"""Joining and padding: concatenate, stack, pad (all modes built from slices)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import _dtypes
from .._primitive import Primitive, bind
from ._common import common_device, normalize_axis, to_tensor
from .shape import expand_dims, flip, reshape

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import SupportsIndex

    from .._tensor import ArrayLike, DTypeLike, Tensor


def _concat_aval(*xs, axis):
    s = list(xs[0][0])
    s[axis] = sum(x[0][axis] for x in xs)
    return (tuple(s), xs[0][1])


concatenate_p = Primitive("concatenate", _concat_aval, doc="Join along an existing axis.")


def concatenate(tensors: Sequence[ArrayLike], axis: SupportsIndex | None = 0,
                dtype: DTypeLike = None) -> Tensor:
    """Join tensors along an existing ``axis`` (``axis=None`` flattens them first)."""
    ts = [to_tensor(t) for t in tensors]
    if not ts:
        raise ValueError("tenferro.concatenate: need at least one tensor to concatenate")
    common_device("concatenate", ts)
    if axis is None:
        ts = [reshape(t, (-1,)) for t in ts]
        axis = 0
    nd = ts[0].ndim
    if nd == 0:
        raise ValueError("tenferro.concatenate: zero-dimensional tensors cannot be concatenated")
    a = normalize_axis("concatenate", axis, nd)
    for i, t in enumerate(ts):
        if t.ndim != nd:
            raise ValueError("tenferro.concatenate: all tensors must have the same number of "
                             "dimensions; tensor 0 has %d and tensor %d has %d" % (nd, i, t.ndim))
        for d in range(nd):
            if d != a and t.shape[d] != ts[0].shape[d]:
                raise ValueError("tenferro.concatenate: sizes must match except along axis %d; "
                                 "tensor 0 has shape %s and tensor %d has shape %s"
                                 % (a, ts[0].shape, i, t.shape))
    dt = _dtypes.dtype(dtype) if dtype is not None else _dtypes.result_type(*ts)
    ts = [t if t.dtype == dt else t.astype(dt) for t in ts]
    if len(ts) == 1:
        return ts[0].copy()
    return bind(concatenate_p, tuple(ts), {"axis": a})


concat = concatenate


def stack(tensors: Sequence[ArrayLike], axis: SupportsIndex = 0) -> Tensor:
    """Join tensors of one shape along a new ``axis``."""
    ts = [to_tensor(t) for t in tensors]
    if not ts:
        raise ValueError("tenferro.stack: need at least one tensor to stack")
    for i, t in enumerate(ts):
        if t.shape != ts[0].shape:
            raise ValueError("tenferro.stack: all tensors must have the same shape; tensor 0 has "
                             "shape %s and tensor %d has shape %s" % (ts[0].shape, i, t.shape))
    a = normalize_axis("stack", axis, ts[0].ndim + 1)
    return concatenate([expand_dims(t, a) for t in ts], axis=a)


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
    """numpy.pad for modes constant, edge, reflect, symmetric and wrap (differentiable)."""
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
