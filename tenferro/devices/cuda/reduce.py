"""The CUDA driver's reductions (sum, prod, max, min, any, all), arg-reductions
(argmax, argmin) and scans (cumsum, cumprod) over any axes of any strided input, for
every dtype, with NumPy's semantics (as the CPU driver's: bool and int32 sums, products
and scans accumulate in int64; max/min propagate NaN and order complex
lexicographically; argmax/argmin give the first extremum, a NaN winning).

A reduction moves the reduced axes last (sorted by stride) and merges each group's
dimensions (:func:`tenferro.devices._layout.coalesce`): ``nout`` rows of ``nred``
elements, cut into ``nseg`` segments.  :func:`reduce_kernel` ``thread`` gives a
(row, segment) a thread (short rows); ``tree`` gives ``bx`` neighbouring rows a block,
``by`` threads striding along each (``bx > 1`` when the rows' kept dimension is the
contiguous one, so a warp reads neighbours), then a shared-memory tree with
``__syncthreads()``.  No thread adds more than :data:`CHAIN` elements in sequence
(float sums are as accurate as pairwise ones), rows too few to fill the device are cut
into more segments, and partials are reduced again by the same code.  No identity is
needed: a thread starts from its first element and the tree combines only filled slots.
Combines are :mod:`.cmath`'s ``tf_add``, ``tf_multiply``, ``tf_maximum``, ``tf_minimum``,
``tf_logical_or``, ``tf_logical_and`` (a bool accumulator adds with ``or``, as NumPy);
arg-reductions combine (value, index) pairs in an order-free way (ties: lower index).

The scans (cumsum, cumprod) are :mod:`.scan`'s; they use this module's kernels for the
totals of their segments.
"""
import functools
import math

import numpy as np

from ... import _caches, _dtypes
from ..._errors import UnsupportedOperation
from .._layout import coalesce
from .array import DTYPES, from_numpy, new, zeros
from .cmath import CTYPE, PRELUDE
from .kernels import index_lines, kernel, launch

MAX_BLOCK = 256       # threads per block (the shared arrays' size)
SHORT = 16            # rows (scan lines) this short run one thread each
CHAIN = 64            # at most this many elements summed sequentially by one thread
MIN_CHAIN = 8         # rows are cut for parallelism down to this many per thread
BOOL, I64 = _dtypes.bool_, _dtypes.int64

REDUCTIONS = ("sum", "prod", "max", "min", "any", "all")
ARG_REDUCTIONS = ("argmax", "argmin")
SCANS = {"cumsum": "sum", "cumprod": "prod"}   # the reduction whose combine a scan uses
_COMBINE = {"sum": "tf_add", "prod": "tf_multiply", "max": "tf_maximum",
            "min": "tf_minimum", "any": "tf_logical_or", "all": "tf_logical_and"}
_BOOL_COMBINE = {"sum": "tf_logical_or", "max": "tf_logical_or", "any": "tf_logical_or",
                 "prod": "tf_logical_and", "min": "tf_logical_and", "all": "tf_logical_and"}


def out_dtype_of(op, dtype):
    """The dtype reduction or scan ``op`` of ``dtype`` gives (the CPU driver's)."""
    if op in ("any", "all"):
        return BOOL
    if op in ("sum", "prod", "cumsum", "cumprod") and dtype in (BOOL, _dtypes.int32):
        return I64
    return dtype


def _check(op, x, out_dtype):
    if x.dtype not in DTYPES or out_dtype != out_dtype_of(op, x.dtype):
        raise UnsupportedOperation(x.device, op, x.dtype if x.dtype not in DTYPES
                                   or out_dtype in DTYPES else out_dtype)


def _block(be):
    """Threads per block: modest in the simulator (a thread each there)."""
    return 64 if be.simulated else MAX_BLOCK


def _cdiv(a, b):
    return -(-a // b)


def _pow2(n):
    """The least power of two >= n."""
    return 1 << max(int(n) - 1, 0).bit_length()


# -- kernels -----------------------------------------------------------------------------

def _combine_prelude(op, acc_dtype):
    """``tf_comb(a, b)``, the combine of reduction ``op`` on accumulator ``acc_dtype``."""
    c = CTYPE[acc_dtype]
    fn = (_BOOL_COMBINE if acc_dtype == BOOL else _COMBINE)[op]
    return ("typedef %s ACC;\n__device__ __forceinline__ ACC tf_comb(ACC a, ACC b) "
            "{ return %s(a, b); }\n" % (c, fn))


_ARG_PRELUDE = """typedef %(t)s T;
struct ACC { T v; long long i; };
__device__ __forceinline__ bool tf_nan(T v) { return %(nan)s; }
__device__ __forceinline__ bool tf_beats(const ACC& a, const ACC& b) {
    const bool an = tf_nan(a.v), bn = tf_nan(b.v);   // a NaN beats all; the first NaN
    if (an || bn) return an && (!bn || a.i < b.i);
    if (%(cmp)s(a.v, b.v)) return true;
    if (%(cmp)s(b.v, a.v)) return false;
    return a.i < b.i;                                  // ties: the first index
}
__device__ __forceinline__ ACC tf_comb(ACC a, ACC b) { return tf_beats(b, a) ? b : a; }
"""


def _arg_prelude(op, dtype):
    nan = "tf_isnan(v)" if dtype.kind in "fc" else "false"
    return _ARG_PRELUDE % dict(t=CTYPE[dtype], nan=nan,
                               cmp="tf_greater" if op == "argmax" else "tf_less")


def _offsets(names, idx, at, nd, base=""):
    """C lines setting ``long long`` ``names[k]``: operand k's element offset (plus
    ``base``) at flat index ``idx`` over ``nd`` dimensions, laid out in the words
    ``m[at ...]`` as :func:`.kernels.index_lines` reads them."""
    sets = " ".join("%s = %s%s;" % (v, base, "o%d" % k) for k, v in enumerate(names))
    return ("        long long %s;\n        { const long long i = %s;\n%s          %s }\n"
            % (", ".join(names), idx, index_lines(len(names), nd, at), sets))


_RED_HEAD = """    const long long nout = p.m[0], nred = p.m[1], seg = p.m[2], nseg = p.m[3];
    auto load = [&](long long xb, long long j) -> ACC {
%(roff)s        return %(load)s;
    };
    auto store = [&](long long q, const ACC& r) { %(store)s };
"""

_RED_THREAD = """    for (long long q = blockIdx.x * (long long)blockDim.x + threadIdx.x; q < nout * nseg;
         q += (long long)gridDim.x * blockDim.x) {
        const long long o = q / nseg, s = q - o * nseg;
        const long long j0 = s * seg, j1 = j0 + seg < nred ? j0 + seg : nred;
%(koff)s        ACC acc = load(xb, j0);
        for (long long j = j0 + 1; j < j1; ++j) acc = tf_comb(acc, load(xb, j));
        store(q, acc);
    }
"""

_RED_TREE = """    const long long nob = p.m[4];
    const int bx = (int)p.m[5], by = (int)blockDim.x / bx;
    const int tx = (int)threadIdx.x %% bx, ty = (int)threadIdx.x / bx;
    alignas(16) __shared__ unsigned char tf_raw[%(maxb)d * sizeof(ACC)];
    ACC* sh = (ACC*)tf_raw;
    for (long long g = blockIdx.x; g < nob * nseg; g += gridDim.x) {
        const long long s = g / nob, o = (g - s * nob) * bx + tx;
        const long long j0 = s * seg, j1 = j0 + seg < nred ? j0 + seg : nred;
        if (o < nout && j0 + ty < j1) {
%(koff)s            ACC acc = load(xb, j0 + ty);
            for (long long j = j0 + ty + by; j < j1; j += by) acc = tf_comb(acc, load(xb, j));
            sh[threadIdx.x] = acc;
        }
        __syncthreads();
        const int cnt = (int)(j1 - j0 < by ? j1 - j0 : by);   // slots holding values
        int h = 1;
        while (2 * h < cnt) h <<= 1;
        for (; h > 0; h >>= 1) {
            if (ty < h && ty + h < cnt)
                sh[threadIdx.x] = tf_comb(sh[threadIdx.x], sh[threadIdx.x + h * bx]);
            __syncthreads();
        }
        if (ty == 0 && o < nout) store(o * nseg + s, sh[tx]);
        __syncthreads();
    }
"""

# (load of element ``off``, reduced index ``j``; store of ``r`` at output ``q``) of the
# plain reductions and of the arg-reductions' (value, index) pairs: read from the input,
# or from partial pairs when ``p[2]`` (their indices) is set; stored as the index, or
# as partial pairs when ``p[3]`` (where their indices go) is set
_RED_IO = ("tf_convert<ACC>(((const %(t)s*)p.p[0])[off])", "((ACC*)p.p[1])[q] = r;")
_ARG_IO = ("ACC{((const T*)p.p[0])[off], p.p[2] ? ((const long long*)p.p[2])[off] : j}",
           "if (p.p[3]) { ((T*)p.p[1])[q] = r.v; ((long long*)p.p[3])[q] = r.i; }\n"
           "        else ((long long*)p.p[1])[q] = r.i;")


@_caches.memoize("cuda.reduce_kernels", maxsize=2048)
def reduce_kernel(variant, op, dtype, acc_dtype, nk, nr):
    """The reduction kernel ``variant`` ("thread" or "tree") of ``op`` over ``dtype``
    into ``acc_dtype`` (arg-reductions: int64) for ``nk`` kept and ``nr`` reduced
    dimensions."""
    arg = op in ARG_REDUCTIONS
    pre = _arg_prelude(op, dtype) if arg else _combine_prelude(op, acc_dtype)
    load, store = _ARG_IO if arg else _RED_IO
    load %= dict(t=CTYPE[dtype])
    roff = _offsets(["off"], "j", 6 + 2 * nk, nr, "xb + ")
    body = (_RED_HEAD % dict(roff=roff, load=load, store=store)
            + (_RED_TREE if variant == "tree" else _RED_THREAD)
            % dict(koff=_offsets(["xb"], "o", 6, nk), maxb=MAX_BLOCK))
    name = "tf_%s_%s_%s" % (op, variant, dtype.name)
    return kernel(name, body, 4 if arg else 2, 6 + 2 * (nk + nr), variant == "tree",
                  PRELUDE + pre)


# -- reductions ------------------------------------------------------------------------------

def _geometry(x, axes):
    """(output shape, kept shape, kept strides, reduced shape, reduced strides) of
    reducing ``x`` over ``axes``, each group merged; reduced axes by stride."""
    axes = sorted({a % x.ndim for a in axes}) if x.ndim else []
    keep = [i for i in range(x.ndim) if i not in axes]
    out_shape = tuple(x.shape[i] for i in keep)
    ksh, (kst,) = coalesce(out_shape, [tuple(x.estrides[i] for i in keep)])
    red = sorted(axes, key=lambda i: -abs(x.estrides[i]))
    rsh, (rst,) = coalesce(tuple(x.shape[i] for i in red), [tuple(x.estrides[i] for i in red)])
    return out_shape, ksh, kst, rsh, rst


def _plan(be, nout, nred, kst, rst):
    """(variant, block, bx, seg, nseg) for ``nout`` rows of ``nred`` elements, the
    kept and reduced strides ``kst``, ``rst`` (innermost last)."""
    block = _block(be)
    if nred <= SHORT:
        return "thread", block, 1, nred, 1
    columns = bool(kst) and abs(kst[-1]) == 1 and not (rst and abs(rst[-1]) == 1)
    bx = min(32, _pow2(nout)) if columns else 1
    by = min(block // bx, _pow2(_cdiv(nred, 4)))
    bx = max(bx, min(block // by, _pow2(nout)))
    nob = _cdiv(nout, bx)
    nseg = _cdiv(nred, by * CHAIN)
    want = be.sm_count * 8
    if nob * nseg < want:
        nseg = max(nseg, min(_cdiv(want, nob), _cdiv(nred, by * MIN_CHAIN)))
    seg = _cdiv(nred, nseg)
    return "tree", bx * by, bx, seg, _cdiv(nred, seg)


def _launch(be, k, plan, nout, layout, ptrs):
    variant, block, bx, seg, nseg = plan
    ksh, kst, rsh, rst = layout
    nred = math.prod(rsh)
    nob = _cdiv(nout, bx)
    meta = [nout, nred, seg, nseg, nob, bx] + list(ksh) + list(kst) + list(rsh) + list(rst)
    if variant == "tree":
        launch(be, k, 0, ptrs, meta, block=block, grid=min(nob * nseg, be.sm_count * 32))
    else:
        launch(be, k, nout * nseg, ptrs, meta, block=block)


def _empty_rows(op, out_shape, out_dtype, device):
    """The result of reducing empty rows: the identity (max, min and the arg-reductions
    have none: ValueError, as on the CPU)."""
    if op in ("max", "min", "argmax", "argmin"):
        raise ValueError("tenferro.%s (cuda): zero-size reduction has no identity" % op)
    if op in ("sum", "any"):
        return zeros(out_shape, out_dtype, device, op)
    return from_numpy(np.ones(out_shape, out_dtype), device)


def _reduce(op, x, axes, out_dtype, idx=None):
    """``op`` of ``x`` over ``axes``: one pass, and again over the partials when rows
    were cut into segments.  Arg-reductions: ``idx``, the indices of partial pairs
    (``x`` their values, laid out alike) being reduced again."""
    out_shape, ksh, kst, rsh, rst = _geometry(x, axes)
    nout = math.prod(out_shape)
    nred = math.prod(rsh)
    if nout == 0:
        return new(out_shape, out_dtype, x.device, op)
    if nred == 0:
        return _empty_rows(op, out_shape, out_dtype, x.device)
    be = x.storage.backend
    plan = _plan(be, nout, nred, kst, rst)
    nseg = plan[4]
    shape = out_shape + ((nseg,) if nseg > 1 else ())
    arg = op in ARG_REDUCTIONS
    out = new(shape, x.dtype if arg and nseg > 1 else out_dtype, x.device, op)
    ptrs = [x.ptr, out.ptr]
    if arg:   # the partials' indices (when cut in segments) go to ``pidx``
        pidx = new(shape, I64, x.device, op) if nseg > 1 else None
        ptrs += [0 if idx is None else idx.ptr, 0 if pidx is None else pidx.ptr]
    k = reduce_kernel(plan[0], op, x.dtype, out_dtype, len(ksh), len(rsh))
    _launch(be, k, plan, nout, (ksh, kst, rsh, rst), ptrs)
    if nseg == 1:
        return out
    return _reduce(op, out, (len(out_shape),), out_dtype, pidx if arg else None)


def reduce_op(op, x, axes, out_dtype):
    """Reduction ``op`` (sum, prod, max, min, any, all) of ``x`` over ``axes`` into
    ``out_dtype`` (the one :func:`out_dtype_of` gives)."""
    _check(op, x, out_dtype)
    return _reduce(op, x, axes, out_dtype)


def _arg(op, x, *, axis):
    """The int64 index of the first extremum (``op``: argmax, argmin) along ``axis``."""
    _check(op, x, x.dtype)
    if x.ndim == 0:
        x = x.view((1,), (0,), x.offset)
    return _reduce(op, x, (axis,), I64)


implementations = {}   # op -> the driver function
for _n in REDUCTIONS:
    implementations[_n] = functools.partial(reduce_op, _n)
for _n in ARG_REDUCTIONS:
    implementations[_n] = functools.partial(_arg, _n)


def all_kernels():
    """Every kernel this module renders, for one representative layout (one kept and
    one reduced dimension): each reduction and arg-reduction, for every dtype,
    in each variant (the driver's ``compile_all`` compiles them)."""
    out = []
    dts = sorted(DTYPES, key=lambda d: d.num)
    for variant in ("thread", "tree"):
        for op in REDUCTIONS:
            out += [reduce_kernel(variant, op, d, out_dtype_of(op, d), 1, 1) for d in dts]
        for op in ARG_REDUCTIONS:
            out += [reduce_kernel(variant, op, d, I64, 1, 1) for d in dts]
    return out
