"""The CUDA driver on a real GPU (skipped without one, and in the simulator): streams
ordering work, the stream-ordered pool reusing memory, DLPack with PyTorch and CuPy
both ways without a copy, NVRTC's disk cache across processes, error messages, and
float64 results equal to the CPU's at the CPU's tolerances.

Run on a GPU machine with ``python -m pytest -q tests/test_cuda_gpu.py`` (PyTorch with
CUDA for the DLPack tests; CuPy where installed)."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import tenferro as tf
from conftest import assert_close, device_tol
from tenferro.devices.cuda import backend, runtime

if backend.simulated() or not runtime.probe()[0]:
    pytest.skip("no CUDA GPU: %s" % ("the simulator is on (TENFERRO_CUDA_SIMULATOR=1)"
                                     if backend.simulated() else runtime.probe()[1]),
                allow_module_level=True)

from tenferro.devices import cuda  # noqa: E402

DEV = tf.device("cuda")
F64 = np.dtype("float64")


def on(a):
    return tf.asarray(np.asarray(a)).to(DEV)


def host(t):
    return t.to("cpu").numpy()


def _torch_cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch without CUDA")
    return torch


def _cupy():
    try:
        import cupy
    except ImportError:
        pytest.skip("CuPy is not installed")
    return cupy


# -- streams -------------------------------------------------------------------------------

def test_work_on_a_stream_is_ordered_and_waited_for():
    n = 1 << 24
    x = on(np.linspace(0, 1, n))
    s1, s2 = cuda.Stream(non_blocking=True), cuda.Stream(non_blocking=True)
    s1.wait(cuda.current_stream())      # x's upload, queued on the default stream
    with s1:
        y = x
        for _ in range(20):            # long enough to still run when s2 is asked
            y = y * 1.0001 + 1e-6
    s2.wait(s1)
    with s2:
        z = y - x
    s2.synchronize()
    want = np.linspace(0, 1, n)
    for _ in range(20):
        want = want * 1.0001 + 1e-6
    np.testing.assert_allclose(host(z), want - np.linspace(0, 1, n), rtol=1e-12, atol=1e-15)
    assert s1.done and s2.done


def test_default_stream_and_threads():
    """Another thread sees the default stream and can run ops (its own context binding)."""
    out = {}

    def work():
        out["stream"] = cuda.current_stream().ptr
        out["value"] = host(on(np.arange(4.0)) * 2)
    s = cuda.Stream()
    with s:
        th = threading.Thread(target=work)
        th.start()
        th.join()
    assert out["stream"] == 0
    np.testing.assert_array_equal(out["value"], np.arange(4.0) * 2)
    cuda.synchronize()


# -- the allocator ---------------------------------------------------------------------------

def _pool_bytes(attr):
    be = backend.get(0)
    cu = be.cu
    value = backend.check(cu.cuMemPoolGetAttribute(be.pool, getattr(
        cu.CUmemPool_attribute, attr)), "cuMemPoolGetAttribute")
    return int(value)


def test_pool_reuses_freed_memory():
    nbytes = 256 << 20
    cuda.synchronize()
    a = tf.empty((nbytes // 8,), dtype="float64", device=DEV)
    cuda.synchronize()
    used = _pool_bytes("CU_MEMPOOL_ATTR_USED_MEM_CURRENT")
    reserved = _pool_bytes("CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT")
    assert used >= nbytes and reserved >= used
    del a
    cuda.synchronize()
    assert _pool_bytes("CU_MEMPOOL_ATTR_USED_MEM_CURRENT") <= used - nbytes
    assert _pool_bytes("CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT") == reserved   # kept
    for _ in range(5):
        b = tf.empty((nbytes // 8,), dtype="float64", device=DEV)
        del b
    cuda.synchronize()
    assert _pool_bytes("CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT") == reserved   # reused


# -- DLPack ----------------------------------------------------------------------------------

TORCH_DTYPES = ["bool", "int32", "int64", "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("dtype", TORCH_DTYPES)
def test_dlpack_with_torch_both_ways_zero_copy(dtype):
    torch = _torch_cuda()
    t = torch.arange(12, device="cuda").reshape(3, 4).to(getattr(torch, dtype))
    a = tf.from_dlpack(t)
    assert a.device == DEV and a.dtype == np.dtype(dtype) and a.shape == (3, 4)
    assert a._data.ptr == t.data_ptr()
    want = t.cpu().numpy()
    del t                                  # the tensor keeps torch's memory alive
    np.testing.assert_array_equal(host(a), want)
    back = torch.from_dlpack(a)
    assert back.data_ptr() == a._data.ptr and back.device.type == "cuda"
    np.testing.assert_array_equal(back.cpu().numpy(), want)
    v = torch.from_dlpack(tf.asarray(want).to(DEV).T)      # a strided view
    assert tuple(v.stride()) == (1, 4)
    np.testing.assert_array_equal(v.cpu().numpy(), want.T)


def test_dlpack_export_orders_the_consumers_stream():
    """torch names its current stream; ours (the legacy default) is waited for on it."""
    torch = _torch_cuda()
    a = on(np.arange(1 << 22, dtype=np.float64))
    b = a
    for _ in range(10):
        b = b * 1.5 + 1.0                   # queued on the legacy default stream
    ts = torch.cuda.Stream()
    with torch.cuda.stream(ts):
        v = torch.from_dlpack(b) + 1.0      # on ts, after b is done
    ts.synchronize()
    want = np.arange(1 << 22, dtype=np.float64)
    for _ in range(10):
        want = want * 1.5 + 1.0
    np.testing.assert_allclose(v.cpu().numpy(), want + 1.0, rtol=1e-15)


def test_dlpack_import_shares_writes():
    torch = _torch_cuda()
    t = torch.zeros(1 << 20, device="cuda", dtype=torch.float64)
    a = tf.from_dlpack(t)
    t.add_(3.0)
    torch.cuda.synchronize()
    assert float(host(a)[0]) == 3.0


def test_dlpack_with_cupy_both_ways_zero_copy():
    cupy = _cupy()
    c = cupy.arange(10, dtype=cupy.float32)
    a = tf.from_dlpack(c)
    assert a._data.ptr == c.data.ptr
    back = cupy.from_dlpack(a)
    assert back.data.ptr == c.data.ptr
    np.testing.assert_array_equal(cupy.asnumpy(back), np.arange(10, dtype=np.float32))
    r = cupy.from_dlpack(on(np.arange(6.0)) * 2)
    np.testing.assert_array_equal(cupy.asnumpy(r), np.arange(6.0) * 2)


# -- NVRTC's cache across processes ------------------------------------------------------------

_CHILD = r"""
import numpy as np, tenferro as tf
from tenferro.devices.cuda import nvrtc
x = tf.asarray(np.arange(5.0)).to("cuda")
assert ((x * 3 + x).to("cpu").numpy() == np.arange(5.0) * 4).all()
print(nvrtc.cache_info())
"""


def test_nvrtc_disk_cache_hits_across_processes(tmp_path):
    env = dict(os.environ, TENFERRO_CUDA_CACHE=str(tmp_path))
    env.pop(backend.SIMULATOR_ENV, None)
    runs = [subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True,
                           text=True, cwd=os.path.dirname(os.path.dirname(__file__)))
            for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    first, second = (eval(r.stdout.strip().splitlines()[-1]) for r in runs)
    assert first["compiled"] >= 1
    assert second["compiled"] == 0 and second["disk_hits"] >= first["compiled"]


# -- errors ----------------------------------------------------------------------------------

def test_out_of_memory_names_the_bytes():
    nbytes = 1 << 50
    with pytest.raises(backend.CUDAError, match=r"cuMemAllocAsync\(%d bytes\).*OUT_OF_MEMORY"
                       % nbytes):
        tf.empty((nbytes // 8,), dtype="float64", device=DEV)


def test_bad_device_index():
    n = cuda.Driver().device_count()
    with pytest.raises(RuntimeError, match=r"'cuda:%d' is not available on this machine: "
                                           r"it has %d device" % (n, n)):
        tf.device("cuda:%d" % n)


# -- float64 equal to the CPU at the CPU's tolerances ---------------------------------------

UNARY = ["sin", "cos", "exp", "log", "sqrt", "tanh", "arctan", "expm1", "log1p", "abs"]
BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "power",
          "arctan2", "hypot"]


@pytest.mark.parametrize("op", UNARY + BINARY)
def test_float64_ops_equal_cpu(op):
    r = np.random.default_rng(0)
    xs = [r.uniform(0.1, 3, (257, 33)) for _ in range(2 if op in BINARY else 1)]
    if not tf.devices.get_driver("cuda").supports(op, F64):
        pytest.fail("the CUDA driver lacks %s for float64" % op)
    want = getattr(tf, op)(*[tf.asarray(x) for x in xs])
    got = getattr(tf, op)(*[on(x) for x in xs])
    rt, at = device_tol("cpu", F64, op)
    assert_close(got.to("cpu"), want.numpy(), rtol=rt, atol=at)


def test_fused_program_on_gpu_equals_cpu():
    def f(x, y):
        return tf.sum(x * y + tf.sin(x) - tf.exp(y * 0.5) / (1.0 + x * x), axis=0), x * y

    r = np.random.default_rng(1)
    xn, yn = r.standard_normal((2048, 1024)), r.standard_normal(1024)
    want = tf.jit(f)(tf.asarray(xn), tf.asarray(yn))
    got = tf.jit(f)(on(xn), on(yn))
    for g, w in zip(got, want):
        assert_close(g.to("cpu"), w.numpy(), rtol=1e-13, atol=1e-12)


def test_compile_all_for_this_gpu():
    arch = backend.get(0).arch
    assert cuda.compile_all(arch) > 100
