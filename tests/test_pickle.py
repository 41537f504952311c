"""Pickling and copies of tensors (issue 15): pickle, copy.copy, copy.deepcopy and
multiprocessing (spawn and fork) round-trip CPU tensors exactly (dtype, shape, values,
requires_grad of leaves; devices by name, to the registered Device object); tensors on
other devices, tracers and copies of non-leaves raise clear errors."""
import copy
import multiprocessing
import pickle

import numpy as np
import pytest

import tenferro as tf

from conftest import DTYPES, sample, stable_rng


def _same(t, a):
    """t holds exactly a's dtype, shape and values (NaN where a has NaN)."""
    r = np.asarray(t)
    assert r.dtype == a.dtype and r.shape == a.shape
    np.testing.assert_array_equal(r, a)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("protocol", [2, pickle.HIGHEST_PROTOCOL])
def test_pickle_roundtrip_values_and_device(dtype, protocol):
    a = sample(stable_rng("pickle", str(dtype)), (3, 4), dtype)
    t = tf.asarray(a)
    r = pickle.loads(pickle.dumps(t, protocol=protocol))
    _same(r, a)
    assert r.device is t.device
    _same(r + t, a + a)    # once 'DeviceMismatchError: got cpu, cpu'


def test_pickle_after_an_op():
    """Once 'Can't pickle local object': the device's fast-path cache was pickled."""
    t = tf.asarray(np.array([1.0, 2.0]))
    _same(t + 1, np.array([2.0, 3.0]))
    _same(pickle.loads(pickle.dumps(t)), np.array([1.0, 2.0]))
    d = pickle.loads(pickle.dumps(t.device))
    assert d is t.device and d is tf.device("cpu")


def test_pickle_special_values_and_shapes():
    for a in (np.array([np.nan, -0.0, np.inf, -np.inf]), np.zeros((0, 3)), np.array(2.5),
              np.array([1 + 2j, complex(np.nan, -0.0)])):
        r = pickle.loads(pickle.dumps(tf.asarray(a)))
        _same(r, a)
        assert np.array_equal(np.signbit(np.asarray(r).real), np.signbit(a.real))


def test_pickle_layouts():
    """A Fortran-contiguous view (a transposed matrix) comes back with the same strides;
    other views (steps, broadcasts) come back C-contiguous with the same values."""
    a = np.arange(12.0).reshape(3, 4)
    t = tf.asarray(a)
    r = pickle.loads(pickle.dumps(t.T))
    _same(r, a.T)
    assert r.strides == t.T.strides
    for v, e in ((t[:, ::2], a[:, ::2]), (tf.broadcast_to(t[0], (2, 4)), np.broadcast_to(a[0], (2, 4)))):
        r = pickle.loads(pickle.dumps(v))
        _same(r, e)
        assert np.asarray(r).flags.c_contiguous
    r = pickle.loads(pickle.dumps(t[1:]))
    r[0, 0] = -1.0      # an independent, writable copy
    _same(t, a)


def test_pickle_requires_grad():
    w = tf.tensor(np.array([1.0, 2.0]), requires_grad=True)
    (w * w).sum().backward()
    r = pickle.loads(pickle.dumps(w))
    assert r.requires_grad and r.is_leaf and r.grad is None   # .grad is not pickled (torch.save)
    (r * 3.0).sum().backward()
    _same(r.grad, np.array([3.0, 3.0]))
    # a non-leaf pickles as a leaf that requires grad (torch.save's behaviour)
    n = pickle.loads(pickle.dumps(w * 2.0))
    assert n.requires_grad and n.is_leaf
    _same(n.detach(), np.array([2.0, 4.0]))


def test_copy_and_deepcopy():
    a = np.arange(6.0).reshape(2, 3)
    t = tf.asarray(a)
    for c in (copy.copy(t), copy.deepcopy(t)):
        _same(c, a)
        assert c is not t and c.device is t.device
        c[0, 0] = 99.0
        _same(t, a)
    ct = copy.deepcopy(t.T)
    assert ct.strides == t.T.strides
    pair = copy.deepcopy([t, t])
    assert pair[0] is pair[1]


def test_deepcopy_leaf_keeps_requires_grad_and_grad():
    w = tf.tensor(np.array([1.0, -1.0]), requires_grad=True)
    (w * w).sum().backward()
    c = copy.deepcopy(w)
    assert c.requires_grad and c.is_leaf
    _same(c.grad, np.array([2.0, -2.0]))
    assert c.grad is not w.grad
    c.grad[0] = 0.0
    _same(w.grad, np.array([2.0, -2.0]))


@pytest.mark.parametrize("fn", [copy.copy, copy.deepcopy], ids=["copy", "deepcopy"])
def test_copy_of_non_leaf_raises(fn):
    w = tf.tensor(np.array([1.0]), requires_grad=True)
    with pytest.raises(RuntimeError, match="graph leaves.*MultiplyBackward.*detach"):
        fn(w * 2.0)


def test_pickle_inside_transforms_raises():
    x = tf.asarray(np.array([1.0, 2.0]))
    for transform in (tf.grad, tf.jit):
        with pytest.raises(tf.ConcretizationError, match="pickle of a traced tensor"):
            transform(lambda u: (pickle.dumps(u), (u * u).sum())[1])(x)
    with pytest.raises(tf.ConcretizationError, match="copy.deepcopy of a traced tensor"):
        tf.grad(lambda u: copy.deepcopy(u).sum())(x)


def test_pickle_webgpu_tensor_raises():
    try:
        t = tf.asarray(np.array([1.0, 2.0], dtype=np.float32), device="webgpu")
    except (RuntimeError, ValueError) as e:
        pytest.skip("no WebGPU device: %s" % e)
    with pytest.raises(TypeError, match=r"pickle: the tensor is on 'webgpu:0'.*\.to\('cpu'\)"):
        pickle.dumps(t)
    with pytest.raises(TypeError, match=r"copy.deepcopy: the tensor is on 'webgpu:0'"):
        copy.deepcopy(t)
    d = pickle.loads(pickle.dumps(t.device))
    assert d is t.device
    _same(pickle.loads(pickle.dumps(t.to("cpu"))), np.array([1.0, 2.0], dtype=np.float32))


def _work(t):
    return (t * 2.0 + 1.0).sum(), t.device is tf.device("cpu")


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_multiprocessing_pool_map(method):
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip("start method %s not available here" % method)
    arrays = [np.arange(4.0) + k for k in range(3)]
    with multiprocessing.get_context(method).Pool(2) as pool:
        out = pool.map(_work, [tf.asarray(a) for a in arrays])
    for (s, same_device), a in zip(out, arrays):
        _same(s, (a * 2.0 + 1.0).sum())
        assert same_device


def test_pickle_inside_jvp_raises():
    x = tf.asarray(np.array([1.0, 2.0]))
    with pytest.raises(tf.ConcretizationError, match="pickle of a traced tensor"):
        tf.jvp(lambda u: (pickle.dumps(u), u * 2.0)[1], (x,), (x,))


def test_pickle_state_dict_file_and_out_of_band(tmp_path):
    """torch.save-style use: a dict of tensors to a file; protocol 5 buffers too."""
    w = tf.tensor(np.array([[1.0, 2.0], [3.0, 4.0]]), requires_grad=True)
    b = tf.asarray(np.array([1, 2, 3], dtype=np.int32))
    path = tmp_path / "state.pkl"
    with open(path, "wb") as fh:
        pickle.dump({"w": w, "b": b, "step": 3}, fh)
    with open(path, "rb") as fh:
        state = pickle.load(fh)
    _same(state["w"].detach(), np.array([[1.0, 2.0], [3.0, 4.0]]))
    assert state["w"].requires_grad and state["step"] == 3
    _same(state["b"], np.array([1, 2, 3], dtype=np.int32))
    buffers = []
    data = pickle.dumps(b, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 1
    _same(pickle.loads(data, buffers=buffers), np.array([1, 2, 3], dtype=np.int32))


def test_pickle_tensor_spec_and_dtype():
    spec = tf.TensorSpec((2, 3), "float32")
    r = pickle.loads(pickle.dumps(spec))
    assert r == spec and r.device is tf.device("cpu")
    assert pickle.loads(pickle.dumps(tf.float32)) == np.dtype("float32")
