"""The CUDA driver's matrix products: ``matmul`` (batched, equal batch shapes) and
einsum's pairwise step ``contract``, with the CPU's parameters and semantics.

float32/float64/complex64/complex128 go to cuBLAS (``gemm``, ``gemm_strided_batched``
through :mod:`.libs`).  Tensors are row-major and cuBLAS is column-major, so the
product is computed as its transpose, C^T = B^T A^T: a row-major C [M, N] is the
column-major C^T, and each operand is handed over as it lies -- a row-major matrix as
the transpose it is to cuBLAS (``N``), a column-major one with ``T`` -- with its row or
column stride as the leading dimension; only an operand that is neither (negative,
zero or interleaved strides) is copied.  Batch dimensions are merged where the three
arrays step through them as one, the innermost becomes the strided batch (stride 0
for a broadcast operand) and the rest a loop.

int32/int64/bool have no cuBLAS routine: :func:`int_kernel` is a 16 x 16-tiled GEMM in
shared memory that reads any strides, accumulates integers in unsigned arithmetic
(NumPy's wraparound) and bools as an or of ands, as the CPU's exact kernels do.
"""
import functools
import itertools
import math


from ... import _dtypes
from ..._errors import UnsupportedOperation
from .._layout import c_strides, coalesce
from . import libs
from .array import new
from .cmath import CTYPE
from .elementwise import contiguous_copy
from .kernels import kernel, launch

implementations = {}   # op -> the driver function

BLAS_DTYPES = frozenset({_dtypes.float32, _dtypes.float64, _dtypes.complex64,
                         _dtypes.complex128})
TILE = 16
_ACC = {_dtypes.int32: "unsigned int", _dtypes.int64: "unsigned long long"}
_BATCH_AT = 9          # the int kernel's batch dimensions start at this meta word


# -- layouts ------------------------------------------------------------------------------

def fold(shape, strides):
    """``(size, stride)`` when the axes ``shape`` (element ``strides``) can be walked as
    one axis in C order (size-1 axes ignored), else None."""
    cs, (st,) = coalesce(shape, [strides])
    if len(cs) > 1:
        return None
    return math.prod(shape), (st[0] if cs else 0)


def grouped(x, nb, groups):
    """``x`` [batch (nb axes), g0.., g1..] as a view [batch, G0, G1], each group of
    axes (``groups``: their numbers) folded into one; ``x`` is copied to C order first
    when a group does not fold."""
    bshape, bstr = x.shape[:nb], x.estrides[:nb]
    dims, at = [], nb
    for g in groups:
        f = fold(x.shape[at:at + g], x.estrides[at:at + g])
        if f is None:
            return grouped(contiguous_copy(x), nb, groups)
        dims.append(f)
        at += g
    return x.view(bshape + tuple(d[0] for d in dims), bstr + tuple(d[1] for d in dims),
                  x.offset)


def blas_operand(rows, cols, srow, scol):
    """How cuBLAS reads the ``rows`` x ``cols`` matrix with element strides ``(srow,
    scol)`` as the transpose of itself: ``(OP_N, ld)`` when it is row-major (its memory,
    column-major, is the transpose), ``(OP_T, ld)`` when it is column-major, None when
    it is neither (it must be copied)."""
    if (scol == 1 or cols == 1) and (rows == 1 or srow >= max(1, cols)):
        op, ld = libs.OP_N, (srow if rows > 1 else max(1, cols))
    elif (srow == 1 or rows == 1) and (cols == 1 or scol >= max(1, rows)):
        op, ld = libs.OP_T, (scol if cols > 1 else max(1, rows))
    else:
        return None
    return (op, ld) if ld <= libs.INT32_MAX else None   # (a copy has a small ld)


def _blas_ready(x):
    """``(x, op, ld)``: ``x`` [..., r, c] (copied to C order when cuBLAS cannot read its
    matrices in place) and how cuBLAS reads it (:func:`blas_operand`)."""
    r, c = x.shape[-2:]
    how = blas_operand(r, c, *x.estrides[-2:])
    if how is None:
        x = contiguous_copy(x)
        how = blas_operand(r, c, *x.estrides[-2:])
    return (x,) + how


# -- cuBLAS ---------------------------------------------------------------------------------

def _gemm(a, b, out):
    """out[..., M, N] (C-contiguous) = a[..., M, K] @ b[..., K, N] by cuBLAS."""
    M, K = a.shape[-2:]
    N = b.shape[-1]
    a, opa, lda = _blas_ready(a)
    b, opb, ldb = _blas_ready(b)
    dt = out.dtype
    isz = dt.itemsize
    lib = libs.get(out.storage.backend)
    bshape, bstr = coalesce(out.shape[:-2], [a.estrides[:-2], b.estrides[:-2],
                                             out.estrides[:-2]])
    if not bshape:   # one product: C^T [N, M] = B^T A^T
        lib.gemm(dt, opb, opa, N, M, K, b.ptr, ldb, a.ptr, lda, out.ptr, N)
        return
    (sa, sb, sc) = (s[-1] for s in bstr)
    for idx in itertools.product(*map(range, bshape[:-1])):
        oa, ob, oc = (sum(i * s for i, s in zip(idx, st)) * isz for st in bstr)
        lib.gemm_strided_batched(dt, opb, opa, N, M, K, b.ptr + ob, ldb, sb, a.ptr + oa,
                                 lda, sa, out.ptr + oc, N, sc, bshape[-1])


# -- the integer and bool kernel ----------------------------------------------------------

@functools.lru_cache(maxsize=None)
def int_kernel(dtype):
    """The tiled GEMM kernel for int32, int64 or bool.  Words: a, b, out (C-contiguous);
    M, N, K, the batch count, the number of batch dims, a's and b's row and column
    strides, then per batch dim its size, a's and b's strides."""
    t = CTYPE[dtype]
    if dtype == _dtypes.bool_:
        acc, step = "bool", "s = s || (As[ty][kk] && Bs[kk][tx]);"
    else:
        acc = _ACC[dtype]
        step = "s += (%s)As[ty][kk] * (%s)Bs[kk][tx];" % (acc, acc)
    body = r"""
    const long long M = p.m[0], N = p.m[1], K = p.m[2], nbatch = p.m[3], nbd = p.m[4];
    const long long sam = p.m[5], sak = p.m[6], sbk = p.m[7], sbn = p.m[8];
    __shared__ T As[TILE][TILE + 1];
    __shared__ T Bs[TILE][TILE + 1];
    const int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
    const long long tm = (M + TILE - 1) / TILE, tn = (N + TILE - 1) / TILE;
    const long long per = tm * tn;
    for (long long t = blockIdx.x; t < nbatch * per; t += gridDim.x) {
        const long long bi = t / per, r = t % per;
        const long long i = (r / tn) * TILE + ty, j = (r % tn) * TILE + tx;
        long long oa = 0, ob = 0, rest = bi;
        for (long long d = nbd - 1; d >= 0; --d) {
            const long long n = p.m[BATCH + 3 * d], c = rest % n;
            rest /= n;
            oa += c * p.m[BATCH + 3 * d + 1];
            ob += c * p.m[BATCH + 3 * d + 2];
        }
        const T* A = (const T*)p.p[0] + oa;
        const T* B = (const T*)p.p[1] + ob;
        ACC s = 0;
        for (long long k0 = 0; k0 < K; k0 += TILE) {
            const long long ka = k0 + tx, kb = k0 + ty;
            As[ty][tx] = (i < M && ka < K) ? A[i * sam + ka * sak] : (T)0;
            Bs[ty][tx] = (kb < K && j < N) ? B[kb * sbk + j * sbn] : (T)0;
            __syncthreads();
            for (int kk = 0; kk < TILE; ++kk) { STEP }
            __syncthreads();
        }
        if (i < M && j < N) ((T*)p.p[2])[bi * M * N + i * N + j] = (T)s;
    }
"""
    body = (body.replace("STEP", step).replace("ACC", acc).replace("BATCH", str(_BATCH_AT))
            .replace("TILE", str(TILE)))
    body = "    typedef %s T;\n%s" % (t, body)
    return kernel("k_matmul_%s" % dtype.name, body, 3, _BATCH_AT + 3 * 16, barrier=True)


def all_kernels():
    """The integer and bool GEMM kernels (for ``compile_all``)."""
    return [int_kernel(d) for d in (_dtypes.int32, _dtypes.int64, _dtypes.bool_)]


def _int_gemm(a, b, out):
    """out[..., M, N] = a @ b with :func:`int_kernel` (any strides)."""
    M, K = a.shape[-2:]
    N = b.shape[-1]
    bshape, (sa, sb) = coalesce(a.shape[:-2], [a.estrides[:-2], b.estrides[:-2]])
    if len(bshape) > 16:
        raise ValueError("tenferro.matmul (cuda): more than 16 batch dimensions that "
                         "cannot be merged")
    nbatch = math.prod(bshape)
    meta = [M, N, K, nbatch, len(bshape), a.estrides[-2], a.estrides[-1],
            b.estrides[-2], b.estrides[-1]]
    for n, x, y in zip(bshape, sa, sb):
        meta += [n, x, y]
    be = out.storage.backend
    tiles = nbatch * -(-M // TILE) * -(-N // TILE)
    launch(be, int_kernel(out.dtype), tiles, [a.ptr, b.ptr, out.ptr], meta,
           block=TILE * TILE, grid=int(min(tiles, be.sm_count * 8)))


# -- the primitives -------------------------------------------------------------------------

def _product(op, a, b, out):
    """out [batch, M, N] (C-contiguous) = a [batch, M, K] @ b [batch, K, N]."""
    if a.dtype != b.dtype:
        raise TypeError("tenferro.%s (cuda): operands must share a dtype, got %s and %s"
                        % (op, a.dtype, b.dtype))
    if out.size == 0:
        return
    if a.shape[-1] == 0:
        be = out.storage.backend
        be.memset(out.ptr, out.size * out.dtype.itemsize)
    elif a.dtype in BLAS_DTYPES:
        _gemm(a, b, out)
    elif a.dtype in _ACC or a.dtype == _dtypes.bool_:
        _int_gemm(a, b, out)
    else:
        raise UnsupportedOperation(a.device, op, a.dtype)


def matmul(a, b):
    """The batched product of ``a`` [..., M, K] and ``b`` [..., K, N] (equal batch
    shapes)."""
    if a.ndim < 2 or a.shape[:-2] != b.shape[:-2] or a.shape[-1] != b.shape[-2]:
        raise ValueError("tenferro.matmul (cuda): shapes %s and %s do not match"
                         % (a.shape, b.shape))
    out = new(a.shape[:-1] + b.shape[-1:], a.dtype, a.device, "matmul")
    _product("matmul", a, b, out)
    return out


def contract(a, b, *, nb, nm, nk, nn):
    """einsum's pairwise step: out[b.., m.., n..] = sum over k.. of a[b.., m.., k..]
    b[b.., k.., n..], each group of axes folded into one matrix dimension (an operand
    whose group does not fold is copied to C order first)."""
    shape = a.shape[:nb + nm] + b.shape[nb + nk:]
    out = new(shape, a.dtype, a.device, "contract")
    a3, b3 = grouped(a, nb, (nm, nk)), grouped(b, nb, (nk, nn))
    o3 = (a3.shape[:-2] + (a3.shape[-2], b3.shape[-1]))
    _product("contract", a3, b3, out.view(o3, c_strides(o3), 0))
    return out


implementations["matmul"] = matmul
implementations["contract"] = contract
