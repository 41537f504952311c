"""A toy third-party device driver: what an outside package (say a CUDA driver) writes to
plug into tenferro without editing any tenferro file.

Installed, it declares the entry point ``toy = tenferro_toy:Driver`` in the group
``tenferro.devices`` (tests/test_third_party_driver.py fakes the installation with a
``.dist-info`` directory on ``sys.path``).  Its device arrays wrap host ndarrays and its
kernels delegate to the CPU driver's: the point is the plumbing, through the public
extension points only --

* a :class:`tenferro.devices.base.Driver` subclass with its own ``implementations``;
* the fused-group hook: ``implementations["fused_elementwise"]`` reading the contract
  of :mod:`tenferro._fused` (the sub-graph, :data:`KINDS`, :func:`tail`);
* a linalg primitive registered for this device with ``def_impl`` (as tenferro.linalg
  would write ``def_impl(cholesky_p, "cuda", ...)``), before the driver ever loads.
"""
import numpy as np

import tenferro.linalg  # noqa: F401  (its primitives, to register an implementation)
from tenferro import devices
from tenferro._fused import KINDS, tail
from tenferro.autograd import extend
from tenferro.devices.base import Driver as _Base

calls = {"fused": 0, "cholesky": 0, "ops": 0}


class ToyArray:
    """The toy device's storage: an ndarray kept away from tenferro's CPU paths."""
    __slots__ = ("data",)

    def __init__(self, data):
        self.data = data

    shape = property(lambda self: self.data.shape)
    dtype = property(lambda self: self.data.dtype)
    strides = property(lambda self: self.data.strides)
    ndim = property(lambda self: self.data.ndim)
    size = property(lambda self: self.data.size)


def _unwrap(a):
    return a.data if isinstance(a, ToyArray) else a


def _wrap(r):
    return tuple(ToyArray(x) for x in r) if isinstance(r, (tuple, list)) else ToyArray(r)


def _delegate(fn):
    def run(*arrays, **params):
        calls["ops"] += 1
        return _wrap(fn(*[_unwrap(a) for a in arrays], **params))
    return run


def _fused(*arrays, graph):
    """One "kernel" per fused group: checks the group against the contract, then runs
    its nodes in order on the host arrays."""
    calls["fused"] += 1
    assert all(n.prim.name in KINDS for n in graph.nodes if n is not tail(graph))
    cpu = devices.get_driver("cpu").implementations
    env = {id(v): _unwrap(a) for v, a in zip(graph.in_vars, arrays)}
    for n in graph.nodes:
        args = [env[id(i)] if id(i) in env else _unwrap(i._data) for i in n.inputs]
        env[id(n.outputs[0])] = cpu[n.prim.name](*args, **n.params)
    return tuple(ToyArray(env[id(o)]) for o in graph.outs)


def _cholesky(a, **params):
    calls["cholesky"] += 1
    return _wrap(devices.get_driver("cpu").implementations["linalg.cholesky"](
        _unwrap(a), **params))


# registered when the package is imported, before any Driver exists: recorded, and
# merged into the driver when it loads
extend.def_impl(extend.registry["linalg.cholesky"], "toy", _cholesky)


class Driver(_Base):
    name = "toy"

    def __init__(self):
        cpu = devices.get_driver("cpu")
        self.dtypes = cpu.dtypes
        self.view_ops = cpu.view_ops   # the delegated views share memory, say so
        type(self).implementations = dict(
            {op: _delegate(fn) for op, fn in cpu.implementations.items()
             if not op.startswith("linalg.")},
            fused_elementwise=_fused)
        super().__init__()

    def device_count(self):
        return 1

    def empty(self, shape, dtype, device):
        return ToyArray(np.empty(shape, dtype))

    def from_numpy(self, array, device):
        return ToyArray(np.array(array, copy=True))

    def to_numpy(self, data):
        return data.data
