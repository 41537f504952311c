"""The backward engine, shared by the eager tape and the functional ``vjp``.

A :class:`Node` is one recorded primitive application (PyTorch's ``grad_fn``): the
primitive, its parameters, the inputs its VJP rule needs and, per input, an edge to
the node that produced it (``None`` when no gradient flows there).  Leaves that
require grad end in an :class:`AccumulateGrad` node.  :func:`run_backward` orders
the graph with Kahn's algorithm (iterative: no recursion limit on deep graphs),
sums the cotangents arriving at each node once per use, and applies the VJP rules;
with ``num_workers > 1`` independent nodes run on several threads, with the serial
pass's results (:mod:`tenferro.autograd._parallel`).

Eager recording (:func:`record`) is installed as ``tenferro._primitive.recorder``: every
eagerly bound primitive with an input that requires grad gets a node.  Nothing here
refers back from a node to its outputs (outputs saved for the rule are kept as
device arrays and rebuilt at backward time), so a graph is freed as soon as its root
tensor is, without the garbage collector's help.

The per-op path (:func:`record`, the nodes of the eager tape) and the backward pass
(:func:`run_backward`) are compiled: they live in ``tenferro/autograd/_tape.pyx`` and
are connected to this module by ``_tape.init`` below.  This module also gives
:class:`~tenferro.Tensor` its autodiff methods (``backward``, ``requires_grad_``, the
hooks, the writable ``requires_grad`` and ``grad``): see :func:`_attach`.
"""
import functools
import threading
import weakref

from .. import _primitive
from .._errors import DeviceMismatchError
from .._ir import is_abstract
from .._ops import asarray, copy, copy_into, is_contiguous, ones_like, zeros_like
from .._tensor import Tensor, _wrap
from . import _leaves, _parallel, _tape
from ._tape import (AutogradMeta, Node, TapeNode, ZeroNode, _FREED,  # noqa: F401
                    _nonleaf_meta, check_zero_derivative, record, run_backward)

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "backward",
           "grad", "Node", "AccumulateGrad"]


# -- grad mode ---------------------------------------------------------------------------

# Grad mode is per thread (``_primitive.state.enabled``, PyTorch's semantics); the
# recorder installed as ``_primitive.recorder`` reads it, and the AdContext in force.
_mode = _primitive.state


def _set_mode(enabled):
    """Set this thread's grad mode (``bind`` and the ops' fast paths call
    ``_primitive.recorder`` for tensors in autodiff; it records only while enabled)."""
    _mode.enabled = enabled


def is_grad_enabled() -> bool:
    """Whether eager operations on tensors that require grad are recorded (this thread).

    As ``torch.is_grad_enabled``.  Grad mode is per thread and on by default; it is
    switched by :class:`no_grad`, :class:`enable_grad` and :class:`set_grad_enabled`.

    Returns
    -------
    bool
        The current thread's grad mode.

    See Also
    --------
    no_grad, set_grad_enabled

    Examples
    --------
    >>> tf.is_grad_enabled()
    True
    >>> with tf.no_grad():
    ...     tf.is_grad_enabled()
    False
    """
    return _mode.enabled


class _GradModeContext:
    """A context manager that is also a decorator (as ``torch.no_grad``)."""
    _value = None

    def __enter__(self):
        self._prev = _mode.enabled
        _set_mode(self._value)

    def __exit__(self, *exc):
        _set_mode(self._prev)

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradModeContext):
    """Do not record eager operations: a context manager or a decorator (``torch.no_grad``).

    Inside, results of operations on tensors that require grad do not require grad
    and get no ``grad_fn``: no tape is kept (less memory, for evaluation or for
    updating parameters in place).  The previous mode is restored on exit.  Grad mode
    is per thread.  Functional transforms (``grad``, ``jvp``, ...) are not affected:
    they differentiate what they are given; use :func:`tenferro.stop_gradient` to cut
    them.

    See Also
    --------
    enable_grad, set_grad_enabled, is_grad_enabled

    Examples
    --------
    >>> x = tf.asarray([1.0, 2.0]).requires_grad_()
    >>> with tf.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    >>> @tf.no_grad()
    ... def step(p):
    ...     return p - 0.1
    >>> step(x).requires_grad
    False
    """
    _value = False


class enable_grad(_GradModeContext):
    """Record eager operations again inside a :class:`no_grad` block (``torch.enable_grad``).

    A context manager or a decorator; the previous mode is restored on exit.

    See Also
    --------
    no_grad, set_grad_enabled

    Examples
    --------
    >>> x = tf.asarray(1.0).requires_grad_()
    >>> with tf.no_grad():
    ...     with tf.enable_grad():
    ...         y = x * 2
    >>> y.requires_grad
    True
    """
    _value = True


class set_grad_enabled(_GradModeContext):
    """Set grad mode on or off (``torch.set_grad_enabled``).

    Called alone it sets this thread's mode now; used as a context manager or a
    decorator it restores the previous mode afterwards.

    Parameters
    ----------
    mode : bool
        Record eager operations (True) or not (False).

    See Also
    --------
    no_grad, enable_grad, is_grad_enabled

    Examples
    --------
    >>> x = tf.asarray(1.0).requires_grad_()
    >>> with tf.set_grad_enabled(False):
    ...     (x * 2).requires_grad
    False
    >>> tf.is_grad_enabled()
    True
    """

    def __init__(self, mode):
        self._value = bool(mode)
        self._prev = _mode.enabled
        _set_mode(self._value)

    def __enter__(self):
        pass

    def __call__(self, fn):
        _set_mode(self._prev)  # as a decorator the call above must not stick
        value = self._value

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(value):
                return fn(*args, **kwargs)
        return wrapper


# -- graph nodes -------------------------------------------------------------------------
# Node, the eager tape's TapeNode and ZeroNode, record and run_backward are compiled
# (tenferro/autograd/_tape.pyx); the nodes below are not on the per-op path.

# Held while a gradient is added into a leaf's ``.grad`` (reentrant: a hook may run a
# backward pass of its own), so that concurrent backward passes sharing leaves sum.
_accumulate_lock = threading.RLock()


class AccumulateGrad(Node):
    """The end of the graph at a leaf tensor that requires grad: adds into ``.grad``.

    The leaf keeps its accumulator (created once); the accumulator refers back to the
    leaf weakly, so the pair forms no reference cycle.
    """

    __slots__ = ("_ref",)

    def __init__(self, variable):
        self.prim = self.params = self.out = self.pre_hooks = None
        self.primals = self.edges = ()
        self.nout = 1
        self.freed = False
        self.epoch = 0
        self._ref = weakref.ref(variable)

    @property
    def variable(self):
        """The leaf tensor (None once it has been deleted)."""
        return self._ref()

    @property
    def name(self):
        return "AccumulateGrad"

    def accumulate(self, g, create_graph, owned):
        t = self._ref()
        if t is None:  # the leaf is gone: nobody can see its gradient
            return
        with _accumulate_lock:   # backward passes in several threads may share a leaf
            self._accumulate(t, g, create_graph, owned)

    def _accumulate(self, t, g, create_graph, owned):
        m = t._ad
        if m.hooks:
            for h in list(m.hooks):
                r = h(g)
                if r is not None:
                    g = _check_hook_result(r, g, "leaf tensor")
        if not create_graph:
            g = detach(g)
        if m.grad is None:
            # .grad is the leaf's own writable tensor: not a broadcast view of a
            # cotangent, nor a tensor that another leaf (or the caller) also holds.
            if id(g) in owned or not is_contiguous(g):
                g = copy(g)
            owned.add(id(g))
            m.grad = g
        else:
            m.grad = m.grad + g
        if m.post_hooks:
            for h in list(m.post_hooks):
                h(t)


class InputNode(Node):
    """Where the functional ``vjp`` collects the cotangent of one of its inputs."""

    __slots__ = ()

    def __init__(self):
        Node.__init__(self, None, None, (), None, (), 1)

    @property
    def name(self):
        return "Input"


def _check_hook_result(r, g, what):
    """A hook's replacement gradient must be a tensor of the gradient's shape, dtype and
    device (as PyTorch's hooks)."""
    if not isinstance(r, Tensor) or r.shape != g.shape or r.dtype != g.dtype \
            or r._device is not g._device:
        raise RuntimeError("tenferro: a hook on a %s must return None or a tensor of the "
                           "gradient's shape %s, dtype %s and device %s, got %s"
                           % (what, g.shape, g.dtype, g._device,
                              "shape %s, dtype %s on %s" % (r.shape, r.dtype, r._device)
                              if isinstance(r, Tensor) else type(r).__name__))
    return r


def detach(t):
    """A tensor sharing ``t``'s data, outside every autodiff graph and transform.  A
    value being traced into a graph has no data: it stays that graph's value (its
    derivative is cut, its computation is still recorded)."""
    if is_abstract(t):
        while t.primal is not None:   # AD tracers down to the graph (or vmap) tracer
            t = t.primal
        return t._trace.detach(t) if t._trace.kind == "vmap" else t   # its batch, detached
    return _wrap(t._data, t._device)


def accumulator(t):
    """The leaf's AccumulateGrad node (made once, also when the workers of a parallel
    backward with ``create_graph`` record operations on the leaf at the same time)."""
    m = t._ad
    acc = m.accumulator
    if acc is None:
        with _accumulate_lock:
            acc = m.accumulator
            if acc is None:
                acc = m.accumulator = AccumulateGrad(t)
    return acc


def _run_pre_hooks(n, b):
    for i, hooks in n.pre_hooks.items():
        for h in list(hooks):
            if b[i] is not None:
                r = h(b[i])
                if r is not None:
                    b[i] = _check_hook_result(r, b[i], "tensor")


_tape.init(_set_mode, accumulator, AccumulateGrad, _run_pre_hooks)
_primitive.recorder = record


# -- the eager API ---------------------------------------------------------------------------

def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _graph_edge(op, t, i, what):
    """``(node, output index)`` where a gradient for tensor ``t`` enters the graph."""
    if not isinstance(t, Tensor):
        raise TypeError("tenferro.%s: %ss must be tensors, got %s at position %d"
                        % (op, what, type(t).__name__, i))
    m = t._ad
    if m is None or not (m.requires_grad or m.grad_fn is not None):
        raise RuntimeError("tenferro.%s: %s %d does not require grad and does not have a "
                           "grad_fn (shape %s, dtype %s)" % (op, what, i, t.shape, t.dtype))
    return (m.grad_fn, m.output_nr) if m.grad_fn is not None else (accumulator(t), 0)


def _root_grad(op, t, g, i):
    if g is None:
        if t.size != 1:
            raise RuntimeError("tenferro.%s: grad can be implicitly created only for scalar "
                               "outputs; output %d has shape %s: pass gradient= (a tensor of "
                               "that shape)" % (op, i, t.shape))
        if t.dtype.kind == "c":
            raise RuntimeError("tenferro.%s: grad can be implicitly created only for real "
                               "scalar outputs; output %d has dtype %s" % (op, i, t.dtype))
        return ones_like(t)
    if not isinstance(g, Tensor):
        g = asarray(g, device=t.device)
    if g.shape != t.shape:
        raise RuntimeError("tenferro.%s: mismatch in shape: gradient %d has shape %s but the "
                           "output has shape %s" % (op, i, g.shape, t.shape))
    if g._device is not t._device:

        raise DeviceMismatchError(op, [t._device, g._device])
    if g.dtype != t.dtype:
        if g.dtype.kind == "c" and t.dtype.kind != "c":
            raise TypeError("tenferro.%s: gradient %d is complex (%s) but the output is real "
                            "(%s)" % (op, i, g.dtype, t.dtype))
        g = g.astype(t.dtype)
    return g


def _targets(op, inputs):
    return [_graph_edge(op, x, i, "input") for i, x in enumerate(inputs)]


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None,
             num_workers=None):
    """Accumulate the gradients of ``tensors`` into the leaves' ``.grad``.

    As PyTorch's ``torch.autograd.backward``.
    Runs one reverse pass of the eager tape from ``tensors`` (weighted by
    ``grad_tensors``) and adds ``d(sum_i <grad_i, tensor_i>)/d leaf`` into the
    ``.grad`` of every leaf that requires grad (or only of ``inputs``).
    ``t.backward()`` is ``backward(t)``.

    Parameters
    ----------
    tensors : Tensor or sequence of Tensor
        The roots: tensors with a ``grad_fn`` (or leaves that require grad).
    grad_tensors : Tensor or sequence of Tensor, optional
        The cotangent of each root, of its shape; may be omitted for real scalars
        (ones).
    retain_graph : bool, optional
        Keep the graph's saved tensors for another backward; default ``create_graph``.
    create_graph : bool, default False
        Record the backward pass itself, for higher-order derivatives.
    inputs : Tensor or sequence of Tensor, optional
        Accumulate only into these tensors (non-leaves included).
    num_workers : int, optional
        Threads for the pass (independent branches run in parallel, with the serial
        pass's results bit for bit); default :func:`get_backward_workers`.

    Returns
    -------
    None

    Raises
    ------
    RuntimeError
        If a root does not require grad, a non-scalar root has no gradient, the graph
        was already freed by an earlier backward, or ``inputs`` is empty.
    ValueError
        If the number of gradients differs from the number of tensors.
    TypeError
        If a root or input is not a tensor, or a complex gradient is given for a real
        output.

    See Also
    --------
    tenferro.autograd.grad, Tensor.backward

    Examples
    --------
    >>> x = tf.asarray([1.0, 2.0]).requires_grad_()
    >>> tf.autograd.backward((x * x).sum())
    >>> x.grad
    tensor([2., 4.])
    """
    workers = _parallel.workers("backward", num_workers)
    tensors = _as_tuple(tensors)
    grads = _as_tuple(grad_tensors) if grad_tensors is not None else (None,) * len(tensors)
    if len(grads) != len(tensors):
        raise ValueError("tenferro.backward: got %d gradients for %d tensors"
                         % (len(grads), len(tensors)))
    roots = [_graph_edge("backward", t, i, "output") for i, t in enumerate(tensors)]
    cts = [_root_grad("backward", t, g, i) for i, (t, g) in enumerate(zip(tensors, grads))]
    keep = create_graph if retain_graph is None else retain_graph
    owned = {id(g) for g in cts}
    if inputs is None:
        run_backward(roots, cts, create_graph=create_graph, keep_graph=keep, owned=owned,
                     workers=workers)
        return
    inputs = _as_tuple(inputs)
    if not inputs:
        raise RuntimeError("tenferro.backward: inputs= was given but is empty")
    targets = _targets("backward", inputs)
    captured = run_backward(roots, cts, create_graph=create_graph, keep_graph=keep,
                            targets=targets, owned=owned, workers=workers)
    for x, key in zip(inputs, targets):  # non-leaf inputs: accumulate into .grad too
        g = captured.get(key)
        if x._ad.grad_fn is not None and g is not None:
            g = g if create_graph else detach(g)
            x._ad.grad = g if x._ad.grad is None else x._ad.grad + g


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=None, materialize_grads=False, num_workers=None):
    """The gradients of ``outputs`` with respect to ``inputs``, on the eager tape.

    As PyTorch's ``torch.autograd.grad``.
    One reverse pass from ``outputs``; the ``.grad`` of the leaves is not touched.
    (The functional ``jax.grad``-like transform is :func:`tenferro.grad`, also
    ``tenferro.autograd.functional_grad``.)

    Parameters
    ----------
    outputs : Tensor or sequence of Tensor
        The roots: tensors with a ``grad_fn``.
    inputs : Tensor or sequence of Tensor
        The tensors to differentiate with respect to (leaves or not).
    grad_outputs : Tensor or sequence of Tensor, optional
        The cotangent of each output; may be omitted for real scalars (ones).
    retain_graph : bool, optional
        Keep the graph for another pass; default ``create_graph``.
    create_graph : bool, default False
        Record the pass, so that the gradients can be differentiated again.
    allow_unused : bool, optional
        Return None for an input the outputs do not depend on instead of raising
        (default ``materialize_grads``).
    materialize_grads : bool, default False
        Return zeros instead of None for unused inputs.
    num_workers : int, optional
        Threads for the pass; default :func:`get_backward_workers`.

    Returns
    -------
    Tensor or tuple of Tensor
        One gradient per input, shaped like it; a lone tensor when ``inputs`` is one.

    Raises
    ------
    RuntimeError
        If an output or input does not require grad, a non-scalar output has no
        ``grad_outputs``, or an input is unused without ``allow_unused``.
    ValueError
        If the number of ``grad_outputs`` differs from the number of outputs.
    TypeError
        If an output or input is not a tensor.

    See Also
    --------
    backward, tenferro.grad

    Examples
    --------
    >>> x = tf.asarray([1.0, 2.0]).requires_grad_()
    >>> tf.autograd.grad((x ** 3).sum(), x)
    tensor([ 3., 12.])
    """
    workers = _parallel.workers("autograd.grad", num_workers)
    single = isinstance(inputs, Tensor)
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    grads = (_as_tuple(grad_outputs) if grad_outputs is not None
             else (None,) * len(outputs))
    if len(grads) != len(outputs):
        raise ValueError("tenferro.autograd.grad: got %d grad_outputs for %d outputs"
                         % (len(grads), len(outputs)))
    if allow_unused is None:
        allow_unused = materialize_grads
    roots = [_graph_edge("autograd.grad", t, i, "output") for i, t in enumerate(outputs)]
    cts = [_root_grad("autograd.grad", t, g, i) for i, (t, g) in enumerate(zip(outputs, grads))]
    targets = _targets("autograd.grad", inputs)
    keep = create_graph if retain_graph is None else retain_graph
    captured = run_backward(roots, cts, create_graph=create_graph, keep_graph=keep,
                            targets=targets, accumulate=False, workers=workers)
    res = []
    for i, (x, key) in enumerate(zip(inputs, targets)):
        g = captured.get(key)
        if g is None:
            if not allow_unused:
                raise RuntimeError("tenferro.autograd.grad: input %d (shape %s) is not used "
                                   "in the graph of the outputs; pass allow_unused=True to "
                                   "get None for it" % (i, x.shape))
            if materialize_grads:
                g = zeros_like(x)
        elif not create_graph:
            g = detach(g)
        res.append(g)
    return res[0] if single else tuple(res)


# -- hooks -----------------------------------------------------------------------------------

class RemovableHandle:
    """Returned by ``register_hook``: ``handle.remove()`` unregisters the hook."""

    __slots__ = ("_hooks", "_fn")

    def __init__(self, hooks, fn):
        self._hooks = hooks
        self._fn = fn

    def remove(self):
        try:
            self._hooks.remove(self._fn)
        except ValueError:
            pass


def register_hook(t, fn):
    m = t._ad
    if m is None or not (m.requires_grad or m.grad_fn is not None):
        raise RuntimeError("tenferro: cannot register a hook on a tensor that doesn't require "
                           "gradient (shape %s)" % (t.shape,))
    if m.grad_fn is None:
        if m.hooks is None:
            m.hooks = []
        hooks = m.hooks
    else:
        node = m.grad_fn
        if node.pre_hooks is None:
            node.pre_hooks = {}
        hooks = node.pre_hooks.setdefault(m.output_nr, [])
    hooks.append(fn)
    return RemovableHandle(hooks, fn)


def register_post_accumulate_grad_hook(t, fn):
    m = t._ad
    if m is None or m.grad_fn is not None or not m.requires_grad:
        raise RuntimeError("tenferro: post-accumulate-grad hooks can only be registered on "
                           "leaf tensors that require grad")
    if m.post_hooks is None:
        m.post_hooks = []
    m.post_hooks.append(fn)
    return RemovableHandle(m.post_hooks, fn)


def retain_grad(t):
    """Make a non-leaf tensor keep its gradient in ``.grad`` (a leaf always does)."""
    m = t._ad
    if m is None or not (m.requires_grad or m.grad_fn is not None):
        raise RuntimeError("tenferro: can't retain_grad on a tensor that has requires_grad="
                           "False (shape %s)" % (t.shape,))
    if m.grad_fn is None or m.retains_grad:
        return
    m.retains_grad = True
    ref = weakref.ref(t)

    def hook(g):
        x = ref()
        if x is not None:
            gd = g if _mode.enabled else detach(g)
            x._ad.grad = gd if x._ad.grad is None else x._ad.grad + gd
    register_hook(t, hook)


# -- Tensor's autodiff methods (attached from this layer; tenferro._tensor reads only) -------

def _meta(t):
    """``t``'s AutogradMeta, created on first use."""
    if t._ad is None:
        t._ad = AutogradMeta()
    return t._ad


class _TensorAutograd:
    """The autodiff half of :class:`~tenferro.Tensor` (copied onto it by :func:`_attach`)."""

    # the getters are _tensor's (read-only there); this layer adds the setters
    requires_grad = property(Tensor.requires_grad.fget,
                             lambda self, value: self.requires_grad_(value))

    def requires_grad_(self, requires_grad=True):
        """Start (or stop) recording operations on this leaf for :meth:`backward`, in
        place; returns the tensor (PyTorch's ``requires_grad_``)."""
        if requires_grad and self.dtype.kind not in "fc":
            raise RuntimeError("requires_grad_: only floating-point and complex tensors can "
                               "require gradients, got dtype %s" % self.dtype)
        _meta(self).requires_grad = bool(requires_grad)
        if requires_grad:
            _leaves.note(self)   # for clear_grads()
        return self

    def _set_grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError("Tensor.grad: assigned grad must be a Tensor or None, got %s"
                                % type(value).__name__)
            if value.shape != self.shape or value.dtype != self.dtype \
                    or value._device is not self._device:
                raise RuntimeError(
                    "Tensor.grad: assigned grad has shape %s, dtype %s on %s but the tensor "
                    "has shape %s, dtype %s on %s; they must match"
                    % (value.shape, value.dtype, value._device, self.shape, self.dtype,
                       self._device))
        _meta(self).grad = value

    grad = property(Tensor.grad.fget, _set_grad)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None,
                 num_workers=None):
        """Accumulate the gradient of this tensor into the leaves' ``.grad`` (PyTorch's
        ``backward``; a non-scalar tensor needs ``gradient``; ``num_workers``: threads
        for the pass, see :func:`tenferro.set_backward_workers`)."""
        backward(self, gradient, retain_graph, create_graph, inputs, num_workers)

    def detach(self):
        """The same data, cut from every autodiff graph and transform."""
        return detach(self)

    def zero_grad(self, set_to_none=True):
        """Clear ``.grad`` (``None``, or zeros in place with ``set_to_none=False``)."""
        if self._ad is None or self._ad.grad is None:
            return
        if set_to_none:
            self._ad.grad = None
        else:
            copy_into(self._ad.grad, 0)

    def register_hook(self, hook):
        """``hook(grad)`` runs when this tensor's gradient is computed; it may return a
        replacement.  Returns a handle with ``remove()``."""
        return register_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """``hook(tensor)`` runs after a leaf's ``.grad`` was accumulated."""
        return register_post_accumulate_grad_hook(self, hook)

    def retain_grad(self):
        """Keep the gradient of a non-leaf tensor in its ``.grad``."""
        retain_grad(self)


def _attach():
    for name, value in vars(_TensorAutograd).items():
        if not name.startswith("_"):
            if hasattr(value, "__qualname__"):
                value.__qualname__ = "Tensor." + name
            setattr(Tensor, name, value)


_attach()
