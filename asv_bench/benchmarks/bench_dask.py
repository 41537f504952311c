"""``tenferro.dask.einsum``: a sliced tensor-network contraction on Dask, beside the
local ``tenferro.einsum`` (the overhead of going through Dask).

The network is a random 3-regular graph of 24 tensors with bond dimension 8 (a
closed network: the result is a scalar), contracted along opt_einsum's greedy path;
slicing the bond that cuts its largest intermediates most gives 8 slices, the two
bonds 64 (the slices repeat 1.13x the unsliced 3.1e8 flops; the local contraction
takes about 25 ms on one thread here, so a slice of 64 about 0.4 ms).  Modes:

* ``local``: ``tenferro.einsum`` in this process (the reference);
* ``threaded``: ``tenferro.dask.einsum(..., client=None)``, Dask's local threaded
  scheduler in this process;
* ``1 worker`` / ``2 workers``: a ``distributed.LocalCluster`` of worker processes
  (``threads_per_worker=1``) made in ``setup`` and closed in ``teardown``.

Every mode runs tenferro on one thread per worker (Dask's nanny starts workers with
``OMP_NUM_THREADS=1``; this process is set to 1 too), so ``mode / local`` is Dask's
overhead and ``1 worker / 2 workers`` the speed-up of the second worker.  The gradient
cases take ``tf.grad`` of ``|z|^2`` with respect to all 24 operands of the same network
in the same 64 slices: the forward, then one joint pass computing every cotangent
(each slice's local reverse mode, docs/distributed.md, "Gradients").
Without dask/distributed the Dask modes raise
NotImplementedError in setup (asv: skipped).
The workloads are built by :func:`make` (also used by ``asv_bench/compare_dask.py``
and, for the network, ``asv_bench/dask_scaling.py``).
"""
import functools
import os

import numpy as np

from . import common  # noqa: F401  (puts an in-place tenferro build on sys.path)

MODES = ["local", "threaded", "1 worker", "2 workers"]
GRAD_MODES = MODES
N_TENSORS, BOND, SEED, N_SLICES = 24, 8, 0, 64
GRAD_BOND, GRAD_SLICES = BOND, N_SLICES
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def regular_graph(n, degree=3, seed=0):
    """The edges of a random simple ``degree``-regular graph on ``n`` vertices (the
    configuration model: stubs paired at random, redrawn until no loop or double edge)."""
    rng = np.random.default_rng(seed)
    while True:
        stubs = rng.permutation(np.repeat(np.arange(n), degree)).reshape(-1, 2)
        edges = {tuple(sorted(map(int, e))) for e in stubs}
        if len(edges) == len(stubs) and all(i != j for i, j in edges):
            return sorted(edges)


def network_labels(n, degree=3, seed=0):
    """The label lists of a closed network on a random regular graph: one tensor per
    vertex, one label (an int) per edge, shared by its two tensors."""
    legs = [[] for _ in range(n)]
    for label, (i, j) in enumerate(regular_graph(n, degree, seed)):
        legs[i].append(label)
        legs[j].append(label)
    return legs


@functools.lru_cache(maxsize=None)
def network(n=N_TENSORS, bond=BOND, seed=SEED):
    """(subscripts, operands as NumPy arrays) of the benchmark's network, scaled so that
    the result is of order one."""
    legs = network_labels(n, 3, seed)
    rng = np.random.default_rng(seed)
    ops = [rng.standard_normal((bond,) * len(t)) / bond ** 0.75 for t in legs]
    spec = ",".join("".join(LETTERS[l] for l in t) for t in legs) + "->"
    return spec, tuple(ops)


def slices_for(net, path, n_slices):
    """Labels to slice, chosen greedily as ``tenferro.dask``'s ``target_size`` does (the
    smallest largest intermediate of a slice, ties broken by total flops), until there
    are at least ``n_slices`` slices."""
    sliced = []
    while net.n_slices(sliced) < n_slices:
        options = [l for l, d in net.size.items() if d > 1 and l not in sliced]
        if not options:
            break

        def key(l, s=sliced):
            largest, flops = net.cost(path, s + [l])
            return largest, flops * net.n_slices(s + [l])
        sliced.append(min(options, key=key))
    return tuple(sliced)


@functools.lru_cache(maxsize=None)
def sliced_letters(n_slices=N_SLICES, bond=BOND):
    """The letters to slice for ``n_slices`` slices of :func:`network`."""
    from tenferro.dask import _plan

    spec, ops = network(bond=bond)
    parsed, path, _ = _plan.plan(spec, [o.shape for o in ops], None, "greedy", None)
    return "".join(chr(l) for l in slices_for(parsed.net, path, n_slices))


def slice_count(n_slices=N_SLICES, bond=BOND):
    """The number of slices :func:`sliced_letters` gives (at least ``n_slices``)."""
    return bond ** len(sliced_letters(n_slices, bond))


def _repo_root():
    import tenferro

    return os.path.dirname(os.path.dirname(os.path.abspath(tenferro.__file__)))


def start_cluster(n_workers):
    """A ``(cluster, client)`` pair: ``n_workers`` worker processes with one thread each
    (NotImplementedError without dask.distributed).  The workers import the tenferro
    this process runs (its folder is put on their PYTHONPATH)."""
    try:
        import tenferro.dask  # noqa: F401
        from distributed import Client, LocalCluster
    except ImportError as e:
        raise NotImplementedError("dask.distributed is not installed: %s" % e)
    root = _repo_root()
    path = os.environ.get("PYTHONPATH", "")
    if root not in path.split(os.pathsep):
        os.environ["PYTHONPATH"] = root + (os.pathsep + path if path else "")
    cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=50)
    return cluster, Client(cluster)


def make(mode, grad=False, n_slices=None, client=None):
    """``(run, close)``: a zero-argument callable running the case in ``mode`` and the
    callable that releases what it holds (a cluster it started: none when ``client`` is
    given for a workers mode).  ``grad``: the gradient case (its smaller bond, all
    operands)."""
    import tenferro as tf

    tf.set_num_threads(1)
    bond = GRAD_BOND if grad else BOND
    n_slices = n_slices or (GRAD_SLICES if grad else N_SLICES)
    spec, arrays = network(bond=bond)
    ops = [tf.asarray(a) for a in arrays]
    cluster = None
    if mode == "local":
        contract = functools.partial(tf.einsum, optimize=local_path(bond))
    else:
        try:
            import tenferro.dask as td
        except ImportError as e:
            raise NotImplementedError("dask is not installed: %s" % e)
        if mode == "threaded":
            client = None
        elif client is None:
            cluster, client = start_cluster(int(mode.split()[0]))
        contract = functools.partial(td.einsum, client=client,
                                     slices=sliced_letters(n_slices, bond))
    if grad:
        g = tf.grad(lambda *a: tf.abs(contract(spec, *a)) ** 2,
                    argnums=tuple(range(len(ops))))
        run = lambda: g(*ops)  # noqa: E731
    else:
        run = lambda: contract(spec, *ops)  # noqa: E731

    def close():
        if cluster is not None:
            client.close()
            cluster.close()
    return run, close


@functools.lru_cache(maxsize=None)
def local_path(bond=BOND):
    """opt_einsum's greedy path of :func:`network` (the one tenferro.dask.einsum plans),
    as a list."""
    import opt_einsum

    spec, arrays = network(bond=bond)
    return list(opt_einsum.contract_path(spec, *arrays, optimize="greedy")[0])


class _Dask:
    timeout = 600
    number = 1
    repeat = (1, 5, 30.0)
    grad = False

    def setup(self, mode):
        self.run, self.close = make(mode, self.grad)
        self.run()  # warm-up: the workers import tenferro, plans are cached

    def teardown(self, mode):
        self.close()


class DaskEinsum(_Dask):
    """The 24-tensor network in 64 slices (``mode``: local, threaded, workers)."""
    params = [MODES]
    param_names = ["mode"]

    def time_contract(self, mode):
        self.run()


class DaskEinsumGrad(_Dask):
    """``tf.grad`` of ``|z|^2`` with respect to all 24 operands (bond 8, 64 slices)."""
    params = [GRAD_MODES]
    param_names = ["mode"]
    grad = True

    def time_grad(self, mode):
        self.run()
