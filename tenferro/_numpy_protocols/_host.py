"""The explicit NumPy fallback: tensors converted to host arrays, NumPy's own
implementation called, its arrays converted back to CPU tensors.

Taken only for a NumPy function or ufunc (or a call of one: an argument tenferro's
twin does not take) that tenferro does not implement.  The conversion refuses what would
be lost silently: a tensor that requires grad or is being differentiated or traced (the
gradient would be cut) and a tensor on another device (no implicit transfer).
"""
import numpy as np

from .._ops import asarray
from .._tensor import Tensor

# result kinds converted back to tensors (strings, objects, datetimes stay NumPy's)
_NUMERIC = frozenset("biufc")


def _refuse(what, t, reason, problem, fix):
    raise TypeError(
        "%s: %s; tenferro would have to compute it with NumPy on host data, but an argument "
        "(shape %s, dtype %s) %s. Pass %s to compute it with NumPy explicitly"
        % (what, reason, t.shape, t.dtype, problem, fix))


def host_value(t, what, reason):
    """The tensor ``t``'s values as its host ndarray (a CPU tensor's own memory), or a
    TypeError naming ``what`` where converting would cut a gradient or move data."""
    if t._trace is not None:   # a tracer: reading it raises ConcretizationError
        return t._host("%s (%s, computed by NumPy)" % (what, reason))
    m = t._ad
    if m is not None and (m.requires_grad or m.grad_fn is not None):
        _refuse(what, t, reason, "requires grad, and the result would not be differentiable "
                "(a silent cut of the gradient)", "t.detach()")
    if t._device.type != "cpu":
        _refuse(what, t, reason, "is on %r, and tenferro moves no data between devices "
                "implicitly" % str(t._device), "t.to('cpu')")
    return t._data


def to_host(tree, what, reason, seen):
    """``tree`` with every Tensor (inside lists, tuples and dicts too) replaced by its
    host ndarray; ``seen`` maps id(ndarray) to the tensor it came from (the caller's own
    ndarrays to themselves: an ndarray ``out=`` comes back as it is)."""
    if isinstance(tree, Tensor):
        a = host_value(tree, what, reason)
        seen[id(a)] = tree
        return a
    if isinstance(tree, np.ndarray):
        seen[id(tree)] = tree
        return tree
    if type(tree) in (list, tuple):
        return type(tree)(to_host(x, what, reason, seen) for x in tree)
    if type(tree) is dict:
        return {k: to_host(v, what, reason, seen) for k, v in tree.items()}
    return tree


def from_host(tree, seen):
    """NumPy's result with its numeric arrays and scalars as CPU tensors: an array that
    is an argument's (an ``out=``, an input returned as it is) is that argument again;
    the other arrays are wrapped without a copy where tenferro has their dtype."""
    if isinstance(tree, (np.ndarray, np.generic)):
        t = seen.get(id(tree))
        if t is not None:
            return t
        if type(tree) is np.ndarray or isinstance(tree, np.generic):
            if tree.dtype.kind in _NUMERIC:
                return asarray(tree)
        return tree
    if isinstance(tree, tuple):
        items = [from_host(x, seen) for x in tree]
        return type(tree)(*items) if hasattr(tree, "_fields") else tuple(items)
    if type(tree) is list:
        return [from_host(x, seen) for x in tree]
    return tree


def call_numpy(fn, what, reason, args, kwargs):
    """``fn(*args, **kwargs)`` computed by NumPy on the tensors' host data; the result
    converted back (see :func:`from_host`)."""
    seen = {}
    args = to_host(args, what, reason, seen)
    kwargs = to_host(kwargs, what, reason, seen)
    return from_host(fn(*args, **kwargs), seen)
