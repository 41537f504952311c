"""The CUDA driver's fused kernels, compile_all, streams, DLPack and show_config, tested
without a GPU: compiled programs run on the host simulator (the driver's CUDA C through
the host shim) and are compared with the CPU's; every kernel the driver generates is
compiled by NVRTC for two architectures; the DLPack structs round-trip through the
driver's own exporter and importer.  On a machine with a GPU the same tests run on it
(tests/test_cuda_gpu.py holds the GPU-only ones)."""
import ctypes
import gc
import os
import threading
import time

import numpy as np
import pytest

import tenferro as tf
from tenferro.devices.cuda import backend, runtime
from test_cuda_driver import requires_nvrtc

GPU = bool(runtime.probe()[0]) and not backend.simulated()


@pytest.fixture(scope="module", autouse=True)
def cuda_device():
    """cuda:0: the GPU if there is one, else the host simulator for this module (the
    device and backend registries restored after, so no simulated device outlives it)."""
    import tenferro.devices as devs
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(devs, "_devices", dict(devs._devices))
        mp.setattr(backend, "_backends", dict(backend._backends))
        if not GPU:
            import shutil
            if shutil.which(os.environ.get("TENFERRO_CUDA_HOST_CXX") or "g++") is None:
                pytest.skip("no GPU and no host C++ compiler for the simulator")
            mp.setenv(backend.SIMULATOR_ENV, "1")
        yield tf.device("cuda")


@pytest.fixture
def cuda(cuda_device, monkeypatch):
    """The device, with its fused kernel never falling back to node-by-node runs."""
    from tenferro.devices.cuda import fused

    def never(*a, **k):
        raise AssertionError("a fused group ran node by node")
    monkeypatch.setattr(fused, "run_unfused", lambda dev: never)
    return cuda_device


CHAIN_OPS = ("multiply", "add", "sin", "subtract", "exp", "divide")
REDUCED = {"sum": "add", "prod": "multiply", "max": "maximum", "min": "minimum",
           "any": "logical_or", "all": "logical_and"}


def on(a, dev):
    return tf.asarray(np.asarray(a)).to(dev)


def check_like_cpu(f, args, dev, rtol=1e-13, atol=1e-13):
    """``tf.jit(f)`` on ``dev`` equals it on the CPU (values, dtypes, shapes)."""
    want = tf.jit(f)(*[tf.asarray(a) for a in args])
    got = tf.jit(f)(*[on(a, dev) for a in args])
    want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
    for g, w in zip(got, want):
        assert g.device == dev
        g = g.to("cpu").numpy()
        w = w.numpy()
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def rand(shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).uniform(-2, 2, shape).astype(dtype)


# -- fused programs --------------------------------------------------------------------------

def chain(x, y):
    return x * y + tf.sin(x) - tf.exp(y * 0.5) / (1.0 + x * x)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(), (7,), (5, 6), (0, 3), (33, 17)])
def test_fused_chain_equals_cpu(cuda, shape, dtype):
    tol = 1e-13 if dtype == np.float64 else 2e-6
    check_like_cpu(chain, [rand(shape, 1, dtype), rand(shape[-1:], 2, dtype)], cuda, tol, tol)


def test_fused_chain_strided_inputs(cuda):
    """Transposed, reversed and broadcast inputs read through their strides."""
    from tenferro.devices.cuda.array import CUDAArray
    big = rand((6, 10), 3)
    x = on(big, cuda)
    d = x._data
    views = {"T": (d.view((10, 6), (1, 10), 0), big.T),
             "step": (d.view((6, 5), (10, 2), 0), big[:, ::2]),
             "rev": (d.view((6, 10), (-10, -1), 59), big[::-1, ::-1])}
    jf = tf.jit(chain)
    for name, (v, host) in views.items():
        assert isinstance(v, CUDAArray)
        t = tf.Tensor._wrap(v, cuda)
        y = rand(host.shape[-1:], 4)
        got = jf(t, on(y, cuda)).to("cpu").numpy()
        np.testing.assert_allclose(got, chain(tf.asarray(host), tf.asarray(y)).numpy(),
                                   rtol=1e-13, atol=1e-13, err_msg=name)


@pytest.mark.parametrize("op", ["sum", "prod", "max", "min", "any", "all"])
@pytest.mark.parametrize("shape,axis", [((4, 3), None), ((4, 3), 0), ((4, 3), 1),
                                        ((7, 3, 50), (0, 2)), ((64, 64), 0),
                                        ((20000,), None), ((3, 40000), 1), ((40000, 3), 0)])
def test_fused_reductions_equal_cpu(cuda, op, shape, axis):
    """A group ending in a reduction: a block or a thread per output, chunked with a
    second pass where the reduced extent is long."""
    if op in ("any", "all"):
        def f(x):
            return getattr(tf, op)(tf.sin(x) > 0.2, axis=axis)
    else:
        scale = 1e-3 if op == "prod" else 1.0

        def f(x):
            return getattr(tf, op)(tf.tanh(x) * scale + x * scale, axis=axis)
    n = np.prod(shape) if axis is None else np.prod([shape[a] for a in np.atleast_1d(axis)])
    check_like_cpu(f, [rand(shape, 5)], cuda, rtol=1e-15 * n + 1e-13, atol=1e-13)


def test_fused_reduction_integer_and_other_outputs(cuda):
    """int32 sums accumulate in int64; a group whose value is used besides its reduction
    stores it and reduces it after."""
    xi = np.random.default_rng(6).integers(-50, 50, (30, 20)).astype(np.int32)

    def f(x):
        return tf.sum(x * x - x, axis=1)
    check_like_cpu(f, [xi], cuda)

    def g(x):
        t = tf.sin(x) + 1.0
        return t, tf.max(t * 2.0, axis=0)
    p = tf.compile(tf.make_graph(g, tf.TensorSpec((50, 9), device=cuda)))
    assert [n.prim.name for n in p.graph.nodes] == ["fused_elementwise"]
    check_like_cpu(g, [rand((50, 9), 7)], cuda)


def test_fused_nan_propagates_through_max(cuda):
    x = rand((5, 40), 8)
    x[2, 17] = np.nan
    check_like_cpu(lambda x: (tf.max(x * 1.5, axis=1), tf.min(x + 0.0, axis=0)), [x], cuda)


def test_fused_group_kernel_is_used_and_cached(cuda):
    from tenferro.devices.cuda import fused
    p = tf.compile(tf.make_graph(chain, tf.TensorSpec((9, 4), device=cuda),
                                 tf.TensorSpec((4,), device=cuda)))
    assert "fused_elementwise" in [n.prim.name for n in p.graph.nodes]
    x, y = on(rand((9, 4)), cuda), on(rand(4, 1), cuda)
    p(x, y)
    plans = [fused._PLANS[n.params["graph"]] for n in p.graph.nodes
             if n.prim.name == "fused_elementwise"]
    assert plans and all(pl is not None and pl.kernels for pl in plans)
    before = {id(k) for pl in plans for k in pl.kernels.values()}
    p(x, y)
    assert {id(k) for pl in plans for k in pl.kernels.values()} == before


def test_fused_program_gradients_equal_cpu(cuda):
    """Autodiff of a compiled program on CUDA (its backward fused too) gives the CPU's
    gradients."""
    r = np.random.default_rng(9)
    xn, yn, ct = (r.standard_normal((6, 5)) for _ in range(3))
    jf = tf.jit(chain)
    grads = {}
    for dev in ("cpu", cuda):
        _, pull = tf.vjp(jf, on(xn, dev), on(yn, dev))
        grads[str(dev)] = [g.to("cpu").numpy() for g in pull(on(ct, dev))]
    for g, w in zip(grads[str(cuda)], grads["cpu"]):
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-13)


def test_fused_falls_back_node_by_node(cuda_device, monkeypatch):
    """A group the kernel cannot express runs through the driver's own ops."""
    from tenferro.devices.cuda import fused
    monkeypatch.setattr(fused, "_node_expr", lambda node: None)
    check_like_cpu(chain, [rand((4, 5)), rand(5, 1)], cuda_device)


# -- compile_all -----------------------------------------------------------------------------

@requires_nvrtc
def test_compile_all_two_architectures(tmp_path, monkeypatch):
    """Every kernel the driver generates compiles with NVRTC for sm_80 and sm_90 (from
    an empty cache, so this is the real compile time)."""
    from tenferro.devices import cuda
    from tenferro.devices.cuda import prebuild
    monkeypatch.setenv("TENFERRO_CUDA_CACHE", str(tmp_path))
    n = len(prebuild.all_kernels())
    assert n > 100
    for arch in ("sm_80", "sm_90"):
        t = time.perf_counter()
        assert cuda.compile_all(arch) == n
        print("compile_all(%r): %d kernels in %.1f s" % (arch, n, time.perf_counter() - t))


@requires_nvrtc
def test_compile_all_names_a_kernel_that_fails(tmp_path, monkeypatch):
    from tenferro.devices.cuda import prebuild
    from tenferro.devices.cuda.kernels import kernel
    monkeypatch.setenv("TENFERRO_CUDA_CACHE", str(tmp_path))
    good = prebuild.elementwise_kernels()[:3]
    bad = ("broken(float64)", kernel("k_broken", "    this is not C;\n", 1, 1))
    monkeypatch.setattr(prebuild, "all_kernels", lambda: good + [bad])
    with pytest.raises(RuntimeError, match=r"kernel k_broken \(broken\(float64\)\) does not "
                                           r"compile for sm_90"):
        prebuild.compile_all("sm_90")


def test_batched_program_renames_kernels_apart():
    from tenferro.devices.cuda import prebuild
    batch = prebuild.elementwise_kernels()[:5]
    src = prebuild._program(batch)
    assert src.count("extern \"C\" __global__") == 5
    assert len({line for line in src.splitlines() if "__global__ void" in line}) == 5


# -- streams ---------------------------------------------------------------------------------

def test_stream_is_current_per_thread(cuda_device):
    from tenferro.devices import cuda
    default = cuda.current_stream()
    assert default.ptr == 0 and default == cuda.current_stream(cuda_device)
    s, t = cuda.Stream(), cuda.Stream(cuda_device, non_blocking=True)
    assert s != t and s != default
    seen = {}
    with s:
        assert cuda.current_stream() == s
        with t:
            assert cuda.current_stream() == t
            th = threading.Thread(target=lambda: seen.setdefault("other", cuda.current_stream()))
            th.start()
            th.join()
        assert cuda.current_stream() == s
        x = on(np.arange(5.0), cuda_device)
        y = x + x
    assert cuda.current_stream() == default and seen["other"] == default
    s.synchronize()
    t.wait(s)
    assert s.done and t.done
    cuda.synchronize()
    cuda.synchronize(cuda_device)
    np.testing.assert_array_equal(y.to("cpu").numpy(), 2 * np.arange(5.0))
    assert cuda.Stream(ptr=1234).ptr == 1234 and "Stream" in repr(s)
    with pytest.raises(ValueError, match="not a CUDA device"):
        cuda.Stream("cpu")


# -- DLPack ----------------------------------------------------------------------------------

DTYPES = ["bool", "int32", "int64", "float32", "float64", "complex64", "complex128"]


def _values(dtype, shape):
    a = np.arange(int(np.prod(shape))).reshape(shape)
    return (a % 3 == 0) if dtype == "bool" else (a * (1 + 1j) if "complex" in dtype else a) \
        .astype(dtype)


@pytest.mark.parametrize("versioned", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_dlpack_capsule_round_trip(cuda_device, dtype, versioned):
    """The exported struct (checked field by field) imports back as a view of the same
    memory; each side's deleter runs when the last user dies."""
    from tenferro.devices.cuda import dlpack as D
    host = _values(dtype, (3, 4))
    x = on(host, cuda_device)._data
    views = {"c": (x, host), "rev": (x.view((3, 2), (4, -2), 3, False), host[:, ::-2]),
             "T": (x.view((4, 3), (1, 4), 0), host.T)}
    live = len(D._exported)
    for name, (v, want) in views.items():
        cap = D.export_capsule(v, versioned)
        cls = D.DLManagedTensorVersioned if versioned else D.DLManagedTensor
        m = cls.from_address(D._pointer(cap, b"dltensor_versioned" if versioned
                                        else b"dltensor"))
        t = m.dl_tensor
        assert (t.device.device_type, t.device.device_id) == (D.kDLCUDA, 0)
        assert t.ndim == 2 and [t.shape[i] for i in range(2)] == list(v.shape)
        assert [t.strides[i] for i in range(2)] == list(v.estrides)
        assert t.data + t.byte_offset == v.ptr
        assert (t.dtype.bits, t.dtype.lanes) == (np.dtype(dtype).itemsize * 8, 1)
        if versioned:
            assert (m.version.major, bool(m.flags & 1)) == (1, not v.writeable)
        y = D.import_capsule(cap, cuda_device)
        assert y.ptr == v.ptr and y.shape == v.shape and y.dtype == v.dtype, name
        assert y.writeable == (v.writeable or not versioned)
        assert not D._is_valid(cap, b"dltensor") and not D._is_valid(cap, b"dltensor_versioned")
        np.testing.assert_array_equal(tf.Tensor._wrap(y, cuda_device).to("cpu").numpy(), want)
        assert len(D._exported) == live + 1
        del y, cap, m, t
        gc.collect()
        assert len(D._exported) == live, name


def test_dlpack_unconsumed_capsule_and_foreign_deleter(cuda_device):
    from tenferro.devices.cuda import dlpack as D
    x = on(np.arange(4.0), cuda_device)._data
    live = len(D._exported)
    cap = D.export_capsule(x)
    assert len(D._exported) == live + 1
    del cap
    gc.collect()
    assert len(D._exported) == live
    calls = []
    m = D.DLManagedTensor()
    shape = (ctypes.c_int64 * 1)(4)
    m.dl_tensor.data, m.dl_tensor.ndim, m.dl_tensor.shape = x.ptr, 1, shape
    m.dl_tensor.device = D.DLDevice(D.kDLCUDA, 0)
    m.dl_tensor.dtype = D.DLDataType(2, 64, 1)
    deleter = D.DELETER(lambda addr: calls.append(addr))
    m.deleter = deleter
    cap = D._new(ctypes.addressof(m), b"dltensor", None)
    y = D.import_capsule(cap, cuda_device)
    assert y.estrides == (1,) and y.ptr == x.ptr
    del y
    gc.collect()
    assert calls == [ctypes.addressof(m)]


def test_dlpack_refuses_what_it_cannot_honour(cuda_device):
    from tenferro.devices.cuda import dlpack as D
    x = on(np.arange(3.0), cuda_device)
    assert x.__dlpack_device__() == (D.kDLCUDA, 0)
    cpu_cap = np.arange(3.0).__dlpack__()
    with pytest.raises(BufferError, match="not CUDA device 0"):
        D.import_capsule(cpu_cap, cuda_device)
    with pytest.raises(BufferError, match="unconsumed DLPack capsule"):
        D.import_capsule(object(), cuda_device)
    if backend.simulated():
        with pytest.raises(BufferError, match="simulator"):
            x.__dlpack__()
        with pytest.raises(BufferError, match="simulator"):
            tf.from_dlpack(x._data)
    with pytest.raises(BufferError, match="not CUDA"):
        tf.devices.cuda.from_dlpack(np.arange(3.0))


def test_dlpack_cpu_tensors_with_torch():
    """The CPU path both ways with PyTorch: zero copy."""
    torch = pytest.importorskip("torch")
    t = torch.arange(6, dtype=torch.float64).reshape(2, 3)
    a = tf.from_dlpack(t)
    assert a.device == tf.device("cpu") and a.shape == (2, 3)
    t[0, 0] = 42.0
    assert a.numpy()[0, 0] == 42.0
    b = tf.asarray(np.arange(4.0))
    u = torch.from_dlpack(b)
    b.numpy()[1] = -1.0
    assert u[1].item() == -1.0 and u.data_ptr() == b.numpy().ctypes.data


# -- the benchmarks -------------------------------------------------------------------------

def test_bench_cuda_cases_run_and_agree_with_numpy(cuda_device, monkeypatch, capsys):
    """asv_bench/benchmarks/bench_cuda.py's cases at small sizes on this device (the
    simulator counts as a GPU here only), checked by compare_cuda.check; what the
    driver lacks skips."""
    import sys
    asv = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       "asv_bench")
    monkeypatch.syspath_prepend(asv)
    import compare_cuda
    from benchmarks import bench_cuda as B
    monkeypatch.setattr(B, "cuda_device", lambda: cuda_device)
    monkeypatch.setattr(B, "BIG", 3000)
    monkeypatch.setattr(B, "SQUARE", (64, 48))
    real = B.inputs

    def small(case):
        if case in B.MATMULS:
            shape = (2, 8, 8) if case.startswith("einsum") else (8, 8)
            dt = case.rpartition(" ")[2]
            return [rand(shape, 1, dt), rand(shape, 2, dt)]
        return [B._spd(3, 4)] if case in B.LINALG else real(case)
    monkeypatch.setattr(B, "inputs", small)
    compare_cuda.check(["tenferro-cuda"])
    assert "MISMATCH" not in capsys.readouterr().out
    assert "compare_cuda" in sys.modules


# -- show_config -----------------------------------------------------------------------------

def test_show_config_lists_cuda_versions(cuda_device, capsys):
    info = tf.devices.get_driver("cuda").info(0)
    for key in ("name", "arch", "nvrtc_version", "cuda_runtime", "cuda_python", "cublas",
                "cusolver", "nvmath_python"):
        assert key in info, key
    if not backend.simulated():
        assert {"memory_bytes", "driver_version"} <= set(info)
    tf.show_config()
    out = capsys.readouterr().out
    assert "cuda:0" in out and "nvrtc_version=" in out and "cublas=" in out
