"""The lazy graph and the registry of live lazy tensors (svod's ``tensor_registry``).

A recorded operation is a :class:`LazyOp` (primitive, parameters, sources, device),
immutable once made; each of its results is a :class:`LazyValue`.  A source is a
LazyValue or a concrete :class:`~tenferro.Tensor`.  A lazy tensor holds a
:class:`TensorEntry`: its id, the value it stands for (``value``, replaced when the
graph is rewritten) and its buffer, written once when it is realized.

The registry maps ids to entries through weak references: it keeps nothing alive, and
an entry leaves it when the last tensor (or autodiff node) holding it goes.
:func:`apply_map_to_tensors` rewrites the graphs of every live entry at once, so that
tensors sharing a subgraph (a diamond: ``b = f(a)``, ``c = g(a)``, ``d = b + c``) keep
sharing its rewritten version.
"""
from __future__ import annotations

import itertools
import weakref
from typing import Any

import numpy as np

from .._tensor import Tensor

__all__ = ["LazyOp", "LazyValue", "TensorEntry", "tensor_entry", "get_tensor",
           "live_tensors", "gc_dead_refs", "apply_map_to_tensors"]


class LazyOp:
    """One recorded primitive application (immutable): ``prim(*srcs, **params)`` on
    ``device``, with the (shape, dtype) of each result; a source is a
    :class:`LazyValue` or a concrete Tensor."""
    __slots__ = ("prim", "params", "srcs", "device", "avals")

    def __init__(self, prim, params, srcs, device, avals):
        self.prim, self.params, self.srcs, self.device = prim, params, srcs, device
        self.avals = avals

    def __repr__(self):
        return "LazyOp(%s)" % self.prim.name


class LazyValue:
    """Result ``index`` of a :class:`LazyOp`, with its shape and dtype."""
    __slots__ = ("op", "index", "shape", "dtype", "__weakref__")

    def __init__(self, op, index, shape, dtype):
        self.op, self.index, self.shape, self.dtype = op, index, tuple(shape), np.dtype(dtype)

    def __repr__(self):
        return "LazyValue(%s[%d], shape=%s, dtype=%s)" % (self.op.prim.name, self.index,
                                                          self.shape, self.dtype)


class TensorEntry:
    """What a lazy tensor holds (svod's ``TensorEntry``): its id, the value it stands
    for (a :class:`LazyValue`, or a concrete Tensor once computed or substituted), its
    device buffer (None until realized; written once) and the autodiff nodes that saved
    it for a derivative rule.  It carries the shape and dtype, so that a tensor over it
    answers metadata questions without computing anything."""
    __slots__ = ("id", "value", "buffer", "shape", "dtype", "device", "ctx", "tape",
                 "__weakref__")
    abstract = False

    def __init__(self, value, ctx):
        self.id = next(_ids)
        self.value = value
        self.buffer = None
        self.shape = value.shape
        self.dtype = value.dtype
        self.device = value.op.device
        self.ctx = ctx
        self.tape = None
        i = self.id
        _registry[i] = weakref.ref(self, lambda r: _drop(i, r))
        _pending.add(i)

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))
    itemsize = property(lambda self: self.dtype.itemsize)
    nbytes = property(lambda self: self.size * self.dtype.itemsize)

    @property
    def strides(self):   # C order, as a freshly computed result
        s, acc = [], self.dtype.itemsize
        for d in reversed(self.shape):
            s.append(acc)
            acc *= max(d, 1)
        return tuple(reversed(s))

    @property
    def realized(self) -> bool:
        return self.buffer is not None

    def set_buffer(self, data: Any) -> None:
        """Write the realized device array; a second write raises (the buffer is
        written once, as svod's ``OnceLock``)."""
        if self.buffer is not None:
            raise RuntimeError("tenferro.lazy: tensor %d is already realized; its buffer is "
                               "written once" % self.id)
        self.buffer = data
        _pending.discard(self.id)
        if self.tape:   # autodiff nodes that saved this value now keep the buffer
            for ref in self.tape:
                node = ref()
                if node is None:
                    continue
                if node.out is self:
                    node.out = data
                elif type(node.out) is tuple:
                    node.out = tuple(data if o is self else o for o in node.out)
            self.tape = None

    def tensor(self) -> Tensor:
        """A tensor over this entry (lazy while it is pending, else over its buffer)."""
        from ._tensor import lazy_tensor, realized_tensor

        if self.buffer is not None:
            return realized_tensor(self.buffer, self.device)
        return lazy_tensor(self)

    def __repr__(self):
        return "TensorEntry(id=%d, shape=%s, dtype=%s, %s)" % (
            self.id, self.shape, self.dtype, "realized" if self.buffer is not None
            else "pending")


_ids = itertools.count(1)
_registry = {}      # id -> _Ref(entry): every live entry
_pending = set()    # the ids of the live entries not yet realized


def _drop(i, ref):
    if _registry.get(i) is ref:
        del _registry[i]
    _pending.discard(i)


def get_tensor(tensor_id: int) -> TensorEntry | None:
    """The live entry with this id (:func:`tensor_id`), or None once it is gone."""
    ref = _registry.get(tensor_id)
    return None if ref is None else ref()


def live_tensors(pending_only: bool = False) -> list[TensorEntry]:
    """The live entries (only those not yet realized with ``pending_only``), by id."""
    out = []
    for i in sorted(_pending if pending_only else list(_registry)):
        ref = _registry.get(i)
        e = ref() if ref is not None else None
        if e is not None and not (pending_only and e.buffer is not None):
            out.append(e)
    return out


def gc_dead_refs() -> int:
    """Remove the references to dead entries (the weak references' callbacks normally
    do it as they die); returns how many were removed."""
    dead = [i for i, r in list(_registry.items()) if r() is None]
    for i in dead:
        _registry.pop(i, None)
        _pending.discard(i)
    return len(dead)


# Tensor's data slot, read and written without LazyTensor's property (which computes)
slot_get, slot_set = Tensor.__dict__["_data"].__get__, Tensor.__dict__["_data"].__set__


def tensor_entry(t):
    """The entry of lazy tensor ``t`` (a Tensor whose data is an entry), else None."""
    d = slot_get(t) if isinstance(t, Tensor) else None
    return d if type(d) is TensorEntry else None


def apply_map_to_tensors(becomes: dict[Any, Any],
                         entries: list[TensorEntry] | None = None) -> int:
    """Rewrite the graph of every live entry with ``becomes`` (a LazyValue -> its
    replacement: a LazyValue of the same shape and dtype, or a concrete Tensor), in one
    pass over all of them (svod's ``apply_map_to_tensors``): an operation whose sources
    change is rebuilt once, and every entry that reached it reaches the rebuilt one, so
    subgraphs shared before stay shared.  Returns the number of entries rewritten.
    ``entries``: only these (by default every live entry)."""
    if not becomes:
        return 0
    for old, new in becomes.items():
        if (tuple(old.shape), np.dtype(old.dtype)) != (tuple(new.shape), np.dtype(new.dtype)):
            raise ValueError("apply_map_to_tensors: %r would become a value of shape %s and "
                             "dtype %s" % (old, new.shape, new.dtype))
    memo = {id(k): v for k, v in becomes.items()}
    keep = [becomes]    # the ids in memo stay those of live objects
    changed = 0
    for e in live_tensors() if entries is None else entries:
        v = e.value
        if isinstance(v, LazyValue):
            nv = substitute(v, memo, keep)
            if nv is not v:
                e.value = nv
                changed += 1
    return changed


def substitute(value, memo, keep):
    """``value`` with the replacements of ``memo`` (id -> replacement, also filled with
    what this call rebuilds) applied below it (iterative: deep graphs are fine)."""
    done = memo.get(id(value))
    if done is not None:
        return done
    stack = [value]
    while stack:
        v = stack[-1]
        if id(v) in memo:
            stack.pop()
            continue
        op = v.op
        todo = [s for s in op.srcs if isinstance(s, LazyValue) and id(s) not in memo]
        if todo:
            stack.extend(todo)
            continue
        stack.pop()
        key = ("op", id(op))
        new_op = memo.get(key)
        if new_op is None:
            srcs = tuple(memo[id(s)] if isinstance(s, LazyValue) else s for s in op.srcs)
            new_op = op if all(a is b for a, b in zip(srcs, op.srcs)) else \
                LazyOp(op.prim, op.params, srcs, op.device, op.avals)
            memo[key] = new_op
            keep.append(op)
        memo[id(v)] = v if new_op is op else LazyValue(new_op, v.index, v.shape, v.dtype)
        keep.append(v)
    return memo[id(value)]
