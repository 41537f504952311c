"""Compiled programs (tenferro-rs's GraphExecutor); ``jit`` is in :mod:`.jit`."""
from __future__ import annotations

import builtins
import collections
import itertools
import weakref
from typing import TYPE_CHECKING

import numpy as np

from .. import _primitive, _versions
from .._errors import DeviceMismatchError, TenferroError
from .._fused import fused_p, run_unfused
from .._ir import Graph, Var
from .._ops import copy as _copy
from .._tensor import Tensor, _wrap
from .._tree import tree_flatten, tree_unflatten
from ..devices import device as _device
from .passes import lookup_passes
from .trace import bind_inputs

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["Program", "MemoryPlan", "compile"]


class Program:
    """A compiled graph (tenferro-rs's GraphExecutor): run it with ``program(*inputs)`` many times.

    Made by :func:`compile` (or ``jit``): the graph after the compiler passes, run by
    one generated Python function per device that calls the kernels.  It runs on the
    device of its inputs (any device whose driver has its primitives), and is
    differentiable: a call with inputs that require grad, or under ``grad``/``jvp``/
    ``vmap``, runs the graph through the transforms.

    With ``reuse`` (the default) a run drops each intermediate value after its last use,
    so that its buffer returns to the allocator, and writes an elementwise result into
    an input that dies at that step when it has the result's shape and dtype (in place,
    where the device's driver allows it: ``Driver.inplace_ops``); ``reuse=False`` keeps
    every intermediate to the end of the run.  :meth:`memory_plan` reports the figures.
    Every output is a new buffer, as eager ops return new tensors: an output that would
    share memory with an input, a constant or another output is copied on the way out.

    Parameters
    ----------
    graph : Graph
        The traced program.
    passes : sequence of str, optional
        The compiler passes to run, in order; None: the default ones (``PASSES``).
    reuse : bool, default True
        Free intermediates early and write in place.

    Raises
    ------
    ValueError
        If a pass name is unknown.

    See Also
    --------
    compile, jit, make_graph

    Examples
    --------
    >>> g = tf.make_graph(lambda x: (tf.sin(x) * 2.0).sum(), tf.TensorSpec((3,)))
    >>> p = tf.graph.Program(g)
    >>> p(tf.zeros(3)), p.runs
    (tensor(0.), 1)
    >>> p.passes
    ('fold', 'simplify', 'transpose', 'plans', 'cse', 'dce', 'fuse')
    """

    def __init__(self, graph, passes=None, reuse=True):
        steps = lookup_passes(passes)
        self._ad_graph = None   # the graph before fusion: what a differentiated call runs
        # the buffers of the tensors the function closed over (weakly), and the write
        # epoch at compile time: a later in-place write to one is an error at run time
        self._consts = _constant_buffers(graph)
        self._epoch = _versions.epoch
        # the closed-over float tensors: one that requires grad (now or later) sends a
        # call through autograd, as an input that requires grad does
        self._grad_consts = _float_constants(graph)
        for p, fn in steps:
            if p == "fuse":
                self._ad_graph = graph
            graph = fn(graph)
        self.graph = graph
        if self._ad_graph is None:
            self._ad_graph = graph
        self.passes = tuple(p for p, _ in steps)
        self.reuse = bool(reuse)
        self.runs = 0
        self._runners = {}   # device -> the plan as a function (see _runner)
        self._ad_copies = None   # the outputs a differentiated call copies (_aliased)
        self._in_avals = tuple((v.shape, v.dtype) for v in graph.in_vars)
        self._single = graph.out_tree == tree_flatten(graph.outs[0])[1] \
            if len(graph.outs) == 1 else False   # a bare single output

    def _check_constants(self):
        """Raise if a tensor the traced function closed over was written in place since
        the last check (the program, compiled from its old values, would be wrong)."""
        epoch = _versions.epoch
        for ref in self._consts:
            root = ref()
            if root is not None and _versions.modified_since(root, self._epoch):
                raise TenferroError(
                    "tenferro.jit: a tensor the function closes over (shape %s, dtype %s) "
                    "was modified in place after the program was compiled; closed-over "
                    "values are read when the function is traced (as in JAX), and parts "
                    "of the program were computed from the old values: pass the tensor "
                    "as an argument, or retrace (jit's cache_clear(), or compile again)"
                    % (root.shape, root.dtype))
        self._epoch = epoch

    def _consts_need_grad(self):
        """Whether a tensor the function closes over requires grad (in grad mode, or
        while a checkpoint notes what its function reads: ``state.watch``)."""
        st = _primitive.state
        return (st.enabled or st.watch is not None) and any(
            c._ad is not None and c.requires_grad for c in self._grad_consts)

    def unsupported(self, device):
        """The primitives of this program the device's driver cannot run."""
        impls = device.driver.implementations
        return sorted({n.prim.name for n in _all_nodes(self._ad_graph)
                       if n.prim.impl is None and n.prim.name not in impls})

    def __call__(self, *args):
        flat, _ = tree_flatten(args)
        return self._call_flat(flat, args)

    def _call_flat(self, flat, args=None):
        """Run on the flattened inputs (``args``: the unflattened ones, when known)."""
        self.runs += 1
        # the fast path: no transform, Tensors outside autograd of the traced shapes and
        # dtypes, on a device this program has run on
        run = None
        if not _primitive._interpreters and len(flat) == len(self._in_avals) and flat \
                and flat[0].__class__ is Tensor:
            dev = flat[0]._device
            run = self._runners.get(dev)
            datas = []
            for x, (shape, dtype) in zip(flat, self._in_avals):
                d = x._data if (x.__class__ is Tensor and x._device is dev
                                and x._ad is None) else None
                if d is None or d.shape != shape or d.dtype != dtype:
                    run = None
                    break
                datas.append(d)
        if run is not None and self._grad_consts and self._consts_need_grad():
            run = None
        if run is None:
            if _primitive.state.interpreters or (_primitive.state.enabled and (any(
                    isinstance(x, Tensor) and x.requires_grad for x in flat)
                    or self._consts_need_grad())):
                # differentiated: every node through bind
                if _versions.epoch != self._epoch:
                    self._check_constants()
                out = self._ad_graph(*(args if args is not None else flat))
                if self._ad_copies is None:
                    self._ad_copies = _aliased(self._ad_graph,
                                               self._ad_graph.device.driver.view_ops)
                return _own_outputs(out, self._ad_copies)
            if _primitive.state.watch is not None:   # a checkpoint's forward (no_grad)
                _primitive.state.watch.extend(
                    [x for x in list(flat) + list(self._grad_consts)
                     if isinstance(x, Tensor) and x.requires_grad])
            return self._execute(flat)
        out = run(*datas)
        return out[0] if self._single else tree_unflatten(self.graph.out_tree, out)

    def _execute(self, args):
        """The executor (GraphExecutor): checks the inputs, then runs the code generated
        for the device (:meth:`_runner`): the nodes' driver functions on the device
        arrays, no Tensor, dispatch or interpretation per node."""
        graph = self.graph
        env = bind_inputs("Program", graph, args)
        xs = [env[id(v)] for v in graph.in_vars]
        dev = xs[0]._device if xs else graph.device
        for x in xs:
            if x._device is not dev:
                raise DeviceMismatchError("Program", [y._device for y in xs])
        run = self._runners.get(dev)
        if run is None:
            missing = self.unsupported(dev)
            if missing:
                raise TenferroError("tenferro.Program: device %s cannot run %s; "
                                    "nothing was run" % (dev, ", ".join(missing)))
            run = self._runners[dev] = self._runner(dev)
        datas = [x._data for x in xs]
        hook = _primitive.program_hook   # set while tenferro.profile() records
        return tree_unflatten(graph.out_tree, run(*datas) if hook is None
                              else hook(self, run, datas, dev))

    def _runner(self, dev, wrap=None):
        """The plan for ``dev`` as generated Python code: one statement per step
        calling the driver function with its parameters bound, ``del`` of the values
        whose last use it is (their buffers go back to the allocator), the outputs
        wrapped into Tensors.  ``wrap(node, fn)``, when given, replaces each step's
        function (tenferro.profile times the steps so)."""
        steps = self._plan(dev)
        ns = {"_wrap": _wrap, "_dev": dev, "_versions": _versions, "_prog": self}
        names = {}

        def bind(value, prefix):
            key = "%s%d" % (prefix, len(ns))
            ns[key] = value
            return key

        def name(v):
            if id(v) not in names:
                names[id(v)] = "v%d" % len(names)
            return names[id(v)]

        graph = self.graph
        lines = ["def run(%s):" % "".join(name(v) + ", " for v in graph.in_vars)]
        if self._consts:
            lines.append("    if _versions.epoch != _prog._epoch: _prog._check_constants()")
        for node, fn, keys, consts, donate, free in steps:
            args = [name(i) if k is not None else bind(c, "c")
                    for i, k, c in zip(node.inputs, keys, consts)]
            kw = ["%s=%s" % (k, bind(v, "p")) for k, v in node.params.items()]
            outs = "".join(name(v) + ", " for v in node.outputs)
            if fn is None:   # a device-independent primitive: Tensors in and out
                f = node.prim.impl if wrap is None else wrap(node, node.prim.impl)
                call = "%s(%s)" % (bind(f, "f"), ", ".join(
                    ["_wrap(%s, _dev)" % a for a in args] + kw))
                if node.prim.multiple_results:
                    lines.append("    %s = [o._data for o in %s]" % (outs, call))
                else:
                    lines.append("    %s = %s._data" % (outs[:-2], call))
            else:
                if donate is not None:   # in place: into an input that dies here
                    kw.append("out=%s" % args[donate])
                f = fn if wrap is None else wrap(node, fn)
                call = "%s(%s)" % (bind(f, "f"), ", ".join(args + kw))
                lines.append("    %s = %s" % (outs, call) if node.prim.multiple_results
                             else "    %s = %s" % (outs[:-2], call))
            if free:         # last uses: the buffers go back to the allocator
                lines.append("    del %s" % ", ".join(names[k] for k in free))
        res = []   # an output that shares memory (_aliased) is copied on the way out
        for o, shared in zip(graph.outs, _aliased(graph, dev.driver.view_ops)):
            if shared:
                copy = bind(dev.driver.lookup("copy", dev, o.dtype), "f")
                res.append("_wrap(%s(%s), _dev)" % (copy, name(o) if isinstance(o, Var)
                                                    else bind(o._data, "c")))
            else:
                res.append("_wrap(%s, _dev)" % name(o))
        lines.append("    return (%s)" % "".join(r + ", " for r in res))
        exec(builtins.compile("\n".join(lines), "<tenferro program %s>" % graph.name, "exec"),
             ns)
        return ns["run"]

    def _plan(self, dev):
        """Per node: (node, driver function or None, input keys (None for a constant),
        the constants' device arrays, the input to write the output into (an index, or
        None), the keys of the values whose last use it is) for ``dev``."""
        live = _liveness(self.graph, dev.driver, self.reuse)
        steps = []
        for n, donate, free in zip(self.graph.nodes, live.donate, live.free):
            for i in n.inputs:
                if not isinstance(i, Var) and i._device is not dev:
                    raise DeviceMismatchError("Program (a constant of %s)" % n.prim.name,
                                              [i._device, dev])
            if n.prim.impl is not None:
                fn = None
            elif n.prim is fused_p and fused_p.name not in dev.driver.implementations:
                fn = run_unfused(dev)   # a driver without fused kernels: node by node
            else:
                fn = dev.driver.lookup(n.prim.name, dev, n.inputs[0].dtype if n.inputs
                                       else None)
            steps.append((n, fn, [id(i) if isinstance(i, Var) else None for i in n.inputs],
                          [None if isinstance(i, Var) else i._data for i in n.inputs],
                          donate, tuple(free)))
        return steps

    def memory_plan(self, device=None):
        """The buffers of one run on ``device`` (by default the device the graph was
        traced for) as a :class:`MemoryPlan`: live bytes per step, the peak, in-place
        steps, and the peak without reuse."""
        if device is None:
            device = self.graph.device
        live = _liveness(self.graph, _device(device).driver, self.reuse)
        peak_step = max(range(len(live.bytes)), key=live.bytes.__getitem__, default=None)
        return MemoryPlan(
            tuple(n.prim.name for n in self.graph.nodes), tuple(live.bytes),
            tuple(s for s, d in enumerate(live.donate) if d is not None),
            live.bytes[peak_step] if peak_step is not None else live.input_bytes,
            peak_step, live.input_bytes, live.output_bytes, live.no_reuse_peak)

    def __repr__(self):
        return "Program(%d nodes, passes=%s)\n%s" % (len(self.graph.nodes), self.passes,
                                                    self.graph)


def _all_nodes(graph):
    """The graph's nodes and those of the graphs its nodes apply (checkpoint's)."""
    for n in graph.nodes:
        yield n
        for v in n.params.values():
            if isinstance(v, Graph):
                yield from _all_nodes(v)


def _constant_buffers(graph):
    """Weak references to the buffers behind the constants of ``graph`` (and of the
    graphs its nodes apply), one per buffer."""
    refs = {}
    for c in itertools.chain(graph.outs, *[n.inputs for n in _all_nodes(graph)]):
        if not isinstance(c, Var) and isinstance(c, Tensor):
            root = _versions._root(c._data)
            if id(root) not in refs:
                try:
                    refs[id(root)] = weakref.ref(root)
                except TypeError:   # a buffer type without weak references
                    pass
    return list(refs.values())


def _float_constants(graph):
    """The float and complex constant Tensors of ``graph`` and of the graphs its nodes
    apply (the closed-over values a gradient can flow to)."""
    seen = {}
    for c in itertools.chain(graph.outs, *[n.inputs for n in _all_nodes(graph)]):
        if not isinstance(c, Var) and isinstance(c, Tensor) and c.dtype.kind in "fc":
            seen[id(c)] = c
    return tuple(seen.values())


def _aliased(graph, view_ops):
    """Per output of ``graph``: whether the program must return a copy of it so that
    every output owns its buffer, as eager ops return new tensors: a constant, or a
    value sharing memory with an input, a constant or an earlier output (itself, or
    through views: ``view_ops``; the result of a device-independent primitive, such as
    einsum, counts as a possible view of its inputs).  Returning one value twice gives
    two distinct buffers, as in JAX."""
    roots = {id(v): {("in", i)} for i, v in enumerate(graph.in_vars)}
    for k, n in enumerate(graph.nodes):
        shared = set()
        if n.prim.impl is not None or n.prim.name in view_ops:
            for i in n.inputs:
                shared |= roots[id(i)] if isinstance(i, Var) else {("c", id(i))}
        for j, v in enumerate(n.outputs):
            roots[id(v)] = shared | {(k, j)}
    claimed, flags = set(), []
    for o in graph.outs:
        r = roots[id(o)] if isinstance(o, Var) else {("c", id(o))}
        copy = bool(r & claimed) or any(b[0] in ("in", "c") for b in r)
        flags.append(copy)
        if not copy:
            claimed |= r
    return flags


def _own_outputs(out, flags):
    """``out`` (the result of running a graph through bind) with the outputs that
    ``flags`` (:func:`_aliased`) mark copied."""
    flat, tree = tree_flatten(out)
    return tree_unflatten(tree, [_copy(o) if f else o for o, f in zip(flat, flags)])


class MemoryPlan(collections.namedtuple(
        "MemoryPlan", "ops live_bytes inplace_steps peak_bytes peak_step input_bytes "
                      "output_bytes no_reuse_peak_bytes")):
    """The buffers of one run of a :class:`Program`, from its values' shapes and dtypes.

    Returned by ``Program.memory_plan()`` (a named tuple); ``print`` shows a table.
    Constants are not counted.  A view (``Driver.view_ops``) shares its input's
    buffer; a device-independent primitive (e.g. einsum) may return views of its
    inputs, so its result is counted as a new buffer that also keeps its inputs'
    buffers alive.

    Parameters
    ----------
    ops : tuple of str
        The primitive of each step.
    live_bytes : tuple of int
        Per step, the bytes of the buffers alive while it runs (its inputs and its
        output included): the program inputs, and every buffer made since that a later
        step, an output or a live view still uses.
    inplace_steps : tuple of int
        The steps that write their result into an input's buffer.
    peak_bytes : int
        The largest ``live_bytes`` (``input_bytes`` for a program without steps).
    peak_step : int or None
        Its first step (None without steps).
    input_bytes : int
        The program inputs' bytes.
    output_bytes : int
        The bytes of the buffers the outputs keep alive, inputs' excepted (a view keeps
        the whole buffer it views).
    no_reuse_peak_bytes : int
        The peak when every intermediate is kept to the end of the run and none is
        written in place (``reuse=False``).

    See Also
    --------
    Program.memory_plan

    Examples
    --------
    >>> g = tf.make_graph(lambda x: tf.exp(tf.sin(x).sum()), tf.TensorSpec((100,)))
    >>> m = tf.compile(g, passes=()).memory_plan()
    >>> m.ops, m.input_bytes, m.peak_bytes, m.output_bytes
    (('sin', 'sum', 'exp'), 800, 1608, 8)
    """
    __slots__ = ()

    @property
    def inplace(self):
        """How many steps write in place."""
        return len(self.inplace_steps)

    def __str__(self):
        lines = ["MemoryPlan: peak %s at step %s (%s without reuse), inputs %s, "
                 "outputs %s, %d in place" % (
                     _fmt_bytes(self.peak_bytes), self.peak_step,
                     _fmt_bytes(self.no_reuse_peak_bytes), _fmt_bytes(self.input_bytes),
                     _fmt_bytes(self.output_bytes), self.inplace)]
        inplace = set(self.inplace_steps)
        for s, (op, n) in enumerate(zip(self.ops, self.live_bytes)):
            lines.append("  %4d %-24s %12s%s" % (s, op, _fmt_bytes(n),
                                                 "  in place" if s in inplace else ""))
        return "\n".join(lines)

    __repr__ = __str__


def _fmt_bytes(n):
    for unit in ("B", "KiB", "MiB"):
        if n < 1024:
            return ("%d %s" if unit == "B" else "%.1f %s") % (n, unit)
        n /= 1024
    return "%.1f GiB" % n


_Liveness = collections.namedtuple(
    "_Liveness", "free donate bytes input_bytes output_bytes no_reuse_peak")


def _liveness(graph, driver, reuse):
    """The buffers of one run of ``graph`` on a device of ``driver``: per step, the
    keys of the values whose last use it is (``free``; program inputs and outputs
    never), the input to write the output into (``donate``: an index into the node's
    inputs, or None), and the bytes alive while it runs (``bytes``).

    A buffer is the memory of a program input or of a node's new output.  A value
    keeps alive its own buffer or, a view, the buffers of the inputs it views.  A
    buffer dies after the last use of the last value keeping it alive; the inputs'
    and the outputs' never die (no buffer does without ``reuse``).  With ``reuse``, a
    step of ``driver.inplace_ops`` writes into an input that owns its buffer, has the
    output's shape and dtype, is no other input of the step, and whose buffer dies at
    this step (so no live view sees the write)."""
    nodes = graph.nodes
    end = len(nodes)
    last = {}   # id(Var) -> the step of its last use; end: a program input or output
    for s, n in enumerate(nodes):
        for v in n.outputs + [i for i in n.inputs if isinstance(i, Var)]:
            last[id(v)] = s
    for v in graph.in_vars + tuple(o for o in graph.outs if isinstance(o, Var)):
        last[id(v)] = end
    size, born, dies = [], [], []   # per buffer
    bufs, owner = {}, set()          # id(Var) -> its buffers; ids of sole owners

    def nbytes(v):
        return int(np.prod(v.shape, dtype=np.int64)) * v.dtype.itemsize

    def keep(v, bs):
        bufs[id(v)] = bs
        for b in bs:
            dies[b] = max(dies[b], last[id(v)] if reuse else end)

    def new(v, s):
        size.append(nbytes(v))
        born.append(s)
        dies.append(s)
        return (len(size) - 1,)

    for v in graph.in_vars:
        keep(v, new(v, 0))
    input_bytes = no_reuse = sum(size)
    free, donate = [[] for _ in nodes], []
    inplace = driver.inplace_ops if reuse else ()
    for s, n in enumerate(nodes):
        vs = [i for i in n.inputs if isinstance(i, Var)]
        viewed = tuple(sorted({b for v in vs for b in bufs[id(v)]}))
        view = n.prim.impl is None and n.prim.name in driver.view_ops
        d = None
        if n.prim.name in inplace and n.prim.impl is None and not n.prim.multiple_results:
            o = n.outputs[0]
            for j, v in enumerate(n.inputs):
                if (isinstance(v, Var) and id(v) in owner and v.shape == o.shape
                        and v.dtype == o.dtype and dies[bufs[id(v)][0]] == s
                        and not any(u is not v and bufs[id(v)][0] in bufs[id(u)]
                                    for u in vs)):
                    d = j
                    break
        donate.append(d)
        for v in n.outputs:
            if not view:
                no_reuse += nbytes(v)
            if d is not None:
                keep(v, bufs[id(n.inputs[d])])
                owner.add(id(v))
            elif view:
                keep(v, viewed)
            elif n.prim.impl is not None:      # may return (views of) its inputs
                keep(v, new(v, s) + viewed)
            else:
                keep(v, new(v, s))
                if not n.prim.multiple_results:   # results may share one buffer
                    owner.add(id(v))
            if reuse and last[id(v)] < end:
                free[last[id(v)]].append(id(v))
    delta = [0] * (end + 1)
    for nb, first, final in zip(size, born, dies):
        delta[first] += nb
        delta[min(final, end - 1) + 1] -= nb
    live = list(itertools.accumulate(delta[:end]))
    out = {b for o in graph.outs if isinstance(o, Var) for b in bufs[id(o)]}
    output_bytes = sum(size[b] for b in out if b >= len(graph.in_vars))
    return _Liveness(free, donate, live, input_bytes, output_bytes, no_reuse)


def compile(graph: Graph, passes: Sequence[str] | None = None,
            reuse: bool = True) -> Program:
    """Compile a graph into a :class:`Program`, to run many times (tenferro-rs's GraphCompiler).

    The compiler passes rewrite the graph (constant folding, algebraic simplification,
    transpose folding, shared einsum plans, CSE, dead-code elimination, elementwise
    fusion: docs/traced.md); the program runs the result with memory reuse.

    Parameters
    ----------
    graph : Graph
        From :func:`make_graph` (or a graph transform: ``graph.grad()``, ...).
    passes : sequence of str, optional
        The names of registered passes, run in that order; None: the default ones,
        ``PASSES`` as it is when compiling.  ``passes=()`` runs the graph as traced.
    reuse : bool, default True
        Free intermediates after their last use and write elementwise results in place
        (see :class:`Program`).

    Returns
    -------
    Program
        The compiled program.

    Raises
    ------
    TypeError
        If ``graph`` is not a Graph.
    ValueError
        If a pass name is unknown.

    See Also
    --------
    make_graph, jit, register_pass

    Notes
    -----
    Differentiable: yes: a program called on tensors that require grad, or under
    ``grad``/``jvp``/``vmap``, is differentiated through its graph, to any
    order; ``graph.grad()``, ``vjp()``, ``jvp()`` give derivative graphs.

    Examples
    --------
    >>> def f(x, w):
    ...     return (tf.tanh(x @ w) ** 2).sum()
    >>> g = tf.make_graph(f, tf.TensorSpec((5, 3)), tf.TensorSpec((3, 4)))
    >>> p = tf.compile(g)
    >>> p(tf.zeros((5, 3)), tf.ones((3, 4)))
    tensor(0.)
    >>> dw = tf.compile(g.grad(1))                    # a graph of the gradient
    >>> dw(tf.zeros((5, 3)), tf.ones((3, 4))).shape
    (3, 4)
    """
    if not isinstance(graph, Graph):
        raise TypeError("tenferro.compile: expected a Graph (from tenferro.make_graph), got %s"
                        % type(graph).__name__)
    return Program(graph, passes, reuse)
