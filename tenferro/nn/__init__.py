"""Neural-network functions, functional like torch.nn.functional and jax.nn.

An extension of tenferro like :mod:`tenferro.fft`: its primitives (the N-d convolution
``nn.conv``, max pooling's window argmax ``nn.max_pool_argmax``) are registered through
the public :mod:`tenferro.autograd.extend` API with CPU kernels, JVP, VJP and batching
rules; the rest is written from them and tenferro's ops.  See docs/nn.md.
"""
from ._conv import conv1d, conv2d, conv3d  # noqa: F401
from ._pool import max_pool2d, avg_pool2d  # noqa: F401

__all__ = ["conv1d", "conv2d", "conv3d", "max_pool2d", "avg_pool2d"]
