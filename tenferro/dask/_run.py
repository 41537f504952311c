"""A sliced contraction as a Dask task graph, and its execution.

One task per slice: it fixes the sliced indices on the operands (``t[..., k, ...]``)
and contracts them with tenferro's local ``einsum`` along the plan's path.  Slices that
differ only in indices summed away are added pairwise (a binary tree of tasks, depth
``log2(slices)``); the sums for the values of the sliced output indices are placed into
the result by one last task.  The operands travel as NumPy arrays (any worker can
unpickle them), once: scattered to every worker (``broadcast=True``) under a
``distributed.Client``, one graph key each under Dask's local schedulers.
"""
from __future__ import annotations

import itertools
import operator

import numpy as np


def slice_task(arrays, ins, out, fixed, path):
    """The contraction of one slice: every label of ``fixed`` (label -> value) fixed to
    its value, the rest contracted by ``tenferro.einsum`` along ``path``."""
    import tenferro as tf

    ids = {}
    args = []
    for a, labels in zip(arrays, ins):
        index = tuple(fixed.get(l, slice(None)) for l in labels)
        args += [tf.asarray(np.asarray(a)[index]),
                 [ids.setdefault(l, len(ids)) for l in labels if l not in fixed]]
    rest = [ids.setdefault(l, len(ids)) for l in out if l not in fixed]
    return tf.einsum(*args, rest, optimize=list(path) or "greedy").numpy()


def place(shape, axes, keys, *parts):
    """The result assembled from ``parts`` (one per value tuple of ``keys`` of the
    sliced output labels), those labels first, then moved to their ``axes``."""
    first = parts[0]
    r = np.empty(tuple(shape[a] for a in axes) + first.shape, dtype=first.dtype)
    for key, p in zip(keys, parts):
        r[key] = p
    return np.moveaxis(r, tuple(range(len(axes))), axes)


def tree_sum(items, submit):
    """The sum of ``items`` as a binary tree of ``submit(operator.add, a, b)`` tasks."""
    while len(items) > 1:
        pairs = [submit(operator.add, items[i], items[i + 1])
                 for i in range(0, len(items) - 1, 2)]
        items = pairs + ([items[-1]] if len(items) % 2 else [])
    return items[0]


def contract(net, path, sliced, arrays, client=None):
    """The contraction of ``net`` on NumPy ``arrays``, slicing the labels ``sliced``,
    run on ``client`` (a ``distributed.Client``) or Dask's default scheduler."""
    import dask

    submit = lambda f, *args: dask.delayed(f, pure=True)(*args)  # noqa: E731
    if client is not None:
        ops = client.scatter(list(arrays), broadcast=True, hash=False)
    else:
        ops = [dask.delayed(a, pure=True, traverse=False) for a in arrays]
    placed = [l for l in sliced if l in net.out]
    summed = [l for l in sliced if l not in net.out]
    keys = list(itertools.product(*[range(net.size[l]) for l in placed]))
    parts = []
    for key in keys:
        fixed0 = dict(zip(placed, key))
        items = [submit(slice_task, ops, net.ins, net.out,
                        {**fixed0, **dict(zip(summed, vals))}, path)
                 for vals in itertools.product(*[range(net.size[l]) for l in summed])]
        parts.append(tree_sum(items, submit))
    if placed:
        shape = tuple(net.size[l] for l in net.out)
        axes = tuple(net.out.index(l) for l in placed)
        result = submit(place, shape, axes, keys, *parts)
    else:
        result = parts[0]
    if client is not None:
        return client.gather(client.compute(result))
    return dask.compute(result)[0]
