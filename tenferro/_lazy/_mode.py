"""Lazy mode: ``with tenferro.lazy():`` records operations instead of running them.

While a thread is in lazy mode, :func:`tenferro._primitive.bind` hands this thread's
:class:`LazyContext` every primitive that no trace owns (``state.lazy``): it checks
the shapes and dtypes (the primitive's ``abstract_eval``: errors name the op, at once),
records a :class:`~._registry.LazyOp` and returns :class:`~._tensor.LazyTensor`
results.  Some applications run eagerly instead: primitives with data-dependent
shapes (no ``abstract_eval``), transfers between devices, views of concrete tensors
(free, and they must share memory), and everything inside a graph trace opened in the
block (``jit``/``make_graph``: its constants stay concrete).

Autodiff: an operation on tensors that take part in eager autodiff is put on the tape
as eagerly (the recorder sees a stand-in whose data is the entry); the tape node's
saved output is the entry until it is realized, then its buffer.  A ``backward()``
inside the block records the derivative rules' operations lazily too.

In-place writes: before any write (``tenferro._versions.before_write``), the pending
operations that read the written buffer are computed, so they see the old values, as
they would have eagerly; a lazy tensor written into is realized first.
"""
from __future__ import annotations

import functools
import weakref
from typing import Any, Callable, TypeVar

from .. import _primitive, _versions
from .._errors import DeviceMismatchError
from .._primitive import eager_apply, state
from .._tensor import _wrap
from . import _registry
from ._registry import (LazyOp, LazyValue, TensorEntry, _pending, live_tensors,
                        slot_get as _get_data, tensor_entry)
from ._realize import cache_clear, cache_info, last_program, reads, realize_entries
from ._tensor import LazyTensor, lazy_tensor, realize_tensor

__all__ = ["lazy", "realize", "tensor_id", "is_lazy", "is_lazy_mode", "LazyContext"]

F = TypeVar("F", bound=Callable[..., Any])
# (primitive, input avals, parameters) -> result avals: abstract evaluation, memoized
_avals = {}


class LazyContext:
    """The lazy mode of one thread (one per outermost ``lazy()`` block).  ``depth``:
    how many interpreters (transforms, tracers) the thread had open when it began."""
    __slots__ = ("depth", "__weakref__")
    kind = "lazy"

    def __init__(self, depth):
        self.depth = depth

    def process(self, prim, args, params):
        if len(state.interpreters) != self.depth and any(
                t.kind == "graph" for t in state.interpreters[self.depth:]):
            return _eager(prim, args, params)   # a jit/make_graph trace inside the block
        if prim.abstract_eval is None or not args or prim.name == "device_put":
            return _eager(prim, args, params)
        dev = args[0]._device
        srcs = []
        avals = []
        pending = False
        for a in args:
            if a._device is not dev:
                raise DeviceMismatchError(prim.name, [x._device for x in args])
            d = _get_data(a)
            if type(d) is TensorEntry:
                if d.buffer is not None:
                    a = _concrete(a, d)
                    d = a._data
                else:
                    v = d.value
                    pending = pending or type(v) is LazyValue
                    srcs.append(v)
                    avals.append((d.shape, d.dtype))
                    continue
            srcs.append(a)
            avals.append((d.shape, d.dtype))
        if not pending and prim.name in dev.driver.view_ops:
            return _eager(prim, args, params)   # a view of a concrete tensor: free
        try:
            key = (prim, tuple(avals), tuple(params.items()))
            out = _avals.get(key)
        except TypeError:   # an unhashable parameter
            key = out = None
        if out is None:
            try:
                out = prim.abstract_eval(*avals, **params)
            except Exception as e:
                e.add_note("tenferro.lazy: recording %s on inputs of shapes %s"
                           % (prim.name, [a.shape for a in args]))
                raise
            out = tuple(out) if prim.multiple_results else (out,)
            if key is not None:
                if len(_avals) > 4096:
                    _avals.clear()
                _avals[key] = out
        op = LazyOp(prim, params, tuple(srcs), dev, out)
        if len(out) == 1 and not prim.multiple_results:
            s, d = out[0]
            outs = (lazy_tensor(TensorEntry(LazyValue(op, 0, s, d), self)),)
        else:
            outs = tuple(lazy_tensor(TensorEntry(LazyValue(op, i, s, d), self))
                         for i, (s, d) in enumerate(out))
        recorder = _primitive.recorder
        if recorder is not None:
            for a in args:
                if a._ad is not None:
                    _tape(recorder, prim, args, params, outs, prim.multiple_results)
                    break
        return outs if prim.multiple_results else outs[0]


def _concrete(a, entry):
    """A realized lazy argument as a concrete tensor (the tensor itself, switched)."""
    if a.__class__ is LazyTensor:
        realize_tensor(a)
        return a
    return _wrap(entry.buffer, a._device)


def _tape(recorder, prim, args, params, outs, many):
    """Put the application on the autodiff tape: the recorder sees stand-ins whose data
    is the entry (reading a lazy tensor's data would compute it); each entry saved by a
    node is told, so that the node gets the buffer when it is written."""
    stand = tuple(_wrap(_get_data(o), o._device) for o in outs)
    recorder(prim, args, params, stand if many else stand[0])
    for o, p in zip(outs, stand):
        m = p._ad
        if m is None:
            continue
        o._ad = m
        node = m.grad_fn
        e = _get_data(o)
        if node is not None and (node.out is e or (type(node.out) is tuple
                                                    and any(x is e for x in node.out))):
            if e.tape is None:
                e.tape = []
            e.tape.append(weakref.ref(node))


def _eager(prim, args, params):
    """``bind``'s eager half: lazy arguments are computed (a lazy tensor as its data is
    read; a tape's stand-in here)."""
    if any(type(_get_data(a)) is TensorEntry for a in args):
        args = tuple(_stand_in_data(a) for a in args)
    out = eager_apply(prim, args, params)
    recorder = _primitive.recorder
    if recorder is not None and any(a._ad is not None for a in args):
        return recorder(prim, args, params, out)
    return out


def _stand_in_data(a):
    e = _get_data(a)
    if type(e) is not TensorEntry or a.__class__ is LazyTensor:
        return a
    realize_entries([e])
    return _wrap(e.buffer, a._device)


def realize(*tensors: Any) -> Any:
    """Compute lazy tensors now (tinygrad's ``realize``).

    The given lazy tensors are computed together with what is scheduled with them
    (live tensors computed by the same operations), through one compiled program per
    device; they become plain tensors.  Other values, and tensors that are not lazy,
    pass through.

    Parameters
    ----------
    *tensors : Tensor
        The tensors to compute.  None given: every pending tensor of this thread's
        lazy block (outside one, every pending tensor).

    Returns
    -------
    Tensor or tuple or None
        Its argument (several: a tuple of them); None without arguments.

    Raises
    ------
    Exception
        What the recorded operations raise when they are computed.

    See Also
    --------
    lazy

    Notes
    -----
    Differentiable: yes: it computes what was recorded; the autodiff tape is kept.

    Examples
    --------
    >>> x = tf.ones(3)
    >>> with tf.lazy():
    ...     y = tf.sin(x) * 2.0 + 1.0       # recorded, not computed
    ...     z = tf.realize(y)               # computed now
    >>> z is y, type(y).__name__
    (True, 'Tensor')
    >>> tf.round(y, 6)
    tensor([2.682942, 2.682942, 2.682942])
    """
    if tensors:
        entries = [tensor_entry(t) for t in tensors]
        realize_entries([e for e in entries if e is not None])
        for t in tensors:
            if isinstance(t, LazyTensor):
                realize_tensor(t)   # now a plain Tensor
        return tensors[0] if len(tensors) == 1 else tensors
    ctx = state.lazy
    realize_entries([e for e in live_tensors(pending_only=True)
                     if ctx is None or e.ctx is ctx])
    return None


def tensor_id(t: Any) -> int | None:
    """The registry id of lazy tensor ``t`` (see :func:`get_tensor`); None for a
    tensor that is not lazy, or no longer (realized and used since)."""
    e = tensor_entry(t)
    return None if e is None else e.id


def is_lazy(t: Any) -> bool:
    """Whether ``t`` is a lazy tensor not computed yet."""
    e = tensor_entry(t)
    return e is not None and e.buffer is None


def is_lazy_mode() -> bool:
    """Whether this thread records operations lazily now."""
    return state.lazy is not None


class lazy:
    """Lazy mode: record operations and compute them when needed (tinygrad's laziness).

    ``with tenferro.lazy():`` (or ``@tenferro.lazy()``): this thread records the
    operations it runs (shapes and dtypes are checked at once) and computes them when
    needed: on :func:`tenferro.realize`, on a host read (``numpy()``, ``float()``,
    ``print``, ``bool``, ``tolist``, an eager operation outside lazy mode), before an
    in-place write to what they read, and on leaving the block (everything still live
    and pending, through one compiled program per device, with the compiler's passes
    and fusion).  Results equal eager ones; autodiff works as eagerly.  Nested blocks
    join the outermost one.  See docs/lazy.md.

    Parameters
    ----------
    enabled : bool, default True
        False runs the block eagerly (inside a lazy block too).

    See Also
    --------
    realize, jit

    Examples
    --------
    >>> x = tf.ones(3)
    >>> with tf.lazy():
    ...     y = tf.exp(x) * 2.0
    ...     type(y).__name__                # pending
    'LazyTensor'
    >>> tf.round(y, 6)                      # computed on leaving the block
    tensor([5.436564, 5.436564, 5.436564])
    """

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = bool(enabled)
        self._saved = []

    def __enter__(self) -> lazy:
        prev = state.lazy
        opened = None
        if self.enabled and prev is None:
            opened = LazyContext(len(state.interpreters))
            _primitive._interpreters.append(opened)   # the ops' fast paths step aside
            state.lazy = opened
        elif not self.enabled:
            state.lazy = None
        self._saved.append((prev, opened))
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        prev, opened = self._saved.pop()
        state.lazy = prev
        if opened is None:
            return
        _primitive._interpreters.remove(opened)
        mine = [e for e in live_tensors(pending_only=True) if e.ctx is opened]
        try:
            realize_entries(mine)
        except Exception:
            if exc_type is None:
                raise   # else the block's own error is the one to see

    # the registry and the compiled-program cache, as tenferro.lazy.<name>
    realize = staticmethod(realize)
    tensor_id = staticmethod(tensor_id)
    is_lazy = staticmethod(is_lazy)
    is_lazy_mode = staticmethod(is_lazy_mode)
    get_tensor = staticmethod(_registry.get_tensor)
    live_tensors = staticmethod(_registry.live_tensors)
    gc_dead_refs = staticmethod(_registry.gc_dead_refs)
    apply_map_to_tensors = staticmethod(_registry.apply_map_to_tensors)
    cache_info = staticmethod(cache_info)
    cache_clear = staticmethod(cache_clear)
    last_program = staticmethod(last_program)

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with lazy(self.enabled):
                return fn(*args, **kwargs)
        return wrapper  # type: ignore[return-value]


def _before_write(data):
    """Compute the pending operations that read the buffer about to be written."""
    if not _pending:
        return
    readers = [e for e in live_tensors(pending_only=True)
               if isinstance(e.value, LazyValue) and reads([e.value], data)]
    if readers:
        realize_entries(readers)


_versions.before_write = _before_write
