"""Automatic differentiation: an eager tape (PyTorch-style) and functional transforms
(JAX-style), over the primitive registry.

* Eager: ``x.requires_grad_()``, operations are recorded, ``y.backward()`` fills
  ``x.grad``; :func:`grad` here is PyTorch's ``torch.autograd.grad``.
* Functional: :func:`tenferro.grad`, ``vjp``, ``jvp``, ``jacfwd``, ``jacrev``,
  ``hessian``, ``hvp``, ``linearize``, nestable to any order.
* Rules: every differentiable primitive has a JVP and a VJP rule written with tenferro
  ops (``tenferro/autograd/_rules``), registered with the public API of
  :mod:`tenferro.autograd.extend`; an :class:`AdContext` overrides some of them
  inside a ``with`` block or for one graph transform.
* :func:`gradcheck` compares both modes with finite differences.
* Parallel backward: ``backward(num_workers=k)`` / :func:`set_backward_workers` run
  independent branches on ``k`` threads, with the serial pass's results bit for bit.
* Traced graphs: ``Graph.grad``/``vjp``/``jvp`` (attached here to the compiler's
  :class:`~tenferro.graph.Graph`); the compiler itself is :mod:`tenferro.graph`.

Complex numbers follow PyTorch's convention: for a real loss L of complex z the
gradient is dL/dRe z + i dL/dIm z (JAX's is its conjugate).  See docs/autodiff.md.
"""
from ._engine import (no_grad, enable_grad, set_grad_enabled, is_grad_enabled,  # noqa: F401
                      backward, grad, Node)
from ._functional import (value_and_grad, vjp, jvp, linearize, hvp, jacrev,  # noqa: F401
                          jacfwd, hessian, stop_gradient)
from .._primitive import Tracer  # noqa: F401
from ._functional import grad as functional_grad  # noqa: F401
from ._context import AdContext  # noqa: F401
from ._checkpoint import checkpoint, checkpoint_sequential, is_checkpointing  # noqa: F401
from ._parallel import (set_backward_workers, get_backward_workers,  # noqa: F401
                        backward_workers)
from .._tree import tree_flatten, tree_unflatten, tree_map  # noqa: F401
from . import extend  # noqa: F401
from . import _rules  # noqa: F401  (registers every rule)
from . import _graph_ad  # noqa: F401  (Graph.grad/vjp/jvp)
from ._gradcheck import gradcheck  # noqa: F401
from ._leaves import clear_grads  # noqa: F401

__all__ = [
    "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "backward", "Node",
    "grad", "value_and_grad", "vjp", "jvp", "linearize", "hvp", "jacrev", "jacfwd",
    "hessian", "stop_gradient", "functional_grad", "Tracer", "AdContext", "checkpoint",
    "checkpoint_sequential", "is_checkpointing", "set_backward_workers",
    "get_backward_workers", "backward_workers", "tree_flatten", "tree_unflatten",
    "tree_map", "gradcheck", "clear_grads",
]
