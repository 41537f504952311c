"""Gradient checkpointing: drop a function's intermediates, recompute them in backward.

Eagerly (the tape), :class:`CheckpointNode` keeps ``f`` and its inputs and re-runs ``f``
in backward; :func:`is_checkpointing` tells code whether it runs in such a re-run
(shrew's flag, per thread).  Inside a traced graph, ``f`` is traced into a sub-graph
applied by the ``checkpoint`` call primitive, whose derivative rules apply
``checkpoint`` to the sub-graph's JVP and VJP graphs: the backward program recomputes
the segment from its inputs (JAX's ``jax.checkpoint``/remat).
"""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from .. import _primitive, random as _random
from .._ops import positive, zeros_like
from .._primitive import Primitive
from .._tensor import Tensor
from ._engine import (_FREED, Node, _nonleaf_meta, accumulator, detach, enable_grad, grad,
                      is_grad_enabled, no_grad)
from .._tree import tree_flatten
from ..graph.program import Program
from ..graph.trace import trace_graph
from ._graph_ad import jvp_graph, vjp_graph

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

__all__ = ["checkpoint", "checkpoint_sequential", "is_checkpointing"]

_local = threading.local()      # .depth: re-runs of checkpointed functions in progress
# Held while a recomputation replays the global random generator (parallel backward
# may recompute several checkpoints at once; the generator is one for the process).
_rng_lock = threading.RLock()


def is_checkpointing() -> bool:
    """Whether this thread is re-running a checkpointed function for backward.

    shrew's ``is_checkpointing``: True while :func:`checkpoint` recomputes a function's
    intermediates during the backward pass; False in the first, forward run of the
    function, in all other code and in other threads.  Inside a traced graph the
    function is traced once, and this is False then too.  Useful to skip side effects
    (logging, counters) during the recomputation.

    Returns
    -------
    bool
        True inside a recomputation on this thread.

    See Also
    --------
    checkpoint

    Examples
    --------
    >>> seen = []
    >>> def f(v):
    ...     seen.append(tf.autograd.is_checkpointing())
    ...     return tf.sin(v)
    >>> x = tf.asarray([1.0, 2.0]).requires_grad_()
    >>> tf.checkpoint(f, x).sum().backward()
    >>> seen                                  # the forward run, then the recomputation
    [False, True]
    """
    return getattr(_local, "depth", 0) > 0


def _recompute(fn, xs):
    """``fn(*xs)`` as a recomputation (:func:`is_checkpointing` is True meanwhile)."""
    _local.depth = getattr(_local, "depth", 0) + 1
    try:
        return fn(*xs)
    finally:
        _local.depth -= 1


class CheckpointNode(Node):
    """Holds only ``f`` and its inputs; backward re-runs ``f`` with grad enabled (the
    global random generator replayed from its state at the first call) and
    differentiates the recomputed outputs.  Its inputs are ``f``'s ``nargs`` arguments
    and then the tensors ``f`` closes over that require grad (found in the forward run:
    ``state.watch``), whose gradients flow to their own graph edges."""

    __slots__ = ("fn", "rng_state", "nargs")

    def __init__(self, fn, inputs, edges, nout, rng_state, nargs):
        Node.__init__(self, None, None, inputs, None, edges, nout)
        self.fn = fn
        self.rng_state = rng_state
        self.nargs = nargs

    @property
    def name(self):
        return "CheckpointBackward"

    def apply(self, cts, needs, create_graph):

        if self.freed:
            raise RuntimeError(_FREED % self.name)
        nargs = self.nargs
        with enable_grad():
            # Stand-ins for the arguments: fresh leaves, or (for a differentiable
            # backward) identity ops still connected to the real inputs.  The closed-over
            # tensors are f's own: gradients are taken with respect to them directly.
            xs = [(positive(x) if create_graph else detach(x).requires_grad_()) if n
                  else detach(x) for x, n in zip(self.primals[:nargs], needs[:nargs])]
            if self.rng_state is None:
                outs = _recompute(self.fn, xs)
            else:
                with _rng_lock:
                    saved = _random.get_state()
                    _random.set_state(self.rng_state)
                    try:
                        outs = _recompute(self.fn, xs)
                    finally:
                        _random.set_state(saved)
        outs = outs if isinstance(outs, tuple) else (outs,)
        pairs = [(o, c) for o, c in zip(outs, cts)
                 if c is not None and o._ad is not None and o.requires_grad]
        wanted = [x for x, n in zip(xs + list(self.primals[nargs:]), needs) if n]
        if not pairs:
            return tuple(zeros_like(x) if n else None for x, n in zip(self.primals, needs))
        gs = iter(grad([o for o, _ in pairs], wanted, [c for _, c in pairs],
                       create_graph=create_graph, materialize_grads=True))
        return tuple(next(gs) if n else None for n in needs)

    def release(self):
        Node.release(self)
        self.fn = None


checkpoint_p = Primitive(
    "checkpoint", lambda *avals, graph: [(o.shape, o.dtype) for o in graph.outs],
    multiple_results=True,
    doc="``checkpoint(*inputs, graph=g)``: the outputs of the traced graph ``g`` (a "
        "segment whose intermediates backward recomputes).")


def _derived(graph, key, make):
    """``make()``, cached on ``graph`` under ``key`` (a sub-graph's compiled program and
    its JVP/VJP graphs are built once, however often the node runs or is differentiated)."""
    cache = graph.derived.setdefault("checkpoint", {})
    if key not in cache:
        cache[key] = make()
    return cache[key]


def _checkpoint_impl(*args, graph):
    """Runs the sub-graph as its compiled program, on the inputs' device."""
    prog = _derived(graph, "program", lambda: Program(graph))
    return tuple(tree_flatten(prog._execute(args))[0])


checkpoint_p.impl = _checkpoint_impl


def _checkpoint_jvp(tangents, primals, out, params):
    # JAX: jax.checkpoint's JVP is remat of the jvp jaxpr (ad_checkpoint.remat_jvp)
    graph = params["graph"]
    given = tuple(t is not None for t in tangents)
    jg = _derived(graph, ("jvp", given), lambda: jvp_graph(graph, given))
    return checkpoint_p.bind(*primals, *[t for t in tangents if t is not None], graph=jg)


def _checkpoint_vjp(ct, primals, out, params, needs):
    # JAX: jax.checkpoint's backward is remat of the forward-and-transpose of the
    # segment (ad_checkpoint.remat_partial_eval: residuals recomputed, not saved)
    graph = params["graph"]
    cts = ct
    given = tuple(c is not None for c in cts)
    wanted = tuple(bool(n) for n in needs)
    vg = _derived(graph, ("vjp", given, wanted), lambda: vjp_graph(graph, given, wanted))
    res = iter(checkpoint_p.bind(*primals, *[c for c in cts if c is not None], graph=vg))
    return tuple(next(res) if w else None for w in wanted)


_checkpoint_vjp.uses_out = False   # backward recomputes: the outputs are not kept
checkpoint_p.jvp = _checkpoint_jvp
checkpoint_p.vjp = _checkpoint_vjp


def _graph_trace():
    """The innermost graph trace being recorded, or None."""
    for t in reversed(_primitive.state.interpreters):
        if t.kind == "graph":
            return t
    return None


def _check_outputs(out):
    outs = out if isinstance(out, tuple) else (out,)
    for o in outs:
        if not isinstance(o, Tensor):
            raise TypeError("tenferro.checkpoint: the function must return a tensor or a tuple "
                            "of tensors, got %s" % type(o).__name__)
    return outs


def _check_args(args):
    if not all(isinstance(a, Tensor) for a in args):
        raise TypeError("tenferro.checkpoint: positional arguments must be tensors (close over "
                        "other values), got %s" % ", ".join(type(a).__name__ for a in args))


def _traced_checkpoint(f, args, trace):
    """``f(*args)`` as one ``checkpoint`` node: ``f`` traced into a sub-graph whose inputs
    are ``args`` and the values of enclosing traces it closes over."""
    _check_args(args)
    single = []

    def flat_f(*xs):
        out = f(*xs)
        single.append(not isinstance(out, tuple))
        return _check_outputs(out)
    graph, captured = trace_graph(flat_f, args, trace.device, capture=True)
    graph.name = getattr(f, "__name__", "f")
    outs = checkpoint_p.bind(*args, *captured, graph=graph)
    return outs[0] if single[0] else outs


def checkpoint(f: Callable[..., Any], *args: Any, preserve_rng_state: bool = True) -> Any:
    """``f(*args)`` without keeping its intermediates for backward (``torch.utils.checkpoint``).

    Gradient checkpointing trades compute for memory: the intermediates of ``f`` are
    dropped after the forward run and recomputed when the gradient is needed.  Draws
    from ``tenferro.random``'s global generator inside ``f`` are replayed identically
    during the recomputation.  Tensors ``f`` closes over that require grad receive
    their gradients as without the checkpoint.

    Inside :func:`tenferro.make_graph` (and ``jit``; also under functional transforms
    there) ``f`` becomes one ``checkpoint`` node of the graph (JAX's
    ``jax.checkpoint``), and the graph's backward part recomputes ``f``'s
    intermediates from its inputs.  Under the eager functional transforms (``grad``,
    ``jvp``, ...) and without grad, ``f`` is simply called.

    Parameters
    ----------
    f : callable
        Takes tensors and returns a tensor or a tuple of tensors.
    *args : Tensor
        Its positional arguments (close over other values).
    preserve_rng_state : bool, default True
        Replay the global random generator's state in the recomputation.

    Returns
    -------
    Tensor or tuple of Tensor
        ``f(*args)``; its ``grad_fn`` is a ``CheckpointBackward`` node.

    Raises
    ------
    TypeError
        If an argument is not a tensor, or ``f`` returns something other than a tensor
        or a tuple of tensors (checked when the call is recorded: with no input that
        requires grad, ``f`` is simply called).

    See Also
    --------
    checkpoint_sequential, is_checkpointing

    Notes
    -----
    Differentiable: yes, reverse (the eager tape, ``vjp``, traced graphs) and forward, to any
    order: the recomputation is differentiated with the rules of the ops in
    ``f``.

    Examples
    --------
    >>> x = tf.asarray([0.5, 1.0]).requires_grad_()
    >>> y = tf.checkpoint(lambda v: tf.sin(v) * v, x)
    >>> y.grad_fn
    <CheckpointBackward>
    >>> y.sum().backward()
    >>> tf.round(x.grad, 6)                  # sin(x) + x cos(x)
    tensor([0.918217, 1.381773])
    """
    trace = _graph_trace()
    if trace is not None:
        return _traced_checkpoint(f, args, trace)
    tensors = [a for a in args if isinstance(a, Tensor)]
    if _primitive.state.interpreters or not is_grad_enabled() or not any(
            t._ad is not None and (t._ad.requires_grad or t._ad.grad_fn is not None)
            for t in tensors):
        return f(*args)
    _check_args(args)
    rng_state = _random.get_state() if preserve_rng_state else None
    st = _primitive.state
    saved, st.watch = st.watch, []
    try:
        with no_grad():
            out = f(*[detach(a) for a in args])
        closed = list({id(t): t for t in st.watch}.values())
    finally:
        st.watch = saved
    if saved is not None:   # an enclosing checkpoint's forward reads them too
        saved.extend(closed)
    if rng_state is not None and _random.get_state() == rng_state:
        rng_state = None   # f drew nothing from the generator: nothing to replay
    outs = _check_outputs(out)
    edges = []
    for a in list(args) + closed:
        m = a._ad
        if m is not None and m.grad_fn is not None:
            edges.append((m.grad_fn, m.output_nr))
        elif m is not None and m.requires_grad:
            edges.append((accumulator(a), 0))
        else:
            edges.append(None)
    node = CheckpointNode(f, tuple(args) + tuple(closed), tuple(edges), len(outs), rng_state,
                          len(args))
    res = []
    for i, o in enumerate(outs):
        o = detach(o)
        if o.dtype.kind in "fc":
            o._ad = _nonleaf_meta(node, i)
        res.append(o)
    return tuple(res) if isinstance(out, tuple) else res[0]


def checkpoint_sequential(functions: Sequence[Callable[..., Any]], segments: int,
                          input: Any, preserve_rng_state: bool = True) -> Any:
    """Apply ``functions`` in turn, checkpointing all segments but the last.

    As PyTorch's ``torch.utils.checkpoint.checkpoint_sequential``.
    The functions are split in ``segments`` chunks of ``ceil(len(functions) /
    segments)``; each chunk but the last runs under :func:`checkpoint`.  With shrew's
    edge cases: no functions returns ``input`` itself, and more segments than
    functions puts one function in each segment.

    Parameters
    ----------
    functions : sequence of callable
        One-argument functions, applied in order (a model's layers).
    segments : int
        The number of chunks (at least 1).
    input : Tensor
        The first function's argument.
    preserve_rng_state : bool, default True
        As in :func:`checkpoint`.

    Returns
    -------
    Tensor
        The last function's result.

    Raises
    ------
    ValueError
        If ``segments`` is not a positive int.

    See Also
    --------
    checkpoint

    Notes
    -----
    Differentiable: yes, as :func:`checkpoint`.

    Examples
    --------
    >>> x = tf.asarray([1.0, 2.0]).requires_grad_()
    >>> y = tf.checkpoint_sequential([tf.sin, tf.cos, tf.exp], 2, x)
    >>> bool(tf.all(y == tf.exp(tf.cos(tf.sin(x)))))
    True
    """
    functions = list(functions)
    if isinstance(segments, bool) or not hasattr(segments, "__index__") \
            or segments.__index__() < 1:
        raise ValueError("tenferro.checkpoint_sequential: segments must be a positive int, "
                         "got %r" % (segments,))
    if not functions:
        return input
    size = -(-len(functions) // segments.__index__())   # 1 for more segments than functions
    chunks = [functions[i:i + size] for i in range(0, len(functions), size)]

    def run(chunk):
        def g(x):
            for fn in chunk:
                x = fn(x)
            return x
        return g
    x = input
    for chunk in chunks[:-1]:
        x = checkpoint(run(chunk), x, preserve_rng_state=preserve_rng_state)
    return run(chunks[-1])(x)
