# The backward pass of tenferro/autograd/_tape.pyx (``include``d there: one extension module).
#
# A pass (:class:`_Pass`) holds one slot per node reachable from the roots and knows what
# to do at a node (:meth:`_Pass.step`).  Two schedulers drive it: the serial one
# (:func:`run_backward`, Kahn's algorithm with a LIFO ready stack, iterative), and the
# parallel one (:class:`_Parallel` in ``_backward_parallel.pxi``, included at the end:
# ``workers`` threads taking ready nodes from a heap ordered by the serial pass's
# order).  The parallel scheduler gives the serial pass's results bit for bit: a node's
# incoming cotangents are kept apart until every producer has run, then summed in the
# order the serial pass adds them (producer by producer in serial order, edge by edge),
# so every sum -- and with ``create_graph`` every recorded addition -- is the serial
# pass's own.

@cython.final
@cython.no_gc  # referenced only by one backward pass's table: never part of a cycle
@cython.freelist(64)
cdef class _Slot:
    """A node's state during one backward pass."""
    cdef Node node
    cdef Py_ssize_t deps    # edges from nodes that have not run yet
    cdef Py_ssize_t left    # scratch count (_serial_order)
    cdef Py_ssize_t order   # its place in the serial pass (_serial_order)
    cdef bint needed        # a target can be reached from it (when pruning)
    cdef list buf           # its output cotangents (None until one arrives)
    cdef list parts         # parallel: (producer's order, edge, output index, cotangent)


@cython.final
cdef class _Stack:
    """A LIFO stack that keeps its storage: a list that shrinks to empty and grows again
    at every step (as Kahn's ready list on a chain) reallocates twice per step."""
    cdef list items
    cdef Py_ssize_t top

    def __cinit__(self):
        self.items = []
        self.top = 0

    cdef inline void push(self, x) except *:
        if self.top < len(self.items):
            self.items[self.top] = x
        else:
            self.items.append(x)
        self.top += 1

    cdef inline object pop(self):
        self.top -= 1
        x = self.items[self.top]
        self.items[self.top] = None
        return x


cdef inline _Slot _new_slot(Node n, Py_ssize_t deps):
    cdef _Slot s = _Slot.__new__(_Slot)
    s.node = n
    s.deps = deps
    return s


cdef inline void _add_into(_Slot s, Py_ssize_t i, g) except *:
    """Add cotangent ``g`` to output ``i`` of ``s`` (the first one is kept as it is)."""
    cdef list b = s.buf
    if b is None:
        b = s.buf = [None] * s.node.nout
        b[i] = g
    elif b[i] is None:
        b[i] = g
    else:
        b[i] = _add(b[i], g)


cdef dict _dependencies(list roots):
    """For every node reachable from ``roots``: its slot, counting how many edges of the
    graph enter it."""
    cdef dict deps = {}
    cdef _Stack stack = _Stack()
    cdef Node n
    cdef _Slot s
    for n in roots:
        if n not in deps:
            deps[n] = _new_slot(n, 0)
            stack.push(n)
    while stack.top:
        n = <Node>stack.pop()
        for e in n.edges:
            if e is not None:
                c = e[0]
                so = deps.get(c)
                if so is None:
                    deps[c] = _new_slot(c, 1)
                    stack.push(c)
                else:
                    s = <_Slot>so
                    s.deps += 1
    return deps


cdef list _serial_order(dict deps, list roots):
    """The slots in the order the serial pass runs them (Kahn's algorithm: every node
    after all the nodes that feed it; the ready stack LIFO, the roots pushed as given),
    each slot's ``order`` set to its place."""
    cdef _Slot s, cs
    cdef _Stack ready = _Stack()
    cdef list order = []
    for so in deps.values():
        s = <_Slot>so
        s.left = s.deps
    for n in dict.fromkeys(roots):
        s = <_Slot>deps[n]
        if s.left == 0:
            ready.push(s)
    while ready.top:
        s = <_Slot>ready.pop()
        s.order = len(order)
        order.append(s)
        for e in s.node.edges:
            if e is not None:
                cs = <_Slot>deps[e[0]]
                cs.left -= 1
                if cs.left == 0:
                    ready.push(cs)
    return order


cdef void _needed(dict deps, list roots, targets) except *:
    """Mark the nodes from which a target can be reached (the graph pruned for
    ``targets``)."""
    cdef _Slot s
    cdef list order = _serial_order(deps, roots)
    cdef Py_ssize_t k
    tnodes = {n for n, _ in targets}
    for k in range(len(order) - 1, -1, -1):
        s = <_Slot>order[k]
        if s.node in tnodes:
            s.needed = True
            continue
        for e in s.node.edges:
            if e is not None and (<_Slot>deps[e[0]]).needed:
                s.needed = True
                break


cdef list _listed(res, Py_ssize_t ne):
    """The first ``ne`` items of a rule's result that is neither a tuple nor a list
    (no more are drawn from it)."""
    cdef list out = []
    it = iter(res)
    for _ in range(ne):
        try:
            out.append(next(it))
        except StopIteration:
            break
    return out


cdef void _note(e, Node n) except *:
    """Name the node in whose backward ``e`` was raised (shown under the traceback)."""
    if isinstance(e, Exception) and hasattr(e, "add_note"):
        e.add_note("tenferro: raised in the backward of %s" % n.name)


@cython.final
cdef class _Pass:
    """One backward pass: the graph's slots, its settings, what it captured, and what
    it does at a node (:meth:`step`, the same for both schedulers)."""
    cdef dict deps          # node -> _Slot
    cdef list roots         # the root nodes, as given
    cdef bint pruned, keep, acc
    cdef object tset, tnodes, owned
    cdef dict captured

    cdef object step(self, _Slot s, list b):
        """Node ``s``'s part, given its summed output cotangents ``b``: its tensor hooks,
        the targets' captures, a leaf's accumulation or the node's VJP rule.  Returns the
        input cotangents as a tuple or list indexed like the node's edges, or None."""
        cdef Node n = s.node
        if b is None or (self.pruned and not s.needed):
            return None
        edges = n.edges
        try:
            if n.pre_hooks:
                _run_pre_hooks(n, b)
            if self.tnodes is not None and n in self.tnodes:
                for i in range(n.nout):
                    if b[i] is not None and (n, i) in self.tset:
                        self.captured[(n, i)] = b[i]
            if not edges:
                if self.acc and type(n) is _AccumulateGrad:
                    n.accumulate(b[0], _mode.enabled, self.owned)
                return None
            if not self.pruned:
                needs = edges  # an edge (truthy) or None per input
                for e in edges:
                    if e is not None:
                        break
                else:
                    return None
            else:
                needs = tuple([e is not None and (<_Slot>self.deps[e[0]]).needed
                               for e in edges])
                if True not in needs:
                    return None
            res = n.apply(b, needs, _mode.enabled)
            if not self.keep:
                n.release()
        except BaseException as e:
            _note(e, n)
            raise
        if res is None or type(res) is tuple or type(res) is list:
            return res
        return _listed(res, len(edges))


cdef _Pass _new_pass(roots, cts, targets, bint prune, bint keep, bint acc, owned):
    cdef _Pass p = _Pass.__new__(_Pass)
    p.roots = [r[0] for r in roots]
    p.deps = _dependencies(p.roots)
    p.keep = keep
    p.acc = acc
    p.pruned = False
    p.tset = p.tnodes = None
    if targets is not None:
        if prune:
            _needed(p.deps, p.roots, targets)
            p.pruned = True
        p.tset = set(targets)
        p.tnodes = {t[0] for t in p.tset}
    for r, g in zip(roots, cts):
        _add_into(<_Slot>p.deps[r[0]], r[1], g)
    p.captured = {}
    p.owned = set() if owned is None else owned
    return p


def run_backward(roots, cts, *, create_graph=None, keep_graph=True, targets=None,
                 accumulate=True, owned=None, prune=True, Py_ssize_t workers=1):
    """Propagate cotangents ``cts`` from ``roots`` (``(node, output index)`` pairs).

    Nodes run in Kahn's order (each once every node feeding it has run), iteratively.
    ``targets``: ``(node, index)`` pairs whose incoming cotangent is captured and
    returned as a dict (the graph is pruned to what reaches them).  ``accumulate``:
    AccumulateGrad nodes add into their leaves' ``.grad``.  ``create_graph``: record
    the backward computation on the eager tape (``None`` leaves grad mode as it is,
    as functional transforms do).  ``keep_graph``: keep saved tensors for another pass.
    ``prune=False``: the caller knows every node reaches a target.  ``workers > 1``:
    run independent nodes on that many threads (the results are the serial pass's);
    a graph of fewer than ``PARALLEL_MIN_NODES`` nodes, one with a node on a device
    other than the CPU, or a call from inside a transform or from a parallel pass's
    thread runs serially.
    """
    cdef _Pass p = _new_pass(roots, cts, targets, prune, keep_graph, accumulate, owned)
    cdef dict deps = p.deps
    cdef _Slot s, cs
    cdef _Stack ready = _Stack()
    cdef Py_ssize_t k, nr
    cdef list b
    if workers > 1 and _parallel_ok(p):
        return _run_parallel(p, create_graph, workers)
    prev = _mode.enabled
    if create_graph is not None:
        _set_mode(bool(create_graph))
    for n in dict.fromkeys(p.roots):
        s = <_Slot>deps[n]
        if s.deps == 0:
            ready.push(s)
    try:
        while ready.top:
            s = <_Slot>ready.pop()
            b = s.buf
            s.buf = None
            res = p.step(s, b)
            b = None
            # the node has run: its children may be ready now; pass on its cotangents
            edges = s.node.edges
            nr = len(res) if res is not None else 0
            for k in range(len(edges)):
                e = edges[k]
                if e is None:
                    continue
                cs = <_Slot>deps[e[0]]
                if k < nr:
                    g = res[k]
                    if g is not None:
                        _add_into(cs, e[1], g)
                cs.deps -= 1
                if cs.deps == 0:
                    ready.push(cs)
    finally:
        _set_mode(prev)
    return p.captured


include "_backward_parallel.pxi"
