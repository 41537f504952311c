"""``vmap``: JAX's ``jax.vmap`` over tenferro's batching interpreter.

The arguments are matched against ``in_axes`` (a pytree prefix), the mapped axes moved
to the front and wrapped in :class:`~._core.BatchTracer` values of a new
:class:`~._core.BatchTrace`; ``f`` runs once, on the tracers, and every primitive it
applies is batched by its rule.  The outputs' batch axes are then moved to ``out_axes``.
"""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

import numpy as np

from .._ops import asarray, broadcast_to, expand_dims, moveaxis
from .._tensor import Tensor
from .._tree import tree_flatten, tree_unflatten
from ._core import BatchTrace, BatchTracer

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import ParamSpec, TypeVar

    P = ParamSpec("P")
    R = TypeVar("R")

__all__ = ["vmap"]

_FALLBACKS = (None, "loop")


def _axis_spec(what, a):
    if a is None:
        return None
    try:
        if isinstance(a, bool):
            raise TypeError
        return operator.index(a)
    except TypeError:
        raise TypeError("tenferro.vmap: %s must be an int, None, or a (nested) tuple, list "
                        "or dict of them, got %r" % (what, a)) from None


def _prefix_axes(what, spec, tree, path, out):
    """Append to ``out`` (path, axis) for each leaf of ``tree``, reading the axis from the
    pytree prefix ``spec`` (an int or None applies to the whole subtree)."""
    if spec is None or isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
        for leaf_path in _leaf_paths(tree, path):
            out.append((leaf_path, _axis_spec(what, spec)))
        return
    kind = type(tree)
    if isinstance(spec, dict) and isinstance(tree, dict):
        if set(spec) != set(tree):
            raise ValueError("tenferro.vmap: %s for %s has keys %s but the value has keys %s"
                             % (what, path, sorted(spec, key=repr), sorted(tree, key=repr)))
        for k in sorted(tree):
            _prefix_axes(what, spec[k], tree[k], "%s[%r]" % (path, k), out)
        return
    if isinstance(spec, (tuple, list)) and isinstance(tree, (tuple, list)) \
            and len(spec) == len(tree) and (type(spec) is kind or isinstance(spec, tuple)):
        for i, (s, t) in enumerate(zip(spec, tree)):
            _prefix_axes(what, s, t, "%s[%d]" % (path, i), out)
        return
    raise ValueError("tenferro.vmap: %s must be a tree prefix of the value it maps: got %r "
                     "for %s, a %s" % (what, spec, path, _describe(tree)))


def _describe(tree):
    if isinstance(tree, (tuple, list)):
        return "%s of length %d" % (type(tree).__name__, len(tree))
    if isinstance(tree, dict):
        return "dict with keys %s" % sorted(tree, key=repr)
    return type(tree).__name__


def _leaf_paths(tree, path):
    """The paths of ``tree``'s leaves, in tree_flatten's order."""
    if type(tree) is dict:
        for k in sorted(tree):
            yield from _leaf_paths(tree[k], "%s[%r]" % (path, k))
    elif isinstance(tree, (tuple, list)):
        for i, v in enumerate(tree):
            yield from _leaf_paths(v, "%s[%d]" % (path, i))
    elif tree is not None:
        yield path


def _normalize(what, path, axis, x, rank):
    if not -rank <= axis < rank:
        raise ValueError(
            "tenferro.vmap: %s %d for %s (shape %s) is out of range: mapping along axis %d "
            "needs a value of rank at least %d" % (what, axis, path, tuple(x.shape), axis,
                                                   (axis if axis >= 0 else -axis - 1) + 1))
    return axis % rank


def _inputs(in_axes, args, kwargs):
    """(flat leaves, their tree, per-leaf (path, axis)); keyword arguments map axis 0."""
    if isinstance(in_axes, list):   # as JAX: a list at the top is the positional tuple
        in_axes = tuple(in_axes)
    if isinstance(in_axes, tuple) and len(in_axes) != len(args):
        raise ValueError("tenferro.vmap: in_axes is a tuple of length %d but the function "
                         "was called with %d positional arguments" % (len(in_axes), len(args)))
    axes = []
    _prefix_axes("in_axes", in_axes, tuple(args), "args", axes)
    _prefix_axes("in_axes", 0, kwargs, "kwargs", axes)
    flat, tree = tree_flatten((tuple(args), kwargs))
    return flat, tree, axes


def _batch_size(flat, axes, axis_size):
    sizes, mapped = [], []
    for i, (x, (path, ax)) in enumerate(zip(flat, axes)):
        if ax is None:
            continue
        if not isinstance(x, Tensor):
            if not isinstance(x, (np.ndarray, np.generic, int, float, complex)):
                raise TypeError("tenferro.vmap: %s of type %s cannot be mapped (in_axes %d); "
                                "map tensors or arrays, or give it in_axes None"
                                % (path, type(x).__name__, ax))
            x = flat[i] = asarray(x)
        ax = _normalize("in_axes", path, ax, x, x.ndim)
        mapped.append((i, ax))
        sizes.append((path, tuple(x.shape), ax, x.shape[ax]))
    if not sizes:
        if axis_size is None:
            raise ValueError("tenferro.vmap: no argument is mapped (every in_axes is None); "
                             "give axis_size to set the batch size")
        return operator.index(axis_size), mapped
    n = sizes[0][3] if axis_size is None else operator.index(axis_size)
    if any(s[3] != n for s in sizes):
        lines = ["  * %s (shape %s) has size %d along axis %d" % (p, sh, s, a)
                 for p, sh, a, s in sizes]
        raise ValueError("tenferro.vmap: inconsistent sizes for the mapped axes%s:\n%s"
                         % ("" if axis_size is None else " (axis_size=%d)" % n,
                            "\n".join(lines)))
    return n, mapped


def _output(path, o, ax, trace, size):
    """An output leaf with its batch axis at ``ax`` (None: the output is not batched)."""
    if isinstance(o, BatchTracer) and o._trace is trace:
        v = o.val
        if ax is None:
            raise ValueError("tenferro.vmap: out_axes is None for %s, but it depends "
                             "on the mapped inputs (it has a batch axis)" % path)
        ax = _normalize("out_axes", path, ax, v, v.ndim)
        return v if ax == 0 else moveaxis(v, 0, ax)
    if ax is None:
        return o
    if not isinstance(o, Tensor):
        o = asarray(o)
    ax = _normalize("out_axes", path, ax, o, o.ndim + 1)
    return broadcast_to(expand_dims(o, ax), o.shape[:ax] + (size,) + o.shape[ax:])


def vmap(f: Callable[P, R], in_axes: Any = 0, out_axes: Any = 0,
         axis_size: int | None = None, *, fallback: str | None = None) -> Callable[P, R]:
    """``f`` mapped over an axis of its arguments (``jax.vmap``, ``torch.vmap``).

    ``vmap(f)(xs)`` is ``stack([f(x) for x in xs])``, computed as one batched call of
    each primitive (its batching rule).  Nestable, and composes with ``grad``,
    ``jvp``, ``vjp``, ``jit`` and ``checkpoint`` in any order (docs/vmap.md).

    Parameters
    ----------
    f : callable
        A function of tensors (pytrees of them) written for one example.
    in_axes : int or None or tuple, default 0
        For each positional argument, the axis mapped (negative counted from the end)
        or None (the argument is the same for every example); an int or None applies to
        all arguments, a tuple gives one entry per positional argument, and each entry
        may be a pytree prefix (tuples, lists, dicts) of its argument.  Keyword
        arguments are mapped along axis 0.
    out_axes : int or None or pytree, default 0
        Where the batch axis goes in each output, likewise a pytree prefix of the output
        (None: the output must not depend on the mapped inputs).
    axis_size : int, optional
        The batch size, needed when every ``in_axes`` is None.
    fallback : {None, "loop"}, default None
        ``"loop"``: primitives without a batching rule are applied once per example
        instead of raising.

    Returns
    -------
    callable
        The batched function, with ``f``'s arguments (with the batch axes added).

    Raises
    ------
    TypeError
        If ``f`` is not callable, or ``in_axes``/``out_axes`` are malformed.
    ValueError
        If ``fallback`` is not None or ``"loop"``; when called, if the mapped axes have
        different sizes or an axis is out of range.

    See Also
    --------
    jacfwd, jit

    Notes
    -----
    Differentiable: yes: ``vmap`` composes with ``grad``, ``jvp``, ``vjp`` and
    ``jacfwd``/``jacrev`` in any order, to any order of derivatives (the
    batching rules are written in differentiable ops).

    Examples
    --------
    >>> xs = tf.asarray([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> tf.vmap(lambda x: x @ x)(xs)                    # one dot product per row
    tensor([ 5., 25., 61.])
    >>> w = tf.asarray([1.0, -1.0])
    >>> tf.vmap(lambda x, w: (x * w).sum(), in_axes=(0, None))(xs, w)
    tensor([-1., -1., -1.])
    >>> tf.vmap(tf.grad(lambda x: (x ** 2).sum()))(xs)   # per-example gradients
    tensor([[ 2.,  4.],
            [ 6.,  8.],
            [10., 12.]])
    """
    if not callable(f):
        raise TypeError("tenferro.vmap: expected a function, got %s" % type(f).__name__)
    if fallback not in _FALLBACKS:
        raise ValueError("tenferro.vmap: fallback must be None or 'loop', got %r" % (fallback,))
    _check_spec("in_axes", in_axes)
    _check_spec("out_axes", out_axes)

    flat_in = _flat_spec(in_axes)   # the common case: plain tensors, no pytree
    flat_out = out_axes is None or type(out_axes) is int

    def wrapped(*args, **kwargs):
        if flat_in is not None and not kwargs and len(flat_in(args)) == len(args) and \
                all(a.__class__ is Tensor for a in args):
            flat, in_tree = list(args), None
            axes = [("args[%d]" % i, ax) for i, ax in enumerate(flat_in(args))]
        else:
            flat, in_tree, axes = _inputs(in_axes, args, kwargs)
        size, mapped = _batch_size(flat, axes, axis_size)
        with BatchTrace(size, fallback) as trace:
            for i, ax in mapped:
                x = flat[i]
                flat[i] = BatchTracer(trace, x if ax == 0 else moveaxis(x, ax, 0))
            if in_tree is None:
                out = f(*flat)
            else:
                a, kw = tree_unflatten(in_tree, flat)
                out = f(*a, **kw)
        if flat_out and isinstance(out, Tensor):
            return _output("output", out, out_axes, trace, size)
        outs, out_tree = tree_flatten(out)
        spec = out_axes
        if isinstance(out, tuple) and isinstance(spec, list):
            spec = tuple(spec)
        oaxes = []
        _prefix_axes("out_axes", spec, out, "output", oaxes)
        return tree_unflatten(out_tree, [_output(p, o, ax, trace, size)
                                         for o, (p, ax) in zip(outs, oaxes)])
    wrapped.__name__ = "vmap(%s)" % getattr(f, "__name__", "f")
    wrapped.__doc__ = getattr(f, "__doc__", None)
    wrapped.__wrapped__ = f
    return wrapped


def _flat_spec(in_axes):
    """For an in_axes that is an int, None, or a flat tuple/list of them: the function
    giving the axis of each positional argument; else None."""
    if in_axes is None or type(in_axes) is int:
        return lambda args: (in_axes,) * len(args)
    if type(in_axes) in (tuple, list) and all(a is None or type(a) is int for a in in_axes):
        t = tuple(in_axes)
        return lambda args: t
    return None


def _check_spec(what, spec):
    leaves, _ = tree_flatten(spec)
    for a in leaves:
        _axis_spec(what, a)
