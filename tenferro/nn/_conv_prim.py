"""The N-d general dilated convolution primitive ``nn.conv``: its shape rule, its rules
and its batching rule.

``nn.conv`` (x, w; params strides, padding, lhs_dilation, rhs_dilation, groups) is JAX's
``lax.conv_general_dilated`` in PyTorch's fixed layout: x is (N, C, *spatial), w is
(O, C // groups, *kernel), the result (N, O, *out_spatial) with

    out[n, o, p] = sum_{c, k} xd[n, g(o) * C/groups + c, p * strides + k * rhs_dilation]
                              * w[o, c, k]

where xd is x with ``lhs_dilation - 1`` zeros inserted between its elements and then
padded by ``padding`` (a (lo, hi) pair per spatial axis; negative pairs crop).  No
flip: a cross-correlation, as PyTorch's and JAX's ``conv``.

The CPU kernel (``_conv_cpu``) contracts strided views of the padded input with the
kernel through the einsum engine's BLAS step, or runs a direct kernel where groups
have few channels.

Both VJPs are ``nn.conv`` again (the transposed convolutions: lhs and rhs dilation and
strides trade places), so every order of derivative composes; the JVP is
conv(dx, w) + conv(x, dw).  Complex values follow tenferro's convention (the rules
conjugate the other operand, as einsum's do).
"""
from .. import _ops
from ..autograd.extend import Primitive, bind, def_batch_rule, def_impl, defjvp, defvjp
from ..batching import materialize
from ._conv_cpu import conv_cpu, dilate, out_size


def _abstract(x, w, *, strides, padding, lhs_dilation, rhs_dilation, groups):
    (xs, dt), (ws, _) = x, w
    sp = tuple(out_size(*a) for a in zip(xs[2:], ws[2:], strides, padding, lhs_dilation,
                                         rhs_dilation))
    return (xs[0], ws[0]) + sp, dt


conv_p = Primitive(
    "nn.conv", _abstract,
    doc="N-d convolution of x (N, C, *s) with w (O, C/groups, *k), PyTorch's layout "
        "(params strides, padding pairs, lhs_dilation, rhs_dilation, groups).")


def_impl(conv_p, "cpu", conv_cpu)


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
    r = conv_p.bind(xt, _ops.permute_dims(ct, swap), strides=rhs_dilation, padding=pads,
                    lhs_dilation=lhs_dilation, rhs_dilation=strides, groups=groups)
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
