"""The batching interpreter behind :func:`tenferro.vmap`: a trace whose tracers carry a
whole batch of values, and the registry of batching rules.

A :class:`BatchTracer` stands for one example (its ``shape`` is the per-example shape)
while it holds the whole batch in ``val``, batch axis first.  ``bind`` hands every
primitive applied to one to its :class:`BatchTrace`, which calls the primitive's
batching rule on the batches: the rule computes the batched result with primitives
one level down (on the device, or for the transforms and traces below), batch axis
first.  A primitive without a rule raises naming it, unless it is declared loop-only
or the ``vmap`` call opted into ``fallback="loop"``: then it is applied once per
example and the results stacked.

A batching rule is ``fn(args, batched, params, size) -> out``: ``args`` the
primitive's inputs, those with ``batched[i]`` true carrying the batch as their axis 0
(the others are the same for every example), ``params`` its parameters, ``size`` the
batch size; ``out`` is the batched output (a tuple for multiple-result primitives),
batch axis 0 in every output.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from .._errors import ConcretizationError
from .._ir import AbstractArray, is_abstract
from .._ops import broadcast_to, reshape, stack, zeros
from .._primitive import Primitive, Trace, Tracer, bind, concrete_values
from .._tensor import Tensor
from .._tree import tree_map

__all__ = ["BatchTrace", "BatchTracer", "BatchRule", "rules", "loop_only", "def_batch_rule",
           "def_batch_loop", "batch_elementwise", "materialize", "align"]

#: ``fn(args, batched, params, size) -> out`` (a tuple for multiple results)
BatchRule = Callable[[Sequence[Any], Sequence[bool], dict, int], Any]

#: primitive -> batching rule ``fn(args, batched, params, size)``
rules = {}
#: primitives declared to be batched by a loop over the examples (no rule can exist)
loop_only = set()


def def_batch_rule(prim: Primitive, fn: BatchRule) -> BatchRule:
    """Register ``prim``'s batching rule, used by :func:`tenferro.vmap`.

    As JAX's ``jax.interpreters.batching.primitive_batchers``.
    ``fn(args, batched, params, size)`` returns the batched output (a tuple for
    multiple results), batch as axis 0 of every output: ``args[i]`` carries the batch
    as its axis 0 where ``batched[i]`` is true and is the same for every example
    otherwise; ``size`` is the batch size.  A primitive with no rule raises under
    ``vmap`` (or is looped over with ``fallback="loop"``).

    Parameters
    ----------
    prim : Primitive
        The primitive.
    fn : callable
        The rule.

    Returns
    -------
    callable
        ``fn``.

    See Also
    --------
    batch_elementwise, def_batch_loop

    Examples
    --------
    >>> from tenferro.autograd import extend
    >>> p = extend.Primitive("scale_demo", lambda x, *, k: x)
    >>> _ = extend.def_impl(p, "cpu", lambda x, *, k: x * k)
    >>> _ = extend.def_batch_rule(p, lambda args, batched, params, size:
    ...                           p.bind(args[0], **params))   # elementwise: as is
    >>> tf.vmap(lambda v: p.bind(v, k=2.0))(tf.ones((2, 3)))
    tensor([[2., 2., 2.],
            [2., 2., 2.]])
    >>> del extend.registry['scale_demo']   # (unregister this example's primitive)
    """
    rules[prim] = fn
    return fn


def def_batch_loop(prim: Primitive) -> None:
    """Declare ``prim`` loop-only under :func:`tenferro.vmap`.

    It is then applied once per example and the results stacked (for primitives whose
    output shape depends on the values, or that have no batched kernel).  Any batching
    rule registered before is dropped.

    Parameters
    ----------
    prim : Primitive
        The primitive.

    Returns
    -------
    None

    See Also
    --------
    def_batch_rule

    Examples
    --------
    >>> from tenferro.autograd import extend
    >>> p = extend.Primitive("round_demo", lambda x: x, differentiable=False,
    ...                      nondiff_reason="piecewise constant")
    >>> _ = extend.def_impl(p, "cpu", np.round)
    >>> extend.def_batch_loop(p)
    >>> tf.vmap(p.bind)(tf.asarray([[0.4, 1.6], [2.2, 3.7]]))
    tensor([[0., 2.],
            [2., 4.]])
    >>> del extend.registry['round_demo']   # (unregister this example's primitive)
    """
    loop_only.add(prim)
    rules.pop(prim, None)


class BatchTracer(Tracer):
    """One example of a batch being mapped by :func:`tenferro.vmap`: a Tensor with the
    per-example shape and dtype and no data of its own (like a value being traced into
    a graph, so ops take their traced paths); ``val`` holds the batch, axis 0 first."""
    __slots__ = ("val",)

    def __init__(self, trace, val):
        self._trace = trace
        self.primal = None
        self.val = val
        self._data = AbstractArray(val.shape[1:], val.dtype)
        self._device = val._device
        self._ad = None

    def concrete_values(self):
        """The whole batch (the examples' values, batch axis first; nested ``vmap``s:
        every level's batch axes first), or None under ``jit`` tracing of it."""
        return concrete_values(self.val)

    def _host(self, what):
        v = _underlying(self.val)
        if is_abstract(v):   # vmap inside jit: no values yet, jit's error
            v._host(what)
        raise ConcretizationError(
            "tenferro.vmap: %s needs the value of a batched tensor (per-example shape %s, "
            "dtype %s), which stands for a whole batch of values; data-dependent Python "
            "control flow and host reads cannot be batched (compute with tensor ops, e.g. "
            "tenferro.where, or loop in Python)" % (what, self.shape, self.dtype))

    def __repr__(self):
        return "BatchTracer(level=%d, shape=%s, dtype=%s, batch=%d)" % (
            self._trace.level, self.shape, self.dtype, self.val.shape[0])


def _underlying(t):
    """The value under the tracers of every transform around ``t``: data, or a graph
    tracer's abstract value (under ``jit``)."""
    while isinstance(t, Tracer):
        inner = t.val if isinstance(t, BatchTracer) else t.primal
        if inner is None:
            return t
        t = inner
    return t


class BatchTrace(Trace):
    """One ``vmap`` level: batch ``size`` and its fallback policy (None or "loop")."""
    __slots__ = ("size", "fallback")

    def __init__(self, size, fallback=None):
        Trace.__init__(self, "vmap")
        self.size = size
        self.fallback = fallback

    def process(self, prim, args, params):
        vals, batched = [], []
        for a in args:
            mine = a._trace is self
            vals.append(a.val if mine else a)
            batched.append(mine)
        rule = rules.get(prim)
        if rule is None:
            if prim not in loop_only and self.fallback != "loop":
                raise NotImplementedError(
                    "tenferro.vmap: the primitive %r has no batching rule; register one with "
                    "tenferro.autograd.extend.def_batch_rule, or pass fallback='loop' to vmap "
                    "to apply it once per example" % prim.name)
            rule = loop_rule(prim)
        out = rule(vals, tuple(batched), params, self.size)
        if prim.multiple_results:
            return tuple(self.wrap(prim, o) for o in out)
        return self.wrap(prim, out)

    def wrap(self, prim, out):
        if out.ndim == 0 or out.shape[0] != self.size:
            raise RuntimeError("tenferro.vmap: the batching rule of %s returned shape %s; "
                               "expected the batch (size %d) as axis 0"
                               % (prim.name, out.shape, self.size))
        return BatchTracer(self, out)

    def process_jit(self, jitted, args):
        """``jitted(*args)`` as one compiled program over the batch, ``jit(vmap(f))``
        (cached on ``jitted`` per batching pattern and size); NotImplemented (the call
        then runs node by node) unless every argument is a tensor."""
        from ._api import vmap

        if not all(isinstance(a, Tensor) for a in args):
            return NotImplemented
        axes = tuple(0 if a._trace is self else None for a in args)
        cache = jitted.__dict__.setdefault("_vmapped", {})
        key = (axes, self.size, self.fallback)
        fn = cache.get(key)
        if fn is None:
            if len(cache) >= jitted.maxsize:
                cache.clear()
            fn = cache[key] = type(jitted)(
                vmap(jitted.f, in_axes=axes, axis_size=self.size, fallback=self.fallback),
                jitted.maxsize, jitted.passes, jitted.reuse)
        out = fn(*[a.val if a._trace is self else a for a in args])
        return tree_map(lambda o: BatchTracer(self, o), out)

    def detach(self, t):
        """``t`` with the derivatives of the batch it holds cut (autograd's detach)."""
        from ..autograd._engine import detach
        return BatchTracer(self, detach(t.val))


# -- helpers for rules ------------------------------------------------------------------

def materialize(x: Tensor, batched: bool, size: int) -> Tensor:
    """``x`` with a batch axis 0: itself when ``batched``, else broadcast (a view)."""
    return x if batched else broadcast_to(x, (size,) + tuple(x.shape))


def align(x, rank):
    """A batched ``x`` (batch axis 0) with size-1 axes inserted after the batch axis, so
    that its example has ``rank`` axes (NumPy broadcasting then lines examples up)."""
    k = rank - (x.ndim - 1)
    return x if k <= 0 else reshape(x, x.shape[:1] + (1,) * k + x.shape[1:])


def batch_elementwise(prim: Primitive) -> BatchRule:
    """Register the batching rule of a NumPy-broadcasting elementwise primitive.

    Batched inputs get size-1 axes after their batch axis so that they broadcast
    against the unbatched ones; the parameters are unchanged.

    Parameters
    ----------
    prim : Primitive
        A primitive that broadcasts its inputs NumPy-style and applies elementwise.

    Returns
    -------
    callable
        The rule registered.

    See Also
    --------
    def_batch_rule

    Examples
    --------
    >>> from tenferro.autograd import extend
    >>> p = extend.Primitive("softplus_demo", lambda x: x)
    >>> _ = extend.def_impl(p, "cpu", lambda x: np.logaddexp(0.0, x))
    >>> _ = extend.batch_elementwise(p)
    >>> tf.vmap(p.bind)(tf.zeros((2, 1)))
    tensor([[0.69314718],
            [0.69314718]])
    >>> del extend.registry['softplus_demo']   # (unregister this example's primitive)
    """
    def rule(args, batched, params, size):
        rank = max(a.ndim - b for a, b in zip(args, batched))
        return bind(prim, tuple(align(a, rank) if b else a for a, b in zip(args, batched)),
                    params)
    return def_batch_rule(prim, rule)


def loop_rule(prim):
    """The rule applying ``prim`` once per example and stacking the results."""
    def rule(args, batched, params, size):
        if size == 0:   # no example to run: the shapes from the shape rule
            avals = prim.abstract_eval(*[(a.shape[1:] if b else a.shape, a.dtype)
                                         for a, b in zip(args, batched)], **params)
            outs = avals if prim.multiple_results else (avals,)
            res = tuple(zeros((0,) + tuple(s), dtype=d, device=args[0].device)
                        for s, d in outs)
            return res if prim.multiple_results else res[0]
        per = [bind(prim, tuple(a[i] if b else a for a, b in zip(args, batched)), params)
               for i in range(size)]
        if not prim.multiple_results:
            return stack(per, axis=0)
        return tuple(stack(list(o), axis=0) for o in zip(*per))
    return rule
