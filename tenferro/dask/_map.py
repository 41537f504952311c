"""``tenferro.dask.map``: one function called on many batches of arguments, one Dask task
per call -- hyperparameter sweeps, batches of linear algebra, sweeps of gradients.

The function travels once per worker.  It is wrapped in a :class:`_Shipped`, scattered to
every worker (``broadcast=True``) under a ``distributed.Client`` or made one graph key
under Dask's default scheduler, so the tasks on one worker receive the same deserialized
object.  That object compiles the function with ``tenferro.jit`` at its first call (which
runs alone, so a worker's threads do not compile the same program side by side) and
keeps the jit, whose cache holds one program per input signature, for the worker's later
tasks: a worker compiles once per signature, not once per task.  It lives as long as the
map's tasks (Dask releases it with them), so each call of ``map`` reads the function's
closure afresh.

Arguments travel as NumPy arrays (a Tensor's host buffer; an array that several batches
share is sent once to every worker) and reach the function as CPU Tensors; results
travel back as NumPy arrays and become Tensors again.  A task catches what the function
raises and returns it, so the caller re-raises it with a note naming the batch.
"""
from __future__ import annotations

import collections
import threading
import traceback
import uuid
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from .. import _ops
from .._errors import UnsupportedOperation
from .._tensor import Tensor
from .._tree import tree_flatten, tree_unflatten
from ..graph import jit as _jit

NAME = "tenferro.dask.map"
_ARRAYS = (np.ndarray, np.generic)


class _Shipped:
    """The mapped function as the tasks of one worker share it: ``f`` itself
    (``jit=False``) or the ``tenferro.jit`` of ``f``, made at the first call and kept.
    ``f`` is pickled with cloudpickle, as Dask pickles a function it is given, so a
    function of ``__main__`` or of a module registered with
    ``cloudpickle.register_pickle_by_value`` travels by value."""

    def __init__(self, f, jit):
        if isinstance(f, _jit):   # compiled already: its function and options travel
            self.f, self.options = f.f, dict(
                static_argnums=f.static_argnums, static_argnames=f.static_argnames,
                maxsize=f.maxsize, passes=f.passes, reuse=f.reuse)
        else:
            self.f, self.options = f, ({} if jit else None)
        self._start()

    def _start(self):
        self._lock = threading.Lock()
        self._jitted = None
        self._warm = False   # a call has run: the programs of its signature exist

    def __getstate__(self):
        import cloudpickle
        return cloudpickle.dumps((self.f, self.options))

    def __setstate__(self, state):
        import cloudpickle
        self.f, self.options = cloudpickle.loads(state)
        self._start()

    def __call__(self, *args):
        if self.options is None:
            return self.f(*args)
        if self._warm:
            return self._jitted(*args)
        with self._lock:   # the first call runs alone: a worker's threads do not
            if self._jitted is None:   # compile the same program side by side
                self._jitted = _jit(self.f, **self.options)
            out = self._jitted(*args)
            self._warm = True
            return out


class _Raised:
    """What a task returns when the call raised: the exception and the worker's
    traceback as text (an exception that does not pickle and unpickle becomes a
    RuntimeError naming its type and message, on every scheduler alike)."""

    def __init__(self, exc):
        import cloudpickle
        self.traceback = traceback.format_exc()
        try:
            cloudpickle.loads(cloudpickle.dumps(exc))
        except Exception:
            exc = RuntimeError("%s: %s" % (type(exc).__name__, exc))
        self.exc = exc

    def reraise(self, index, jitted):
        exc = self.exc
        _note(exc, "%s: raised in the call of f on batch %d%s" % (
            NAME, index, " (compiled with tenferro.jit; jit=False calls f eagerly)"
            if jitted else ""))
        if exc.__traceback__ is None:   # it crossed processes: the worker's traceback
            _note(exc, "traceback on the worker:\n" + self.traceback)
        raise exc


def _note(exc, text):
    """PEP 678's ``exc.add_note(text)`` (Python 3.10: only kept in ``__notes__``)."""
    if hasattr(exc, "add_note"):
        exc.add_note(text)
    else:
        exc.__notes__ = getattr(exc, "__notes__", []) + [text]


def _host(t, index):
    """A result tensor's values as a NumPy array, refusing a gradient that would be cut."""
    if t._trace is not None or t.requires_grad:
        raise RuntimeError(
            "%s: f's result on batch %d requires grad (f closes over a tensor that "
            "requires grad?): map is not differentiable and would cut the gradient; "
            "compute the gradient inside f with tenferro.grad, or return t.detach()"
            % (NAME, index))
    return (t if t.device.type == "cpu" else t.to("cpu")).numpy()


def _run_one(shipped, index, tree, leaves):
    """One task: the call on batch ``index``; (tree, leaves with NumPy arrays for
    Tensors, which leaves were Tensors), or a :class:`_Raised`."""
    try:
        args = tree_unflatten(tree, [_ops.asarray(x) if isinstance(x, _ARRAYS) else x
                                     for x in leaves])
        flat, out_tree = tree_flatten(shipped(*args))
        is_tensor = [isinstance(x, Tensor) for x in flat]
        return out_tree, [_host(x, index) if t else x
                          for x, t in zip(flat, is_tensor)], is_tensor
    except Exception as e:
        return _Raised(e)


def _check(t, index, arg):
    """An argument's Tensor leaf must be a concrete CPU tensor outside autodiff."""
    where = "batch %d, argument %d" % (index, arg)
    if t._trace is not None:
        raise TypeError(
            "%s: %s is traced by a transform (tenferro.grad, jit, vmap...): map runs "
            "concrete values on Dask and is not differentiable; call tenferro.grad (or "
            "jit, vmap) inside f instead" % (NAME, where))
    if t.device.type != "cpu":
        raise UnsupportedOperation(
            t.device, NAME, detail="%s is on %s; the workers run CPU tensors: move it "
            "with tenferro.asarray(t, device='cpu')" % (where, t.device))
    if t.requires_grad:
        raise ValueError(
            "%s: %s requires grad, but map is not differentiable: its results would "
            "silently carry no gradient. Call tenferro.grad / value_and_grad inside f "
            "(a sweep of gradients), or pass t.detach()" % (NAME, where))


def _pack(index, item):
    """(tree, leaves) of one batch's arguments: a tuple is the arguments, anything else
    the one argument; Tensor leaves checked and replaced by their NumPy arrays."""
    args = item if type(item) is tuple else (item,)
    for k, a in enumerate(args):
        for x in tree_flatten(a)[0]:
            if isinstance(x, Tensor):
                _check(x, index, k)
    flat, tree = tree_flatten(args)
    return tree, [x.numpy() if isinstance(x, Tensor) else x for x in flat]


def _share(client, objs, shared):
    """References the tasks take to ``objs``: scattered under a ``client`` (to every
    worker when ``shared``); under Dask's default scheduler one graph key each when
    ``shared``, the objects themselves otherwise."""
    if client is not None:
        return client.scatter(objs, broadcast=shared, hash=False) if objs else []
    if not shared:
        return objs
    import dask
    return [dask.delayed(o, pure=False, traverse=False) for o in objs]


def _tasks(shipped, packed, client):
    """One delayed task per batch; the function and each array leaf that several
    batches share travel once (see :func:`_share`)."""
    import dask

    count = collections.Counter(id(x) for _, leaves in packed for x in leaves
                                if isinstance(x, _ARRAYS))
    arrays = {id(x): x for _, leaves in packed for x in leaves if isinstance(x, _ARRAYS)}
    ref = {}
    for shared in (True, False):
        keys = [i for i, n in count.items() if (n > 1) == shared]
        ref.update(zip(keys, _share(client, [arrays[i] for i in keys], shared)))
    [fn] = _share(client, [shipped], True)
    token = uuid.uuid4().hex
    return [dask.delayed(_run_one, pure=False)(
        fn, i, tree, [ref[id(x)] if isinstance(x, _ARRAYS) else x for x in leaves],
        dask_key_name="tenferro-map-%s-%d" % (token, i))
        for i, (tree, leaves) in enumerate(packed)]


def map(f: Callable[..., Any], batches: Iterable[Any], *, client: Any = None,
        jit: bool = True) -> list[Any]:
    """``[f(*b) for b in batches]`` with each call a Dask task (as ``dask.bag.map``).

    The calls run on the workers of ``client``, or, with ``client=None``, on Dask's
    default scheduler as ``dask.compute`` picks it (the threads of this process, or the
    Client made the default).  What ``f`` raises reaches the caller with a note naming
    the batch.

    Parameters
    ----------
    f : callable
        The function; it may call ``tenferro.grad``, ``value_and_grad`` and linalg
        itself.
    batches : iterable
        One item per call: a tuple is the call's arguments, anything else (a Tensor, an
        array, a list, a dict) its one argument; pytrees of Tensors, NumPy arrays and
        Python scalars, as ``tenferro.jit`` takes them.  Tensor and array leaves reach
        ``f`` as CPU Tensors.
    client : distributed.Client, optional
        The cluster; None: Dask's default scheduler.
    jit : bool, default True
        Compile ``f`` with ``tenferro.jit`` on each worker, once per input signature (a
        Python scalar is part of the signature: sweep a value as a 0-d tensor to
        compile once); ``f`` travels once per worker.  False calls ``f`` eagerly, for
        an ``f`` that jit cannot trace; a ``tenferro.jit`` object is compiled on the
        workers with its own options.

    Returns
    -------
    list
        What ``f`` returns for each batch, in the order of ``batches`` (its Tensors on
        the CPU).

    Raises
    ------
    TypeError
        If ``f`` is not callable or ``batches`` is not iterable.
    ValueError
        If an argument is a Tensor that requires grad (or is traced by a transform).

    See Also
    --------
    einsum, tenferro.jit, tenferro.vmap

    Notes
    -----
    Differentiable: no; a Tensor that requires grad is refused.

    Examples
    --------
    >>> import tenferro.dask
    >>> tenferro.dask.map(lambda x: (x ** 2).sum(), [tf.ones(3), tf.arange(3.0)])
    [tensor(3.), tensor(5.)]
    >>> tenferro.dask.map(lambda x, s: x * s, [(tf.ones(2), 2.0), (tf.ones(2), 3.0)])
    [tensor([2., 2.]), tensor([3., 3.])]
    """
    if not callable(f):
        raise TypeError("%s: f must be callable, got %s" % (NAME, type(f).__name__))
    try:
        items = iter(batches)
    except TypeError:
        raise TypeError("%s: batches must be an iterable of call arguments (a tuple of "
                        "arguments, or one argument, per call), got %s"
                        % (NAME, type(batches).__name__)) from None
    packed = [_pack(i, item) for i, item in enumerate(items)]
    if not packed:
        return []
    tasks = _tasks(_Shipped(f, jit), packed, client)
    if client is None:
        import dask
        results = dask.compute(tasks)[0]
    else:
        results = client.gather(client.compute(tasks))
    out = []
    for i, r in enumerate(results):
        if isinstance(r, _Raised):
            r.reraise(i, jit or isinstance(f, _jit))
        tree, leaves, is_tensor = r
        out.append(tree_unflatten(tree, [_ops.asarray(x) if t else x
                                         for x, t in zip(leaves, is_tensor)]))
    return out
