"""``clear_grads()`` (tenferro-rs's ``EagerRuntime::clear_grads``): ``.grad = None`` on
every live tensor that was given ``requires_grad=True``.

``requires_grad_(True)`` (which the ``requires_grad=`` keywords, the property's setter
and unpickling call) notes the tensor in a weak set: the only cost, paid when
gradients are asked for; a tensor that dies leaves the set by itself, so the registry
keeps nothing alive.  Gradients kept on intermediate tensors by ``retain_grad()`` are
not the leaves' and are left alone (they go with their graph).
"""
from __future__ import annotations

import threading
import weakref

__all__ = ["clear_grads"]

_leaves: weakref.WeakSet = weakref.WeakSet()
_lock = threading.Lock()


def note(t) -> None:
    """Remember ``t`` (made to require gradients) for :func:`clear_grads`."""
    with _lock:
        _leaves.add(t)


def clear_grads() -> None:
    """Set ``.grad`` to None on every live tensor made to require grad.

    Every tensor given ``requires_grad=True`` (or ``requires_grad_()``) and still
    alive: PyTorch's ``optimizer.zero_grad(set_to_none=True)`` over all of them, or
    tenferro-rs's ``EagerRuntime::clear_grads``.  Gradients kept on intermediate
    tensors by ``retain_grad()`` are left alone.

    Returns
    -------
    None

    See Also
    --------
    Tensor.zero_grad

    Examples
    --------
    >>> w = tf.asarray([1.0, 2.0]).requires_grad_()
    >>> (w * w).sum().backward()
    >>> w.grad
    tensor([2., 4.])
    >>> tf.clear_grads()
    >>> w.grad is None
    True
    """
    with _lock:
        ts = list(_leaves)
    for t in ts:
        m = t._ad
        if m is not None:
            m.grad = None


def live_leaves() -> list:
    """The live tensors :func:`clear_grads` would reach (for tests and debugging)."""
    with _lock:
        return list(_leaves)
