"""
Devices and compilation: one program eager, jit-compiled, on the CPU and on a GPU
==================================================================================

The same tenferro function runs on every device whose driver implements its
primitives: here the loss and gradient of a one-hidden-layer perceptron,
:math:`L = \\mathrm{mean}\\,(\\tanh(XW_1 + b_1)\\,W_2 - y)^2`, differentiated with
:func:`tenferro.value_and_grad`. It runs in four ways: eagerly (each operation
dispatched from Python as it is reached) and compiled with :func:`tenferro.jit`
(traced once into a graph, optimised by the passes, elementwise chains fused into
single kernels, then run as one generated function), each on the CPU and on the
WebGPU device (wgpu compute shaders; float32 only). A CUDA GPU is timed too when one
is present.

Every result is checked against the same computation in NumPy (float64, with the
gradient written out by hand), so that all devices are asserted to agree. The timings
show when compiling pays: for small arrays, where Python's per-operation overhead
dominates, and less so for large ones, where the matrix products dominate.

*Read the timings with care.* In CI, and on machines without a GPU, the WebGPU
adapter is Mesa's lavapipe (``llvmpipe``): a software Vulkan driver that runs the
shaders on the CPU. Its timings measure that emulation, not a GPU. The CUDA host
simulator (``TENFERRO_CUDA_SIMULATOR=1``, a test harness that runs the CUDA kernels
on the CPU) is detected and not timed.
"""

# %%
# The program
# -----------
# ``loss`` is ordinary tenferro code; ``step`` returns the loss and the gradients with
# respect to the three parameter arrays. The same two Python objects, ``step`` and
# its compiled twin ``fast_step``, serve every device: a tensor's device decides where
# each operation runs, and ``jit`` keeps one compiled program per input signature
# (shapes, dtypes and device).

import time

import matplotlib.pyplot as plt
import numpy as np

import tenferro as tf


def loss(params, X, y):
    W1, b1, W2 = params
    h = tf.tanh(X @ W1 + b1)
    return tf.mean((h @ W2 - y) ** 2)


step = tf.value_and_grad(loss)
fast_step = tf.jit(step)


def reference(arrays):
    """Loss and gradients in float64 NumPy, backpropagation written out."""
    X, y, W1, b1, W2 = arrays
    h = np.tanh(X @ W1 + b1)
    r = h @ W2 - y
    d_out = 2.0 * r / r.size
    dz = (d_out @ W2.T) * (1.0 - h**2)
    return np.mean(r**2), (X.T @ dz, dz.sum(axis=0), h.T @ d_out)


# %%
# The devices
# -----------
# :func:`tenferro.devices.available` lists what this machine has. A driver's
# ``info()`` says what is behind a device: WebGPU reports the adapter and its type
# (``"CPU"`` for a software rasteriser such as lavapipe), CUDA the GPU's compute
# capability, ``"host"`` for the simulator.

available = tf.devices.available()
print("available devices:", available)
devices = [("cpu", "CPU")]
if any(d.startswith("webgpu") for d in available):
    info = tf.devices.get_driver("webgpu").info(0)
    software = info.get("adapter_type") == "CPU"
    label = "WebGPU\n(lavapipe: software\nVulkan on the CPU)" if software and \
        "llvmpipe" in info.get("adapter", "") else "WebGPU\n(%s)" % info.get("adapter")
    print(f"webgpu: {info.get('adapter')} via {info.get('backend')}, adapter type "
          f"{info.get('adapter_type')}" + (": a CPU emulation, not a GPU" if software else ""))
    devices.append(("webgpu", label))
else:
    print("webgpu: not available on this machine (pip install 'tenferro[webgpu]' and a "
          "Vulkan, Metal or D3D12 driver); its timings are skipped")
if any(d.startswith("cuda") for d in available):
    info = tf.devices.get_driver("cuda").info(0)
    if str(info.get("arch", "")).startswith("sm_"):
        print(f"cuda: {info['name']} ({info['arch']})")
        devices.append(("cuda", "CUDA\n" + info["name"]))
    else:
        print("cuda: the host simulator (TENFERRO_CUDA_SIMULATOR=1) runs the CUDA kernels "
              "on the CPU for testing; not timed")
else:
    print("cuda: no GPU on this machine; its timings are skipped")

# %%
# Timing
# ------
# Two sizes of the same program: a small batch (64 examples, 16 inputs, 32 hidden
# units), where each operation does little work, and a large one (2048 x 256 x 256),
# where the two matrix products of the forward pass and the three of the backward
# pass dominate. Each configuration is run once to warm up (the first call of
# ``fast_step`` traces and compiles; WebGPU compiles its shaders), then timed as the
# best of several calls, each waiting for the device to finish
# (:meth:`~tenferro.devices.Device.synchronize`): the best, not the median, because
# on a shared machine other processes slow some calls several-fold. Every result is
# compared with the NumPy reference.

SIZES = {"small: 64 x 16 x 32": (64, 16, 32), "large: 2048 x 256 x 256": (2048, 256, 256)}
rng = np.random.default_rng(0)


def best_time(fn, args, device, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args)
        device.synchronize()
        times.append(time.perf_counter() - t0)
    return float(np.min(times))


def check(out, ref, what):
    (val, grads), (ref_val, ref_grads) = out, ref
    np.testing.assert_allclose(val.to("cpu").numpy(), ref_val, rtol=1e-4, err_msg=what)
    for g, rg in zip(grads, ref_grads):
        np.testing.assert_allclose(g.to("cpu").numpy(), rg, rtol=1e-3,
                                   atol=1e-4 * np.abs(rg).max(), err_msg=what)


timings = {}      # (size, device, mode) -> seconds per call
first_call = {}   # the same, for the first call (jit: tracing and compiling)
for size_name, (n, d, k) in SIZES.items():
    arrays = [rng.standard_normal((n, d)), rng.standard_normal((n, 1)),
              rng.standard_normal((d, k)) / np.sqrt(d), np.zeros(k),
              rng.standard_normal((k, 1)) / np.sqrt(k)]
    ref = reference(arrays)
    results = {}
    for dev, _ in devices:
        X, y, W1, b1, W2 = [tf.asarray(a, dtype=tf.float32, device=dev) for a in arrays]
        args = ((W1, b1, W2), X, y)
        device = tf.device(dev)
        repeat = 30 if n < 1000 else (3 if dev == "webgpu" else 7)
        for mode, fn in (("eager", step), ("jit", fast_step)):
            t0 = time.perf_counter()
            out = fn(*args)                                  # warm-up / compile
            device.synchronize()
            first_call[size_name, dev, mode] = time.perf_counter() - t0
            check(out, ref, f"{dev} {mode} {size_name}")
            results[dev, mode] = out
            timings[size_name, dev, mode] = best_time(fn, args, device, repeat)
    # all devices and modes agree with each other as well as with NumPy
    cpu_val = results["cpu", "eager"][0].item()
    for key, (val, _) in results.items():
        assert abs(val.item() - cpu_val) <= 1e-5 * abs(cpu_val), key
    print(f"{size_name}: loss {cpu_val:.6f} (NumPy float64: {ref[0]:.6f}); "
          f"{len(results)} device/mode results agree")
    for dev, _ in devices:
        e, j = timings[size_name, dev, "eager"], timings[size_name, dev, "jit"]
        print(f"  {dev:7s} eager {1e3 * e:8.3f} ms   jit {1e3 * j:8.3f} ms   "
              f"jit speed-up {e / j:5.1f}x")

# %%
# What was compiled
# -----------------
# ``fast_step.trace`` gives the graph a call traces to, before the passes: the
# forward pass and the gradient that reverse mode derived, 24 primitives. The
# compiled program (``fast_step.lower(...).graph``) is what runs: the elementwise
# chains (bias, ``tanh`` and the ``1 - h**2`` its derivative needs; the residual,
# its square and their sum) have become ``fused_elementwise`` nodes, each one kernel
# that keeps its intermediates in cache. The transposes feeding products
# (``permute_dims``, still listed) are views, not copies: the matrix-product kernel
# reads them in place.

n, d, k = SIZES["small: 64 x 16 x 32"]
params = (tf.zeros((d, k), dtype=tf.float32), tf.zeros(k, dtype=tf.float32),
          tf.zeros((k, 1), dtype=tf.float32))
X, y = tf.zeros((n, d), dtype=tf.float32), tf.zeros((n, 1), dtype=tf.float32)
traced = fast_step.trace(params, X, y)
print(traced)
compiled = fast_step.lower(params, X, y).graph
print(compiled)
n_fused = sum(node.prim.name == "fused_elementwise" for node in compiled.nodes)
print(f"{len(traced.nodes)} traced primitives -> {len(compiled.nodes)} compiled nodes, "
      f"{n_fused} of them fused groups")
assert n_fused >= 2

# %%
# When jit helps
# --------------
# The small program's 24 operations take a few microseconds of work each, so eager
# time is mostly Python dispatch per operation; the compiled program removes it and
# the speed-up is large. At the large size the matrix products do the work on every
# path alike and compiling saves only the dispatch and the fused elementwise passes
# over memory, a smaller share (here within the timing noise, either way). Compiling has a one-time cost, the first call; a
# training loop or an optimiser calling the same function thousands of times repays it
# quickly, a function called once does not.

small, large = SIZES
e_s, j_s = timings[small, "cpu", "eager"], timings[small, "cpu", "jit"]
e_l, j_l = timings[large, "cpu", "eager"], timings[large, "cpu", "jit"]
print(f"CPU, small: eager {1e6 * e_s:.0f} us = about {1e6 * e_s / len(traced.nodes):.1f} us "
      f"per operation; jit {1e6 * j_s:.0f} us ({e_s / j_s:.1f}x)")
print(f"CPU, large: eager {1e3 * e_l:.1f} ms, jit {1e3 * j_l:.1f} ms ({e_l / j_l:.2f}x): "
      f"the products dominate")
compile_s = first_call[small, "cpu", "jit"]
print(f"the first jit call (trace, passes, code generation) took {1e3 * compile_s:.1f} ms: "
      f"paid back after about {compile_s / (e_s - j_s):.0f} calls at the small size")
assert j_s < e_s

# %%
# The chart
# ---------
# Best time per call of the loss and gradient, one panel per size, on a log scale
# (so equal ratios look equal). Each device's eager and jit times are two points
# joined by a line: its slope is the jit speed-up. Points rather than bars, because
# a bar's length on a log axis depends on where the axis happens to start.

fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
for ax, size_name in zip(axes, SIZES):
    x = np.arange(len(devices))
    vals = {mode: np.array([1e3 * timings[size_name, dev, mode] for dev, _ in devices])
            for mode in ("eager", "jit")}
    for i in x:
        ax.plot([i - 0.15, i + 0.15], [vals["eager"][i], vals["jit"][i]], color="0.6",
                lw=1, zorder=1)
    for mode, color, marker, dx, ha in (("eager", "C0", "o", -0.15, "right"),
                                        ("jit", "C1", "s", 0.15, "left")):
        ax.scatter(x + dx, vals[mode], color=color, marker=marker, s=50, zorder=2,
                   label=mode)
        for i, v in zip(x, vals[mode]):
            ax.annotate(f"{v:.3g} ms", (i + dx, v), xytext=(-6 if ha == "right" else 6, 0),
                        textcoords="offset points", ha=ha, va="center", fontsize=8)
    ax.set_xticks(x, [label for _, label in devices], fontsize=8)
    ax.set_xlim(-0.7, len(devices) - 0.3)
    ax.set_yscale("log")
    ax.set_ylabel("ms per loss + gradient (best, log scale)")
    ax.set_title(size_name)
    ax.margins(y=0.25)
    ax.legend()
fig.suptitle("value_and_grad of a one-hidden-layer MLP, float32")
fig.tight_layout()
plt.show()
