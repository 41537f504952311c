"""The CUDA driver's scans (cumsum, cumprod) along one axis of any strided input, for
every dtype, accumulating as the CPU driver's (bool and int32 in int64).

:func:`scan_kernel` ``thread`` scans a line sequentially (NumPy's order; many or short
lines); ``block`` scans a line segment in chunks of ``blockDim`` elements (Hillis-Steele
in shared memory) with a running carry; long lines are cut into segments whose totals
(a reduction), scanned, are the carries in.
"""
import functools
import math

from ... import _caches
from .._layout import coalesce
from .array import DTYPES, new
from .cmath import CTYPE, PRELUDE
from .kernels import kernel, launch
from .reduce import (MAX_BLOCK, SCANS, SHORT, _block, _cdiv, _check, _combine_prelude,
                     _launch, _offsets, out_dtype_of, reduce_kernel)

_SCAN_HEAD = """    const long long nlines = p.m[0], n = p.m[1], seg = p.m[2], nseg = p.m[3];
    const long long xs = p.m[4], os = p.m[5];
    const %(t)s* x = (const %(t)s*)p.p[0];
    ACC* out = (ACC*)p.p[1];
"""

_SCAN_THREAD = """    for (long long q = blockIdx.x * (long long)blockDim.x + threadIdx.x; q < nlines;
         q += (long long)gridDim.x * blockDim.x) {
%(off)s        ACC acc = tf_convert<ACC>(x[xb]);
        out[ob] = acc;
        for (long long j = 1; j < n; ++j) {
            acc = tf_comb(acc, tf_convert<ACC>(x[xb + j * xs]));
            out[ob + j * os] = acc;
        }
    }
"""

_SCAN_BLOCK = """    alignas(16) __shared__ unsigned char tf_raw[%(maxb)d * sizeof(ACC)];
    ACC* sh = (ACC*)tf_raw;
    const int t = (int)threadIdx.x, nt = (int)blockDim.x;
    for (long long g = blockIdx.x; g < nlines * nseg; g += gridDim.x) {
        const long long q = g / nseg, s = g - q * nseg;
        const long long j0 = s * seg, j1 = j0 + seg < n ? j0 + seg : n;
%(off)s        ACC carry = tf_convert<ACC>(x[xb + j0 * xs]);   // (a value; used once set)
        bool has = s > 0;
        if (has) carry = ((const ACC*)p.p[2])[q * nseg + s - 1];
        for (long long c = j0; c < j1; c += nt) {
            const int cnt = (int)(j1 - c < nt ? j1 - c : nt);
            if (t < cnt) sh[t] = tf_convert<ACC>(x[xb + (c + t) * xs]);
            __syncthreads();
            for (int h = 1; h < cnt; h <<= 1) {          // Hillis-Steele, inclusive
                ACC v = sh[t];
                if (t < cnt && t >= h) v = tf_comb(sh[t - h], v);
                __syncthreads();
                if (t < cnt) sh[t] = v;
                __syncthreads();
            }
            if (t < cnt) out[ob + (c + t) * os] = has ? tf_comb(carry, sh[t]) : sh[t];
            carry = has ? tf_comb(carry, sh[cnt - 1]) : sh[cnt - 1];
            has = true;
            __syncthreads();
        }
    }
"""


@_caches.memoize("cuda.scan_kernels", maxsize=512)
def scan_kernel(variant, op, dtype, acc_dtype, nk):
    """The scan kernel ``variant`` ("thread" or "block") of ``op`` (cumsum, cumprod)
    over ``dtype`` into ``acc_dtype``, lines over ``nk`` dimensions."""
    off = _offsets(["xb", "ob"], "q", 6, nk)
    body = (_SCAN_HEAD % dict(t=CTYPE[dtype])
            + (_SCAN_BLOCK if variant == "block" else _SCAN_THREAD)
            % dict(off=off, maxb=MAX_BLOCK))
    name = "tf_%s_%s_%s" % (op, variant, dtype.name)
    return kernel(name, body, 3, 6 + 3 * nk, variant == "block",
                  PRELUDE + _combine_prelude(SCANS[op], acc_dtype))


def _scan_plan(be, nlines, n, stride):
    """(variant, block, seg, nseg) of scanning ``nlines`` lines of ``n`` elements at
    element ``stride``: a thread per line when they are short, or many and not
    contiguous; else a block per line, and per segment when lines are too few."""
    block = _block(be)
    if n <= SHORT or (nlines >= be.sm_count * 64 and (abs(stride) != 1 or n < block)):
        return "thread", block, n, 1
    nseg = 1
    if nlines < be.sm_count * 8 and n > 4 * block:
        nseg = min(_cdiv(be.sm_count * 8, nlines), _cdiv(n, 4 * block))
    seg = _cdiv(n, nseg)
    return "block", block, seg, _cdiv(n, seg)


def scan_op(op, x, axis, out_dtype):
    """The inclusive scan ``op`` (cumsum, cumprod) of ``x`` along ``axis``."""
    _check(op, x, out_dtype)
    out = new(x.shape, out_dtype, x.device, op)
    if out.size == 0:
        return out
    if x.ndim == 0:
        x, o = x.view((1,), (0,), x.offset), out.view((1,), (1,), 0)
        axis = 0
    else:
        o = out
    axis %= x.ndim
    keep = [i for i in range(x.ndim) if i != axis]
    ksh, (kxs, kos) = coalesce(tuple(x.shape[i] for i in keep),
                               [tuple(x.estrides[i] for i in keep),
                                tuple(o.estrides[i] for i in keep)])
    nlines = math.prod(ksh)
    n = x.shape[axis]
    be = x.storage.backend
    variant, block, seg, nseg = _scan_plan(be, nlines, n, x.estrides[axis])
    carry = None
    if nseg > 1:   # the segments' totals, scanned: the carry into each segment
        totals = new(tuple(x.shape[i] for i in keep) + (nseg,), out_dtype, x.device, op)
        k = reduce_kernel("tree", SCANS[op], x.dtype, out_dtype, len(ksh), 1)
        _launch(be, k, ("tree", block, 1, seg, nseg), nlines,
                (ksh, kxs, (n,), (x.estrides[axis],)), [x.ptr, totals.ptr])
        carry = scan_op(op, totals, totals.ndim - 1, out_dtype)
    meta = [nlines, n, seg, nseg, x.estrides[axis], o.estrides[axis]] + list(ksh) \
        + list(kxs) + list(kos)
    k = scan_kernel(variant, op, x.dtype, out_dtype, len(ksh))
    ptrs = [x.ptr, o.ptr, 0 if carry is None else carry.ptr]
    if variant == "block":
        launch(be, k, 0, ptrs, meta, block=block, grid=min(nlines * nseg, be.sm_count * 32))
    else:
        launch(be, k, nlines, ptrs, meta, block=block)
    return out


implementations = {op: functools.partial(scan_op, op) for op in SCANS}


def all_kernels():
    """Both scan variants of each scan for every dtype, lines over one dimension (the
    driver's ``compile_all`` compiles them)."""
    dts = sorted(DTYPES, key=lambda d: d.num)
    return [scan_kernel(variant, op, d, out_dtype_of(op, d), 1)
            for variant in ("thread", "block") for op in SCANS for d in dts]
