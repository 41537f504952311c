"""The WebGPU driver's ``fused_elementwise``: one generated WGSL kernel per fused group.

A compiled program's fusion pass (:mod:`tenferro.graph.fusion`; the contract is :mod:`tenferro._fused`) hands the driver
each group as a sub-graph.  Its elementwise nodes become one compute kernel
(template ``wgsl.FUSED``): every input buffer is bound once and each input read
through its own offset and strides (broadcast to the group's shape), every node is a
small WGSL function holding the driver's own body for its op and dtypes (the eager
kernels' tables, so results equal the unfused program's bit for bit), ``main`` calls
them in graph order into ``let`` temporaries, and every group output is stored.  A
group ending with a reduction becomes the driver's own reduction kernel reading the
group's value at each element through a function ``ev`` (no temporary buffer, as the
program's memory plan assumes); where the group has other outputs besides, the
elementwise kernel stores them and the reduction's input, which is reduced after.

A group the kernel cannot express (an op, dtype or parameter the driver lacks, too
many buffers for the adapter) runs node by node (``_fusion.run_unfused``), which
raises the same error as the unfused program where the driver lacks an op.  The
rendered source is cached per group (in ``_PLANS``, which lets a group go with its
program) and aliasing pattern; the pipeline per source
(:meth:`.context.Context.pipeline`), so a program compiles each group once.
"""

import weakref

from .. import device
from ..._fused import KINDS, run_unfused, tail as _tail
from ..._ir import Var
from . import wgsl
from .array import BOOL, F32, STORE, VALUE, WGPUArray, c_strides, kind, new
from .context import get_context
from .elementwise import BINARY_BODIES, CLIP_BODIES, UNARY_BODIES, WHERE_BODY, convert_body
from .reduce import RED_EXTRA_AT, red_rule, reduce_op, implementations as reductions, \
    supports as reduction_supported
from .render import broadcast_view, function_body, load_value, offset_lines, prelude_for, \
    store_value, strided_layout
from .wgsl import MAXDIM, WORKGROUP as WG

_PARAMS = {"convert": {"dtype"}}    # every other elementwise primitive: out_dtype only


class _Plan:
    """A sub-graph's kernel pieces: its input and output variables, the WGSL
    functions, the calls, the values stored (``outs``: the group's outputs, the tail's
    input last), the tail node, and the rendered sources per (aliasing pattern,
    whether the tail is fused).  It keeps no reference to the graph (see _PLANS)."""
    __slots__ = ("in_vars", "graph_outs", "functions", "calls", "outs", "tail", "sources")

    def __init__(self, graph, functions, calls, outs, tail):
        self.in_vars, self.graph_outs = graph.in_vars, graph.outs
        self.functions, self.calls = functions, calls
        self.outs, self.tail = outs, tail
        self.sources = {}

    def source(self, binding_of):
        """The elementwise kernel where input k reads binding ``binding_of[k]``."""
        src = self.sources.get(binding_of)
        if src is None:
            nbind = max(binding_of, default=-1) + 1
            names, bindings, body = self._body(binding_of, 0)
            bindings += ["@group(0) @binding(%d) var<storage, read_write> out%d: array<%s>;"
                         % (nbind + j, j, STORE[o.dtype]) for j, o in enumerate(self.outs)]
            stores = ["    out%d[i] = %s;" % (j, store_value(o.dtype, names[id(o)]))
                      for j, o in enumerate(self.outs)]
            src = self.sources[binding_of] = wgsl.FUSED.format(
                prelude=prelude_for(self.functions), bindings="\n".join(bindings),
                meta_binding=nbind + len(self.outs), functions=self.functions, wg=WG,
                body=body, stores="\n".join(stores), **_index_fmt(len(binding_of), 0))
        return src

    def reduce_head(self, binding_of, init_combine):
        """The tail reduction's head evaluating the group at element ``off`` (``ev``)."""
        key = (binding_of, "reduce")
        src = self.sources.get(key)
        if src is None:
            nbind = max(binding_of, default=-1) + 1
            at = RED_EXTRA_AT
            names, bindings, body = self._body(binding_of, at)
            src = self.sources[key] = wgsl.FUSED_REDUCE_HEAD.format(
                prelude=prelude_for(self.functions + init_combine),
                bindings="\n".join(bindings), out_binding=nbind, meta_binding=nbind + 1,
                out_store=STORE[self.tail.outputs[0].dtype], functions=self.functions,
                value=VALUE[self.outs[-1].dtype], body=body,
                result=names[id(self.outs[-1])], **_index_fmt(len(binding_of), at))
        return src

    def _body(self, binding_of, at):
        """(WGSL name per value, the inputs' bindings, the loads and calls) with the
        group's layout at ``lay[at]``."""
        in_vars = self.in_vars
        store = {b: STORE[v.dtype] for v, b in zip(in_vars, binding_of)}
        bindings = ["@group(0) @binding(%d) var<storage, read> b%d: array<%s>;"
                    % (b, b, store[b]) for b in sorted(store)]
        names = {id(v): "v%d" % k for k, v in enumerate(in_vars)}
        body = ["    let v%d = %s;" % (k, load_value(v.dtype, "b%d[o%d]" % (b, k)))
                for k, (v, b) in enumerate(zip(in_vars, binding_of))]
        # Without SPIR-V's NoContraction (naga emits none), Vulkan compilers may
        # rewrite float arithmetic across what were separate kernels: Mesa contracts
        # a * b + c into one FMA, folds t - t to 0 (NaN for inf) and t + 0 to t (wrong
        # for -0).  Each float argument therefore passes through an XOR with a zero
        # the compiler cannot see (read from the layout, one per argument position):
        # every node then sees opaque values, as in its own kernel.
        body += ["    let z%d = u32(lay[%d]);" % (j, at + _zero_index(len(in_vars)) + j)
                 for j in range(3)]
        for k, (fn, node) in enumerate(self.calls):
            args = ", ".join(_opaque(names[id(a)], a.dtype, j)
                             for j, a in enumerate(node.inputs))
            names[id(node.outputs[0])] = "t%d" % k
            body.append("    let t%d = %s(%s);" % (k, fn, args))
        return names, bindings, "\n".join(body)


def _index_fmt(nin, at):
    init, step = offset_lines(nin, at)
    return dict(at=at, offsets_init=init, offsets_step=step)


def _zero_index(nin):
    """Where :func:`_run` puts three zeros in the layout: after the inputs'."""
    return 3 + 2 * MAXDIM + nin * (MAXDIM + 1)


def _opaque(name, dtype, j):
    """Argument ``j`` of a node call: a float32 value hidden from the compiler's
    algebra (XOR with the run-time zero ``zJ``); ints and bools are exact anyway."""
    return "bitcast<f32>(bitcast<u32>(%s) ^ z%d)" % (name, j) if dtype == F32 else name


def _node_body(node):
    """(WGSL body in x, y, z, its parameters' dtypes) of an elementwise node, or None
    where the driver has no kernel for it (then the group runs node by node)."""
    name, ins, out = node.prim.name, [i.dtype for i in node.inputs], node.outputs[0].dtype
    if set(node.params) != _PARAMS.get(name, {"out_dtype"}) or out not in STORE or \
            any(d not in STORE for d in ins) or not all(isinstance(i, Var)
                                                           for i in node.inputs):
        return None
    node_kind = KINDS.get(name)
    if name == "power" and ins[0] != F32:
        return None   # the driver checks integer exponents on the host first
    if node_kind in ("unary", "binary"):
        table = (UNARY_BODIES if node_kind == "unary" else BINARY_BODIES)[kind(ins[0])]
        ok = len(set(ins)) == 1 and node.params["out_dtype"] == out
        return (table[name], ins) if ok and name in table else None
    if node_kind == "where":
        return (WHERE_BODY, ins) if ins == [BOOL, out, out] else None
    if node_kind == "clip":
        return (CLIP_BODIES[out], ins) if ins == [out] * 3 and out in CLIP_BODIES \
            else None
    if node_kind == "cast":
        return convert_body(ins[0], out), ins
    return None


def _plan(graph):
    """The group's :class:`_Plan`, or None when a node has no WGSL body here."""
    tail = _tail(graph)
    if tail is not None and not reduction_supported(tail.prim.name, tail.inputs[0].dtype):
        return None
    if any(v.dtype not in STORE for v in graph.in_vars):
        return None
    fns, calls = {}, []
    for node in graph.nodes[:-1] if tail is not None else graph.nodes:
        nb = _node_body(node)
        if nb is None:
            return None
        body, ins = nb
        key = (body, tuple(ins), node.outputs[0].dtype)
        if key not in fns:
            params = ", ".join("%s: %s" % (p, VALUE[d]) for p, d in zip("xyz", ins))
            fns[key] = ("n%d" % len(fns), "fn n%d(%s) -> %s { %s }" % (
                len(fns), params, VALUE[node.outputs[0].dtype], function_body(body)))
        calls.append((fns[key][0], node))
    outs = [o for o in graph.outs if tail is None or o is not tail.outputs[0]]
    if tail is not None:
        outs.append(tail.inputs[0])
    return _Plan(graph, "\n".join(f for _, f in fns.values()), calls, outs, tail)


# sub-graph -> its _Plan, or None where the group runs node by node (an entry lives as
# long as its sub-graph, i.e. its program: a plan holds no reference to its graph)
_PLANS = weakref.WeakKeyDictionary()
_NONE = object()   # no plan made yet


def fused_elementwise(*arrays, graph):
    """The driver's ``fused_elementwise``: ``graph``'s outputs from its inputs'
    device arrays: one dispatch (a group ending with a reduction: the reduction's own,
    plus a second pass over its partials when the reduced extent is long)."""
    plan = _PLANS.get(graph, _NONE)
    if plan is _NONE:
        plan = _PLANS[graph] = _plan(graph)
    ctx = get_context()
    if plan is not None:
        shape = plan.outs[-1].shape
        xs = [broadcast_view(a, shape, "fused_elementwise") for a in arrays]
        slots = {}   # one binding per distinct (buffer, dtype)
        binding_of = tuple(slots.setdefault((id(x.storage), x.dtype), len(slots)) for x in xs)
        storages = [None] * len(slots)
        for x, b in zip(xs, binding_of):
            storages[b] = x.storage
        limit = ctx.limits.get("max_storage_buffers_per_shader_stage", 8)
        if len(slots) + len(plan.outs) + 1 <= limit:
            return _run(plan, ctx, xs, binding_of, storages, shape)
    return run_unfused(device("webgpu"))(*arrays, graph=graph)


def _run(plan, ctx, xs, binding_of, storages, shape):
    dev = xs[0].device
    layout = strided_layout(shape, c_strides(shape), 0, xs) + [0, 0, 0]   # see _opaque
    tail = plan.tail
    if tail is not None and len(plan.outs) == 1:
        # the reduction reads the group as a C-contiguous array of its shape (ev)
        op, dtype, out_dtype = tail.prim.name, plan.outs[0].dtype, tail.params["out_dtype"]
        rule = red_rule(op, dtype, out_dtype, "ev(off)")   # (None: reduce_op raises)
        head = (plan.reduce_head(binding_of, "".join(rule or ())), "ev(off)", storages)
        virtual = WGPUArray(storages[0], shape, dtype, device=dev, writeable=False)
        return (reduce_op(op, virtual, tail.params["axes"], out_dtype, head, layout),)
    outs = [new(shape, o.dtype, dev, "fused_elementwise") for o in plan.outs]
    ctx.dispatch(plan.source(binding_of), storages + [o.storage for o in outs], layout,
                 layout[0])
    if tail is None:
        return tuple(outs)
    # other outputs besides: stored by the kernel, the tail's input reduced after
    reduced = reductions[tail.prim.name](outs.pop(), **tail.params)
    res = iter(outs)
    return tuple(reduced if o is tail.outputs[0] else next(res) for o in plan.graph_outs)
