"""Rendering and launching the CUDA driver's kernels.

A kernel (:class:`Kernel`) is CUDA C source with one ``extern "C" __global__``
function taking one struct of 8-byte words: ``p[k]``, the address of operand k's
element ``[0, ..., 0]``, then ``m[j]``, int64 metadata (sizes, element strides).
:func:`launch` packs the words and launches on the array's backend, a GPU or the host
simulator (:mod:`.backend`).  Kernels are rendered per (op, dtypes, dimensions) and
cached by their source, which is also the key of the compiled-code caches
(:mod:`.nvrtc`, :mod:`.shim`).

The elementwise kernel (:func:`elementwise_kernel`) walks a grid-stride loop over the
output's elements; dimensions that every operand steps through as one are merged first
(:func:`tenferro.devices._layout.coalesce`), so a contiguous operation indexes with
``i`` itself and any strided, broadcast one unravels only the dimensions it must.
"""
import collections
import math

import numpy as np

from ... import _caches
from .._layout import coalesce
from . import shim
from .cmath import CTYPE, PRELUDE

shim.register_prelude(PRELUDE)   # the host simulator precompiles it once

BLOCK = 256          # threads per block of the elementwise kernels
MAX_WORDS = 480      # a kernel's parameter struct (CUDA allows 4 KiB = 512 words)


class Kernel(collections.namedtuple("Kernel", "name source barrier")):
    """CUDA C ``source`` defining kernel ``name``; ``barrier``: it calls
    ``__syncthreads()`` (the host shim then runs a block's threads concurrently)."""
    __slots__ = ()


def params_struct(name, nbuf, nmeta):
    """The parameter struct of kernel ``name``: ``nbuf`` addresses, ``nmeta`` int64s."""
    return "struct %s_params { char* p[%d]; long long m[%d]; };\n" % (
        name, max(nbuf, 1), max(nmeta, 1))


def kernel(name, body, nbuf, nmeta, barrier=False, prelude=PRELUDE):
    """A :class:`Kernel` ``name`` whose function body is ``body`` (C statements that
    read the parameter struct as ``p``)."""
    src = "%s\n%sextern \"C\" __global__ void %s(const %s_params p) {\n%s}\n" % (
        prelude, params_struct(name, nbuf, nmeta), name, name, body)
    return Kernel(name, src, bool(barrier))


def words(ptrs, meta):
    """The parameter words: addresses then metadata, as an int64 array."""
    ptrs = list(ptrs) or [0]
    return np.array(ptrs + (list(meta) or [0]), np.int64)


def grid_for(be, n, block=BLOCK):
    """Blocks for ``n`` elements in a grid-stride loop: enough to fill the device."""
    return int(max(1, min(-(-n // block), be.sm_count * 32)))


def launch(be, k, n, ptrs, meta, block=BLOCK, grid=None, shmem=0):
    """Launch kernel ``k`` on backend ``be`` over ``n`` elements (grid from
    :func:`grid_for` unless given)."""
    if grid is None:
        grid = grid_for(be, n, block)
    be.launch(k, grid, block, words(ptrs, meta), shmem)


# -- the strided elementwise kernel ---------------------------------------------------------

LOOP = ("    const long long n = p.m[0];\n"
        "    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;\n"
        "         i += (long long)gridDim.x * blockDim.x) {\n")


def index_lines(nops, nd, at=1):
    """C lines setting ``o0 .. o{nops-1}``, operand k's element offset for the flat
    output index ``i``: shape words ``m[at .. at+nd)``, then operand k's element strides
    ``m[at + nd + k*nd ...]``.  ``nd == 0``: everything at offset 0; ``nd == -1``: all
    operands contiguous (offset ``i``)."""
    if nd == -1:
        return "".join("        const long long o%d = i;\n" % k for k in range(nops))
    if nd == 1:
        return "".join("        const long long o%d = i * p.m[%d];\n" % (k, at + 1 + k)
                       for k in range(nops))
    lines = ["        long long o%d = 0;\n" % k for k in range(nops)]
    if nd:
        lines.append("        long long r = i, c;\n")
    for d in reversed(range(nd)):
        lines.append("        c = r %% p.m[%d]; r /= p.m[%d];\n" % (at + d, at + d))
        lines += ["        o%d += c * p.m[%d];\n" % (k, at + nd + k * nd + d)
                  for k in range(nops)]
    return "".join(lines)


@_caches.memoize("cuda.elementwise_kernels", maxsize=4096)
def elementwise_kernel(name, expr, in_dtypes, out_dtype, nd):
    """The kernel storing ``tf_convert<OUT>(expr)`` per element, ``expr`` a C expression
    in ``v0, v1, ...`` (the inputs' values); ``nd`` as :func:`index_lines`.  Operand
    order: the inputs, then the output."""
    nin = len(in_dtypes)
    loads = "".join("        const %s v%d = ((const %s*)p.p[%d])[o%d];\n"
                    % (CTYPE[d], k, CTYPE[d], k, k) for k, d in enumerate(in_dtypes))
    out_c = CTYPE[out_dtype]
    body = (LOOP + index_lines(nin + 1, nd) + loads
            + "        ((%s*)p.p[%d])[o%d] = tf_convert<%s>(%s);\n    }\n"
            % (out_c, nin, nin, out_c, expr))
    nmeta = 1 + (0 if nd <= 0 else nd * (nin + 2))
    return kernel(name, body, nin + 1, nmeta)


def elementwise_layout(shape, out, inputs):
    """``(nd, meta)`` for :func:`elementwise_kernel` over ``shape``: ``inputs`` (views
    already broadcast to ``shape``) and ``out``, dimensions merged where they can be."""
    n = math.prod(shape)
    ops = list(inputs) + [out]
    cshape, cstrides = coalesce(shape, [x.estrides for x in ops])
    if len(cshape) == 1 and all(s == (1,) for s in cstrides):
        return -1, [n]
    nd = len(cshape)
    meta = [n] + list(cshape)
    for st in cstrides:
        meta += st
    if len(meta) + len(ops) > MAX_WORDS:
        raise ValueError("tenferro (cuda): an elementwise operation over %d operands and "
                         "%d dimensions that cannot be merged exceeds a kernel's parameter "
                         "space; make the operands contiguous first" % (len(ops), nd))
    return nd, meta
