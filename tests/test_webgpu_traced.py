"""Traced programs (trace / compile / jit) on the WebGPU driver, and its fused kernel.

Every result is compared with NumPy (float32 inputs, float64 references for
transcendental functions) and, where the CPU runs the same program, with the CPU's
float32 result.  Fused programs (``tenferro.devices.webgpu.fused``: one generated
WGSL kernel per group) are compared with the same program compiled without fusion:
both run the driver's own WGSL bodies, so they agree bit for bit (checked on the
raw bits, NaN payloads and signed zeros included).  Skipped without an adapter.
"""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tenferro as tf
from conftest import gpu, host, hyp_settings, webgpu_or_skip
import tenferro.linalg as tl
from tenferro._errors import DeviceMismatchError, TenferroError, UnsupportedOperation

W = webgpu_or_skip()
_drv = tf.devices.get_driver("webgpu")


DEV = tf.device("webgpu")
UNFUSED = tuple(p for p in tf.graph.PASSES if p != "fuse")
F32, I32, BOOL = np.dtype("float32"), np.dtype("int32"), np.dtype("bool")
INT_MIN, INT_MAX = np.iinfo(np.int32).min, np.iinfo(np.int32).max




def check(t, want, rtol=1e-6, atol=0.0):
    got = host(t)
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, \
        (got.dtype, got.shape, want.dtype, want.shape)
    if want.dtype.kind in "bi":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def same_bits(a, b):
    """Two results (Tensors or arrays) equal bit for bit."""
    a = host(a) if isinstance(a, tf.Tensor) else np.asarray(a)
    b = host(b) if isinstance(b, tf.Tensor) else np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, a.shape, b.dtype, b.shape)
    if a.dtype == F32:
        a, b = a.view(np.uint32), b.view(np.uint32)
    np.testing.assert_array_equal(a, b)


def rand(shape, seed, lo=-3.0, hi=3.0):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(np.float32)


def prims(p):
    return [n.prim.name for n in p.graph.nodes]


@pytest.fixture
def dispatches(monkeypatch):
    """A list that records every kernel dispatch's source from now on."""
    ctx = W.context.get_context()
    seen = []
    real = ctx.dispatch
    monkeypatch.setattr(ctx, "dispatch",
                        lambda src, *a, **k: seen.append(src) or real(src, *a, **k))
    return seen


# -- traced programs on webgpu ------------------------------------------------------------

def _layouts(shape, seed):
    """(name, host array, webgpu tensor) of one shape in several layouts."""
    a = rand(shape, seed)
    yield "c", a, gpu(a)
    if len(shape) == 2:
        big = rand((shape[1], shape[0] * 2), seed + 1)
        t = gpu(big)[:, ::2].T                  # transposed and strided
        yield "strided-T", big[:, ::2].T, t
        rev = rand((shape[0], shape[1]), seed + 2)
        yield "reversed", rev[::-1], gpu(rev)[::-1]


@pytest.mark.parametrize("passes", ["fused", "unfused"])
@pytest.mark.parametrize("shape", [(), (1,), (7,), (5, 6), (0, 3), (33, 17)])
def test_jit_elementwise_chain_layouts(shape, passes):
    def f(x, y):
        return x * y + tf.sin(x) - tf.exp(y * 0.5) / (1.0 + x * x)
    jf = tf.jit(f, passes=tf.graph.PASSES if passes == "fused" else UNFUSED)
    cpu = tf.jit(f)
    for k, (name, xn, x) in enumerate(_layouts(shape, 1)):
        yn = rand(shape[-1:], 10 + k)                  # broadcast along the rows
        y = gpu(yn)
        out = jf(x, y)
        assert out.device == DEV
        want = xn * yn + np.sin(xn) - np.exp(yn * np.float32(0.5)) / (1 + xn * xn)
        check(out, want.astype(F32), rtol=2e-6, atol=2e-6)
        check(out, cpu(tf.asarray(xn), tf.asarray(yn)).numpy(), rtol=2e-6, atol=2e-6)
        assert (host(x) == xn).all() and (host(y) == yn).all(), name   # inputs untouched


@pytest.mark.parametrize("op,axis", [("sum", None), ("sum", 0), ("sum", 1), ("max", 1),
                                     ("min", 0), ("prod", 1), ("mean", (0, 1))])
@pytest.mark.parametrize("shape", [(4, 3), (300, 70), (3, 5000)])
def test_jit_reductions(op, axis, shape):
    xn = rand(shape, 2, -1, 1)
    scale = np.float32(1e-2 if op == "prod" else 1.0)

    def f(x):
        return getattr(tf, op)(tf.tanh(x) * scale + x, axis=axis)
    out = tf.jit(f)(gpu(xn))
    want = getattr(np, op)(np.tanh(xn.astype(np.float64)) * scale + xn, axis=axis)
    n = xn.size if axis is None else np.prod([shape[a] for a in np.atleast_1d(axis)])
    check(out, want.astype(F32), rtol=1e-6 * np.sqrt(n) + 1e-5, atol=1e-5)


def test_jit_bool_reductions_and_nan():
    xn = rand((40, 300), 3)
    xn[5, 7] = np.nan
    f = tf.jit(lambda x: (tf.any(x * 2 > 5.5, axis=1), tf.all(x * x >= 0, axis=0),
                          tf.max(x + 1, axis=0), tf.min(x, axis=1)))
    a, b, c, d = f(gpu(xn))
    with np.errstate(invalid="ignore"):
        check(a, np.any(xn * 2 > 5.5, axis=1))
        check(b, np.all(xn * xn >= 0, axis=0))
    check(c, np.max(xn + 1, axis=0), rtol=0)
    check(d, np.min(xn, axis=1), rtol=0)
    assert np.isnan(host(c)[7]) and np.isnan(host(d)[5])


def test_jit_matmul_einsum_and_views():
    an, bn, vn = rand((6, 5), 4), rand((5, 7), 5), rand((7,), 6)

    def f(a, b, v):
        m = tf.matmul(a, b) * 0.5                     # contraction, then elementwise
        e = tf.einsum("ij,j->i", m, v)
        t = tf.sin(m[1:, ::2]).T.reshape(-1)          # views of an intermediate
        return e, t, tf.einsum("ik,kj->ij", a[:, 1:4], b[1:4]) + tf.diagonal(m)[:, None]
    e, t, g = tf.jit(f)(gpu(an), gpu(bn), gpu(vn))
    m = (an.astype(np.float64) @ bn) * 0.5
    check(e, (m @ vn).astype(F32), rtol=1e-5, atol=1e-5)
    check(t, np.sin(m[1:, ::2]).T.reshape(-1).astype(F32), rtol=1e-5, atol=1e-5)
    check(g, (an[:, 1:4].astype(np.float64) @ bn[1:4] + np.diagonal(m)[:, None]).astype(F32),
          rtol=1e-5, atol=1e-5)
    cpu = tf.jit(f)(*[tf.asarray(a) for a in (an, bn, vn)])
    for got, want in zip((e, t, g), cpu):
        check(got, want.numpy(), rtol=1e-5, atol=1e-5)


def test_inplace_reuse_writes_into_dying_inputs(monkeypatch):
    """The executor passes a dying intermediate as out= (Driver.inplace_ops): the
    driver's kernels must read and write the same buffer correctly."""
    xn = rand((50, 40), 7)
    g = tf.make_graph(lambda x: tf.exp(tf.sin(x)) * 2.0 - tf.cos(x), gpu(xn))
    p = tf.compile(g, UNFUSED)
    plan = p.memory_plan(DEV)
    assert plan.inplace >= 2, plan
    impls = _drv.implementations
    outs = []
    for op in ("exp", "multiply", "subtract"):
        real = impls[op]
        monkeypatch.setitem(impls, op, lambda *a, _r=real, **k: outs.append(
            any(k.get("out") is x for x in a)) or _r(*a, **k))
    p2 = tf.compile(g, UNFUSED)
    x = gpu(xn)
    got = p2(x)
    assert sum(outs) == plan.inplace                  # really written in place
    want = np.exp(np.sin(xn.astype(np.float64))) * 2 - np.cos(xn)
    check(got, want.astype(F32), rtol=1e-5, atol=1e-5)
    same_bits(got, tf.compile(g, UNFUSED, reuse=False)(x))
    check(x, xn, rtol=0)                              # the program input is never reused


def test_view_keeps_its_buffer_from_inplace_reuse():
    """A live view of an intermediate must keep the step after it from writing in
    place into the viewed buffer (Driver.view_ops)."""
    xn = rand((6, 8), 8)

    def f(x):
        y = x * 2.0
        v = y[1:, ::2]                 # a view of y, used after y's other uses
        z = tf.sin(y) + 1.0            # y dies here but for the view
        return z, v * 3.0
    for passes in (UNFUSED, tf.graph.PASSES):
        z, v = tf.jit(f, passes=passes)(gpu(xn))
        y = xn * np.float32(2)
        check(z, (np.sin(y.astype(np.float64)) + 1).astype(F32), rtol=1e-6, atol=1e-6)
        check(v, y[1:, ::2] * np.float32(3), rtol=0)


# -- autodiff ---------------------------------------------------------------------------------

def _loss(x, y):
    return tf.sum(tf.sin(x) * y + x * x * tf.exp(-y))


def _loss_grad_np(xn, yn):
    x, y = xn.astype(np.float64), yn.astype(np.float64)
    return np.cos(x) * y + 2 * x * np.exp(-y), np.sin(x) - x * x * np.exp(-y)


def test_jit_grad_on_webgpu_vs_cpu_and_numpy():
    xn, yn = rand((20, 9), 9), rand((20, 9), 10)
    jg = tf.jit(tf.grad(_loss, argnums=(0, 1)))
    gx, gy = jg(gpu(xn), gpu(yn))
    cx, cy = jg(tf.asarray(xn), tf.asarray(yn))
    wx, wy = _loss_grad_np(xn, yn)
    for got, cpu, want in ((gx, cx, wx), (gy, cy, wy)):
        assert got.device == DEV
        check(got, want.astype(F32), rtol=1e-5, atol=1e-5)
        check(got, cpu.numpy(), rtol=1e-5, atol=1e-5)
    # the compiled gradient program is fused, and runs the WGSL kernel
    gp = tf.compile(tf.make_graph(_loss, gpu(xn), gpu(yn)).grad((0, 1)))
    assert "fused_elementwise" in prims(gp)
    for got, want in zip(gp(gpu(xn), gpu(yn)), (wx, wy)):
        check(got, want.astype(F32), rtol=1e-5, atol=1e-5)


def test_transforms_of_traced_graphs_on_webgpu():
    xn, yn = rand((11,), 11), rand((11,), 12)
    x, y = gpu(xn), gpu(yn)
    p = tf.compile(tf.make_graph(_loss, x, y))
    assert prims(p) == ["fused_elementwise"]
    wx, wy = _loss_grad_np(xn, yn)
    # a differentiated Program runs its unfused graph; p.graph uses the fused node's rules
    for fn in (p, p.graph):
        check(tf.grad(lambda a: fn(a, y))(x), wx.astype(F32), rtol=1e-5, atol=1e-5)
        val, pull = tf.vjp(lambda a, b: fn(a, b), x, y)
        check(val, np.float32(_loss_np(xn, yn)), rtol=1e-5)
        gx, gy = pull(tf.ones((), dtype=tf.float32, device="webgpu"))
        check(gx, wx.astype(F32), rtol=1e-5, atol=1e-5)
        check(gy, wy.astype(F32), rtol=1e-5, atol=1e-5)
        tn = rand((11,), 13)
        _, t = tf.jvp(lambda a: fn(a, y), (x,), (gpu(tn),))
        check(t, np.float32((wx * tn).sum()), rtol=1e-5, atol=1e-5)


def _loss_np(xn, yn):
    x, y = xn.astype(np.float64), yn.astype(np.float64)
    return (np.sin(x) * y + x * x * np.exp(-y)).sum()


# -- which device a program runs on --------------------------------------------------------

def test_program_traced_for_cpu_runs_on_its_inputs_device(monkeypatch):
    xn, yn = rand((4, 5), 14), rand((5,), 15)
    p = tf.compile(tf.make_graph(lambda x, y: x * y + tf.sin(x), tf.asarray(xn), tf.asarray(yn)))
    assert p.graph.device == tf.device("cpu")
    cpu_impls = tf.devices.get_driver("cpu").implementations
    for op in ("fused_elementwise", "multiply", "sin", "add"):   # nothing runs on the host
        monkeypatch.setitem(cpu_impls, op, lambda *a, **k: pytest.fail("ran on the CPU"))
    out = p(gpu(xn), gpu(yn))          # documented: a program runs on its inputs' device
    assert out.device == DEV
    monkeypatch.undo()
    same_bits(out, p(gpu(xn), gpu(yn)))
    check(out, p(tf.asarray(xn), tf.asarray(yn)).numpy(), rtol=2e-6, atol=2e-6)


def test_mixed_devices_are_an_error_never_a_transfer():
    xn, yn = rand((3,), 16), rand((3,), 17)
    p = tf.compile(tf.make_graph(lambda x, y: x + y, gpu(xn), gpu(yn)))
    with pytest.raises(DeviceMismatchError, match="Program: expected all tensors on one "
                                                  "device, got webgpu:0, cpu"):
        p(gpu(xn), tf.asarray(yn))
    with pytest.raises(DeviceMismatchError, match="tenferro.make_graph: expected all tensors on "
                                                  "one device, got cpu, webgpu:0"):
        tf.jit(lambda x, y: x + y)(gpu(xn), tf.asarray(yn))
    # a constant captured on the CPU cannot run with webgpu inputs
    c = tf.asarray(yn)
    pc = tf.compile(tf.make_graph(lambda x: x * c, tf.asarray(xn)))
    with pytest.raises(DeviceMismatchError, match="a constant of multiply.*cpu, webgpu:0"):
        pc(gpu(xn))


def test_jit_retraces_per_device_and_forbids_transfers_inside():
    xn = rand((6,), 19)
    jf = tf.jit(lambda x: tf.exp(x) * 2.0)
    a, b = jf(tf.asarray(xn)), jf(gpu(xn))
    assert a.device == tf.device("cpu") and b.device == DEV
    assert jf.cache_info().misses == 2            # the device is part of the signature
    check(b, a.numpy(), rtol=2e-6)
    check(b, (np.exp(xn.astype(np.float64)) * 2).astype(F32), rtol=2e-6)
    with pytest.raises(TenferroError, match="a transfer between devices inside"):
        tf.jit(lambda x: x.to("cpu") * 2.0)(gpu(xn))


def test_program_input_checks_name_shapes_and_dtypes():
    p = tf.compile(tf.make_graph(lambda x: x * 2.0, gpu(rand((3,), 18))))
    with pytest.raises(TypeError, match=r"input of shape \(3,\) and dtype int32 where the "
                                        r"graph expects shape \(3,\) and dtype float32"):
        p(gpu(np.arange(3, dtype=np.int32)))


def test_program_with_ops_webgpu_lacks_raises_before_running():
    a = np.eye(3, dtype=np.float32) * 2
    p = tf.compile(tf.make_graph(lambda a: tl.cholesky(a) * 2.0, tf.asarray(a)))
    missing = p.unsupported(DEV)
    assert missing, missing
    with pytest.raises(TenferroError, match="device webgpu:0 cannot run %s; nothing was run"
                       % missing[0]):
        p(gpu(a))


# -- the fused kernel -----------------------------------------------------------------------

def test_fused_chain_is_one_dispatch_and_one_compile(dispatches):
    xn, yn = rand((1000,), 19), rand((1000,), 20)
    x, y = gpu(xn), gpu(yn)

    def f(x, y):
        z = x * y + tf.sin(x)
        for _ in range(4):
            z = tf.tanh(z) * y - x
        return z, z > 0.0
    g = tf.make_graph(f, x, y)
    fused, unfused = tf.compile(g), tf.compile(g, UNFUSED)
    assert prims(fused) == ["fused_elementwise"]
    before = W.pipeline_info()["compiles"]
    a, am = fused(x, y)
    assert len(dispatches) == 1
    assert W.pipeline_info()["compiles"] == before + 1
    del dispatches[:]
    b, bm = unfused(x, y)
    assert len(dispatches) == len(unfused.graph.nodes) == 16
    del dispatches[:]
    compiled = W.pipeline_info()["compiles"]
    fused(x, y)                                   # the cached pipeline, one dispatch
    assert len(dispatches) == 1 and W.pipeline_info()["compiles"] == compiled
    same_bits(a, b)
    same_bits(am, bm)
    want = xn.astype(np.float64) * yn + np.sin(xn)
    for _ in range(4):
        want = np.tanh(want) * yn - xn
    check(a, want.astype(F32), rtol=1e-5, atol=1e-5)


def test_fused_edge_values_bit_for_bit():
    vals = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.5, -2.5, 3e38, -1e-40, 7.0],
                    np.float32)
    xn = np.array(np.meshgrid(vals, vals)).reshape(2, -1)
    ints = np.array([INT_MIN, INT_MAX, -1, 0, 1, 7, -7, 65536, 46341, -3], np.int32)
    inn = np.array(np.meshgrid(ints, ints)).reshape(2, -1)

    def f(a, b, i, j):
        fl = tf.where(a > b, a * b - a, tf.minimum(a, b) / (b + 1.0))
        iv = i * j + tf.astype(a, "int32") - tf.abs(i)     # wraps around like NumPy
        return fl, iv, (i > j) ^ tf.isnan(a), tf.astype(iv, "float32") * -0.0
    args = [gpu(xn[0]), gpu(xn[1]), gpu(inn[0]), gpu(inn[1])]
    g = tf.make_graph(f, *args)
    p = tf.compile(g)
    assert prims(p) == ["fused_elementwise"] * 3       # three disconnected groups
    got, ref = p(*args), tf.compile(g, UNFUSED)(*args)
    for a, b in zip(got, ref):
        same_bits(a, b)
    a, b, i, j = xn[0], xn[1], inn[0], inn[1]
    with np.errstate(all="ignore"):
        fl = np.where(a > b, a * b - a, np.minimum(a, b) / (b + np.float32(1)))
        ai = a.astype(np.int32)                                   # x86: INT_MIN
        iv = i * j + ai - np.abs(i)
    check(got[0], fl, rtol=0)
    check(got[1], iv)
    check(got[2], (i > j) ^ np.isnan(a))
    check(got[3], iv.astype(F32) * np.float32(-0.0), rtol=0)
    assert (np.signbit(host(got[3])) == np.signbit(iv.astype(F32) * np.float32(-0.0))).all()


@pytest.mark.parametrize("name", ["y-y", "-(y-y)", "y*y-y*y", "fma", "y/y", "(y*2)/2"])
def test_fused_kernel_keeps_ieee_semantics_across_nodes(name):
    """Mesa's compiler may rewrite float algebra inside one kernel (t - t -> 0, t + 0
    -> t, a * b + c -> fma): the fused kernel must give the unfused kernels' values."""
    f = {"y-y": lambda y: y - y, "-(y-y)": lambda y: -(y - y),
         "y*y-y*y": lambda y: y * y - y * y, "fma": lambda y: y * 1.1 + 1e-8 * y,
         "y/y": lambda y: y / y, "(y*2)/2": lambda y: (y * 2.0) / 2.0}[name]
    xn = np.array([0, -0.0, np.inf, -np.inf, np.nan, 2, 1 + 2 ** -23, 3e38, 1e-45],
                  np.float32)
    g = tf.make_graph(lambda x: f(x * 1.5), gpu(xn))      # (x * 1.0 is simplified away)
    p = tf.compile(g)
    assert prims(p) == ["fused_elementwise"]
    got = p(gpu(xn))
    same_bits(got, tf.compile(g, UNFUSED)(gpu(xn)))
    with np.errstate(all="ignore"):
        want = f(xn * np.float32(1.5))
    check(got, want, rtol=0)
    assert (np.signbit(host(got)) == np.signbit(want))[~np.isnan(want)].all()


def test_fused_layouts_aliasing_and_broadcast(dispatches):
    base = rand((9, 12), 21)
    x = gpu(base)
    # one buffer read as three inputs (bound once), transposed, strided, broadcast
    a, b, c = x[:6, :6], x[3:, ::2].T, x[0]
    g = tf.make_graph(lambda a, b, c: tf.exp(a - b) * c[:6] + a * b, a, b, c)
    p = tf.compile(g)
    assert prims(p) == ["basic_index", "fused_elementwise"]    # c[:6]: a view
    got = p(a, b, c)
    src, = dispatches
    assert src.count("var<storage, read>") == 2       # x once, the layout once
    an, bn, cn = base[:6, :6], base[3:, ::2].T, base[0]
    want = np.exp(an.astype(np.float64) - bn) * cn[:6] + an * bn
    check(got, want.astype(F32), rtol=1e-5, atol=1e-5)
    same_bits(got, tf.compile(g, UNFUSED)(a, b, c))


def test_fused_more_than_65535_workgroups():
    n = 65535 * W.wgsl.WORKGROUP + 3                  # the 2-D dispatch grid, as test_webgpu's
    a = np.arange(n, dtype=np.float32) * np.float32(1e-3)
    p = tf.compile(tf.make_graph(lambda x: (lambda v: (v, v > 5.0))(x * 2.0 - 1.0), gpu(a)))
    assert prims(p) == ["fused_elementwise"]
    v, m = p(gpu(a))
    v, m = host(v), host(m)
    want = a * np.float32(2) - np.float32(1)
    for sl in (slice(0, 1000), slice(n - 1000, n), slice(None, None, 4099)):
        np.testing.assert_array_equal(v[sl], want[sl])
        np.testing.assert_array_equal(m[sl], want[sl] > 5)


@pytest.mark.parametrize("shape", [(0,), (0, 4), (3, 0, 2)])
def test_fused_empty(shape):
    xn = np.zeros(shape, np.float32)
    p = tf.compile(tf.make_graph(lambda x: (tf.sin(x) * 2.0 + 1.0, tf.sum(x * x + 1.0, axis=-1)),
                            gpu(xn)))
    a, s = p(gpu(xn))
    check(a, xn, rtol=0)
    check(s, np.zeros(shape[:-1], np.float32), rtol=0)


@pytest.mark.parametrize("op,axis", [("sum", None), ("sum", 0), ("max", 1), ("min", (0, 1)),
                                     ("any", 1), ("all", 0), ("prod", 0)])
@pytest.mark.parametrize("shape", [(5, 7), (70, 9000)])
def test_fused_reduction_tail(op, axis, shape, dispatches):
    xn, yn = rand(shape, 22, -1, 1), rand(shape[-1:], 23, -1, 1)

    def f(x, y):
        v = tf.exp(x * 0.01) * y + 0.5
        return getattr(tf, op)(v > 0.4 if op in ("any", "all") else v, axis=axis)
    g = tf.make_graph(f, gpu(xn), gpu(yn))
    p = tf.compile(g)
    assert prims(p) == ["fused_elementwise"]
    got = p(gpu(xn), gpu(yn))
    fused_n = len(dispatches)
    del dispatches[:]
    unfused = tf.compile(g, UNFUSED)
    ref = unfused(gpu(xn), gpu(yn))
    n_ew = sum(n.prim.name != op for n in unfused.graph.nodes)
    assert n_ew >= 4 and fused_n == len(dispatches) - n_ew   # the elementwise in the reduction
    v = np.exp(xn.astype(np.float64) * 0.01) * yn + 0.5
    want = getattr(np, op)(v > 0.4 if op in ("any", "all") else v, axis=axis)
    if op in ("any", "all", "max", "min"):
        same_bits(got, ref)
        check(got, np.asarray(want).astype(BOOL if op in ("any", "all") else F32),
              rtol=1e-6)
    else:
        n = v.size if axis is None else v.shape[axis]
        # float32 summation error grows with sqrt(n) (pairwise/tree order); prods of 70
        # factors reach the denormals (atol)
        check(got, np.asarray(want).astype(F32), rtol=2e-6 * np.sqrt(n) + 1e-6,
              atol=2e-7 * np.sqrt(n) * np.abs(v).max() if op == "sum" else 1e-37)
        check(got, host(ref), rtol=0, atol=0)      # the driver's own reduction, same input


def test_fused_falls_back_node_by_node_with_the_unfused_error():
    i = gpu(np.arange(1, 7, dtype=np.int64))
    g = tf.make_graph(lambda i: (i * 2) // (i + 1) + i, i)    # int64 floor_divide: not on webgpu
    assert prims(tf.compile(g)) == ["fused_elementwise"]
    for passes in (UNFUSED, tf.graph.PASSES):
        with pytest.raises(UnsupportedOperation, match="floor_divide.*webgpu:0.*int64"):
            tf.compile(g, passes)(i)


def test_fused_integer_power_keeps_the_host_check():
    """int32 power raises NumPy's ValueError for negative exponents, checked on the host
    before the kernel: a fused group holding it runs node by node, with the check."""
    g = tf.make_graph(lambda i, e: (i * 2) ** e + i, gpu(np.arange(3, dtype=np.int32)),
                 gpu(np.arange(3, dtype=np.int32)))
    p = tf.compile(g)
    assert prims(p) == ["fused_elementwise"]
    i0, e0 = np.array([1, -3, 5], np.int32), np.array([0, 3, 2], np.int32)
    np.testing.assert_array_equal(host(p(gpu(i0), gpu(e0))), (i0 * 2) ** e0 + i0)
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        p(gpu(i0), gpu(np.array([1, -1, 2], np.int32)))


def test_fused_reduction_allocates_no_temporary(monkeypatch):
    xn = rand((64, 3000), 28)
    shapes = []
    new = W.array.new
    for module in (W.render, W.reduce, W.fused):   # the modules that allocate here
        monkeypatch.setattr(module, "new",
                            lambda shape, *a: shapes.append(shape) or new(shape, *a))
    p = tf.compile(tf.make_graph(lambda x: tf.sum(tf.sin(x) * x, axis=1), gpu(xn)))
    got = p(gpu(xn))
    assert shapes and all(np.prod(s) < xn.size // 100 for s in shapes), shapes   # partials
    check(got, (np.sin(xn.astype(np.float64)) * xn).sum(axis=1).astype(F32), rtol=1e-5,
          atol=1e-4)


def test_fused_reduction_tail_with_another_output(dispatches):
    xn, yn = rand((30, 200), 26), rand((200,), 27)

    def f(x, y):
        v = x * y                      # an output of the group, and feeds the sum's input
        return v, tf.sum(tf.exp(v * 0.1) - 1.0, axis=1)
    g = tf.make_graph(f, gpu(xn), gpu(yn))
    p = tf.compile(g)
    assert prims(p) == ["fused_elementwise"]
    assert len(p.graph.nodes[0].outputs) == 2
    v, s = p(gpu(xn), gpu(yn))
    rv, rs = tf.compile(g, UNFUSED)(gpu(xn), gpu(yn))
    same_bits(v, rv)
    same_bits(s, rs)
    check(v, xn * yn, rtol=0)
    check(s, (np.exp(xn.astype(np.float64) * yn * 0.1) - 1).sum(axis=1).astype(F32),
          rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n", [4, 5000])
def test_fused_integer_sum_accumulates_in_int64(n, dispatches):
    """NumPy sums int32 in int64: the fused reduction widens each value as it loads it
    (past int32's range here), in one kernel per pass."""
    i0 = np.random.default_rng(n).integers(2**29, 2**31 - 1, (3, n)).astype(np.int32)
    g = tf.make_graph(lambda i: tf.sum(i * 3 - 1, axis=1), gpu(i0))
    p = tf.compile(g)
    assert prims(p) == ["fused_elementwise"]
    got = p(gpu(i0))
    assert got.dtype == np.int64
    np.testing.assert_array_equal(host(got), np.sum(i0 * np.int32(3) - np.int32(1), axis=1))
    np.testing.assert_array_equal(host(got), host(tf.compile(g, UNFUSED)(gpu(i0))))


def test_fused_falls_back_when_the_adapter_has_too_few_bindings(monkeypatch, dispatches):
    xs = [rand((5,), 30 + k) for k in range(4)]
    g = tf.make_graph(lambda a, b, c, d: a * b + c * d - a, *[gpu(x) for x in xs])
    p = tf.compile(g)
    assert prims(p) == ["fused_elementwise"]
    limits = W.context.get_context().limits
    monkeypatch.setitem(limits, "max_storage_buffers_per_shader_stage", 4)
    got = p(*[gpu(x) for x in xs])
    assert len(dispatches) == 4                         # node by node
    check(got, xs[0] * xs[1] + xs[2] * xs[3] - xs[0], rtol=1e-6)


def test_fused_kernel_plans_live_with_their_program():
    import gc
    import weakref

    # the driver keeps each group's kernel plan itself (not in the sub-graph's
    # __dict__), and lets it go with the program
    x = gpu(rand((5,), 40))
    p = tf.compile(tf.trace(lambda a: tf.sin(a) * a + 1.0, x))
    assert prims(p) == ["fused_elementwise"]
    check(p(x), np.sin(host(x)) * host(x) + 1.0, rtol=1e-6)
    sub = p.graph.nodes[0].params["graph"]
    assert W.fused._PLANS.get(sub) is not None and "_wgsl_fused" not in vars(sub)
    alive = weakref.ref(sub)
    del p, sub
    gc.collect()
    assert alive() is None


def test_fused_gradients_vs_cpu():
    xn, yn = rand((3, 40), 24), rand((40,), 25)

    def f(x, y):
        return tf.sum(tf.tanh(x * y) * tf.sin(y) + tf.where(x > 0, x, -x * 0.5))
    jg = tf.jit(tf.grad(f))
    got = jg(gpu(xn), gpu(yn))
    p = tf.compile(tf.make_graph(f, gpu(xn), gpu(yn)).grad((0,)))
    assert "fused_elementwise" in prims(p)
    x, y = xn.astype(np.float64), yn.astype(np.float64)
    want = (1 - np.tanh(x * y) ** 2) * y * np.sin(y) + np.where(x > 0, 1.0, -0.5)
    check(got, want.astype(F32), rtol=1e-5, atol=1e-5)
    check(got, jg(tf.asarray(xn), tf.asarray(yn)).numpy(), rtol=1e-5, atol=1e-5)
    out = p(gpu(xn), gpu(yn))
    check(out[0] if isinstance(out, tuple) else out, want.astype(F32), rtol=1e-5, atol=1e-5)


# -- random expression graphs (hypothesis) ---------------------------------------------------

_OPS = {  # dtype kind -> (unary ops, binary ops); results keep the dtype
    "f": (["negative", "abs", "square", "sin_tanh", "exp_tanh", "sqrt_abs", "floor"],
          ["add", "subtract", "multiply", "maximum", "minimum", "where_gt", "divide"]),
    "i": (["negative", "abs", "square", "bitwise_invert"],
          ["add", "subtract", "multiply", "maximum", "minimum", "where_gt", "bitwise_xor",
           "floor_divide"]),
    "b": (["logical_not"], ["logical_and", "logical_or", "logical_xor", "equal"]),
}
_DT = {"f": F32, "i": I32, "b": BOOL}
_SHAPES = [(), (1,), (4,), (3, 1), (1, 4), (3, 4), (2, 3, 4)]


def _apply(mod, op, *a):
    if op == "sqrt_abs":
        return mod.sqrt(mod.abs(a[0]))
    if op in ("exp_tanh", "sin_tanh"):  # GPU sin/exp are accurate on small arguments only
        return getattr(mod, op[:3])(mod.tanh(a[0]) * 3)
    if op == "where_gt":
        return mod.where(a[0] > a[1], a[0], a[1])
    if op.startswith("tail_"):
        return getattr(mod, op[5:])(a[0], axis=-1 if a[0].ndim else None)
    if op.startswith("to_"):
        return a[0].astype(_DT[op[3]]) if mod is np else tf.astype(a[0], _DT[op[3]])
    return getattr(mod, op)(*a)


@st.composite
def _programs(draw):
    nin = draw(st.integers(1, 3))
    kinds = [draw(st.sampled_from("fib")) for _ in range(nin)]
    shapes = [draw(st.sampled_from(_SHAPES)) for _ in range(nin)]
    ops = []
    for k in range(draw(st.integers(1, 10))):
        j = draw(st.integers(0, nin + k - 1))
        kind = kinds[j]
        choice = draw(st.integers(0, 2))
        if choice == 0:
            to = draw(st.sampled_from([c for c in "fib" if c != kind]))
            ops.append(("to_" + to, (j,)))
            kinds.append(to)
        elif choice == 1:
            ops.append((draw(st.sampled_from(_OPS[kind][0])), (j,)))
            kinds.append(kind)
        else:
            same = [m for m, c in enumerate(kinds) if c == kind]
            ops.append((draw(st.sampled_from(_OPS[kind][1])), (j, draw(st.sampled_from(same)))))
            kinds.append(kind)
    # optionally reduce the last value over its last axis (a reduction ends the group)
    tail = draw(st.sampled_from([None, "max", "min", "any", "all"]
                                + (["sum"] if kinds[-1] == "f" else [])))
    return kinds[:nin], shapes, ops + ([("tail_" + tail, (nin + len(ops) - 1,))] if tail
                                       else []), draw(st.integers(1, 2))


def _run(mod, ops, nout, xs):
    vals = list(xs)
    for op, args in ops:
        vals.append(_apply(mod, op, *[vals[a] for a in args]))
    return tuple(vals[-nout:])


def _inputs(kinds, shapes, seed):
    r = np.random.default_rng(seed)
    out = []
    for k, s in zip(kinds, shapes):
        if k == "f":
            a = r.uniform(-3, 3, s).astype(F32)
            a[r.random(s) < 0.1] = -0.0
        elif k == "i":
            a = r.integers(-20, 21, s).astype(I32)
            a[r.random(s) < 0.1] = INT_MIN
        else:
            a = r.random(s) < 0.5
        out.append(np.asarray(a))
    return out


@hyp_settings(60)
@given(_programs(), st.integers(0, 2**31))
def test_random_graphs_fused_equals_unfused_and_numpy(prog, seed):
    kinds, shapes, ops, nout = prog
    xs_np = _inputs(kinds, shapes, seed)
    xs = [gpu(a) for a in xs_np]
    g = tf.make_graph(lambda *a: _run(tf, ops, nout, a), *xs)
    fused = tf.compile(g)(*xs)
    unfused = tf.compile(g, UNFUSED)(*xs)
    with np.errstate(all="ignore"):
        ref = _run(np, ops, nout, xs_np)
    for f, u, r in zip(fused, unfused, ref):
        same_bits(f, u)
        r = np.asarray(r)
        # float32 -> int32 of NaN/out of range is INT_MIN on x86 (and on webgpu)
        got = host(f)
        assert got.dtype == r.dtype and got.shape == r.shape
        if r.dtype == F32:
            np.testing.assert_allclose(got, r, rtol=1e-5, atol=1e-5, equal_nan=True)
        else:
            np.testing.assert_array_equal(got, r)
