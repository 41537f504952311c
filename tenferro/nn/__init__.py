"""Neural-network functions, functional like torch.nn.functional and jax.nn:
convolutions, pooling, activations, normalizations and ``affine`` (docs/nn.md has the
table, the PyTorch correspondence and the conventions at the kinks and ties).

An extension of tenferro like :mod:`tenferro.special` and :mod:`tenferro.fft`, its
primitives registered through :mod:`tenferro.autograd.extend`:

* ``nn.conv``, an N-d general dilated convolution (JAX's ``conv_general_dilated`` in
  PyTorch's NCHW layout) whose VJPs are ``nn.conv`` again, on CPU through the einsum
  engine's BLAS step; ``conv1d``/``conv2d``/``conv3d`` and ``avg_pool2d`` are written
  with it; ``max_pool2d`` is the window argmax ``nn.max_pool_argmax`` (not
  differentiable) and a gather, whose rules give every derivative order;
* the elementwise activations (``relu``, ``leaky_relu``, ``elu``, ``softplus``,
  ``gelu``, ``silu``) are primitives ``nn.<name>`` with PyTorch's backward formulas as
  their rules (PyTorch's gradients at the kinks), one fused CPU kernel per plain eager
  call, the elementwise batching rule, and a rewrite rule that lets ``jit`` fuse them
  with their neighbours; ``softmax``/``log_softmax`` are tenferro.special's along an
  axis; ``layer_norm`` and ``rms_norm`` are primitives with a CPU row kernel and
  PyTorch's backward formulas as rules (the composition on other devices); ``affine``
  is a composition of tenferro's ops.

Axes follow tenferro's ``axis=`` convention (``softmax`` also takes PyTorch's ``dim=``).
"""
from ._activations import (affine, elu, gelu, leaky_relu, log_softmax, relu, silu,  # noqa
                           softmax, softplus)
from ._conv import conv1d, conv2d, conv3d  # noqa: F401
from ._norm import layer_norm, rms_norm  # noqa: F401
from ._pool import avg_pool2d, max_pool2d  # noqa: F401

__all__: list[str] = ["conv1d", "conv2d", "conv3d", "max_pool2d", "avg_pool2d", "relu",
                      "leaky_relu", "elu", "softplus", "gelu", "silu", "softmax",
                      "log_softmax", "layer_norm", "rms_norm", "affine"]

from ._docs import document as _document  # noqa: E402
_document(globals())   # the activations' and convolutions' docstrings, one template each
