"""The CUDA kernels of the driver's integer-array indexing (:mod:`.index`): gather,
atomic scatter-add, nonzero (count, then write) and put (mark the last writer, then
write), rendered per dtype or item size and per number of merged dimensions.

Operand k's element offset ``o<k>`` comes from :func:`.kernels.index_lines` over the
layout :func:`.kernels.elementwise_layout` gives; each kernel's own metadata words
follow that layout's (:func:`_extra`).
"""
import functools

from ... import _dtypes
from .kernels import LOOP, index_lines, kernel

# -- the kernels ---------------------------------------------------------------------------

# Gathers and put move elements as bits: one kernel per item size serves every dtype of
# that size (NaN payloads, -0.0 and bools kept exactly).
BITS = {1: "unsigned char", 4: "unsigned int", 8: "unsigned long long", 16: "tf_u128"}
CNAME = {_dtypes.int32: "int", _dtypes.int64: "long long", _dtypes.float32: "float",
         _dtypes.float64: "double", _dtypes.complex64: "float", _dtypes.complex128: "double"}
MAXDIM = 64        # nonzero's coordinates: the array's dimensions, at most
# the kernels need none of cmath: a prelude of their own compiles faster
PRELUDE = r"""
struct tf_u128 { unsigned long long lo, hi; };
template <class W> __device__ __forceinline__ void tf_atomic_max(W* p, W v) {
    W old = *(volatile W*)p;
    while (old < v) {
        const W seen = atomicCAS(p, old, v);
        if (seen == old) break;
        old = seen;
    }
}
"""


def _extra(nops, nd):
    """The first metadata word after :func:`elementwise_layout`'s for ``nops`` operands."""
    return 1 if nd <= 0 else 1 + nd * (nops + 1)


@functools.lru_cache(maxsize=None)
def gather_kernel(itemsize, nd):
    """out[o2] = x[o0 + idx[o1] * m[E]] (operands x, idx, out)."""
    t, e = BITS[itemsize], _extra(3, nd)
    body = (LOOP + index_lines(3, nd)
            + "        const long long j = ((const long long*)p.p[1])[o1];\n"
            "        ((%s*)p.p[2])[o2] = ((const %s*)p.p[0])[o0 + j * p.m[%d]];\n    }\n"
            % (t, t, e))
    return kernel("k_gather", body, 3, e + 1, prelude=PRELUDE)


def _add_statement(dtype):
    """C adding ``values[o2]`` (operand 2) atomically into element ``t`` of operand 0:
    integers wrap (unsigned adds), complex adds its two parts, a bool is or-ed into
    the 32-bit word holding its byte (there is no byte atomic)."""
    if dtype == _dtypes.bool_:
        return ("if (((const unsigned char*)p.p[2])[o2]) {\n"
                "            const unsigned long long a = (unsigned long long)(p.p[0] + t);\n"
                "            atomicOr((unsigned int*)(a & ~3ull), 1u << (unsigned)(8 * (a & 3)));"
                "\n        }")
    c = CNAME[dtype]
    if dtype.kind in "iu":
        u = BITS[dtype.itemsize]
        return "atomicAdd((%s*)p.p[0] + t, (%s)((const %s*)p.p[2])[o2]);" % (u, u, c)
    if dtype.kind == "f":
        return "atomicAdd((%s*)p.p[0] + t, ((const %s*)p.p[2])[o2]);" % (c, c)
    return ("%s* q = (%s*)p.p[0] + 2 * t;\n"
            "        const %s* v = (const %s*)p.p[2] + 2 * o2;\n"
            "        atomicAdd(q, v[0]);\n        atomicAdd(q + 1, v[1]);" % (c, c, c, c))


@functools.lru_cache(maxsize=None)
def scatter_kernel(dtype, nd):
    """out[o0 + idx[o1] * m[E]] += values[o2] atomically (operands out, idx, values)."""
    e = _extra(3, nd)
    body = (LOOP + index_lines(3, nd)
            + "        const long long t = o0 + ((const long long*)p.p[1])[o1] * p.m[%d];\n"
            "        %s\n    }\n" % (e, _add_statement(dtype)))
    return kernel("k_scatter_add", body, 3, e + 1, prelude=PRELUDE)


def _nonzero_test(dtype):
    if dtype == _dtypes.bool_:
        return "((const unsigned char*)p.p[0])[o0] != 0"
    c = CNAME[dtype]
    if dtype.kind == "c":
        return ("((const %s*)p.p[0])[2 * o0] != 0 || ((const %s*)p.p[0])[2 * o0 + 1] != 0"
                % (c, c))
    return "((const %s*)p.p[0])[o0] != 0" % c


@functools.lru_cache(maxsize=None)
def nonzero_kernel(dtype, nd):
    """Per chunk of the flat range (operands x, counts, res; after the layout: the chunk
    size, the mode, x's ndim and shape): mode 0 counts the chunk's nonzeros into
    counts[chunk], mode 1 writes their coordinates from row counts[chunk] of res on."""
    e = _extra(1, nd)
    body = ("    const long long n = p.m[0], chunk = p.m[%(e)d], nch = (n + chunk - 1) / chunk;\n"
            "    const long long fill = p.m[%(e1)d], ndim = p.m[%(e2)d];\n"
            "    long long* counts = (long long*)p.p[1];\n"
            "    long long* res = (long long*)p.p[2];\n"
            "    for (long long ch = blockIdx.x * (long long)blockDim.x + threadIdx.x; ch < nch;\n"
            "         ch += (long long)gridDim.x * blockDim.x) {\n"
            "      const long long end = (ch + 1) * chunk < n ? (ch + 1) * chunk : n;\n"
            "      long long k = fill ? counts[ch] : 0;\n"
            "      for (long long i = ch * chunk; i < end; ++i) {\n"
            "%(index)s"
            "        if (%(test)s) {\n"
            "          for (long long d = ndim - 1, q = i; fill && d >= 0; --d) {\n"
            "            res[k * ndim + d] = q %% p.m[%(e3)d + d];\n"
            "            q /= p.m[%(e3)d + d];\n"
            "          }\n"
            "          ++k;\n"
            "        }\n"
            "      }\n"
            "      if (!fill) counts[ch] = k;\n"
            "    }\n" % dict(e=e, e1=e + 1, e2=e + 2, e3=e + 3, index=index_lines(1, nd),
                              test=_nonzero_test(dtype)))
    return kernel("k_nonzero", body, 3, e + 3 + MAXDIM, prelude=PRELUDE)


def win_dtype(n):
    """The dtype of put's winner marks (C-order writer index + 1) for ``n`` writers."""
    return _dtypes.int32 if n < 2**32 - 1 else _dtypes.int64


@functools.lru_cache(maxsize=None)
def put_kernel(itemsize, idx_dtype, win, nd):
    """Operands positions, values, out, win; after the layout the mode: 0 clears
    win[pos], 1 raises it to the writer's i + 1 (an atomic max), 2 stores values[i]
    where win[pos] == i + 1 (the last writer)."""
    e, t = _extra(2, nd), BITS[itemsize]
    w = BITS[win.itemsize]
    body = (LOOP + index_lines(2, nd)
            + "        const long long q = ((const %s*)p.p[0])[o0];\n"
            "        %s* win = (%s*)p.p[3];\n"
            "        const long long mode = p.m[%d];\n"
            "        if (mode == 0) win[q] = 0;\n"
            "        else if (mode == 1) tf_atomic_max(win + q, (%s)(i + 1));\n"
            "        else if (win[q] == (%s)(i + 1))\n"
            "            ((%s*)p.p[2])[q] = ((const %s*)p.p[1])[o1];\n    }\n"
            % (CNAME[idx_dtype], w, w, e, w, w, t, t))
    return kernel("k_put", body, 4, e + 1, prelude=PRELUDE)


def all_kernels(nd=2):
    """Every indexing kernel variant (per dtype or item size) for one representative,
    strided layout (``nd`` merged dimensions): what
    :func:`tenferro.devices.cuda.compile_all` compiles."""
    ints = (_dtypes.int32, _dtypes.int64)
    return ([gather_kernel(s, nd) for s in sorted(BITS)]
            + [scatter_kernel(d, nd) for d in _dtypes.DTYPES]
            + [nonzero_kernel(d, nd) for d in _dtypes.DTYPES]
            + [put_kernel(s, i, w, nd) for s in sorted(BITS) for i in ints for w in ints])
