"""The N-d general dilated convolution primitive ``nn.conv``: its CPU kernel, its rules
and its batching rule.

``nn.conv`` (x, w; params strides, padding, lhs_dilation, rhs_dilation, groups) is JAX's
``lax.conv_general_dilated`` in PyTorch's fixed layout: x is (N, C, *spatial), w is
(O, C // groups, *kernel), the result (N, O, *out_spatial) with

    out[n, o, p] = sum_{c, k} xd[n, g(o) * C/groups + c, p * strides + k * rhs_dilation]
                              * w[o, c, k]

where xd is x with ``lhs_dilation - 1`` zeros inserted between its elements and then
padded by ``padding`` (a (lo, hi) pair per spatial axis; negative pairs crop).  No
flip: a cross-correlation, as PyTorch's and JAX's ``conv``.

The CPU kernel is im2col through a strided view: the padded input's windows, seen as a
(N, groups, C/groups, *kernel, *out_spatial) view (no copy), contracted with the kernel
by the einsum engine's pairwise step (``_matmul.contract``: BLAS, which copies the
windows once into a scratch or accumulates over their outer axes, whichever it measures
cheaper), a chunk of the batch at a time so the scratch stays small.

Both VJPs are ``nn.conv`` again (the transposed convolutions: lhs and rhs dilation and
strides trade places), so every order of derivative composes; the JVP is
conv(dx, w) + conv(x, dw).  Complex values follow tenferro's convention (the rules
conjugate the other operand, as einsum's do).
"""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from .. import _ops
from ..autograd.extend import Primitive, bind, def_batch_rule, def_impl, defjvp, defvjp
from ..batching import materialize
from ..devices.cpu import blas_kernels, threads as _threads


def dilate(size, d):
    """The length of ``size`` elements with ``d - 1`` zeros between neighbours."""
    return 0 if size == 0 else 1 + d * (size - 1)


def out_size(size, k, stride, pad, lhs_dilation=1, rhs_dilation=1):
    """The output length along one spatial axis (may be < 1 for invalid arguments)."""
    return (dilate(size, lhs_dilation) + pad[0] + pad[1] - dilate(k, rhs_dilation)) // stride + 1


def _abstract(x, w, *, strides, padding, lhs_dilation, rhs_dilation, groups):
    (xs, dt), (ws, _) = x, w
    sp = tuple(out_size(*a) for a in zip(xs[2:], ws[2:], strides, padding, lhs_dilation,
                                         rhs_dilation))
    return (xs[0], ws[0]) + sp, dt


conv_p = Primitive(
    "nn.conv", _abstract,
    doc="N-d convolution of x (N, C, *s) with w (O, C/groups, *k), PyTorch's layout "
        "(params strides, padding pairs, lhs_dilation, rhs_dilation, groups).")


# -- the CPU kernel ---------------------------------------------------------------------

_mm = blas_kernels.Lazy("_matmul", globals(), "_mm")
# elements of the windows' scratch per contract call (a chunk of the batch): chunks of
# several samples let the matmul loop run samples in parallel (~2x on 2 cores)
SCRATCH = 1 << 24


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


def _conv_cpu(x, w, *, strides, padding, lhs_dilation, rhs_dilation, groups):
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
    # (contract copies b where its inner run, C/G, is too short to split: bounded so)
    step = max(1, SCRATCH // max(1, groups * cg * int(np.prod(ks, dtype=np.int64)) * L))
    for i in range(0, n, step):
        j = min(n, i + step)
        _mm.contract(np.broadcast_to(a, (j - i,) + a.shape), b[i:j], wide[i:j, ..., :L], 2,
                     1, nsd + 1, 1, _threads.current)
    ws = wide.strides
    out[...] = as_strided(wide, out.shape, ws[:3] + tuple(f * isz for f in flat))


def_impl(conv_p, "cpu", _conv_cpu)


# -- rules ------------------------------------------------------------------------------

def _conj(x):
    return _ops.conj(x) if x.dtype.kind == "c" else x


def _vjp_lhs_padding(in_sp, ks, strides, out_sp, padding, lhs_dilation, rhs_dilation):
    # JAX jax/_src/lax/convolution.py `_conv_general_vjp_lhs_padding`
    pads = []
    for i, k, s, o, (lo, _), ld, rd in zip(in_sp, ks, strides, out_sp, padding,
                                           lhs_dilation, rhs_dilation):
        before = dilate(k, rd) - lo - 1
        pads.append((before, dilate(i, ld) + dilate(k, rd) - 1 - dilate(o, s) - before))
    return tuple(pads)


def _vjp_rhs_padding(in_sp, ks, strides, out_sp, padding, lhs_dilation, rhs_dilation):
    # JAX jax/_src/lax/convolution.py `_conv_general_vjp_rhs_padding`
    return tuple((lo, dilate(o, s) - dilate(i, ld) + dilate(k, rd) - lo - 1)
                 for i, k, s, o, (lo, _), ld, rd in zip(in_sp, ks, strides, out_sp, padding,
                                                        lhs_dilation, rhs_dilation))


def _conv_vjp_x(ct, x, w, *, out, strides, padding, lhs_dilation, rhs_dilation, groups):
    # JAX jax/_src/lax/convolution.py `_conv_general_dilated_transpose_lhs`: the
    # transposed convolution of ct with the flipped kernel, its (O, C/G) roles swapped
    # within each group; strides and lhs_dilation trade places
    (o, cg), ks, nsd = w.shape[:2], w.shape[2:], w.ndim - 2
    wt = _ops.reshape(_conj(w), (groups, o // groups, cg) + ks)
    wt = _ops.reshape(_ops.permute_dims(wt, (0, 2, 1) + tuple(range(3, 3 + nsd))),
                      (groups * cg, o // groups) + ks)
    wt = _ops.flip(wt, tuple(range(2, 2 + nsd)))
    pads = _vjp_lhs_padding(x.shape[2:], ks, strides, ct.shape[2:], padding, lhs_dilation,
                            rhs_dilation)
    return conv_p.bind(ct, wt, strides=lhs_dilation, padding=pads, lhs_dilation=strides,
                       rhs_dilation=rhs_dilation, groups=groups)


def _conv_vjp_w(ct, x, w, *, out, strides, padding, lhs_dilation, rhs_dilation, groups):
    # JAX jax/_src/lax/convolution.py `_conv_general_dilated_transpose_rhs`: x's channels
    # within a group become the batch and its batch the features (JAX's batch grouping,
    # written as feature grouping over (group, sample)); ct is the kernel (O, N, *out);
    # strides and rhs_dilation trade places
    (n, c), sp, nsd = x.shape[:2], x.shape[2:], x.ndim - 2
    cg, swap = c // groups, (1, 0) + tuple(range(2, 2 + nsd))
    xt = _ops.reshape(_conj(x), (n, groups, cg) + sp)
    xt = _ops.permute_dims(xt, (2, 1, 0) + tuple(range(3, 3 + nsd)))
    xt = _ops.reshape(xt, (cg, groups * n) + sp)
    pads = _vjp_rhs_padding(sp, w.shape[2:], strides, ct.shape[2:], padding, lhs_dilation,
                            rhs_dilation)
    r = conv_p.bind(xt, _ops.permute_dims(ct, swap), strides=rhs_dilation, padding=pads, lhs_dilation=lhs_dilation,
                    rhs_dilation=strides, groups=groups)
    return _ops.permute_dims(r, swap)


defjvp(conv_p, lambda t, x, w, *, out, **p: conv_p.bind(t, w, **p),
       lambda t, x, w, *, out, **p: conv_p.bind(x, t, **p))
defvjp(conv_p, _conv_vjp_x, _conv_vjp_w)


# -- vmap ---------------------------------------------------------------------------------

def _conv_batch(args, batched, params, size):
    """A batched x only: the batch joins N.  A batched kernel: the batch joins the groups
    (x's examples side by side as channels), and is split off the output channels."""
    (x, w), (bx, bw) = args, batched
    if size == 0:   # no example to lay side by side (JAX returns zeros too)
        shape, dtype = _abstract((x.shape[bx:], x.dtype), (w.shape[bw:], w.dtype), **params)
        return _ops.zeros((0,) + shape, dtype=dtype)
    if not bw:
        y = bind(conv_p, (_ops.reshape(x, (-1,) + x.shape[2:]), w), params)
        return _ops.reshape(y, (size, x.shape[1]) + y.shape[1:])
    x = materialize(x, bx, size)
    nsd = x.ndim - 3
    xs = _ops.permute_dims(x, (1, 0) + tuple(range(2, x.ndim)))
    xs = _ops.reshape(xs, (x.shape[1], -1) + x.shape[3:])
    y = bind(conv_p, (xs, _ops.reshape(w, (-1,) + w.shape[2:])),
             dict(params, groups=params["groups"] * size))
    y = _ops.reshape(y, (y.shape[0], size, w.shape[1]) + y.shape[2:])
    return _ops.permute_dims(y, (1, 0) + tuple(range(2, 3 + nsd)))


def_batch_rule(conv_p, _conv_batch)
