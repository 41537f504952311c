"""tenferro tensors as Dask array chunks (tenferro/dask/_chunks.py, docs/distributed.md):
chunked ops against the same ops on NumPy chunks, results and metas are Tensors, the
synchronous and threaded schedulers, distributed's serialization, and one run on a
LocalCluster of 2 worker processes."""
import pickle
import subprocess
import sys

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
import tenferro as tf  # noqa: E402
import tenferro.dask  # noqa: E402,F401

DTYPES = ["float32", "float64", "complex128", "int64"]

# name -> f(x): built the same way on tenferro and on NumPy chunks
OPS = {
    "add_broadcast": lambda x: x + x[:1, :] * 2 - 1,
    "outer_broadcast": lambda x: x[:, :1] * x[:1, :],
    "ufunc": lambda x: da.abs(x) + da.exp(x / 8),
    "sum_axis": lambda x: x.sum(axis=0),
    "sum_neg_axis": lambda x: x.sum(axis=-1, keepdims=True),
    "mean": lambda x: x.mean(),
    "max_axis": lambda x: abs(x).max(axis=1),
    "min": lambda x: abs(x).min(),
    "prod": lambda x: x[:, :3].prod(axis=0),
    "var": lambda x: x.var(axis=0),
    "argmax": lambda x: abs(x).argmax(axis=1),
    "nansum": lambda x: da.nansum(x, axis=1),
    "cumsum": lambda x: x.cumsum(axis=1),
    "matmul": lambda x: x @ x.T,
    "einsum": lambda x: da.einsum("ij,kj->ik", x, x),
    "einsum_trace_free": lambda x: da.einsum("ij,ij->j", x, x),
    "einsum_dtype": lambda x: da.einsum("ij,ij->i", x, x, dtype="complex128"),
    "tensordot": lambda x: da.tensordot(x, x, axes=([1], [1])),
    "map_blocks": lambda x: x.map_blocks(lambda b: b * 2 + 1),
    "blockwise": lambda x: da.blockwise(lambda a, b: a * b, "ij", x, "ij", x.T.T, "ij"),
    "concatenate": lambda x: da.concatenate([x, x[:2]], axis=0),
    "stack": lambda x: da.stack([x, x], axis=1),
    "rechunk": lambda x: x.rechunk((3, 5)) + 0,
    "getitem": lambda x: x[1:, ::2],
    "transpose": lambda x: x.T,
    "where": lambda x: da.where(abs(x) > 3, x, 0),
}


def _data(dtype):
    a = (np.arange(30).reshape(5, 6) - 11).astype(dtype)
    if dtype == "complex128":
        a = a + 1j * a[::-1]
    return a


def _check(f, dtype, scheduler="sync"):
    a = _data(dtype)
    x = da.from_array(tf.asarray(a), chunks=(2, 4))
    assert isinstance(x._meta, tf.Tensor) and x._meta.size == 0
    e = f(x)
    got = e.compute(scheduler=scheduler)
    want = f(da.from_array(a, chunks=(2, 4))).compute(scheduler="sync")
    assert isinstance(e._meta, tf.Tensor), type(e._meta)
    assert isinstance(got, tf.Tensor), type(got)
    assert got.shape == want.shape
    rtol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(OPS))
def test_chunked_op_matches_numpy(name, dtype):
    _check(OPS[name], dtype)


@pytest.mark.parametrize("name", ["add_broadcast", "sum_axis", "matmul", "einsum", "rechunk"])
def test_threaded_scheduler(name):
    _check(OPS[name], "float64", scheduler="threads")


def test_percentile_and_meta_dispatch():
    from dask.array.dispatch import concatenate_lookup, einsum_lookup
    assert concatenate_lookup.dispatch(tf.Tensor) is tf.concatenate
    assert einsum_lookup.dispatch(tf.Tensor) is tf.einsum
    a = np.arange(40.0)
    got = da.percentile(da.from_array(tf.asarray(a), chunks=10), [10, 50, 90]).compute()
    want = da.percentile(da.from_array(a, chunks=10), [10, 50, 90]).compute()
    np.testing.assert_allclose(np.asarray(got), want)


def test_sizeof_counts_bytes():
    from dask.sizeof import sizeof
    assert sizeof(tf.zeros((100, 10))) >= 8000


def test_import_tenferro_imports_no_dask_and_registers_lazily():
    code = ("import sys, tenferro\nassert 'dask' not in sys.modules, 'dask imported'\n"
            "import dask.array as da, tenferro._dask_hook as h\nh.install()\n"
            "assert 'tenferro.dask' not in sys.modules\n"
            "from dask.array.dispatch import concatenate_lookup\n"
            "assert concatenate_lookup.dispatch(tenferro.Tensor) is tenferro.concatenate\n"
            "assert 'tenferro.dask._chunks' in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_distributed_serialization_round_trip():
    pytest.importorskip("distributed")
    from distributed.protocol import deserialize, serialize
    t = tf.asarray(np.arange(12.0).reshape(3, 4)).T   # a Fortran-ordered view
    header, frames = serialize(t)
    assert header["serializer"] == "dask"
    assert sum(memoryview(f).nbytes for f in frames) == t.nbytes   # the buffer, no pickle
    u = deserialize(header, frames)
    assert isinstance(u, tf.Tensor) and u.dtype == t.dtype
    np.testing.assert_array_equal(np.asarray(u), np.asarray(t))
    # requires_grad travels; the graph does not
    g = tf.ones(3, requires_grad=True)
    assert deserialize(*serialize(g)).requires_grad
    # plain pickle protocol 5 keeps the buffer out of band too
    buffers = []
    pickle.dumps(t, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 1


@pytest.mark.parametrize("name", ["add_broadcast", "sum_axis", "mean", "matmul", "einsum",
                                  "tensordot", "map_blocks", "concatenate", "rechunk"])
def test_device_chunks_stay_on_the_device(name, accel_device):
    """WebGPU and CUDA chunks (the CUDA driver's host simulator where there is no GPU):
    every chunk, the result and the metas stay on the device."""
    a = _data("float32")
    x = da.from_array(tf.asarray(a, device=accel_device), chunks=(2, 4))
    e = OPS[name](x)
    got = e.compute(scheduler="sync")
    assert isinstance(got, tf.Tensor)
    assert got.device == x._meta.device == e._meta.device == accel_device
    want = OPS[name](da.from_array(a, chunks=(2, 4))).compute(scheduler="sync")
    np.testing.assert_allclose(np.asarray(got.to("cpu")), want, rtol=1e-5)


def test_device_tensor_is_not_serialized_silently(accel_device):
    pytest.importorskip("distributed")
    from distributed.protocol import serialize
    t = tf.ones(4, device=accel_device)
    with pytest.raises(TypeError) as info:
        serialize(t, on_error="raise")
    causes = [info.value, info.value.__cause__, info.value.__context__]
    assert any("to('cpu')" in str(c) for c in causes if c is not None), causes


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0", silence_logs=40)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_local_cluster_two_worker_processes(client):
    a = _data("float64")
    x = da.from_array(tf.asarray(a), chunks=(2, 3))
    xn = da.from_array(a, chunks=(2, 3))
    exprs = [lambda x: (x @ x.T).sum(axis=0), lambda x: da.einsum("ij,kj->ik", x, x),
             lambda x: x.map_blocks(lambda b: b * 2).mean(axis=1)]
    for f in exprs:
        got = client.compute(f(x)).result()
        assert isinstance(got, tf.Tensor), type(got)
        np.testing.assert_allclose(np.asarray(got), f(xn).compute(scheduler="sync"))
    # a Tensor sent to a worker and back through distributed's serialization
    fut = client.scatter(tf.asarray(a), workers=list(client.scheduler_info()["workers"])[:1])
    back = client.submit(lambda t: t * 2, fut).result()
    assert isinstance(back, tf.Tensor)
    np.testing.assert_array_equal(np.asarray(back), a * 2)
    # the workers found tenferro's registrations without `import tenferro.dask`
    assert all(client.run(lambda: "tenferro.dask._chunks" in sys.modules).values())


def test_device_chunks_made_and_used_on_the_workers(client, accel_device):
    """On a cluster, chunks moved to the device on the worker stay there through the
    ops (each task checks its blocks' device) and come back by an explicit .to('cpu')."""
    kind = accel_device.type

    def on_device(b):
        return b.to(kind)

    def square_on_device(b):
        assert b.device.type == kind, b.device
        return b * b + 1

    def back(b):
        assert b.device.type == kind, b.device
        return b.to("cpu")
    a = _data("float32")
    x = da.from_array(tf.asarray(a), chunks=(2, 3))
    meta = tf.asarray(np.empty((0, 0), "float32"))
    y = x.map_blocks(on_device, meta=meta).map_blocks(square_on_device, meta=meta)
    got = client.compute(y.map_blocks(back, meta=meta).sum(axis=0)).result()
    assert isinstance(got, tf.Tensor) and got.device.type == "cpu"
    np.testing.assert_allclose(np.asarray(got), (a * a + 1).sum(axis=0), rtol=1e-6)


def test_ufunc_dtype_keyword_stays_in_tenferro():
    # dask's sums call np.add(a, b, dtype=...): tenferro casts the inputs (NumPy's loop
    # dtype) rather than falling back to NumPy on the host
    i = tf.asarray(np.arange(4))
    r = np.add(i, 1, dtype=np.float64)
    assert isinstance(r, tf.Tensor) and r.dtype == np.float64
    np.testing.assert_array_equal(np.asarray(r), np.add(np.arange(4), 1, dtype=np.float64))
    x = tf.tensor(np.arange(3.0), requires_grad=True)
    assert np.multiply(x, x, dtype=np.float32).requires_grad
