"""tenferro tensors as Dask array chunks (docs/distributed.md, "Chunks").

dask.array runs a chunk's operations through NumPy's protocols on its ``_meta`` (a
0-size chunk): ``Tensor.__array_function__``/``__array_ufunc__``
(tenferro/_numpy_protocols/) already turn ``np.concatenate``, ``np.tensordot``,
``np.einsum``, the ufuncs and the reductions into tenferro's own, so results stay
Tensors.  What goes around the protocols is registered here:

- ``dask.array.dispatch``'s lookups, dispatched on the chunk's type (concatenate,
  take, tensordot, einsum, empty, percentile, numel, nannumel, to_numpy; divide's
  default, ``np.divide`` with ``dtype=``, reaches tenferro through ``__array_ufunc__``);
- ``dask.sizeof`` (a chunk's size for the scheduler's memory accounting: its bytes);
- dask.distributed's ``dask_serialize``/``dask_deserialize``: a CPU tensor travels as
  NumPy's header and its host buffer as one frame (no copy into a pickle); a
  WebGPU/CUDA tensor raises TypeError: a device chunk crossing processes must be moved
  explicitly (``t.to('cpu')``), never silently.

Importing this module imports dask.array (and distributed's serializers when
distributed is importable).  ``import tenferro`` imports neither: tenferro/_dask_hook.py
points Dask's lazy registrations (``Dispatch.register_lazy("tenferro")``) at this module
when dask is already loaded, so Dask finds these registrations the first time it meets a
Tensor, on the client and on the workers, without ``import tenferro.dask``.
"""
import numpy as np
from dask.array import backends as _backends
from dask.array import dispatch as _dispatch
from dask.sizeof import sizeof

from .. import _ops as tf
from .._tensor import Tensor, _rebuild
from ..devices import device as _device


def _percentile(a, q, method="linear"):
    """dask's per-chunk percentile, ``(values, n)``, computed on the host (dask merges
    the chunks' percentiles with NumPy) and returned as a Tensor."""
    result, n = _backends._percentile(np.asarray(a), q, method)
    return (None if result is None else tf.asarray(result)), n


def _to_numpy(x, **kwargs):
    return np.asarray(x, **kwargs)


_dispatch.concatenate_lookup.register(Tensor, tf.concatenate)
_dispatch.take_lookup.register(Tensor, tf.take)
_dispatch.tensordot_lookup.register(Tensor, tf.tensordot)
_dispatch.einsum_lookup.register(Tensor, tf.einsum)   # NumPy's keywords too
_dispatch.empty_lookup.register(Tensor, tf.empty)
_dispatch.percentile_lookup.register(Tensor, _percentile)
_dispatch.numel_lookup.register(Tensor, _backends._numel_arraylike)
_dispatch.nannumel_lookup.register(Tensor, _backends._nannumel)
_dispatch.to_numpy_dispatch.register(Tensor, _to_numpy)
sizeof.register(Tensor, lambda t: int(t.nbytes) + 64)


def serialize(t, context=None):
    """dask_serialize for a Tensor: NumPy's header and the host buffer as a frame."""
    from distributed.protocol.numpy import serialize_numpy_ndarray
    t._host_copyable("dask.distributed serialization")   # a traced or device tensor
    header, frames = serialize_numpy_ndarray(t._data, context)
    return {"numpy": header, "requires_grad": t.requires_grad}, frames


def deserialize(header, frames):
    """dask_deserialize for a Tensor: a CPU Tensor over the received buffer."""
    from distributed.protocol.numpy import deserialize_numpy_ndarray
    data = deserialize_numpy_ndarray(header["numpy"], frames)
    return _rebuild(Tensor, data, _device("cpu"), header["requires_grad"])


def register_distributed():
    """Register the serializers with dask.distributed (a no-op without it)."""
    try:
        from distributed.protocol.serialize import dask_deserialize, dask_serialize
    except ImportError:
        return
    dask_serialize.register(Tensor, serialize)
    dask_deserialize.register(Tensor, deserialize)


register_distributed()
