"""Helpers shared by the rules (all written with tenferro ops, so they differentiate)."""
from ... import _ops
from ..._primitive import bind
from ..._ops.shape import broadcast_to_p, reshape_p


def unbroadcast(g, shape):
    """Sum ``g`` down to ``shape`` (the adjoint of broadcasting ``shape`` to ``g.shape``)."""
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, n in enumerate(shape)
                                      if n == 1 and g.shape[i + lead] != 1)
    if axes:
        g = _ops.sum(g, axis=axes, keepdims=True)
    return _ops.reshape(g, shape)


def unbroadcast_to(g, x):
    """``g`` summed to ``x``'s shape and cast to ``x``'s dtype (real part for a real
    ``x`` receiving a complex cotangent: the real inner product convention)."""
    if g._data.dtype == x._data.dtype and g._data.shape == x._data.shape:
        return g
    if g.dtype != x.dtype:
        if g.dtype.kind == "c" and x.dtype.kind != "c":
            g = _ops.real(g)
        if g.dtype != x.dtype:
            g = _ops.astype(g, x.dtype)
    return unbroadcast(g, x.shape)


def expand_to(g, shape, axes):
    """Broadcast a reduction result ``g`` (``axes`` removed) back to ``shape``."""
    kept = tuple(1 if i in axes else n for i, n in enumerate(shape))
    if g._data.shape != kept:  # (primitives bound directly: the shapes are known valid)
        g = bind(reshape_p, (g,), {"shape": kept, "copy": None})
    if kept != shape:
        g = bind(broadcast_to_p, (g,), {"shape": shape})
    return g


def conj(x):
    """Complex conjugate; the tensor itself for real dtypes (no copy, no node)."""
    return _ops.conj(x) if x.dtype.kind == "c" else x
