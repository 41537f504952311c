"""Rendering the WebGPU driver's kernels, and running the strided elementwise one.

The pieces every kernel is built from: the helper functions a body calls
(:func:`prelude_for`), loads and stores of bool's ``u32`` storage, the ELEMENTWISE
layout of strided operands (:func:`strided_layout`, read back by
:func:`offset_lines`); the elementwise kernel of a body (:func:`elementwise_source`,
cached) and its dispatch over strided, broadcast inputs (:func:`run_elementwise`).
"""

import numpy as np

from ... import _caches
from ..._catalog import broadcast_shapes
from .._layout import broadcast_view  # noqa: F401 (the drivers' shared one)
from . import wgsl
from .array import BOOL, STORE, VALUE, new
from .wgsl import MAXDIM, WORKGROUP as WG
from .wgsl_math import PRELUDE, PRELUDE64


def prelude_for(body):
    """The helper functions (:mod:`.wgsl_math`) a kernel of ``body`` needs: they are
    small; included only when a body calls one."""
    if "l_" in body:
        return PRELUDE + PRELUDE64
    return PRELUDE if ("f_" in body or "i_" in body) else ""


def load_value(dtype, expr):
    """The value of the stored element ``expr`` (bool: ``u32`` 0/1 -> ``bool``)."""
    return "(%s != 0u)" % expr if dtype == BOOL else expr


def store_value(dtype, expr):
    """The stored form of the value ``expr`` (bool -> ``u32``)."""
    return "select(0u, 1u, %s)" % expr if dtype == BOOL else expr


def strided_layout(out_shape, out_arr_strides, out_offset, inputs):
    """The ELEMENTWISE layout words (:mod:`.wgsl`) of an output and its strided inputs."""
    nd = len(out_shape)
    if nd > MAXDIM:
        raise ValueError("tenferro (webgpu): at most %d dimensions are supported, got %d"
                         % (MAXDIM, nd))
    pad = [1] * (MAXDIM - nd)
    zpad = [0] * (MAXDIM - nd)
    meta = [int(np.prod(out_shape, dtype=np.int64)), nd, out_offset]
    meta += list(out_shape) + pad + list(out_arr_strides) + zpad
    for x in inputs:
        meta += [x.offset] + list(x.estrides) + zpad
    return meta


def offset_lines(nin, at=0):
    """WGSL declaring input k's element offset ``oK`` and stepping it per dimension in
    the ELEMENTWISE/FUSED index loop (input k's layout as :func:`strided_layout` writes it,
    from ``lay[at]``)."""
    base = at + 3 + 2 * MAXDIM
    init = "\n".join("    var o%d = lay[%d];" % (k, base + k * (MAXDIM + 1))
                     for k in range(nin))
    step = "\n".join("        o%d = o%d + c * lay[%d + d];"
                     % (k, k, base + k * (MAXDIM + 1) + 1) for k in range(nin))
    return init, step


def function_body(body):
    """An op body (an expression, or statements that return) as a WGSL function body."""
    return body if body.lstrip().startswith(("return", "let", "var", "if")) \
        else "return %s;" % body


@_caches.memoize("webgpu.elementwise_sources", maxsize=4096)   # rendering costs as much as recording a dispatch
def elementwise_source(body, in_dtypes, out_dtype, aliased=()):
    """The kernel for ``body``; inputs in ``aliased`` are read from ``out`` itself (an
    in-place op: WebGPU forbids binding one buffer both read-only and read-write)."""
    nin = len(in_dtypes)
    names = "xyz"
    bound = [k for k in range(nin) if k not in aliased]
    bindings = "\n".join(
        "@group(0) @binding(%d) var<storage, read> in%d: array<%s>;"
        % (j, k, STORE[in_dtypes[k]]) for j, k in enumerate(bound))
    params = ", ".join("%s: %s" % (names[k], VALUE[d]) for k, d in enumerate(in_dtypes))
    offsets_init, offsets_step = offset_lines(nin)
    loads = "\n".join("    let v%d = %s;" % (k, load_value(d, "%s[o%d]" % (
        "out" if k in aliased else "in%d" % k, k))) for k, d in enumerate(in_dtypes))
    call = "op(%s)" % ", ".join("v%d" % k for k in range(nin))
    return wgsl.ELEMENTWISE.format(
        prelude=prelude_for(body), bindings=bindings, out_binding=len(bound),
        meta_binding=len(bound) + 1,
        out_store=STORE[out_dtype], out_value=VALUE[out_dtype], params=params,
        body=function_body(body), wg=WG, offsets_init=offsets_init, offsets_step=offsets_step,
        loads=loads, store=store_value(out_dtype, call))


def run_elementwise(op, body, inputs, out_dtype, out=None, shape=None):
    """Evaluate ``body`` (a WGSL expression in x, y, z) elementwise over ``inputs``
    (already broadcast to ``shape``) into a new contiguous array, or into ``out``
    (which may be one of the inputs exactly: in-place)."""
    in_dtypes = tuple(x.dtype for x in inputs)
    shape = inputs[0].shape if shape is None else shape
    dev = inputs[0].device if inputs else (out.device if out is not None else None)
    if out is None:
        out = new(shape, out_dtype, dev, op)
    ctx = out.storage.ctx
    aliased = tuple(k for k, x in enumerate(inputs) if x.storage is out.storage)
    for k in aliased:
        if inputs[k].dtype != out.dtype:  # cannot read it through out's element type
            inputs = list(inputs)
            inputs[k] = contiguous_copy(inputs[k])
    aliased = tuple(k for k, x in enumerate(inputs) if x.storage is out.storage)
    src = elementwise_source(body, in_dtypes, out.dtype, aliased)
    meta = strided_layout(shape, out.estrides, out.offset, inputs)
    ctx.dispatch(src, [x.storage for k, x in enumerate(inputs) if k not in aliased]
                 + [out.storage], meta, meta[0])
    return out


def contiguous_copy(x):
    """A new C-contiguous copy of ``x``."""
    return run_elementwise("copy", "x", [x], x.dtype)


def broadcast_shape(op, *shapes):
    """The broadcast shape of ``shapes`` (the core's error message if there is none)."""
    return tuple(broadcast_shapes(op, *shapes))
