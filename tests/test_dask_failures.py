"""tenferro.dask.einsum when workers die: on a LocalCluster of two worker processes with
nannies, a worker SIGKILLed in the middle of a sliced contraction (or of its gradient)
costs Dask a retry and the result is still exactly the local one -- with operands of
small positive integers every slice adds at least 1 to every output element and
float64 sums them exactly, so a slice dropped or added twice would show; when Dask gives
up (more deaths than ``allowed-failures``, every worker killed) the caller gets Dask's
exception naming tenferro.dask.einsum, not a hang."""
import contextlib
import os
import signal
import time
from concurrent.futures import CancelledError, ThreadPoolExecutor

import numpy as np
import pytest

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
from distributed.core import Status  # noqa: E402

import tenferro as tf  # noqa: E402
import tenferro.dask as td  # noqa: E402

from test_dask_einsum import ROOT, network  # noqa: E402

WAIT = 120  # seconds: a test fails rather than hangs past this


@contextlib.contextmanager
def local_cluster(**client_options):
    """A client of a fresh LocalCluster: two worker processes, one thread each, with
    nannies (a killed worker is restarted)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYTHONPATH", ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                           processes=True, dashboard_address=":0")
        try:
            with distributed.Client(cluster, **client_options) as client:
                yield client
        finally:
            try:
                cluster.close()
            except KeyError:
                # distributed's cluster object can miss a restarted worker that came and
                # went between two of its updates; its watcher then fails with the
                # worker's address, which closing re-raises: nothing of tenferro's
                pass


@pytest.fixture
def client():
    with local_cluster() as client:
        yield client


def integers(bond, seed=0):
    """The 8-tensor network with float64 operands of 1s and 2s."""
    spec, ops = network(bond=bond)
    rng = np.random.default_rng(seed)
    return spec, [tf.asarray(rng.integers(1, 3, t.shape).astype("float64")) for t in ops]


RUNS = ("contract_run", "vjp_run")   # the task prefixes of runs of slices (forward, VJP)


def _progress(dask_scheduler):
    """(how many runs of slices went to memory so far, the addresses of the workers
    running one now)."""
    prefixes = [dask_scheduler.task_prefixes.get(name) for name in RUNS]
    busy = [ws.address for ws in dask_scheduler.workers.values()
            if any(ts.prefix.name in RUNS for ts in ws.processing)]
    return sum(p.state_counts.get("memory", 0) for p in prefixes if p is not None), busy


def kill_mid_run(client, call, after, workers=1):
    """``call()`` in a thread; once ``after`` runs of slices are done, SIGKILL
    ``workers`` worker processes, one of them running a run of slices then (so that
    Dask must run it again; the nannies start new workers).  Returns the thread's
    future, its call finished."""
    pids = client.run(os.getpid)
    pool = ThreadPoolExecutor(1)
    fut = pool.submit(call)
    pool.shutdown(wait=False)
    deadline = time.monotonic() + WAIT
    while True:
        done, busy = client.run_on_scheduler(_progress)
        if done >= after and busy:
            break
        assert not fut.done(), fut.exception()
        assert time.monotonic() < deadline, "the contraction did not start"
        time.sleep(0.005)
    assert not fut.done(), "the contraction ended before a worker could be killed"
    victims = busy + [a for a in pids if a not in busy]
    for address in victims[:workers]:
        os.kill(pids[address], signal.SIGKILL)
    fut.exception(timeout=WAIT)
    return fut


def test_worker_killed_mid_contraction_gives_the_exact_result(client):
    spec, ops = integers(bond=11)
    want = tf.einsum(spec, *ops)
    # exact: 11**12 terms of at most 2**8 each stay below 2**53
    assert 11 ** 12 * 2 ** 8 < 2 ** 53
    fut = kill_mid_run(
        client, lambda: td.einsum(spec, *ops, client=client, slices="abc", tasks=16),
        after=3)
    np.testing.assert_array_equal(fut.result().numpy(), want.numpy())


def test_worker_killed_mid_gradient(client):
    spec, ops = integers(bond=6, seed=1)
    w = tf.asarray(np.array([[1.0, -2.0], [3.0, 1.0]]))
    argnums = tuple(range(8))

    def loss(contract):
        return lambda *o: tf.sum(contract(spec, *o) * w)

    dist = loss(lambda s, *o: td.einsum(s, *o, client=client, slices="abc", tasks=4))
    want = tf.grad(loss(tf.einsum), argnums=argnums)(*ops)
    # the forward is one contraction of 4 tasks, then the joint VJP of every operand
    # one of 4 (bond 6: a few seconds in all): kill once 2 of the VJP's are done
    fut = kill_mid_run(client, lambda: tf.grad(dist, argnums=argnums)(*ops), after=4 + 2)
    for g, v in zip(fut.result(), want):
        np.testing.assert_array_equal(g.numpy(), v.numpy())


def test_every_worker_killed_mid_contraction_recovers(client):
    """Every copy of the operands is lost with the workers: the call sends them again
    once the nannies restarted the workers, and starts over."""
    spec, ops = network("complex128", bond=9, seed=3)
    want = tf.einsum(spec, *ops)
    fut = kill_mid_run(
        client, lambda: td.einsum(spec, *ops, client=client, slices="abc", tasks=16),
        after=2, workers=2)
    got = fut.result()
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=0)


def test_allowed_failures_exceeded_raises_killed_worker():
    """With ``allowed-failures`` 0 Dask gives up on a task the first time a worker dies
    running it: its KilledWorker reaches the caller, named."""
    spec, ops = integers(bond=9)
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            local_cluster() as client:
        fut = kill_mid_run(
            client, lambda: td.einsum(spec, *ops, client=client, slices="abc", tasks=16),
            after=2)
        with pytest.raises(distributed.KilledWorker, match="^tenferro.dask.einsum: Dask "
                                                          "gave up on the contraction: "
                                                          "Attempted to run task"):
            fut.result()


def test_every_worker_killed_for_good_raises_not_hangs():
    """Every worker killed and none restarted: the operands are lost, and sending them
    again finds no worker for the client's timeout: Dask's TimeoutError, named."""
    spec, ops = integers(bond=9)
    with local_cluster(timeout=5) as client:
        for nanny in client.cluster.workers.values():
            nanny.status = Status.closing_gracefully  # close when the worker dies
        fut = kill_mid_run(
            client, lambda: td.einsum(spec, *ops, client=client, slices="abc", tasks=16),
            after=2, workers=2)
        with pytest.raises(TimeoutError, match="^tenferro.dask.einsum: Dask gave up on "
                                               "the contraction: No valid workers"):
            fut.result()
