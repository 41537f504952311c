"""The CPU kernel of ``nn.conv`` (``_conv_prim``): contractions of strided views of the
padded input with the kernel by the einsum engine's pairwise step (``_matmul.contract``:
BLAS on strided operands, which splits a group that does not fold into accumulated
products or copies the operand once, whichever it measures cheaper), or, for 1-d and
2-d convolutions with few channels per group (depthwise ones and their gradients,
``_use_direct``), the direct kernel ``_kernels/_conv.pyx`` (``_direct``).

Three BLAS schedules (docs/nn.md, "How it runs"): unit strides contract shifted runs of the
flattened input in place (``_shifted``); few outputs from a large kernel, a weight's
gradient, take the kernel as one run (``_kernel_runs``); strided convolutions contract
the windows' view, im2col (``_im2col``).  A dilated input with unit strides, an input's
gradient, is split into its phases (``_phases``) instead of convolving zeros.
"""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from .._kernels import _conv as _direct_kernel
from ..devices.cpu import blas_kernels, threads as _threads


def dilate(size, d):
    """The length of ``size`` elements with ``d - 1`` zeros between neighbours."""
    return 0 if size == 0 else 1 + d * (size - 1)


def out_size(size, k, stride, pad, lhs_dilation=1, rhs_dilation=1):
    """The output length along one spatial axis (may be < 1 for invalid arguments)."""
    return (dilate(size, lhs_dilation) + pad[0] + pad[1] - dilate(k, rhs_dilation)) // stride + 1


_mm = blas_kernels.Lazy("_matmul", globals(), "_mm")
# elements of the windows' scratch per contract call (a chunk of the batch): chunks of
# several samples let the matmul loop run samples in parallel (~2x on 2 cores)
SCRATCH = 1 << 24
SPLIT_MIN = 4   # _matmul.contract splits a K group whose inner run has this many elements
# the direct kernel's channels per group (_use_direct; measured against the BLAS
# schedules, one thread, float32 8x64x56x56 k3: depthwise 3x faster at stride 1, 2.4x
# at stride 2; even at 1 in, 4 out; BLAS 2x faster from 4 in, 1 out at stride 1)
DIRECT_OUT = 2
DIRECT_IN = 2
FORCE = None    # "direct" or "blas": the schedule wherever the direct kernel can run


def _dilate_pad(x, padding, lhs_dilation):
    """x's spatial axes dilated then padded (negative pads crop): a NumPy array."""
    if all(d == 1 for d in lhs_dilation) and all(lo == hi == 0 for lo, hi in padding):
        return x
    sizes = [dilate(s, d) for s, d in zip(x.shape[2:], lhs_dilation)]
    full = tuple(max(lo, 0) + n + max(hi, 0) for n, (lo, hi) in zip(sizes, padding))
    out = np.zeros(x.shape[:2] + full, x.dtype)
    put = tuple(slice(max(lo, 0), max(lo, 0) + n, d)
                for n, (lo, _), d in zip(sizes, padding, lhs_dilation))
    out[(Ellipsis,) + put] = x
    crop = tuple(slice(max(-lo, 0), f - max(-hi, 0)) for f, (lo, hi) in zip(full, padding))
    return out[(Ellipsis,) + crop]


def conv_cpu(x, w, *, strides, padding, lhs_dilation, rhs_dilation, groups):
    """``nn.conv``'s CPU implementation (NumPy arrays in and out)."""
    if _use_direct(x, w, strides, padding, lhs_dilation, rhs_dilation, groups):
        return _direct(x, w, strides, padding, lhs_dilation, rhs_dilation)
    if any(d > 1 for d in lhs_dilation) and all(s == 1 for s in strides):
        return _phases(x, w, padding, lhs_dilation, rhs_dilation, groups)
    (n, _), (o, cg), ks = x.shape[:2], w.shape[:2], w.shape[2:]
    xp = _dilate_pad(x, padding, lhs_dilation)
    osp = tuple((p - dilate(k, d)) // s + 1
                for p, k, d, s in zip(xp.shape[2:], ks, rhs_dilation, strides))
    out = np.empty((n, groups, o // groups) + osp, np.result_type(x, w))
    wg = w.reshape((groups, o // groups, cg) + ks)
    if out.size:
        if (np.prod(osp) < np.prod(ks) and all(d == 1 for d in rhs_dilation)
                and 0 not in ks):
            conv = _kernel_runs     # few outputs, a large kernel: a weight's gradient
        elif all(s == 1 for s in strides) and 0 not in ks:
            conv = _shifted
        else:
            conv = _im2col
        conv(xp, wg, out, ks, rhs_dilation, strides)
    return out.reshape((n, o) + osp)


def _use_direct(x, w, strides, padding, lhs_dilation, rhs_dilation, groups):
    """Whether the direct kernel runs this convolution: a 1-d or 2-d one with at most
    ``DIRECT_OUT`` output channels per group (BLAS would multiply matrices of a row or
    two) and at most ``DIRECT_IN`` input channels per group, or any number of them
    where BLAS does worse still: strided windows (an im2col copy), few outputs from a
    large kernel (a depthwise weight's gradient: a matrix-vector product).  Only the
    dtypes it has loops for.  ``FORCE`` ("direct" or "blas") overrides the choice where
    the direct kernel can run it (tests compare the two)."""
    if (x.ndim not in (3, 4) or x.dtype != w.dtype or x.dtype.char not in "fdFD"
            or w.shape[1] == 0):
        return False
    if FORCE is not None:
        return FORCE == "direct"
    cg, og, ks = w.shape[1], w.shape[0] // max(groups, 1), w.shape[2:]
    if og > DIRECT_OUT:
        return False
    if cg <= DIRECT_IN or any(s > 1 for s in strides):
        return True
    osp = [out_size(*a) for a in zip(x.shape[2:], ks, strides, padding, lhs_dilation,
                                     rhs_dilation)]
    return np.prod(osp) < np.prod(ks)


def _direct(x, w, strides, padding, lhs_dilation, rhs_dilation):
    """The direct kernel (``_kernels/_conv.pyx``), a 1-d convolution as a 2-d one of
    height 1.  The kernel reads padding and input dilation as zeros, except for a
    dilated input with strides (rare: dilated and padded in memory here)."""
    osp = tuple(out_size(*a) for a in zip(x.shape[2:], w.shape[2:], strides, padding,
                                          lhs_dilation, rhs_dilation))
    lo = tuple(a for a, _ in padding)
    if any(d > 1 for d in lhs_dilation) and any(s > 1 for s in strides):
        x, lo = _dilate_pad(x, padding, lhs_dilation), (0,) * len(osp)
        lhs_dilation = (1,) * len(osp)
    out = np.empty(x.shape[:1] + w.shape[:1] + osp, x.dtype)
    if len(osp) == 1:
        x, w, o, lo = x[:, :, None], w[:, :, None], out[:, :, None], (0,) + lo
        strides, rhs_dilation, lhs_dilation = ((1,) + tuple(a) for a in (
            strides, rhs_dilation, lhs_dilation))
    else:
        o = out
    if any(s % x.itemsize for s in x.strides):   # (unaligned views)
        x = np.ascontiguousarray(x)
    _direct_kernel.conv2d(x, w, o, tuple(strides), tuple(rhs_dilation), tuple(lo),
                          tuple(lhs_dilation), _threads.current)
    return out


def _im2col(xp, wg, out, ks, rhs_dilation, strides):
    """The contraction with the windows of every output position, a (N, G, C/G,
    *kernel, *out) view (copied once per batch chunk by contract: im2col)."""
    (n, groups, _), cg, osp, st = out.shape[:3], wg.shape[2], out.shape[3:], xp.strides
    win = as_strided(xp, (n, groups, cg) + ks + osp,
                     (st[0], cg * st[1], st[1])
                     + tuple(s * d for s, d in zip(st[2:], rhs_dilation))
                     + tuple(s * t for s, t in zip(st[2:], strides)), writeable=False)
    per_sample = max(1, cg * groups * int(np.prod(ks + osp, dtype=np.int64)))
    step = max(1, SCRATCH // per_sample)
    for i in range(0, n, step):
        j = min(n, i + step)
        _mm.contract(np.broadcast_to(wg, (j - i,) + wg.shape), win[i:i + step],
                     out[i:j], 2, 1, 1 + len(ks), len(ks), _threads.current)


def _flat(psp):
    """The element strides of a C-contiguous array of shape ``psp``."""
    return [int(np.prod(psp[i + 1:], dtype=np.int64)) for i in range(len(psp))]


def _kernel_runs(xp, wg, out, ks, rhs_dilation, strides):
    """Few output positions, a large undilated kernel (the transposed convolution that
    gives a weight's gradient): per output position, the kernel's elements are one run
    of the padded input flattened per channel, so the kernel is zero-padded to that
    run's layout (the padding columns) and the conv's batch joins the product's M
    axis: out[n, o, p] = sum_{c, r} x_flat[n, c, p_offset + r] * w_wide[o, c, r]."""
    xp = np.ascontiguousarray(xp)
    (n, groups, og), cg, osp = out.shape[:3], wg.shape[2], out.shape[3:]
    flat, isz, nsd = _flat(xp.shape[2:]), xp.itemsize, len(ks)
    L = sum((k - 1) * f for k, f in zip(ks, flat)) + 1
    wide = np.zeros((groups, cg, L, og), out.dtype)   # (G, C/G, run, O/G)
    as_strided(wide, (groups, cg) + ks + (og,),
               wide.strides[:2] + tuple(f * wide.strides[2] for f in flat)
               + wide.strides[3:])[...] = \
        np.moveaxis(wg, 1, -1)
    a = as_strided(xp, (groups, n) + osp + (cg, L),
                   (cg * xp.strides[1], xp.strides[0])
                   + tuple(s * f * isz for s, f in zip(strides, flat))
                   + (xp.strides[1], isz), writeable=False)
    res = np.moveaxis(out, 2, -1).transpose((1, 0) + tuple(range(2, 3 + nsd)))
    _mm.contract(a, wide, res, 1, 1 + nsd, 2, 1, _threads.current)


def _shifted(xp, wg, out, ks, rhs_dilation, strides):
    """Unit strides, no copy of the input: over the padded input flattened per channel,
    the output positions are one run of L elements (each spatial row followed by the
    padding columns, computed and dropped), and each kernel offset shifts that run.  So
    the kernel offsets are outer K axes of the contraction, which contract sums by
    accumulating BLAS products (beta 1) over in-place operands."""
    xp = np.ascontiguousarray(xp)
    (n, groups, og), cg, osp = out.shape[:3], wg.shape[2], out.shape[3:]
    psp, isz = xp.shape[2:], xp.itemsize
    flat = _flat(psp)
    L = sum((o - 1) * f for o, f in zip(osp, flat)) + 1
    b = as_strided(xp, (n, groups) + ks + (cg, L),
                   (xp.strides[0], cg * xp.strides[1])
                   + tuple(d * f * isz for d, f in zip(rhs_dilation, flat))
                   + (xp.strides[1], isz), writeable=False)
    nsd = len(ks)
    a = np.ascontiguousarray(np.moveaxis(wg, 2, -1))   # (G, O/G, *kernel, C/G)
    wide = np.empty((n, groups, og, int(np.prod(psp, dtype=np.int64))), out.dtype)
    # contract copies b where its inner run, C/G, is too short to split (K_SPLIT_MIN in
    # _matmul.pyx.tp): then a chunk of the batch at a time; else the whole batch, whose
    # samples run in parallel
    step = n if cg >= SPLIT_MIN else max(1, SCRATCH // max(1, groups * cg * int(np.prod(
        ks, dtype=np.int64)) * L))
    for i in range(0, n, step):
        j = min(n, i + step)
        _mm.contract(np.broadcast_to(a, (j - i,) + a.shape), b[i:j], wide[i:j, ..., :L], 2,
                     1, nsd + 1, 1, _threads.current)
    ws = wide.strides
    out[...] = as_strided(wide, out.shape, ws[:3] + tuple(f * isz for f in flat))


def _phases(x, w, padding, lhs_dilation, rhs_dilation, groups):
    """A unit-stride convolution of x dilated by D (the transposed convolution that
    gives a strided convolution's input gradient) without its zeros: the outputs
    p = r + D q of one phase r meet x only through the taps k with
    r + k d - lo = 0 (mod D), every (D / gcd(d, D))-th tap from the first k0, at
    x[q + c0 + t d / gcd]: a plain convolution with that sub-kernel, dilation d / gcd
    and padding -c0, written into out[..., r::D].  D^ndim of them do 1/D^ndim of the
    work each."""
    (n, _), o, ks, sp = x.shape[:2], w.shape[0], w.shape[2:], x.shape[2:]
    osp = tuple(dilate(s, ld) + lo + hi - dilate(k, d) + 1 for s, ld, (lo, hi), k, d in
                zip(sp, lhs_dilation, padding, ks, rhs_dilation))
    out = np.zeros((n, o) + osp, np.result_type(x, w))
    per_axis = []
    for s, D, (lo, _), k, d, on in zip(sp, lhs_dilation, padding, ks, rhs_dilation, osp):
        step = D // np.gcd(d, D)
        axis = []
        for r in range(min(D, on)):
            taps = [t for t in range(min(step, k)) if (r + t * d - lo) % D == 0]
            if taps:   # (none: that phase of the output is zero)
                k0 = taps[0]
                c0 = (r + k0 * d - lo) // D
                kn = len(range(k0, k, step))
                count = len(range(r, on, D))
                pad = (-c0, count - 1 + dilate(kn, d // np.gcd(d, D)) - s + c0)
                axis.append((slice(r, None, D), slice(k0, None, step), pad, d // np.gcd(d, D)))
        per_axis.append(axis)
    for combo in np.ndindex(*(len(a) for a in per_axis)):
        parts = [a[i] for a, i in zip(per_axis, combo)]
        xi, pads = x, tuple(p[2] for p in parts)
        if any(s + lo <= 0 or s + hi <= 0 for s, (lo, hi) in zip(sp, pads)):
            continue   # the sub-kernel's windows miss x entirely: zeros
        out[(Ellipsis,) + tuple(p[0] for p in parts)] = conv_cpu(
            xi, w[(Ellipsis,) + tuple(p[1] for p in parts)], strides=(1,) * len(sp),
            padding=pads, lhs_dilation=(1,) * len(sp),
            rhs_dilation=tuple(p[3] for p in parts), groups=groups)
    return out
