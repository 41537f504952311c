"""Autodiff benchmarks: tenferro's eager tape and functional ``grad`` beside PyTorch's
autograd and ``torch.func.grad`` (2 threads each).

* the recording overhead of one tiny op (``x + y`` on 3 float64, ``x`` requiring grad),
  with the plain op (nothing requires grad) for reference;
* a 10-step chain ``z = z * c + y`` on 3 float64, forward + ``z.sum().backward()``;
* the same chain through the functional transform (``tenferro.grad`` /
  ``torch.func.grad``);
* an MLP-like layer pair, ``(tanh(x @ W1) @ W2).sum()`` with 512x512 operands, float64
  and float32: forward alone (recorded) and forward + backward;
* a deep chain of 10,000 tiny recorded ops: forward (recording), forward + backward,
  and backward alone over a retained graph (the engine's per-node cost).

Leaves that require grad have ``.grad`` reset to None before each run, so no call pays
for accumulating into the previous run's gradient.  The workloads are built by the
``make_*`` functions below, which ``asv_bench/compare_autograd.py`` times too.
"""
from .common import convert, get_array, module, set_threads, sync, torch_or_none

AD_LIBS = ["tenferro", "torch"]

CHAIN_STEPS = 10
DEEP_STEPS = 5_000  # two ops per step: 10,000 nodes
MLP_N = 512


def _leaf(a, lib, requires_grad=True):
    t = convert(a, lib)
    if requires_grad:
        t.requires_grad_()
    return t


def _chain(z, c, y, steps):
    for _ in range(steps):
        z = z * c + y
    return z


def _chain_operands(lib, requires_grad=True, steps=CHAIN_STEPS):
    # c = 1 + O(1/steps) keeps z and its gradient finite and normal (no overflow, no
    # denormals) however long the chain; x alone may require grad.
    x = _leaf(get_array(3, "float64", seed=11), lib, requires_grad)
    c = convert(1.0 + (get_array(3, "float64", "uniform", seed=12) - 1.0) / steps, lib)
    y = convert(get_array(3, "float64", seed=13), lib)
    return x, c, y


def make_tiny_record(lib, mode):
    """``x + y`` on 3 float64; mode 'requires_grad' (x requires grad: a node is recorded
    and freed with the result) or 'plain' (nothing requires grad)."""
    x = _leaf(get_array(3, "float64", seed=4), lib, requires_grad=(mode == "requires_grad"))
    y = convert(get_array(3, "float64", seed=5), lib)
    return lambda: x + y


def make_chain_backward(lib, steps=CHAIN_STEPS):
    """Forward of the chain from a leaf x, then ``z.sum().backward()``."""
    x, c, y = _chain_operands(lib, steps=steps)

    def run():
        x.grad = None
        z = _chain(x, c, y, steps).sum()
        z.backward()
        return x.grad
    return run


def make_chain_functional(lib, steps=CHAIN_STEPS):
    """``grad(f)(x)`` with ``f(x) = chain(x).sum()`` (``tenferro.grad`` /
    ``torch.func.grad``, the transform built once)."""
    x, c, y = _chain_operands(lib, requires_grad=False, steps=steps)

    def f(x):
        return _chain(x, c, y, steps).sum()

    if lib == "tenferro":
        g = module(lib).grad(f)
    else:
        torch = torch_or_none()
        if torch is None or not hasattr(torch, "func"):
            raise NotImplementedError("torch.func is not available")
        g = torch.func.grad(f)
    return lambda: g(x)


def _mlp_operands(lib, dtype):
    import numpy as np

    scale = 1.0 / np.sqrt(MLP_N)  # keeps tanh's argument O(1)
    x = convert(get_array((MLP_N, MLP_N), dtype, seed=21), lib)
    w1 = _leaf((get_array((MLP_N, MLP_N), dtype, seed=22) * scale).astype(dtype), lib)
    w2 = _leaf((get_array((MLP_N, MLP_N), dtype, seed=23) * scale).astype(dtype), lib)
    return x, w1, w2


def make_mlp(lib, dtype, stage):
    """``(tanh(x @ W1) @ W2).sum()`` with W1, W2 requiring grad; stage 'forward' (the
    recorded forward only) or 'forward_backward' (then ``.backward()``)."""
    xp = module(lib)
    x, w1, w2 = _mlp_operands(lib, dtype)
    tanh = xp.tanh

    if stage == "forward":
        return lambda: (tanh(x @ w1) @ w2).sum()

    def run():
        w1.grad = None
        w2.grad = None
        (tanh(x @ w1) @ w2).sum().backward()
        return w1.grad, w2.grad
    return run


def make_deep_chain(lib, stage, steps=DEEP_STEPS):
    """The chain with ``2 * steps`` recorded ops: stage 'forward' (recording only),
    'forward_backward', or 'backward' (over one graph kept with retain_graph=True)."""
    x, c, y = _chain_operands(lib, steps=steps)
    if stage == "forward":
        return lambda: _chain(x, c, y, steps).sum()
    if stage == "forward_backward":
        def run():
            x.grad = None
            _chain(x, c, y, steps).sum().backward()
            return x.grad
        return run
    if stage == "backward":
        loss = _chain(x, c, y, steps).sum()

        def run():
            x.grad = None
            loss.backward(retain_graph=True)
            return x.grad
        return run
    raise ValueError(stage)


class TinyRecord:
    """Per-op cost of ``x + y`` on 3 float64, with and without recording."""

    params = [AD_LIBS, ["plain", "requires_grad"]]
    param_names = ["lib", "mode"]

    def setup(self, lib, mode):
        set_threads()
        self.lib = lib
        self.fn = make_tiny_record(lib, mode)

    def time_tiny_add(self, lib, mode):
        sync(self.fn(), self.lib)


class ChainBackward:
    """10-step ``z = z * c + y`` on 3 float64 (20 recorded ops), forward + backward."""

    params = [AD_LIBS]
    param_names = ["lib"]

    def setup(self, lib):
        set_threads()
        self.lib = lib
        self.fn = make_chain_backward(lib)

    def time_chain_forward_backward(self, lib):
        sync(self.fn(), self.lib)


class ChainFunctionalGrad:
    """``grad(f)(x)`` of the 10-step chain (tenferro.grad / torch.func.grad)."""

    params = [AD_LIBS]
    param_names = ["lib"]

    def setup(self, lib):
        set_threads()
        self.lib = lib
        self.fn = make_chain_functional(lib)

    def time_chain_grad(self, lib):
        sync(self.fn(), self.lib)


class MLP:
    """``(tanh(x @ W1) @ W2).sum()``, 512x512 operands, W1 and W2 requiring grad."""

    params = [AD_LIBS, ["float32", "float64"], ["forward", "forward_backward"]]
    param_names = ["lib", "dtype", "stage"]
    timeout = 120

    def setup(self, lib, dtype, stage):
        set_threads()
        self.lib = lib
        self.fn = make_mlp(lib, dtype, stage)

    def time_mlp(self, lib, dtype, stage):
        sync(self.fn(), self.lib)


class DeepChain:
    """10,000 recorded tiny ops: recording, forward + backward, backward alone."""

    params = [AD_LIBS, ["forward", "forward_backward", "backward"]]
    param_names = ["lib", "stage"]
    timeout = 180

    def setup(self, lib, stage):
        set_threads()
        self.lib = lib
        self.fn = make_deep_chain(lib, stage)

    def time_deep_chain(self, lib, stage):
        sync(self.fn(), self.lib)
