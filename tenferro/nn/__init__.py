"""Neural-network functions, functional like torch.nn.functional and jax.nn:
activations, normalizations and ``affine`` (docs/nn.md has the table, the PyTorch
correspondence and the conventions at the kinks).

An extension of tenferro like :mod:`tenferro.special`: the elementwise activations
(``relu``, ``leaky_relu``, ``elu``, ``softplus``, ``gelu``, ``silu``) are primitives
``nn.<name>`` registered through :mod:`tenferro.autograd.extend`, with PyTorch's
backward formulas as their rules (PyTorch's gradients at the kinks), one fused CPU
kernel per plain eager call, the elementwise batching rule, and a rewrite rule that
lets ``jit`` fuse them with their neighbours.  ``softmax``/``log_softmax`` are
tenferro.special's along an axis; ``layer_norm``, ``rms_norm`` and ``affine`` are
compositions of tenferro's ops.  Axes follow tenferro's ``axis=`` convention
(``softmax`` also takes PyTorch's ``dim=``).
"""
from ._activations import (affine, elu, gelu, leaky_relu, log_softmax, relu, silu,  # noqa
                           softmax, softplus)
from ._norm import layer_norm, rms_norm  # noqa: F401

__all__: list[str] = ["relu", "leaky_relu", "elu", "softplus", "gelu", "silu", "softmax",
                      "log_softmax", "layer_norm", "rms_norm", "affine"]
