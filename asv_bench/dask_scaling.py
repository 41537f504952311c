#!/usr/bin/env python
"""Scaling of ``tenferro.dask.einsum`` beyond this machine, by simulation.

For a sizeable tensor network (a random 3-regular graph or a 2-D lattice, one tensor per
vertex, bond dimension ``--bond``, contracted along cotengra's path when cotengra is
installed, opt_einsum's greedy path otherwise) and slice counts 1, 2, 4, ... up to
``--max-slices`` (rows whose slicing gives the same count are merged; slices are chosen
greedily as ``tenferro.dask``'s ``target_size`` does), computes from the plan alone:

* the task graph that ``tenferro.dask._run.contract`` builds, built without running it
  (a scheduler that records the graph): its tasks, its edges between tasks, the pickled
  size of its tasks, pickled together as distributed sends a graph (the operands, sent
  once, are not counted) and the seconds this
  process took to build it (measured: the client's serial cost, before any task runs);
* flops of one slice and of all slices (``Network.cost``: one multiply-add per element
  of each pairwise step's index space), the slicing overhead (all slices / unsliced)
  and the largest intermediate of one slice (the memory a worker needs per task);
* the communication for ``--comm-workers`` workers: the operands sent to every worker,
  each edge between tasks moving one result with probability ``(W-1)/W``, the result
  sent to the client;
* a predicted wall time for each of ``--workers``, from a simple model:
  ``T(W) = build + max(tasks * c, ceil(leaves / W) * (flops_leaf / R + c)) + depth * c
  + W * operand_bytes / B``, where ``c`` is Dask's cost per task (measured here on a
  one-worker LocalCluster: trivial tasks per second), ``R`` the flop rate of one
  worker thread (measured here: the contraction of one slice of the most-sliced row
  with tenferro on one thread), ``leaves`` the tasks that contract slices and ``B``
  ``--bandwidth`` (bytes/s from the client).  ``--task-overhead``/``--flop-rate`` give
  the two constants instead of measuring them.

Prints a Markdown table (the one in docs/distributed.md, "The cost model of slicing").

    python asv_bench/dask_scaling.py [--graph regular|lattice] [--tensors 60] [--bond 8]
        [--seed 0] [--open 0] [--max-slices 4096] [--workers 1,16,256,4096]
        [--comm-workers 64] [--task-overhead S] [--flop-rate F] [--bandwidth B]
        [--optimize cotengra|greedy] [--tasks N] [--grad]

``--grad`` adds a table of the gradient's cost (with respect to every operand): one
sliced contraction per operand, planned anew by opt_einsum's greedy search (what
``tenferro.dask.einsum``'s VJP did before) or along the forward's tree re-rooted at
the operand (``_plan.vjp_path``: the forward's intermediates, so the slicing bounds
the gradient's memory as it does the forward's; the higher derivatives' plans), and
the one joint pass the VJP runs now (:func:`joint_vjp_cost`).
"""
import argparse
import math
import os
import pickle
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchmarks import bench_dask as B  # noqa: E402  (its common puts tenferro on sys.path)
import tenferro as tf  # noqa: E402
from tenferro.dask import _plan, _run  # noqa: E402

ITEM = 8   # bytes per element (float64)


def lattice_labels(side):
    """Label lists of a ``side`` x ``side`` open-boundary square lattice."""
    legs = [[] for _ in range(side * side)]
    label = 0
    for r in range(side):
        for c in range(side):
            for dr, dc in ((0, 1), (1, 0)):
                if r + dr < side and c + dc < side:
                    legs[r * side + c].append(label)
                    legs[(r + dr) * side + c + dc].append(label)
                    label += 1
    return legs


def build_network(args):
    """The :class:`_plan.Network` of the options (``--open`` open legs on the first
    tensors, output labels of size ``--bond``)."""
    if args.graph == "lattice":
        legs = lattice_labels(int(round(math.sqrt(args.tensors))))
    else:
        legs = B.network_labels(args.tensors, 3, args.seed)
    nxt = 1 + max(l for t in legs for l in t)
    out = tuple(range(nxt, nxt + args.open))
    for k, l in enumerate(out):
        legs[k].append(l)
    size = {l: args.bond for t in legs for l in t}
    return _plan.Network(tuple(map(tuple, legs)), out, size)


def find_path(net, how):
    if how == "cotengra":
        try:
            import cotengra as ctg
        except ImportError:
            how = "greedy"
        else:
            return _plan.find_path(net, ctg.HyperOptimizer(
                max_repeats=16, methods=["greedy"], minimize="flops", progbar=False,
                seed=0)), "cotengra (HyperOptimizer, greedy, 16 repeats)"
    return _plan.find_path(net, "greedy"), "opt_einsum greedy"


def operands(net, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal([net.size[l] for l in t]) for t in net.ins]


def task_graph(net, path, sliced, arrays, tasks=None):
    """The graph ``_run.contract`` builds (on Dask's local-scheduler branch), recorded
    by a scheduler that runs nothing: ({key: task}, seconds taken to build it).
    ``tasks``: passed on where ``contract`` groups slices into about that many tasks
    (None: one task per slice)."""
    import inspect

    import dask

    kw = {}
    if "tasks" in inspect.signature(_run.contract).parameters:
        kw["tasks"] = tasks or net.n_slices(sliced)
    elif tasks:
        raise SystemExit("dask_scaling.py: --tasks: this tenferro makes one task per slice")

    seen = {}

    def record(dsk, keys, **kwargs):
        g = dsk.__dask_graph__() if hasattr(dsk, "__dask_graph__") else dsk
        seen["graph"] = dict(g)
        return [None for _ in keys]

    t0 = time.perf_counter()
    with dask.config.set(scheduler=record):
        _run.contract(net, path, sliced, arrays, None, **kw)
    return seen["graph"], time.perf_counter() - t0


def graph_stats(graph, slice_bytes, out_bytes):
    """Tasks, edges between tasks, pickled bytes, leaves (tasks reading operands only),
    depth, and the bytes each edge's producer returns (summed over edges)."""
    from dask._task_spec import DataNode
    from dask.core import get_dependencies
    from dask.utils import key_split

    data = {k for k, v in graph.items() if isinstance(v, DataNode)}
    tasks = [k for k in graph if k not in data]
    deps = {k: get_dependencies(graph, k) - data for k in tasks}
    edges = sum(len(d) for d in deps.values())
    leaves = sum(1 for d in deps.values() if not d)
    size = len(pickle.dumps({k: graph[k] for k in tasks}, protocol=5))   # as one message
    depth = {}
    for k in sorted(tasks, key=lambda k: len(deps[k])):   # leaves first, then memoised
        _depth(k, deps, depth)

    def result_bytes(k):
        return out_bytes if key_split(k) == "place" else slice_bytes
    moved = sum(result_bytes(d) for ds in deps.values() for d in ds)
    return dict(tasks=len(tasks), edges=edges, bytes=size, leaves=leaves,
                depth=max(depth.values()), moved=moved)


def _depth(k, deps, memo):
    stack = [k]
    while stack:
        k = stack[-1]
        todo = [d for d in deps[k] if d not in memo]
        if todo:
            stack.extend(todo)
            continue
        memo[k] = 1 + max([memo[d] for d in deps[k]] + [0])
        stack.pop()
    return memo[k]


def joint_vjp_cost(net, path, sliced):
    """(flops, elements held) of one slice of the joint VJP (``dask.einsum_vjp``: the
    slice's local reverse mode): the forward's flops and, per pairwise step, one
    einsum over the step's index space for each of its two inputs' cotangents (3x the
    forward's); it holds the forward's intermediates of the slice until the backward
    pass reaches them (their sum)."""
    size = {l: 1 if l in sliced else n for l, n in net.size.items()}
    terms = [set(t) for t in net.ins]
    flops = held = 0
    for step in path:
        picked = [terms[i] for i in step]
        for i in sorted(step, reverse=True):
            del terms[i]
        res = set().union(*picked) & set(net.out).union(*terms)
        flops += (1 + len(step)) * math.prod(size[l] for l in set().union(*picked))
        held += math.prod(size[l] for l in res)
        terms.append(res)
    return flops, held


def vjp_costs(net, path, sliced):
    """(flops, largest intermediate) of one slice of all the cotangents, one sliced
    contraction per operand: planned by opt_einsum's greedy search anew on each
    operand's network (as tenferro did before), and along the forward's tree re-rooted
    at the operand (``_plan.vjp_path``, what ``dask.einsum_vjp``'s derivatives use)."""
    now = rer = (0, 0)
    for k in range(len(net.ins)):
        vn = _plan.vjp_network(net, k)
        a = vn.cost(_plan.find_path(vn, "greedy"), sliced)
        b = vn.cost(_plan.vjp_path(net, path, k), sliced)
        now = (now[0] + a[1], max(now[1], a[0]))
        rer = (rer[0] + b[1], max(rer[1], b[0]))
    return now, rer


def measure_task_overhead(n=400):
    """Seconds per trivial task on a one-worker LocalCluster (the threaded scheduler's
    when distributed is missing)."""
    import dask

    tasks = [dask.delayed(abs, pure=False)(i) for i in range(n)]
    try:
        cluster, client = B.start_cluster(1)
    except NotImplementedError:
        dask.compute(*tasks)
        t0 = time.perf_counter()
        dask.compute(*[dask.delayed(abs, pure=False)(i) for i in range(n)])
        return (time.perf_counter() - t0) / n
    try:
        client.gather(client.compute(tasks))
        t0 = time.perf_counter()
        client.gather(client.compute([dask.delayed(abs, pure=False)(i) for i in range(n)]))
        return (time.perf_counter() - t0) / n
    finally:
        client.close()
        cluster.close()


def measure_flop_rate(net, path, sliced, arrays, flops):
    """Flops per second of one slice's contraction (the first, each sliced label at 0)
    by tenferro.einsum along ``path``, on one thread."""
    tf.set_num_threads(1)
    args = []
    for a, labels in zip(arrays, net.ins):
        args += [tf.asarray(np.ascontiguousarray(a[tuple(0 if l in sliced else slice(None)
                                                          for l in labels)])),
                 [l for l in labels if l not in sliced]]
    out = [l for l in net.out if l not in sliced]
    best = math.inf
    for _ in range(3):
        t0 = time.perf_counter()
        tf.einsum(*args, out, optimize=list(path) or "greedy")
        best = min(best, time.perf_counter() - t0)
    return flops / best


def fmt_bytes(n):
    for unit, s in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if n >= s:
            return "%.3g %s" % (n / s, unit)
    return "%d B" % n


def fmt_s(t):
    for unit, s in (("h", 3600), ("min", 60), ("s", 1), ("ms", 1e-3)):
        if t >= s:
            return "%.3g %s" % (t / s, unit)
    return "%.3g µs" % (t / 1e-6)


def rows_for(net, path, max_slices):
    """[(sliced labels, n slices)] for 1, 2, 4, ... slices, merged by count."""
    rows, seen = [], set()
    n = 1
    while n <= max_slices:
        sliced = B.slices_for(net, path, n) if n > 1 else ()
        count = net.n_slices(sliced)
        if count <= max_slices and count not in seen:
            seen.add(count)
            rows.append((sliced, count))
        n *= 2
    return rows


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graph", choices=["regular", "lattice"], default="regular")
    p.add_argument("--tensors", type=int, default=60)
    p.add_argument("--bond", type=int, default=8)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--open", type=int, default=0, help="open legs (output labels)")
    p.add_argument("--max-slices", type=int, default=4096)
    p.add_argument("--workers", default="1,16,256,4096")
    p.add_argument("--comm-workers", type=int, default=64)
    p.add_argument("--tasks", type=int, default=None,
                   help="tasks per contraction where tenferro groups slices (default: "
                        "one per slice)")
    p.add_argument("--task-overhead", type=float, default=None, help="seconds per task")
    p.add_argument("--flop-rate", type=float, default=None, help="flops/s of a worker")
    p.add_argument("--bandwidth", type=float, default=1e9, help="bytes/s from the client")
    p.add_argument("--optimize", choices=["cotengra", "greedy"], default="cotengra")
    p.add_argument("--grad", action="store_true",
                   help="also the cost of the gradient's contractions (all operands)")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    net = build_network(args)
    path, how = find_path(net, args.optimize)
    arrays = operands(net)
    op_bytes = sum(a.nbytes for a in arrays)
    out_bytes = ITEM * math.prod(net.size[l] for l in net.out)
    full_largest, full_flops = net.cost(path)
    rows = rows_for(net, path, args.max_slices)
    c = args.task_overhead if args.task_overhead else measure_task_overhead()
    if args.flop_rate:
        rate = args.flop_rate
    else:
        sliced, _ = rows[-1]
        rate = measure_flop_rate(net, path, sliced, arrays, net.cost(path, sliced)[1])
    workers = [int(w) for w in args.workers.split(",")]
    wc = args.comm_workers
    print("<!-- python asv_bench/dask_scaling.py %s -->" % " ".join(sys.argv[1:] if argv is None
                                                                  else argv))
    print("<!-- %s graph, %d tensors, bond %d, %d open legs, path: %s; unsliced: largest "
          "intermediate %s, %.3g flops; Dask's cost per task c = %s, flop rate R = %.3g/s "
          "(one thread), B = %.3g bytes/s -->" % (
              args.graph, len(net.ins), args.bond, args.open, how,
              fmt_bytes(ITEM * full_largest), full_flops, fmt_s(c), rate, args.bandwidth))
    print("| slices | sliced indices | tasks | edges | graph (pickled) | graph build "
          "| flops / slice "
          "| flops, all slices | overhead | largest intermediate / slice "
          "| communication, %d workers | %s |"
          % (wc, " | ".join("T(%d workers)" % w for w in workers)))
    print("|" + "---:|" * (11 + len(workers)))
    for sliced, n in rows:
        largest, flops = net.cost(path, sliced)
        placed = math.prod(net.size[l] for l in sliced if l in net.out)
        graph, build = task_graph(net, path, sliced, arrays, args.tasks)
        g = graph_stats(graph, out_bytes // placed, out_bytes)
        comm = wc * op_bytes + g["moved"] * (wc - 1) / wc + out_bytes
        per_leaf = flops * n / g["leaves"] / rate
        times = [build + max(g["tasks"] * c, math.ceil(g["leaves"] / w) * (per_leaf + c))
                 + g["depth"] * c + w * op_bytes / args.bandwidth for w in workers]
        print("| %d | %d | %d | %d | %s | %s | %.3g | %.3g | %.2fx | %s | %s | %s |" % (
            n, len(sliced), g["tasks"], g["edges"], fmt_bytes(g["bytes"]), fmt_s(build), flops,
            flops * n, flops * n / full_flops, fmt_bytes(ITEM * largest), fmt_bytes(comm),
            " | ".join(fmt_s(t) for t in times)), flush=True)
    if args.grad:
        grad_table(net, path, rows)


def grad_table(net, path, rows):
    """The gradient's cost per slice count (all operands): one cotangent contraction per
    operand, planned anew by greedy search (before) or along the forward's re-rooted
    tree, and the joint pass ``tenferro.dask.einsum`` runs."""
    print("\n| slices | forward flops | per operand, greedy plans: flops | largest "
          "| per operand, forward tree re-rooted: flops | largest "
          "| joint pass: flops | held / slice |")
    print("|" + "---:|" * 8)
    for sliced, n in rows:
        largest, flops = net.cost(path, sliced)
        now, rer = vjp_costs(net, path, sliced)
        joint = joint_vjp_cost(net, path, sliced)
        print("| %d | %.3g | %.3g | %s | %.3g | %s | %.3g | %s |" % (
            n, n * flops, n * now[0], fmt_bytes(ITEM * now[1]), n * rer[0],
            fmt_bytes(ITEM * rer[1]), n * joint[0], fmt_bytes(ITEM * joint[1])), flush=True)


if __name__ == "__main__":
    main()
