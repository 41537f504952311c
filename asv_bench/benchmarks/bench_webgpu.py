"""tenferro's WebGPU device (float32) beside tenferro's CPU device, NumPy, PyTorch on
the CPU and PyTorch on CUDA (``DEVICE_LIBS``; 2 threads for the CPU libraries).

Cases: elementwise ``x + y``, eager ``x*y + sin(x)`` (three dispatches) and
``exp(x)`` on 1e3, 1e5 and 1e6 elements; the same ``x*y + sin(x)`` and an 18-op
tanh chain as compiled programs (``tenferro.jit``: one fused kernel; NumPy and
PyTorch run them eagerly); full sum, sum over axis 0 and axis -1, and
max of a 1000x1000 matrix; square matmul 128, 512 and 1024 and a batched 64 x
(32x32 @ 32x32); sort of 1e5 elements and of the rows of a 1000x1000 matrix (a
bitonic sort on WebGPU); and the per-op overhead: 100 adds of 3 elements (one sync at the
end: the cost of a dispatch, not of a queue round trip) and the transfer of 1e6
floats to and from the device (device libraries only).

Every lib skips (NotImplementedError) without a WebGPU device, and ``torch-cuda``
without CUDA.  Timed bodies end with :func:`common.sync`, so queued device work is
included, and so is one queue round trip a call (the latency of a host wait: it
dominates the small WebGPU cases; the x100 case amortises it).  On a CPU adapter (Mesa's lavapipe) the WebGPU figures measure the
driver's overhead; on a GPU's Vulkan driver they measure the device.
"""
from .common import (DEVICE_LIBS, FactoryBench, axis_kw, convert, get_array, module, sync,
                     torch_or_none, webgpu_device)

# asv forks each case from a server that imported this module: importing torch here
# (not in setup) saves seconds a case.  The WebGPU device cannot be opened here: its
# threads would not survive the fork.
torch_or_none()

F32 = "float32"
SIZES = {"1e3": 10**3, "1e5": 10**5, "1e6": 10**6}
REDUCE_SHAPE = (1000, 1000)
TINY_REPEAT = 100

ELEMENTWISE = ["%s, %s" % (op, n) for op in ("x + y", "x*y + sin(x)", "exp(x)")
               for n in SIZES]
REDUCTIONS = ["sum", "sum axis=0", "sum axis=-1", "max"]
MATMULS = ["matmul 128", "matmul 512", "matmul 1024", "matmul 64x32x32 batched"]
SORTS = ["sort 1e5", "sort rows 1000x1000"]
OVERHEAD = ["x + y, 3 elements, x%d" % TINY_REPEAT, "to device, 1e6", "from device, 1e6"]
# compiled programs: tenferro.jit (one fused kernel a program), eager for NumPy/PyTorch
COMPILED = ["x*y + sin(x), 1e6, jit", "tanh chain (18 ops), 1e6, jit"]
CASES = ELEMENTWISE + REDUCTIONS + MATMULS + SORTS + OVERHEAD + COMPILED


def program(xp, case):
    """The function of a COMPILED case, written against the array module ``xp``."""
    if case.startswith("x*y"):
        return lambda x, y: x * y + xp.sin(x)

    def chain(x, y):
        t = x * y
        for _ in range(4):
            t = xp.tanh(t) * x + y - 0.5
        return t * 2.0
    return chain


def inputs(case):
    """The float32 NumPy inputs of ``case`` (seeded, shared by every lib)."""
    if case in COMPILED:
        return [get_array(10**6, F32, seed=1), get_array(10**6, F32, seed=2)]
    if case in ELEMENTWISE:
        n = SIZES[case.rpartition(", ")[2]]
        return [get_array(n, F32, seed=1), get_array(n, F32, seed=2)]
    if case in REDUCTIONS:
        return [get_array(REDUCE_SHAPE, F32, seed=6)]
    if case in MATMULS:
        words = case.split()
        shape = (64, 32, 32) if "batched" in words else (int(words[1]),) * 2
        return [get_array(shape, F32, seed=9), get_array(shape, F32, seed=10)]
    if case in SORTS:
        return [get_array(10**5 if case == SORTS[0] else REDUCE_SHAPE, F32, seed=12)]
    if case == OVERHEAD[0]:
        return [get_array(3, F32, seed=4), get_array(3, F32, seed=5)]
    return [get_array(10**6, F32, seed=11)]


def make(lib, case):
    """A zero-argument callable running ``case`` with ``lib`` (NotImplementedError
    where the lib or its device is absent, or the case does not apply)."""
    xp = module(lib)   # the cheap skips first (no CUDA, a host lib's transfer) ...
    if case in OVERHEAD[1:] and lib not in ("tenferro-webgpu", "torch-cuda"):
        raise NotImplementedError("%s is a host library: no device transfer" % lib)
    webgpu_device()  # ... then the suite's own: every lib skips without WebGPU
    if case in OVERHEAD[1:]:
        return _transfer(lib, case)
    args = [convert(a, lib) for a in inputs(case)]
    if case in COMPILED:
        f = program(xp, case)
        if lib.startswith("tenferro"):
            f = xp.jit(f)
        return lambda: f(*args)
    if case in ELEMENTWISE:
        x, y = args
        op = case.partition(",")[0]
        if op == "x + y":
            return lambda: x + y
        if op == "x*y + sin(x)":
            return lambda: x * y + xp.sin(x)
        return lambda: xp.exp(x)
    if case in REDUCTIONS:
        (x,) = args
        f = xp.amax if case == "max" else xp.sum
        kw = axis_kw(lib, int(case.rpartition("=")[2]) if "axis" in case else None)
        return lambda: f(x, **kw)
    if case in MATMULS:
        a, b = args
        return lambda: a @ b
    if case in SORTS:
        (x,) = args
        kw = axis_kw(lib, -1)
        if lib.startswith("torch"):   # (values, indices)
            return lambda: xp.sort(x, **kw).values
        return lambda: xp.sort(x, **kw)
    x, y = args

    def adds():
        for _ in range(TINY_REPEAT):
            r = x + y
        return r
    return adds


def _transfer(lib, case):
    host = inputs(case)[0]
    if case == OVERHEAD[1]:
        if lib == "torch-cuda":
            torch = module(lib)
            src = torch.from_numpy(host.copy())
            return lambda: src.cuda()
        dev = webgpu_device()
        return lambda: module(lib).asarray(host, device=dev)
    x = convert(host, lib)
    return (lambda: x.cpu()) if lib == "torch-cuda" else (lambda: x.to("cpu"))


class _WebGPU(FactoryBench):
    params = [DEVICE_LIBS, []]
    timeout = 120
    make = staticmethod(make)

    def setup(self, lib, case):
        super().setup(lib, case)
        sync(None, lib)  # the warm-up's device work is not the first sample's

    def time_case(self, lib, case):
        sync(self.fn(), self.lib)


class WebGPUElementwise(_WebGPU):
    params = [DEVICE_LIBS, ELEMENTWISE]


class WebGPUReduce(_WebGPU):
    params = [DEVICE_LIBS, REDUCTIONS]


class WebGPUMatmul(_WebGPU):
    params = [DEVICE_LIBS, MATMULS]


class WebGPUSort(_WebGPU):
    params = [DEVICE_LIBS, SORTS]


class WebGPUCompiled(_WebGPU):
    params = [DEVICE_LIBS, COMPILED]


class WebGPUOverhead(_WebGPU):
    params = [DEVICE_LIBS, OVERHEAD]
