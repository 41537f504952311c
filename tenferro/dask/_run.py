"""A sliced contraction as a Dask task graph, and its execution.

A slice fixes the sliced indices on the operands (``t[..., k, ...]``) and is contracted
by tenferro's local ``einsum`` along the plan's path.  The slices are numbered in
C order, the sliced output indices outermost, and one task contracts a run of
consecutive slices (about ``tasks`` runs, a few per worker thread: Dask's per-task
cost, about a millisecond, is paid per run, not per slice).  A run covers either whole
values of the sliced output indices (each one's slices summed, the sums stacked) or,
where there are fewer such values than tasks, an aligned power-of-two run of one
value's slices (summed).  Sums are pairwise trees, inside a task and across the tasks
of one value alike, and because the runs are aligned powers of two the tree is the one
summing every slice as a task of its own would build: the result does not depend on
``tasks``, bit for bit.  The last task places the stacked sums into the result.

The joint VJP (the cotangents of every needed operand in one pass) runs the same
slices in the same runs, every sliced index summed: a slice's task contracts it
forward and back with tenferro's reverse mode (sharing its intermediates), its
cotangents zero outside the slice's block, and the lists of cotangents are summed by
the same pairwise trees.  The joint JVP (the tangent for every operand's tangent at
once) is the forward's graph, each slice's tangent by tenferro's forward mode.

The graph is a dict of Dask task specs whose keys are named, not hashed: ``(name-token,
i)``, the token that of the plan and the operands' keys, computed once per call; the
operands are referenced by key, so building a task costs microseconds.

The operands travel as NumPy arrays (any worker can unpickle them), once: scattered to
every worker (``broadcast=True``) under a ``distributed.Client``, one graph key each
under Dask's local schedulers.  Every task is pure with a deterministic key, and the
result is gathered once, so a task Dask runs again after a worker died (its result
lost, or the worker killed while running it) is computed again, never added twice.
Only the scattered operands cannot be computed again: when every worker holding a copy
died, Dask cancels the tasks, and the call scatters the operands again and starts over
(at most ``distributed.scheduler.allowed-failures`` times).  A failure Dask gives up
on (``KilledWorker`` past ``allowed-failures``, no worker to scatter to) reaches the
caller as Dask's exception, its message naming ``tenferro.dask.einsum``.
"""
from __future__ import annotations

import functools

import numpy as np

from ._plan import NAME


def _slice(arrays, ins, out, fixed, dtype=None):
    """The operands of one slice (every label of ``fixed``, label -> value, fixed to
    its value) as Tensors, their einsum labels, the output's, and each operand's
    index into its full array."""
    import tenferro as tf

    ids, tensors, labels, index = {}, [], [], []
    for a, ls in zip(arrays, ins):
        index.append(tuple(fixed.get(l, slice(None)) for l in ls))
        tensors.append(tf.asarray(np.asarray(a, dtype)[index[-1]]))
        labels.append([ids.setdefault(l, len(ids)) for l in ls if l not in fixed])
    rest = [ids.setdefault(l, len(ids)) for l in out if l not in fixed]
    return tensors, labels, rest, index


def _einsum(tensors, labels, rest, path):
    import tenferro as tf

    return tf.einsum(*[x for t, l in zip(tensors, labels) for x in (t, l)], rest,
                     optimize=list(path) or "greedy")


def contract_slice(arrays, ins, out, fixed, path):
    """One slice: every label of ``fixed`` (label -> value) fixed to its value, the rest
    contracted by ``tenferro.einsum`` along ``path``."""
    tensors, labels, rest, _ = _slice(arrays, ins, out, fixed)
    return _einsum(tensors, labels, rest, path).numpy()


def jvp_slice(arrays, ins, out, fixed, path, has):
    """The tangent of one slice's contraction for the tangents of the operands ``has``
    marks (``arrays``: the operands, then those tangents), by tenferro's forward mode
    through the slice's local einsum."""
    import tenferro as tf

    n, want = len(ins), [k for k, h in enumerate(has) if h]
    tensors, labels, rest, _ = _slice(arrays[:n], ins, out, fixed)
    tangents = _slice(arrays[n:], [ins[k] for k in want], out, fixed)[0]

    def f(*xs):
        ts = list(tensors)
        for k, x in zip(want, xs):
            ts[k] = x
        return _einsum(ts, labels, rest, path)
    return tf.jvp(f, [tensors[k] for k in want], tangents)[1].numpy()


def vjp_slice(arrays, ct, ins, out, fixed, path, needs):
    """The cotangents of the operands ``needs`` marks of one slice's contraction, for
    the output cotangent ``ct``, by tenferro's reverse mode through the slice's local
    einsum (the forward's intermediates shared): each a full-size array, zero but for
    the slice's block."""
    import tenferro as tf

    dtype = np.result_type(ct, *arrays)
    tensors, labels, rest, index = _slice(arrays, ins, out, fixed, dtype)
    want = [k for k, need in enumerate(needs) if need]

    def f(*xs):
        ts = list(tensors)
        for k, x in zip(want, xs):
            ts[k] = x
        return _einsum(ts, labels, rest, path)
    _, back = tf.vjp(f, *[tensors[k] for k in want])
    grads = back(tf.asarray(np.asarray(ct, dtype)[tuple(fixed.get(l, slice(None))
                                                        for l in out)]))
    full = []
    for k, g in zip(want, grads):
        full.append(np.zeros(np.shape(arrays[k]), dtype))
        full[-1][index[k]] = g.numpy()
    return full


def tree_sum(items, add):
    """The sum of ``items`` (an iterable) as a pairwise tree of ``add(a, b)``: the tree
    that adds neighbours level by level, carrying an odd last item up, built as the
    items come (holding ``log2`` partial sums, not every item)."""
    stack = []  # (number of items, their sum), the numbers decreasing powers of two
    for x in items:
        n = 1
        while stack and stack[-1][0] == n:
            m, y = stack.pop()
            x, n = add(y, x), n + m
        stack.append((n, x))
    x = stack.pop()[1]
    while stack:
        x = add(stack.pop()[1], x)
    return x


def add(a, b):
    """``a + b``, item by item for lists (the cotangents of a joint VJP)."""
    return [x + y for x, y in zip(a, b)] if isinstance(a, list) else a + b


def _run_slices(one, placed, summed, keys, vals):
    """The task of a run of slices.  ``keys`` and ``vals``: (start, stop) ranges of the
    C-order numbers of the value tuples of the ``placed`` and of the ``summed`` labels
    (dicts label -> size); for each placed value tuple, the sum of ``one(fixed)`` over
    its slices in ``vals``, the sums stacked along a new first axis where labels are
    placed."""
    def fixed(shape, i):
        return dict(zip(shape, np.unravel_index(i, tuple(shape.values())) if shape else ()))

    sums = [tree_sum((one({**fixed(placed, k), **fixed(summed, v)}) for v in range(*vals)),
                     add) for k in range(*keys)]
    return np.stack(sums) if placed else sums[0]


def contract_run(net, path, placed, summed, has, keys, vals, *arrays):
    """A run of slices of the contraction of ``net`` (:func:`_run_slices`), or with
    ``has``, of its tangent (:func:`jvp_slice`)."""
    def one(fixed):
        if has is None:
            return contract_slice(arrays, net.ins, net.out, fixed, path)
        return jvp_slice(arrays, net.ins, net.out, fixed, path, has)
    return _run_slices(one, placed, summed, keys, vals)


def vjp_run(net, path, needs, summed, keys, vals, *arrays):
    """A run of slices of the joint VJP of ``net`` (the output cotangent after the
    operands): the list of the needed operands' cotangents, summed over the run
    (:func:`vjp_slice`)."""
    *arrays, ct = arrays
    return _run_slices(lambda fixed: vjp_slice(arrays, ct, net.ins, net.out, fixed, path,
                                               needs), {}, summed, keys, vals)


def runs(n_keys, n_vals, tasks):
    """The runs of slices, one list per block of keys: ``[((k0, k1), (v0, v1)), ...]``
    (see the module docstring); at most ``tasks`` runs in all."""
    if n_keys >= tasks:
        k = -(-n_keys // tasks)
        return [[((i, min(i + k, n_keys)), (0, n_vals))] for i in range(0, n_keys, k)]
    size = 1 << (-(-n_vals // (tasks // n_keys)) - 1).bit_length()  # a power of two
    return [[((i, i + 1), (j, min(j + size, n_vals))) for j in range(0, n_vals, size)]
            for i in range(n_keys)]


def place(shape, axes, *blocks):
    """The result from the stacked sums of the blocks (the values of the sliced output
    labels, of sizes ``shape``, in C order), those labels moved to their ``axes``."""
    r = np.concatenate(blocks) if len(blocks) > 1 else blocks[0]
    r = r.reshape(shape + r.shape[1:])
    return np.moveaxis(r, tuple(range(len(axes))), axes)


def default_tasks(client):
    """Four tasks per worker thread of ``client``; the local scheduler's thread count."""
    import dask

    if client is not None:
        return max(1, 4 * sum(client.nthreads().values()))
    from dask.system import CPU_COUNT

    return dask.config.get("num_workers", None) or CPU_COUNT


def contract(net, path, sliced, arrays, client=None, tasks=None, ct=None, needs=None,
             has=None):
    """The contraction of ``net`` on NumPy ``arrays``, slicing the labels ``sliced`` into
    about ``tasks`` tasks (None: :func:`default_tasks`), run on ``client`` (a
    ``distributed.Client``) or Dask's default scheduler.  With ``ct`` (the output
    cotangent): its joint VJP instead, the list of the cotangents of the operands
    ``needs`` marks; with ``has``: its tangent, ``arrays`` followed by the tangents of
    the operands ``has`` marks."""
    import dask

    arrays = list(arrays) + ([] if ct is None else [ct])
    if client is None:
        return dask.compute(graph(net, path, sliced, arrays, False, tasks or
                                  default_tasks(None), needs, has))[0]
    from concurrent.futures import CancelledError

    attempts = 1 + dask.config.get("distributed.scheduler.allowed-failures", 3)
    for attempt in range(1, attempts + 1):
        ops = []
        try:
            ops = client.scatter(arrays, broadcast=True, hash=False)
            result = graph(net, path, sliced, ops, True,
                           tasks or default_tasks(client), needs, has)
            return client.compute(result).result()
        except Exception as e:
            lost = isinstance(e, CancelledError) and any(f.status != "finished" for f in ops)
            if lost and attempt < attempts:  # every copy of an operand died: send again
                continue
            named = _named(e, " (the operands were sent %d time(s), every copy was lost "
                              "each time: call again once workers are back)" % attempts
                            if lost else "")
            if named is None:
                raise
            raise named from e


def graph(net, path, sliced, ops, scattered, tasks, needs=None, has=None):
    """The contraction (with ``needs``: the joint VJP, the output cotangent the last
    operand; with ``has``: the tangent, :func:`contract`) as a ``dask.delayed`` value of
    a graph of tasks in about ``tasks`` runs: ``ops`` are the ``scattered`` operands'
    futures or else the arrays (made graph inputs).  The keys are
    ``(name-token, i)``, the token that of the plan and the operands' keys: built
    without walking or hashing the tasks' arguments, and every task pure (Dask may run
    it again)."""
    import uuid

    from dask.base import tokenize
    from dask.delayed import Delayed

    Task, ref, data = _task_spec()
    dsk = {}
    if scattered:
        keys = [f.key for f in ops]
        refs = [f if ref(k) is k else ref(k) for f, k in zip(ops, keys)]
    else:               # the arrays, once each, as inputs of the graph
        keys = ["tenferro-operand-%s" % uuid.uuid4().hex for _ in ops]
        dsk.update((k, data(k, a)) for k, a in zip(keys, ops))
        refs = [ref(k) for k in keys]
    token = tokenize(net, path, sliced, tasks, needs, has, *keys)
    counts = {}

    def task(name, f, *args):
        key = ("%s-%s" % (name, token), counts.setdefault(name, 0))
        counts[name] += 1
        dsk[key] = Task(key, f, *args)
        return ref(key)

    placed = {l: net.size[l] for l in sliced if l in net.out and needs is None}
    summed = {l: net.size[l] for l in sliced if l not in placed}
    if needs is None:
        run = ("contract_run", functools.partial(contract_run, net, path, placed, summed,
                                                 has))
    else:
        run = ("vjp_run", functools.partial(vjp_run, net, path, needs, summed))
    blocks = [tree_sum((task(*run, k, v, *refs) for k, v in block),
                       lambda a, b: task("add", add, a, b))
              for block in runs(net.n_slices(placed), net.n_slices(summed), tasks)]
    last = blocks[0]
    if placed:
        last = task("place", place, tuple(placed.values()),
                    tuple(net.out.index(l) for l in placed), *blocks)
    return Delayed(getattr(last, "key", last), dsk)


def _task_spec():
    """(Task(key, f, *args), a reference to a key, a graph input(key, value)): Dask's
    task specs, or where Dask predates them (before 2024.12) :func:`_tuples`."""
    try:
        from dask._task_spec import DataNode, Task, TaskRef
    except ImportError:
        return _tuples()
    return Task, TaskRef, DataNode


def _tuples():
    """:func:`_task_spec` as Dask's tuples: a key refers to itself (a future then stands
    for its own key), an input is its value."""
    return (lambda key, f, *args: (f,) + args), (lambda key: key), (lambda key, value: value)


_NAMED = {}


def _named(e, hint=""):
    """What Dask raises when it gives up (``KilledWorker`` after too many retries,
    ``NoWorkerError``/``NoValidWorkerError`` past ``distributed.scheduler.no-workers-
    timeout``, a cancelled future, no worker to scatter to) as an exception of a
    subclass of its type whose message starts with ``tenferro.dask.einsum`` and ends
    with ``hint``; None for any other exception (the tasks' own errors travel as they
    are)."""
    from concurrent.futures import CancelledError
    from distributed.scheduler import KilledWorker, NoValidWorkerError, NoWorkerError

    cls = type(e)
    if not issubclass(cls, (KilledWorker, NoValidWorkerError, NoWorkerError,
                            CancelledError, TimeoutError)):
        return None
    if cls not in _NAMED:
        def __str__(self):
            return "%s: Dask gave up on the contraction: %s%s" % (NAME, cls.__str__(self),
                                                                 self.tenferro_hint)
        _NAMED[cls] = type(cls.__name__, (cls,), {"__str__": __str__,
                                                  "__module__": __name__})
    named = cls.__new__(_NAMED[cls], *e.args)
    named.__dict__.update(e.__dict__)
    named.tenferro_hint = hint
    return named
