"""The backward engine, shared by the eager tape and the functional ``vjp``.

A :class:`Node` is one recorded primitive application (PyTorch's ``grad_fn``): the
primitive, its parameters, the inputs its VJP rule needs and, per input, an edge to
the node that produced it (``None`` when no gradient flows there).  Leaves that
require grad end in an :class:`AccumulateGrad` node.  :func:`run_backward` orders
the graph with Kahn's algorithm (iterative: no recursion limit on deep graphs),
sums the cotangents arriving at each node once per use, and applies the VJP rules.

Eager recording (:func:`record`) is installed as ``tenferro._primitive._tape``: every
eagerly bound primitive with an input that requires grad gets a node.  Nothing here
refers back from a node to its outputs (outputs saved for the rule are kept as
device arrays and rebuilt at backward time), so a graph is freed as soon as its root
tensor is, without the garbage collector's help.
"""
import functools
import weakref

from .. import _primitive, _versions
from .._tensor import AutogradMeta, Tensor, _wrap
from .._ops import add, asarray, copy, is_contiguous, ones_like, zeros_like

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "backward",
           "grad", "Node", "AccumulateGrad"]


# -- grad mode ---------------------------------------------------------------------------

class _GradMode:
    enabled = True


_mode = _GradMode()


def _set_mode(enabled):
    """Grad mode is whether the tape is installed: ``bind`` and the ops' fast paths call
    ``_primitive._tape`` only when it is set, so disabled grad mode costs nothing."""
    _mode.enabled = enabled
    _primitive._tape = record if enabled else None


def is_grad_enabled():
    """Whether eager operations on tensors that require grad are recorded."""
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
    """Do not record eager operations (a context manager or a decorator).

    Functional transforms (``grad``, ``jvp``, ...) are not affected: they differentiate
    what they are given; use :func:`tenferro.stop_gradient` to cut them.
    """
    _value = False


class enable_grad(_GradModeContext):
    """Record eager operations again inside a :class:`no_grad` block."""
    _value = True


class set_grad_enabled(_GradModeContext):
    """``set_grad_enabled(mode)``: set grad mode now; as a context manager or a
    decorator, restore the previous mode afterwards."""

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

_FREED = ("tenferro: trying to backward through the graph a second time (or to use saved "
          "tensors after they were freed): the buffers of %s were released by the first "
          "backward. Specify retain_graph=True in the first backward() or autograd.grad() "
          "call if you need to backward through the graph again.")


class Node:
    """A recorded primitive application (``tensor.grad_fn``)."""

    __slots__ = ("prim", "params", "primals", "out", "edges", "nout", "pre_hooks", "freed",
                 "epoch", "__weakref__")

    def __init__(self, prim, params, primals, out, edges, nout=1):
        self.prim = prim
        self.params = params
        self.primals = primals
        self.out = out
        self.edges = edges
        self.nout = nout
        self.pre_hooks = None
        self.freed = False
        self.epoch = _versions.epoch

    @property
    def name(self):
        return "".join(p.capitalize() for p in self.prim.name.split("_")) + "Backward"

    def __repr__(self):
        return "<%s>" % self.name

    @property
    def next_functions(self):
        """``(node, output index)`` per input, ``(None, 0)`` where no gradient flows."""
        return tuple(e if e is not None else (None, 0) for e in self.edges)

    @property
    def inputs(self):
        """The inputs saved for the VJP rule (an error once freed by backward)."""
        if self.freed:
            raise RuntimeError(_FREED % self.name)
        return self.primals

    def outputs(self, create_graph):
        return self.out

    def apply(self, cts, needs, create_graph):
        """The input cotangents for output cotangents ``cts`` (a list, one per output)."""
        if self.freed:
            raise RuntimeError(_FREED % self.name)
        if _versions.epoch != self.epoch:
            self.check_unmodified()
        rule = self.prim.vjp or self.prim.rule("rev")  # rule() raises, naming prim and mode
        res = rule(cts[0] if self.nout == 1 else tuple(cts), self.primals,
                   self.outputs(create_graph), self.params, needs)
        if not getattr(rule, "trusted", False):  # tenferro's rules are verified by its tests
            for g, p in zip(res, self.primals):
                if g is not None:
                    gd = g._data
                    pd = p._data
                    if gd.shape != pd.shape or gd.dtype != pd.dtype:
                        self.bad_cotangent(g, p)
        return res

    def bad_cotangent(self, g, p):
        raise RuntimeError(
            "tenferro internal error: the VJP of %s returned a cotangent of shape %s and dtype "
            "%s for an input of shape %s and dtype %s"
            % (self.prim.name, g.shape, g.dtype, p.shape, p.dtype))

    def check_unmodified(self):
        outs = () if self.out is None else self.out if self.nout > 1 else (self.out,)
        for i, t in enumerate(tuple(self.primals) + tuple(outs)):
            d = getattr(t, "_data", t)
            if d is not None and _versions.modified_since(d, self.epoch):
                what = ("input %d" % i if i < len(self.primals)
                        else "output %d" % (i - len(self.primals)))
                raise RuntimeError(
                    "tenferro: %s of %s (shape %s), saved for the gradient, was modified by "
                    "an in-place operation after it was recorded; the gradient would be wrong. "
                    "Use out-of-place operations, or copy the tensor before modifying it"
                    % (what, self.name, d.shape))

    def release(self):
        self.primals = self.out = None
        self.freed = True


class TapeNode(Node):
    """A node of the eager tape: outputs are kept as device arrays (no reference cycle
    through the output tensors) and rebuilt, connected to this node, for the rule."""

    __slots__ = ("device",)

    def __init__(self, prim, params, primals, out, edges, nout, device):
        self.prim = prim
        self.params = params
        self.primals = primals
        self.out = out
        self.edges = edges
        self.nout = nout
        self.pre_hooks = None
        self.freed = False
        self.epoch = _versions.epoch
        self.device = device

    def outputs(self, create_graph):
        if self.out is None:  # not kept: the rule does not use it
            return None
        if self.nout == 1:
            if not create_graph:
                return _wrap(self.out, self.device)
            return self._rebuild(self.out, 0, create_graph)
        return tuple(self._rebuild(d, i, create_graph) for i, d in enumerate(self.out))

    def _rebuild(self, data, i, create_graph):
        t = _wrap(data, self.device)
        if create_graph and data.dtype.kind in "fc":
            t._ad = _nonleaf_meta(self, i)
        return t


class ZeroNode(TapeNode):
    """A piecewise-constant float primitive (floor, sign, ...): zero gradients."""

    __slots__ = ()

    def apply(self, cts, needs, create_graph):
        if self.freed:
            raise RuntimeError(_FREED % self.name)
        return tuple(zeros_like(p) if n else None for p, n in zip(self.primals, needs))


class AccumulateGrad(Node):
    """The end of the graph at a leaf tensor that requires grad: adds into ``.grad``.

    The leaf keeps its accumulator (created once); the accumulator refers back to the
    leaf weakly, so neither a leaf nor a ``.grad`` made with ``create_graph=True`` forms
    a reference cycle.
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
    if not isinstance(r, Tensor) or r.shape != g.shape:
        raise RuntimeError("tenferro: a hook on a %s must return None or a tensor of the "
                           "gradient's shape %s, got %r" % (what, g.shape,
                                                          getattr(r, "shape", type(r))))
    return r


def detach(t):
    """A tensor sharing ``t``'s data, outside every autodiff graph and transform."""
    return _wrap(t._data, t._device)


def accumulator(t):
    """The leaf's AccumulateGrad node."""
    m = t._ad
    acc = m.accumulator
    if acc is None:
        acc = m.accumulator = AccumulateGrad(t)
    return acc


def check_zero_derivative(prim, args):
    """Piecewise-constant is a statement about real inputs (complex sign is z/|z|)."""
    for a in args:
        if a.dtype.kind == "c":
            raise TypeError("tenferro.%s: not differentiable for complex input (dtype %s); "
                            "for the complex sign use z / abs(z)" % (prim.name, a.dtype))


def record(prim, args, params, out):
    """Record an eager primitive application whose inputs take part in autodiff
    (installed as ``_primitive._tape`` while grad mode is enabled)."""
    edges = []
    taped = False
    for a in args:
        m = a._ad
        if m is not None:
            fn = m.grad_fn
            if fn is not None:
                edges.append((fn, m.output_nr))
                taped = True
                continue
            if m.requires_grad:
                acc = m.accumulator
                edges.append((acc if acc is not None else accumulator(a), 0))
                taped = True
                continue
        edges.append(None)
    if not taped:
        return out
    cls = TapeNode
    if not prim.differentiable:
        if not prim.zero_derivative:
            return out
        check_zero_derivative(prim, args)
        cls = ZeroNode
    rule = prim.vjp
    keep = cls is TapeNode and (rule is None or getattr(rule, "uses_out", True))
    if prim.multiple_results:
        if not any(o._data.dtype.kind in "fc" for o in out):
            return out
        node = cls(prim, params, args, tuple(o._data for o in out) if keep else None,
                   edges, len(out), out[0]._device)
        for i, o in enumerate(out):
            if o._data.dtype.kind in "fc":
                o._ad = _nonleaf_meta(node, i)
        return out
    d = out._data
    if d.dtype.kind not in "fc":
        return out
    out._ad = _nonleaf_meta(cls(prim, params, args, d if keep else None, edges, 1,
                                out._device), 0)
    return out


def _nonleaf_meta(node, i, _new=object.__new__):
    m = _new(AutogradMeta)
    m.requires_grad = True
    m.grad = None
    m.grad_fn = node
    m.output_nr = i
    m.hooks = None
    m.post_hooks = None
    m.accumulator = None
    m.retains_grad = False
    return m


_primitive._tape = record


# -- the engine ----------------------------------------------------------------------------

def _dependencies(roots):
    """For every node reachable from ``roots``: how many edges of the graph enter it."""
    deps = {}
    stack = []
    for n in roots:
        if n not in deps:
            deps[n] = 0
            stack.append(n)
    while stack:
        for e in stack.pop().edges:
            if e is not None:
                c = e[0]
                d = deps.get(c)
                if d is None:
                    deps[c] = 1
                    stack.append(c)
                else:
                    deps[c] = d + 1
    return deps


def _needed(deps, roots, targets):
    """The nodes from which a target can be reached (the graph pruned for ``targets``)."""
    deps = dict(deps)
    ready = [n for n in dict.fromkeys(roots) if deps[n] == 0]
    order = []
    while ready:  # Kahn's algorithm: every node after all the nodes that feed it
        n = ready.pop()
        order.append(n)
        for e in n.edges:
            if e is not None:
                c = e[0]
                deps[c] -= 1
                if deps[c] == 0:
                    ready.append(c)
    tnodes = {n for n, _ in targets}
    needed = set()
    for n in reversed(order):
        if n in tnodes or any(e is not None and e[0] in needed for e in n.edges):
            needed.add(n)
    return needed


def run_backward(roots, cts, *, create_graph=None, keep_graph=True, targets=None,
                 accumulate=True, owned=None, prune=True):
    """Propagate cotangents ``cts`` from ``roots`` (``(node, output index)`` pairs).

    Nodes run in Kahn's order (each once every node feeding it has run), iteratively.
    ``targets``: ``(node, index)`` pairs whose incoming cotangent is captured and
    returned as a dict (the graph is pruned to what reaches them).  ``accumulate``:
    AccumulateGrad nodes add into their leaves' ``.grad``.  ``create_graph``: record
    the backward computation on the eager tape (``None`` leaves grad mode as it is,
    as functional transforms do).  ``keep_graph``: keep saved tensors for another pass.
    ``prune=False``: the caller knows every node reaches a target.
    """
    root_nodes = [n for n, _ in roots]
    deps = _dependencies(root_nodes)
    needed = None
    if targets is not None:
        if prune:
            needed = _needed(deps, root_nodes, targets)
        targets = set(targets)
    buffers = {}
    for (n, i), g in zip(roots, cts):
        b = buffers.get(n)
        if b is None:
            b = buffers[n] = [None] * n.nout
        b[i] = g if b[i] is None else add(b[i], g)
    captured = {}
    owned = set() if owned is None else owned
    prev = _mode.enabled
    if create_graph is not None:
        _set_mode(bool(create_graph))
    ready = [n for n in dict.fromkeys(root_nodes) if deps[n] == 0]
    try:
        while ready:
            n = ready.pop()
            edges = n.edges
            for e in edges:  # n's consumers have all run: its children may be ready now
                if e is not None:
                    c = e[0]
                    d = deps[c] - 1
                    deps[c] = d
                    if d == 0:
                        ready.append(c)
            b = buffers.pop(n, None)
            if b is None or (needed is not None and n not in needed):
                continue
            if n.pre_hooks:
                _run_pre_hooks(n, b)
            if targets is not None:
                for i in range(n.nout):
                    if b[i] is not None and (n, i) in targets:
                        captured[(n, i)] = b[i]
            if not edges:
                if accumulate and type(n) is AccumulateGrad:
                    n.accumulate(b[0], _mode.enabled, owned)
                continue
            if needed is None:
                needs = edges  # an edge (truthy) or None per input: whether it needs a cotangent
                if edges.count(None) == len(edges):
                    continue
            else:
                needs = tuple(e is not None and e[0] in needed for e in edges)
                if True not in needs:
                    continue
            res = n.apply(b, needs, _mode.enabled)
            if not keep_graph:
                n.release()
            for e, g in zip(edges, res):
                if g is not None and e is not None:
                    c, i = e
                    cb = buffers.get(c)
                    if cb is None:
                        cb = buffers[c] = [None] * c.nout
                        cb[i] = g
                    elif cb[i] is None:
                        cb[i] = g
                    else:
                        cb[i] = add(cb[i], g)
    finally:
        _set_mode(prev)
    return captured


def _run_pre_hooks(n, b):
    for i, hooks in n.pre_hooks.items():
        for h in list(hooks):
            if b[i] is not None:
                r = h(b[i])
                if r is not None:
                    b[i] = _check_hook_result(r, b[i], "tensor")


# -- the eager API ---------------------------------------------------------------------------

def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _root(op, t, i):
    if not isinstance(t, Tensor):
        raise TypeError("tenferro.%s: expected tensors as outputs, got %s at position %d"
                        % (op, type(t).__name__, i))
    m = t._ad
    if m is None or not (m.requires_grad or m.grad_fn is not None):
        raise RuntimeError("tenferro.%s: element %d of tensors does not require grad and does "
                           "not have a grad_fn (shape %s, dtype %s)" % (op, i, t.shape, t.dtype))
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
        from .._errors import DeviceMismatchError

        raise DeviceMismatchError(op, [t._device, g._device])
    if g.dtype != t.dtype:
        if g.dtype.kind == "c" and t.dtype.kind != "c":
            raise TypeError("tenferro.%s: gradient %d is complex (%s) but the output is real "
                            "(%s)" % (op, i, g.dtype, t.dtype))
        g = g.astype(t.dtype)
    return g


def _targets(op, inputs):
    ts = []
    for i, x in enumerate(inputs):
        if not isinstance(x, Tensor):
            raise TypeError("tenferro.%s: inputs must be tensors, got %s at position %d"
                            % (op, type(x).__name__, i))
        m = x._ad
        if m is None or not (m.requires_grad or m.grad_fn is not None):
            raise RuntimeError("tenferro.%s: input %d does not require grad (shape %s)"
                               % (op, i, x.shape))
        ts.append((m.grad_fn, m.output_nr) if m.grad_fn is not None else (accumulator(x), 0))
    return ts


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the leaves."""
    tensors = _as_tuple(tensors)
    grads = _as_tuple(grad_tensors) if grad_tensors is not None else (None,) * len(tensors)
    if len(grads) != len(tensors):
        raise ValueError("tenferro.backward: got %d gradients for %d tensors"
                         % (len(grads), len(tensors)))
    roots = [_root("backward", t, i) for i, t in enumerate(tensors)]
    cts = [_root_grad("backward", t, g, i) for i, (t, g) in enumerate(zip(tensors, grads))]
    keep = create_graph if retain_graph is None else retain_graph
    owned = {id(g) for g in cts}
    if inputs is None:
        run_backward(roots, cts, create_graph=create_graph, keep_graph=keep, owned=owned)
        return
    inputs = _as_tuple(inputs)
    if not inputs:
        raise RuntimeError("tenferro.backward: inputs= was given but is empty")
    targets = _targets("backward", inputs)
    captured = run_backward(roots, cts, create_graph=create_graph, keep_graph=keep,
                            targets=targets, owned=owned)
    for x, key in zip(inputs, targets):  # non-leaf inputs: accumulate into .grad too
        g = captured.get(key)
        if x._ad.grad_fn is not None and g is not None:
            g = g if create_graph else detach(g)
            x._ad.grad = g if x._ad.grad is None else x._ad.grad + g


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=None, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs`` (``.grad`` untouched)."""
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
    roots = [_root("autograd.grad", t, i) for i, t in enumerate(outputs)]
    cts = [_root_grad("autograd.grad", t, g, i) for i, (t, g) in enumerate(zip(outputs, grads))]
    targets = _targets("autograd.grad", inputs)
    keep = create_graph if retain_graph is None else retain_graph
    captured = run_backward(roots, cts, create_graph=create_graph, keep_graph=keep,
                            targets=targets, accumulate=False)
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
