# The parallel scheduler of the backward pass (``include``d by _backward.pxi).
#
# ``workers`` threads (the caller and ``workers - 1`` started for the pass, joined before
# it returns) take ready nodes from a heap ordered by the serial pass's order, run them
# outside the lock (the kernels release the GIL) with :meth:`_Pass.step`, then, under the
# lock, hand their cotangents to their inputs' slots.  A slot keeps its contributions
# apart, ``(producer's order, edge, output index, cotangent)``, until its last producer
# has run; they are then summed in the serial pass's order, so every sum is the serial
# pass's own.

import threading
from heapq import heappop, heappush
from operator import itemgetter

# A parallel pass over fewer nodes than this runs serially (ferrotorch's threshold):
# starting threads costs more than the little overlap such a graph allows.
PARALLEL_MIN_NODES = 8

cdef object _producer = itemgetter(0, 1)   # a contribution's place in the serial sum
cdef object _local = threading.local()     # .worker: this thread runs a parallel pass


def in_backward_worker():
    """Whether this thread runs nodes of a parallel backward pass (a backward started
    there, by a hook or a checkpoint's recomputation, runs serially)."""
    return getattr(_local, "worker", False)


cdef bint _parallel_ok(_Pass p) except -1:
    if len(p.deps) < PARALLEL_MIN_NODES or _mode.interpreters or in_backward_worker():
        return False
    for n in p.deps:
        if isinstance(n, TapeNode) and (<TapeNode>n).device.type != "cpu":
            return False
    return True


@cython.final
cdef class _Parallel:
    """A pass run by several threads: each takes the ready node first in serial order,
    runs it outside the lock (the kernels release the GIL), then, under the lock,
    hands its cotangents to its inputs' slots and makes ready those it completed."""
    cdef _Pass p
    cdef object cond          # guards ready, remaining, error and the slots' parts/deps
    cdef list ready           # heap of (serial order, slot)
    cdef Py_ssize_t remaining  # nodes not run yet
    cdef object error         # (serial order, exception) of the failure first in order
    cdef bint mode            # the grad mode the nodes run under
    cdef object context       # the caller's AdContext

    def work(self):
        """Run ready nodes until the pass is done or has failed (the worker threads'
        target; the calling thread runs it too)."""
        cdef _Slot s = None
        st = _mode
        prev = (st.enabled, st.context, in_backward_worker())
        _set_mode(self.mode)
        st.context = self.context
        _local.worker = True
        try:
            while True:
                with self.cond:
                    while not self.ready and self.remaining and self.error is None:
                        self.cond.wait()
                    if self.error is not None or not self.ready:
                        return
                    s = <_Slot>heappop(self.ready)[1]
                self.finish(s, self.p.step(s, self.gather(s)))
                s = None
        except BaseException as e:
            self.fail(s, e)
        finally:
            _set_mode(prev[0])
            st.context = prev[1]
            _local.worker = prev[2]

    cdef list gather(self, _Slot s):
        """``s``'s output cotangents, its contributions summed in the serial order."""
        parts = s.parts
        s.parts = None
        if parts is not None:
            parts.sort(key=_producer)
            for part in parts:
                _add_into(s, part[2], part[3])
        b = s.buf
        s.buf = None
        return b

    cdef void finish(self, _Slot s, res) except *:
        cdef _Slot cs
        cdef Py_ssize_t k, nr = len(res) if res is not None else 0, pushed = 0
        edges = s.node.edges
        with self.cond:
            for k in range(len(edges)):
                e = edges[k]
                if e is None:
                    continue
                cs = <_Slot>self.p.deps[e[0]]
                if k < nr:
                    g = res[k]
                    if g is not None:
                        if cs.parts is None:
                            cs.parts = []
                        cs.parts.append((s.order, k, e[1], g))
                cs.deps -= 1
                if cs.deps == 0:
                    heappush(self.ready, (cs.order, cs))
                    pushed += 1
            self.remaining -= 1
            if self.remaining == 0:
                self.cond.notify_all()
            elif pushed > 1:   # this thread takes one of them itself
                self.cond.notify(pushed - 1)

    cdef void fail(self, _Slot s, e) except *:
        cdef Py_ssize_t order = s.order if s is not None else -1
        with self.cond:
            if self.error is None or order < self.error[0]:
                self.error = (order, e)
            self.cond.notify_all()


cdef void _join(_Parallel q, list threads) except *:
    """Wait for the workers (each returns once the pass is done or has failed); an
    interrupt while waiting fails the pass, so that they stop, and is raised after."""
    try:
        for t in threads:
            t.join()
    except BaseException as e:
        q.fail(None, e)
        for t in threads:
            t.join()
        raise


cdef object _run_parallel(_Pass p, create_graph, Py_ssize_t workers):
    cdef _Parallel q = _Parallel.__new__(_Parallel)
    cdef _Slot s
    q.p = p
    q.cond = threading.Condition()
    q.ready = []
    q.remaining = len(p.deps)
    q.error = None
    q.mode = bool(create_graph) if create_graph is not None else _mode.enabled
    q.context = _mode.context
    _serial_order(p.deps, p.roots)
    for n in dict.fromkeys(p.roots):
        s = <_Slot>p.deps[n]
        if s.deps == 0:
            heappush(q.ready, (s.order, s))
    started = []
    try:
        for k in range(1, min(workers, len(p.deps))):
            t = threading.Thread(target=q.work, name="tenferro-backward-%d" % k,
                                 daemon=True)
            try:
                t.start()
            except RuntimeError:   # no more threads: the ones running do the work
                break
            started.append(t)
        q.work()
    finally:
        _join(q, started)
    if q.error is not None:
        err = q.error[1]
        q.error = None   # its traceback refers to the pass through work(): no cycle
        raise err
    return p.captured
