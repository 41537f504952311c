"""The WebGPU driver's matrix products: batched ``matmul`` (tiled in workgroup
memory; register-blocked from 16 x 16 up, see :mod:`.wgsl_matmul`) and einsum's
pairwise ``contract`` as one batched matmul.
"""
import numpy as np

from . import wgsl_matmul
from .array import F32, I32, STORE, c_strides, new, unsupported
from .context import MAX_GROUPS_X
from .elementwise import fill
from .index import reshape

implementations = {}   # op -> the driver function
_MAX_BATCH_DIMS = 6


def kernel(M, N):
    """The matmul template and its output tile for M x N products: the register-blocked
    kernel, unless one 16 x 16 tile holds the whole product (there the 64 x 64 tiles
    would compute 16 times the outputs needed: 2x slower on lavapipe for a batch of
    16 x 16 or 8 x 8 products; with M or N alone <= 16 it is still 1.6x faster)."""
    if M <= wgsl_matmul.MATMUL_TILE and N <= wgsl_matmul.MATMUL_TILE:
        return wgsl_matmul.MATMUL, wgsl_matmul.MATMUL_TILE
    return wgsl_matmul.MATMUL_RB, wgsl_matmul.MATMUL_RB_TILE


def matmul(a, b):
    """The batched product of ``a`` (..., M, K) and ``b`` (..., K, N), equal batch shapes."""
    dev = a.device
    if a.dtype != b.dtype or a.dtype not in (F32, I32):
        raise unsupported(dev, "matmul", a.dtype if a.dtype != F32 else b.dtype)
    if a.shape[:-2] != b.shape[:-2] or a.shape[-1] != b.shape[-2]:
        raise ValueError("tenferro.matmul (webgpu): shapes %s and %s do not match"
                         % (a.shape, b.shape))
    batch = a.shape[:-2]
    if len(batch) > _MAX_BATCH_DIMS:  # merge the batch axes (copies when strided)
        a = reshape(a, shape=(int(np.prod(batch)),) + a.shape[-2:])
        b = reshape(b, shape=(int(np.prod(batch)),) + b.shape[-2:])
    M, K = a.shape[-2:]
    N = b.shape[-1]
    out = new(a.shape[:-2] + (M, N), a.dtype, dev, "matmul")
    nbatch = int(np.prod(a.shape[:-2], dtype=np.int64))
    if out.size == 0 or K == 0:
        if out.size:
            fill(out, 0)
        return out.view(batch + (M, N), c_strides(batch + (M, N)), 0)
    nbd = a.ndim - 2
    pad = lambda v, f: list(v) + [f] * (_MAX_BATCH_DIMS - len(v))  # noqa: E731
    src, t = kernel(M, N)
    src = src.format(store=STORE[a.dtype], tile=t,
                     wg=wgsl_matmul.MATMUL_TILE,  # 16 x 16 threads
                     zero="0.0" if a.dtype == F32 else "0")
    ctx = out.storage.ctx
    gx, gy = -(-N // t), -(-M // t)   # column and row tiles
    head = [M, N, K, nbd]
    layout = ([a.offset, b.offset, a.estrides[-2], a.estrides[-1], b.estrides[-2],
               b.estrides[-1]]
              + pad(a.shape[:-2], 1) + pad(a.estrides[:-2], 0) + pad(b.estrides[:-2], 0))
    kc = wgsl_matmul.MATMUL_KCHUNK
    # one dispatch per block of at most 65535 workgroups in each grid dimension, and
    # per piece of K (in order: each piece adds to the previous ones' sum)
    for base in range(0, nbatch, MAX_GROUPS_X):
        for y0 in range(0, gy, MAX_GROUPS_X):
            for x0 in range(0, gx, MAX_GROUPS_X):
                for k0 in range(0, K, kc):
                    ctx.dispatch(src, [a.storage, b.storage, out.storage],
                                 head + [base] + layout + [y0, x0, k0, min(K, k0 + kc), k0],
                                 None, groups=(min(MAX_GROUPS_X, gx - x0),
                                               min(MAX_GROUPS_X, gy - y0),
                                               min(MAX_GROUPS_X, nbatch - base)))
    return out.view(batch + (M, N), c_strides(batch + (M, N)), 0)


def _contract(a, b, *, nb, nm, nk, nn):
    """einsum's pairwise step: a [batch, m.., k..] x b [batch, k.., n..] as one batched
    matmul over the merged axis groups (merging copies a non-contiguous operand)."""
    p = lambda s: int(np.prod(s, dtype=np.int64))  # noqa: E731
    B, M, K = a.shape[:nb], a.shape[nb:nb + nm], a.shape[nb + nm:]
    N = b.shape[nb + nk:]
    a3 = reshape(a, shape=(p(B), p(M), p(K)))
    b3 = reshape(b, shape=(p(B), p(K), p(N)))
    r = matmul(a3, b3)
    return r.view(B + M + N, c_strides(B + M + N), r.offset)


implementations["matmul"] = matmul
implementations["contract"] = _contract
