# cython: language_level=3, boundscheck=True, wraparound=True, nonecheck=False
"""The hot core of tenferro's eager autodiff (see :mod:`tenferro.autograd._engine`).

The per-op recording (:func:`record`, installed as
``tenferro._primitive.recorder`` while grad mode is enabled), the graph nodes
(:class:`Node` and the eager tape's :class:`TapeNode` / :class:`ZeroNode`), the
per-tensor autodiff state (:class:`AutogradMeta`) and the backward pass
(:func:`run_backward`, serial or on several threads: ``_backward.pxi``, included at the
end), compiled so that recording and backward on tiny tensors cost little more than the
ops themselves.  What it needs from the layers below it imports;
``tenferro.autograd._engine`` calls :func:`init` at import with the four callables of
its own layer.

A :class:`Node` is one recorded primitive application (PyTorch's ``grad_fn``): the
primitive, its parameters, the inputs its VJP rule needs and, per input, an edge
``(node, output index)`` to the node that produced it (``None`` when no gradient
flows there).  Nothing here refers back from a node to its outputs (outputs saved for
the rule are kept as device arrays and rebuilt at backward time), so a graph is freed
as soon as its root tensor is, without the garbage collector's help.
"""
cimport cython
cimport numpy as cnp
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM

cnp.import_array()

# -- from the layers below --------------------------------------------------------------
from tenferro import _versions as _versions_module
from tenferro._ops import add as _add_fn, zeros_like as _zeros_like_fn
from tenferro._primitive import state as _state
from tenferro._tensor import _wrap as _wrap_fn

cdef object _versions = _versions_module
cdef dict _vdict = _versions_module.__dict__   # its ``epoch``, read without a lookup
cdef object _wrap = _wrap_fn
cdef object _add = _add_fn
cdef object _zeros_like = _zeros_like_fn
cdef object _mode = _state        # this thread's autodiff state

# -- from tenferro.autograd._engine (init) --------------------------------------------------
cdef object _set_mode = None
cdef object _accumulator = None   # the leaf's AccumulateGrad node, created on first use
cdef object _AccumulateGrad = None
cdef object _run_pre_hooks = None


def init(set_mode, accumulator, accumulate_grad, run_pre_hooks):
    """Connect the engine's Python half (called once by ``tenferro.autograd._engine``)."""
    global _set_mode, _accumulator, _AccumulateGrad, _run_pre_hooks
    _set_mode = set_mode
    _accumulator = accumulator
    _AccumulateGrad = accumulate_grad
    _run_pre_hooks = run_pre_hooks


cdef inline object _epoch():
    return _vdict["epoch"]


cdef inline bint _inexact(d) except -1:
    """Whether device array ``d`` has a floating-point or complex dtype."""
    cdef char k
    if type(d) is cnp.ndarray:
        k = (<cnp.dtype>cnp.PyArray_DESCR(<cnp.ndarray>d)).kind
        return k == b'f' or k == b'c'
    return d.dtype.kind in "fc"


# -- per-tensor autodiff state -----------------------------------------------------------

@cython.final
@cython.freelist(64)
cdef class AutogradMeta:
    """Autodiff state of a tensor, allocated only for tensors that take part in AD
    (PyTorch's AutogradMeta): plain tensors carry ``_ad = None`` and stay cheap."""

    cdef public bint requires_grad
    cdef public object grad
    cdef public object grad_fn       # the Node that made this tensor (None for leaves)
    cdef public Py_ssize_t output_nr  # which output of grad_fn it is
    cdef public object hooks         # leaf tensor hooks (non-leaf ones live on grad_fn)
    cdef public object post_hooks    # post-accumulate-grad hooks (leaves)
    cdef public object accumulator   # the leaf's AccumulateGrad node (it refers back weakly)
    cdef public bint retains_grad

    def __init__(self):
        self.requires_grad = False
        self.grad = None
        self.grad_fn = None
        self.output_nr = 0
        self.hooks = None
        self.post_hooks = None
        self.accumulator = None
        self.retains_grad = False


cpdef AutogradMeta _nonleaf_meta(node, Py_ssize_t i):
    """The state of output ``i`` of ``node``."""
    cdef AutogradMeta m = AutogradMeta.__new__(AutogradMeta)
    m.requires_grad = True
    m.grad_fn = node
    m.output_nr = i
    return m


# -- graph nodes -------------------------------------------------------------------------

_FREED = ("tenferro: trying to backward through the graph a second time (or to use saved "
          "tensors after they were freed): the buffers of %s were released by the first "
          "backward. Specify retain_graph=True in the first backward() or autograd.grad() "
          "call if you need to backward through the graph again.")


cdef class Node:
    """A recorded primitive application of the eager tape (PyTorch's ``grad_fn``).

    Every eagerly bound primitive with an input that requires grad gets a node: the
    primitive, its parameters, the inputs (and outputs) its VJP rule reads, and per
    input an edge to the node that produced it.  ``tensor.grad_fn`` is the node that
    made ``tensor``; ``node.next_functions`` walks the graph towards the leaves.  Nodes
    are created by the tape (``Node(prim, params, primals, out, edges, nout=1)``), not
    by users.

    Attributes
    ----------
    prim : Primitive
        The primitive applied.
    params : dict
        Its static parameters.
    primals : tuple of Tensor
        The inputs saved for its VJP rule.
    out : object
        The outputs saved for the rule (device arrays), or None.
    edges : tuple
        Per input, ``(node, output index)`` of its producer, or None where no gradient
        flows.
    nout : int
        The number of outputs.

    Examples
    --------
    >>> x = tf.asarray([1.0, 2.0]).requires_grad_()
    >>> y = (x * x).sum()
    >>> y.grad_fn, y.grad_fn.next_functions
    (<SumBackward>, ((<MultiplyBackward>, 0),))
    """

    cdef public object prim
    cdef public object params
    cdef public object primals
    cdef public object out
    cdef public object edges
    cdef public Py_ssize_t nout
    cdef public object pre_hooks
    cdef public bint freed
    cdef public object epoch
    cdef object __weakref__

    def __init__(self, prim, params, primals, out, edges, nout=1):
        _fill(self, prim, params, primals, out, edges, nout)

    @property
    def name(self):
        """PyTorch's style of name: ``MultiplyBackward`` for ``multiply``."""
        return "".join(p.capitalize() for p in self.prim.name.split("_")) + "Backward"

    def __repr__(self):
        return "<%s>" % self.name

    @property
    def next_functions(self):
        """``(node, output index)`` per input, ``(None, 0)`` where no gradient flows."""
        return tuple([e if e is not None else (None, 0) for e in self.edges])

    @property
    def inputs(self):
        """The inputs saved for the VJP rule (an error once freed by backward)."""
        if self.freed:
            raise RuntimeError(_FREED % self.name)
        return self.primals

    cpdef outputs(self, create_graph):
        """The outputs saved for the VJP rule (as tensors in autodiff with
        ``create_graph``)."""
        return self.out

    cpdef apply(self, cts, needs, create_graph):
        """The input cotangents for output cotangents ``cts`` (a list, one per output)."""
        if self.freed:
            raise RuntimeError(_FREED % self.name)
        if _epoch() != self.epoch:
            self.check_unmodified()
        prim = self.prim
        rule = prim.vjp or prim.rule("vjp")  # rule() raises, naming prim and mode
        out = self.outputs(create_graph)
        if not prim.multiple_results:   # a lone output's cotangent goes bare
            res = rule(cts[0], self.primals, out, self.params, needs)
        else:                           # tuples, however many results there are
            res = rule(tuple(cts), self.primals, out, self.params, needs)
        if not getattr(rule, "trusted", False):  # tenferro's rules are verified by its tests
            res = self.check_cotangents(res)
        return res

    def check_cotangents(self, res):
        """A rule's result as one cotangent (or None) per input, each of its input's
        shape and dtype (PyTorch's and JAX's checks of custom rules)."""
        name = self.prim.name
        if type(res) is not tuple and type(res) is not list:
            try:
                res = tuple(res)
            except TypeError:
                raise TypeError("tenferro: the VJP rule of %s must return a tuple with one "
                                "cotangent (or None) per input, got %s"
                                % (name, type(res).__name__)) from None
        if len(res) != len(self.primals):
            raise RuntimeError("tenferro: the VJP rule of %s returned %d cotangents for its %d "
                               "inputs" % (name, len(res), len(self.primals)))
        for i, (g, p) in enumerate(zip(res, self.primals)):
            if g is None:
                continue
            if not hasattr(g, "_device"):
                raise TypeError("tenferro: the VJP rule of %s returned a %s as the cotangent of "
                                "input %d; expected a tensor or None"
                                % (name, type(g).__name__, i))
            if g.shape != p.shape or g.dtype != p.dtype or g._device is not p._device:
                raise RuntimeError(
                    "tenferro: the VJP rule of %s returned a cotangent of shape %s, dtype %s "
                    "on %s for input %d of shape %s, dtype %s on %s"
                    % (name, g.shape, g.dtype, g._device, i, p.shape, p.dtype, p._device))
        return res

    def check_unmodified(self):
        """Raise if a saved tensor was modified in place since it was recorded."""
        outs = () if self.out is None else self.out if type(self.out) is tuple else (self.out,)
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

    cpdef release(self):
        """Free the saved tensors (after a backward pass without ``retain_graph``)."""
        self.primals = self.out = None
        self.freed = True


cdef class TapeNode(Node):
    """A node of the eager tape: outputs are kept as device arrays (no reference cycle
    through the output tensors) and rebuilt, connected to this node, for the rule."""

    cdef public object device

    def __init__(self, prim, params, primals, out, edges, nout, device):
        Node.__init__(self, prim, params, primals, out, edges, nout)
        self.device = device

    cpdef outputs(self, create_graph):
        if self.out is None:  # not kept: the rule does not use it
            return None
        if type(self.out) is not tuple:   # one output (a multiple-results primitive's
            if not create_graph:           # are a tuple, however many)
                return _wrap(self.out, self.device)
            return self._rebuild(self.out, 0, create_graph)
        return tuple([self._rebuild(d, i, create_graph) for i, d in enumerate(self.out)])

    cdef _rebuild(self, data, Py_ssize_t i, create_graph):
        t = _wrap(data, self.device)
        if create_graph and _inexact(data):
            t._ad = _nonleaf_meta(self, i)
        return t


cdef class ZeroNode(TapeNode):
    """A piecewise-constant float primitive (floor, sign, ...): zero gradients."""

    cpdef apply(self, cts, needs, create_graph):
        if self.freed:
            raise RuntimeError(_FREED % self.name)
        return tuple([_zeros_like(p) if n else None for p, n in zip(self.primals, needs)])


cdef inline void _fill(Node n, prim, params, primals, out, edges, Py_ssize_t nout):
    """Every node's fields (``__init__`` and the tape's direct construction alike)."""
    n.prim = prim
    n.params = params
    n.primals = primals
    n.out = out
    n.edges = edges
    n.nout = nout
    n.pre_hooks = None
    n.freed = False
    n.epoch = _epoch()


cdef inline TapeNode _tape_node(bint zero, prim, params, primals, out, edges, Py_ssize_t nout,
                                device):
    cdef TapeNode n = (ZeroNode.__new__(ZeroNode) if zero else TapeNode.__new__(TapeNode))
    _fill(n, prim, params, primals, out, edges, nout)
    n.device = device
    return n


# -- recording ---------------------------------------------------------------------------

def check_zero_derivative(prim, args):
    """Piecewise-constant is a statement about real inputs (complex sign is z/|z|)."""
    for a in args:
        if a.dtype.kind == "c":
            raise TypeError("tenferro.%s: not differentiable for complex input (dtype %s); "
                            "for the complex sign use z / abs(z)" % (prim.name, a.dtype))


def record(prim, args, params, out):
    """Record an eager primitive application whose inputs take part in autodiff
    (installed as ``_primitive.recorder``; it does nothing while this thread's grad mode
    is disabled, and applies the rules of the AdContext in force in this thread)."""
    cdef Py_ssize_t na = len(args), k
    cdef tuple edges = PyTuple_New(na)
    cdef bint taped = False, zero = False, keep
    cdef AutogradMeta m
    cdef TapeNode node
    for k in range(na):
        a = args[k]
        e = None
        mo = a._ad
        if mo is not None:
            m = <AutogradMeta?>mo
            if m.grad_fn is not None:
                e = (m.grad_fn, m.output_nr)
                taped = True
            elif m.requires_grad:
                acc = m.accumulator
                e = (acc if acc is not None else _accumulator(a), 0)
                taped = True
        Py_INCREF(e)
        PyTuple_SET_ITEM(edges, k, e)
    if not taped:
        return out
    st = _mode                     # this thread's state: grad mode, AdContext in force
    if not st.enabled:
        if st.watch is not None:   # a checkpoint's forward: note what it reads
            st.watch.extend([a for a, e in zip(args, edges) if e is not None])
        return out
    if st.context is not None:
        prim = st.context.resolve(prim)
    if not prim.differentiable:
        if not prim.zero_derivative:
            return out
        check_zero_derivative(prim, args)
        zero = True
    rule = prim.vjp
    keep = not zero and (rule is None or getattr(rule, "uses_out", True))
    if prim.multiple_results:
        if not any([_inexact(o._data) for o in out]):
            return out
        node = _tape_node(zero, prim, params, args,
                          tuple([o._data for o in out]) if keep else None,
                          edges, len(out), out[0]._device)
        for k, o in enumerate(out):
            if _inexact(o._data):
                o._ad = _nonleaf_meta(node, k)
        return out
    d = out._data
    if not _inexact(d):
        return out
    out._ad = _nonleaf_meta(_tape_node(zero, prim, params, args, d if keep else None, edges,
                                       1, out._device), 0)
    return out


include "_backward.pxi"
