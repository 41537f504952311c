"""tenferro's CUDA device beside CuPy and PyTorch on CUDA (``CUDA_LIBS``), the cases of
issue 18: ``x + y`` and ``x*y + sin(x)`` on 1e8 float32 elements (eager; and as a
compiled program: ``tenferro.jit``'s one fused kernel, ``torch.compile``, ``cupy.fuse``),
an 18-op tanh chain compiled the same ways, sums of an 8192^2 float32 matrix (all, over
axis 0, over axis 1), matmul (4096^2, float32 and float64) and a batched einsum
against cuBLAS (PyTorch's matmul is the cuBLAS reference), batched small eigh and
cholesky (4096 matrices of 16x16, float64), and the per-op overhead (100 adds of 3
elements, one sync at the end).

Every case skips (NotImplementedError) without a CUDA GPU -- the simulator
(``TENFERRO_CUDA_SIMULATOR=1``) is no GPU -- and each lib without its package; a
tenferro case whose op the CUDA driver lacks skips naming it.  Timed bodies end with
:func:`sync`, so queued device work is included.
"""
import functools

import numpy as np

from .common import FactoryBench, axis_kw, get_array, torch_or_none

torch_or_none()   # imported before asv forks (see bench_webgpu)

CUDA_LIBS = ["tenferro-cuda", "cupy", "torch-cuda"]
F32, F64 = "float32", "float64"
BIG = 10**8
SQUARE = (8192, 8192)
TINY_REPEAT = 100

ELEMENTWISE = ["x + y, 1e8", "x*y + sin(x), 1e8"]
COMPILED = ["x*y + sin(x), 1e8, compiled", "tanh chain (18 ops), 1e7, compiled"]
REDUCTIONS = ["sum, 8192^2", "sum axis=0, 8192^2", "sum axis=1, 8192^2"]
MATMULS = ["matmul 4096 float32", "matmul 4096 float64",
           "einsum bij,bjk->bik 128x256^2 float32"]
LINALG = ["eigh 4096x(16x16) float64", "cholesky 4096x(16x16) float64"]
OVERHEAD = ["x + y, 3 elements, x%d" % TINY_REPEAT]
CASES = ELEMENTWISE + COMPILED + REDUCTIONS + MATMULS + LINALG + OVERHEAD


@functools.lru_cache(maxsize=None)
def cuda_device():
    """tenferro's ``cuda:0`` on a real GPU; NotImplementedError naming why not."""
    import tenferro as tf
    from tenferro.devices.cuda import backend

    if backend.simulated():
        raise NotImplementedError("TENFERRO_CUDA_SIMULATOR is set: the simulator is no GPU")
    drv = tf.devices.get_driver("cuda")
    if drv.device_count() == 0:
        raise NotImplementedError("no CUDA device: %s" % drv.unavailable_reason())
    return tf.device("cuda")


def module(lib):
    """The array namespace of ``lib`` (NotImplementedError where it or the GPU is absent)."""
    cuda_device()
    if lib == "tenferro-cuda":
        import tenferro as tf
        return tf
    if lib == "cupy":
        try:
            import cupy
        except ImportError:
            raise NotImplementedError("CuPy is not installed") from None
        return cupy
    torch = torch_or_none()
    if torch is None or not torch.cuda.is_available():
        raise NotImplementedError("PyTorch with CUDA is not available")
    return torch


def convert(a, lib):
    xp = module(lib)
    if lib == "tenferro-cuda":
        return xp.asarray(a, device=cuda_device())
    if lib == "cupy":
        return xp.asarray(a)
    return xp.from_numpy(np.array(a)).cuda()


def sync(r, lib):
    """Wait for ``lib``'s queued GPU work; returns ``r``."""
    if lib == "tenferro-cuda":
        from tenferro.devices import cuda
        cuda.synchronize()
    elif lib == "cupy":
        module(lib).cuda.Device().synchronize()
    else:
        module(lib).cuda.synchronize()
    return r


def to_numpy(r, lib):
    if lib == "tenferro-cuda":
        return r.to("cpu").numpy()
    if lib == "cupy":
        return module(lib).asnumpy(r)
    return r.cpu().numpy()


def program(xp, case):
    """The function of a COMPILED case over the namespace ``xp``."""
    if case.startswith("x*y"):
        return lambda x, y: x * y + xp.sin(x)

    def chain(x, y):
        t = x * y
        for _ in range(4):
            t = xp.tanh(t) * x + y - 0.5
        return t * 2.0
    return chain


def _spd(batch, n):
    a = get_array((batch, n, n), F64, seed=21)
    return np.ascontiguousarray(a @ a.transpose(0, 2, 1) + n * np.eye(n))


def inputs(case):
    """The NumPy inputs of ``case`` (seeded, shared by every lib)."""
    if case in ELEMENTWISE or case.startswith("x*y"):
        return [get_array(BIG, F32, seed=1), get_array(BIG, F32, seed=2)]
    if case in COMPILED:
        return [get_array(BIG // 10, F32, seed=1), get_array(BIG // 10, F32, seed=2)]
    if case in REDUCTIONS:
        return [get_array(SQUARE, F32, seed=6)]
    if case in MATMULS:
        dt = case.rpartition(" ")[2]
        shape = (128, 256, 256) if case.startswith("einsum") else (4096, 4096)
        return [get_array(shape, dt, seed=9), get_array(shape, dt, seed=10)]
    if case in LINALG:
        return [_spd(4096, 16)]
    return [get_array(3, F32, seed=4), get_array(3, F32, seed=5)]


def _compiled(lib, xp, case):
    f = program(xp, case)
    if lib == "tenferro-cuda":
        return xp.jit(f)
    if lib == "cupy":
        return xp.fuse(f)
    return xp.compile(f)


def _body(lib, xp, case, args):
    if case in COMPILED:
        f = _compiled(lib, xp, case)
        return lambda: f(*args)
    if case in ELEMENTWISE:
        x, y = args
        return (lambda: x + y) if case.startswith("x + y") else (lambda: x * y + xp.sin(x))
    if case in REDUCTIONS:
        (x,) = args
        kw = axis_kw(lib, int(case.split("=")[1][0]) if "axis" in case else None)
        return lambda: xp.sum(x, **kw)
    if case in MATMULS:
        a, b = args
        if case.startswith("einsum"):
            return lambda: xp.einsum("bij,bjk->bik", a, b)
        return lambda: a @ b
    if case in LINALG:
        (a,) = args
        if lib == "tenferro-cuda":
            import tenferro.linalg as linalg
        else:
            linalg = xp.linalg
        f = getattr(linalg, case.split()[0])
        if lib == "tenferro-cuda" and f is linalg.cholesky:
            return lambda: f(a, lower=True)   # scipy's default is upper; the others' lower
        return lambda: f(a)
    x, y = args

    def adds():
        for _ in range(TINY_REPEAT):
            r = x + y
        return r
    return adds


def make(lib, case):
    """A zero-argument callable running ``case`` with ``lib``, warmed up once
    (NotImplementedError where the lib, the GPU or a tenferro CUDA op is absent)."""
    xp = module(lib)
    fn = _body(lib, xp, case, [convert(a, lib) for a in inputs(case)])
    if lib == "tenferro-cuda":
        import tenferro as tf
        try:
            sync(fn(), lib)
        except tf.TenferroError as e:   # an op, or a compiled program's, unsupported
            if not isinstance(e, tf.UnsupportedOperation) and "cannot run" not in str(e):
                raise
            raise NotImplementedError("tenferro's CUDA driver: %s" % e) from None
    return fn


class _CUDA(FactoryBench):
    params = [CUDA_LIBS, []]
    timeout = 300
    make = staticmethod(make)

    def setup(self, lib, case):
        super().setup(lib, case)
        sync(None, lib)

    def time_case(self, lib, case):
        sync(self.fn(), self.lib)


class CUDAElementwise(_CUDA):
    params = [CUDA_LIBS, ELEMENTWISE + OVERHEAD]


class CUDACompiled(_CUDA):
    params = [CUDA_LIBS, COMPILED]


class CUDAReduce(_CUDA):
    params = [CUDA_LIBS, REDUCTIONS]


class CUDAMatmul(_CUDA):
    params = [CUDA_LIBS, MATMULS]


class CUDALinalg(_CUDA):
    params = [CUDA_LIBS, LINALG]
