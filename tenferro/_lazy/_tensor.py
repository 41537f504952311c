"""The lazy tensor: a :class:`~tenferro.Tensor` whose data is a pending
:class:`~._registry.TensorEntry`.

It answers metadata (shape, dtype, strides, ...) from its entry; any read of its data
(``_data``: every host read, ``numpy()``, ``float()``, printing, an eager kernel, an
in-place write) realizes it first.  A realized lazy tensor becomes a plain Tensor
(same object: its class is switched, its data is the realized buffer), so that from
then on it costs what any tensor costs.
"""
from __future__ import annotations

from .._tensor import Tensor, _wrap
from ._registry import TensorEntry, slot_get as _get_data, slot_set as _set_data

__all__ = ["LazyTensor", "lazy_tensor", "realized_tensor", "realize_tensor"]

_new = object.__new__


def realize_tensor(t):
    """The device array of lazy tensor ``t`` (realized now if pending), ``t`` turned
    into a plain Tensor over it."""
    e = _get_data(t)
    if type(e) is not TensorEntry:
        return e
    if e.buffer is None:
        from ._realize import realize_entries

        realize_entries([e])
    b = e.buffer
    _set_data(t, b)
    if t.__class__ is LazyTensor:
        t.__class__ = Tensor
    return b


class LazyTensor(Tensor):
    """A tensor computed on demand (see :mod:`tenferro.lazy`)."""
    __slots__ = ()

    _data = property(realize_tensor, _set_data)

    shape = property(lambda self: _get_data(self).shape)
    dtype = property(lambda self: _get_data(self).dtype)
    ndim = property(lambda self: len(_get_data(self).shape))
    size = property(lambda self: _get_data(self).size)
    strides = property(lambda self: _get_data(self).strides)
    itemsize = property(lambda self: _get_data(self).dtype.itemsize)
    nbytes = property(lambda self: _get_data(self).nbytes)

    def detach(self) -> Tensor:
        """The same (pending) value, cut from autodiff: a lazy tensor sharing the
        entry, so that both get the one buffer."""
        e = _get_data(self)
        if type(e) is not TensorEntry:
            return Tensor.detach(self)
        return lazy_tensor(e)

    # copies and pickles are of the values: computed first (then as a plain Tensor's)
    def __reduce_ex__(self, protocol: int) -> object:
        realize_tensor(self)
        return Tensor.__reduce_ex__(self, protocol)

    def __copy__(self) -> Tensor:
        realize_tensor(self)
        return Tensor.__copy__(self)

    def __deepcopy__(self, memo: dict) -> Tensor:
        realize_tensor(self)
        return Tensor.__deepcopy__(self, memo)


def lazy_tensor(entry, ad=None):
    """A LazyTensor over ``entry``."""
    t = _new(LazyTensor)
    _set_data(t, entry)
    t._device = entry.device
    t._ad = ad
    return t


def realized_tensor(data, device):
    """A concrete tensor over device array ``data``."""
    return _wrap(data, device)
