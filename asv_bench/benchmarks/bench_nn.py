"""Convolutions and poolings: ``tenferro.nn`` beside ``torch.nn.functional`` (the same
thread count), on the CPU.

A ResNet-style 3x3 convolution (32x64x56x56 input, 64 filters, padding 1) forward and
forward + backward, a strided one, a depthwise one, a conv1d, and the poolings forward
and forward + backward.  The workloads are built by :func:`make` (also used by
``asv_bench/compare_nn.py``).
"""
import numpy as np

from .common import FactoryBench, get_array, torch_or_none

NN_LIBS = ["tenferro", "torch"]

# name -> (function, dtype, input shape, weight shape or None, keywords, with backward)
CASES = {}
for _dt in ("float32", "float64"):
    for _bwd in (False, True):
        CASES["conv2d 32x64x56x56 k3 p1 %s%s" % (_dt, ": fwd+bwd" if _bwd else "")] = (
            "conv2d", _dt, (32, 64, 56, 56), (64, 64, 3, 3), dict(padding=1), _bwd)
CASES.update({
    "conv2d 32x64x56x56 k3 s2 p1 float32": ("conv2d", "float32", (32, 64, 56, 56),
                                            (128, 64, 3, 3), dict(stride=2, padding=1),
                                            False),
    "conv2d depthwise 32x64x56x56 k3 float32": ("conv2d", "float32", (32, 64, 56, 56),
                                                (64, 1, 3, 3), dict(padding=1, groups=64),
                                                False),
    "conv1d 64x32x4096 k5 float32": ("conv1d", "float32", (64, 32, 4096), (64, 32, 5),
                                     dict(padding=2), False),
    "conv1d 64x32x4096 k5 float32: fwd+bwd": ("conv1d", "float32", (64, 32, 4096),
                                              (64, 32, 5), dict(padding=2), True),
    "max_pool2d 32x64x112x112 k3 s2 p1 float32": ("max_pool2d", "float32",
                                                  (32, 64, 112, 112), None,
                                                  dict(kernel_size=3, stride=2, padding=1),
                                                  False),
    "max_pool2d 32x64x112x112 k3 s2 p1 float32: fwd+bwd": (
        "max_pool2d", "float32", (32, 64, 112, 112), None,
        dict(kernel_size=3, stride=2, padding=1), True),
    "avg_pool2d 32x64x56x56 k2 float32": ("avg_pool2d", "float32", (32, 64, 56, 56), None,
                                          dict(kernel_size=2), False),
    "avg_pool2d 32x64x56x56 k3 s1 p1 float32: fwd+bwd": (
        "avg_pool2d", "float32", (32, 64, 56, 56), None,
        dict(kernel_size=3, stride=1, padding=1), True),
})


def data(dtype, shape, seed):
    return np.ascontiguousarray(get_array(shape, "float64", "normal", seed=seed).astype(dtype))


def make(lib, case):
    """A zero-argument callable running ``case`` with ``lib`` (NotImplementedError when
    ``lib`` is not installed)."""
    fn, dtype, xs, ws, kw, bwd = CASES[case]
    x = data(dtype, xs, 51)
    w = None if ws is None else (data(dtype, ws, 52) / np.sqrt(np.prod(ws[1:]))).astype(dtype)
    if lib == "tenferro":
        import tenferro as tf
        import tenferro.nn as nn

        f = getattr(nn, fn)
        args = [tf.tensor(a, requires_grad=bwd) for a in (x, w) if a is not None]
    elif lib == "torch":
        torch = torch_or_none()
        if torch is None:
            raise NotImplementedError("PyTorch is not installed")
        f = getattr(torch.nn.functional, fn)
        args = [torch.tensor(a, requires_grad=bwd) for a in (x, w) if a is not None]
    else:
        raise ValueError(lib)
    if not bwd:
        return lambda: f(*args, **kw)

    def run():
        for a in args:
            a.grad = None
        f(*args, **kw).sum().backward()
        return args[0].grad
    return run


class NN(FactoryBench):
    params = [NN_LIBS, list(CASES)]
    make = staticmethod(make)

    def time_nn(self, lib, case):
        self.fn()
