"""nn's elementwise compositions as one CPU kernel on plain eager calls.

An activation (or ``affine``, or an activation's derivative) is a composition of
tenferro's elementwise ops.  Eagerly that would be one pass over memory per op; here
the composition is traced once per (function, operand dtypes, parameters) at 0-d shapes,
compiled (tenferro's fusion makes it one fused group) and the group's CPU kernel kept
(``devices/cpu/fused.py``: the ops' own SIMD loops, block by block in registers).  The
kernel broadcasts its operands, so one kernel serves every shape and layout: the
values are those of the composition's ops, in one pass.

:func:`run` is the one way in: the kernel for real float32/float64 operands on the
CPU, the composition itself for anything else (another device, complex, integers,
a computation that is itself differentiated where ``plain`` asks).  (The
normalizations have their own row kernel: ``_norm_prim``.)
"""
import numpy as np

from .._ir import Var
from .._tensor import _wrap
from ..autograd._engine import detach
from ..autograd.extend import is_differentiated
from ..devices.cpu import threads as _threads
from ..devices.cpu.fused import kernel as _fused_kernel
from ..devices.cpu.ops import out_like
from ..graph import TensorSpec, compile, make_graph
from ..graph.jit import _static_key

_REAL = frozenset("fd")   # float32, float64: the dtypes the kernels are built for
_MAX_KERNELS = 512        # distinct (fn, dtypes, params): beyond it the cache restarts
_kernels = {}             # key -> (fused group ready to run, operand map) or None


def _build(fn, dtypes, params):
    """The CPU kernel of ``fn`` on operands of ``dtypes`` and how to feed it: (kernel,
    operands: an int (the i-th tensor) or a constant's ndarray), or None where the
    compiled composition is not one fused elementwise group."""
    graph = compile(make_graph(lambda *xs: fn(*xs, **params),
                               *[TensorSpec((), d, "cpu") for d in dtypes]))
    if len(graph.graph.nodes) != 1:
        return None
    node = graph.graph.nodes[0]
    if node.prim.name != "fused_elementwise" or list(graph.graph.outs) != node.outputs:
        return None
    group = _fused_kernel(node.params["graph"])
    if group.tail is not None or len(group.dtypes) != 1:
        return None
    where = {id(v): i for i, v in enumerate(graph.graph.in_vars)}
    return group, tuple(where[id(i)] if isinstance(i, Var) else i._data
                        for i in node.inputs)


def run(fn, tensors, params, plain=True):
    """``fn(*tensors, **params)`` (tenferro ops; one output), as one CPU kernel where
    every tensor is a real float on the CPU -- and, with ``plain``, the computation is
    not itself differentiated (``is_differentiated``: no tracer, no tensor recording
    on the tape; else the result would leave their graph).
    Otherwise ``fn`` on the tensors (detached when not ``plain``: the caller is a
    primitive's implementation, whose derivatives are its own rules)."""
    dev = tensors[0]._device
    fast = dev.type == "cpu" and not (plain and is_differentiated(*tensors))
    if fast:
        for t in tensors:
            if t._device is not dev or t._trace is not None \
                    or t._data.dtype.char not in _REAL:
                fast = False
                break
    if fast:
        key = (fn, tuple([t._data.dtype.char for t in tensors]), _static_key(params))
        entry = _kernels.get(key, False)
        if entry is False:
            if len(_kernels) >= _MAX_KERNELS:
                _kernels.clear()
            entry = _kernels[key] = _build(fn, [t.dtype for t in tensors], params)
        if entry is not None:
            return _wrap(_launch(entry, [t._data for t in tensors]), dev)
    if not plain:
        tensors = [detach(t) for t in tensors]
    return fn(*tensors, **params)


def _launch(entry, arrays):
    group, operands = entry
    if len(arrays) == 1:
        shape = arrays[0].shape
    else:
        shape = np.broadcast_shapes(*[a.shape for a in arrays])
    like = None
    for a in arrays:
        if a.shape == shape:
            like = a
            break
    out = out_like(like, group.dtypes[0]) if like is not None \
        else np.empty(shape, group.dtypes[0])
    group.kernel.run(tuple([arrays[o] if type(o) is int else o for o in operands]) + (out,),
                     _threads.current)
    return out

