"""tenferro.save / tenferro.load (tenferro/_io.py) against NumPy's np.save / np.savez /
np.load in both directions: every dtype, shapes and layouts, .npz archives (compressed
too), paths, path-likes and file objects, memory maps, and the errors (foreign dtypes,
object arrays, unknown formats); nothing is ever pickled."""
import io
import pathlib
import pickle
import zipfile

import numpy as np
import pytest

import tenferro as tf
from conftest import DTYPES, random_array

SHAPES = [(), (0,), (3,), (2, 3), (2, 0, 4), (2, 3, 4)]


def _same(t, a):
    assert isinstance(t, tf.Tensor) and t.device == tf.device("cpu")
    assert t.dtype == a.dtype and t.shape == a.shape
    np.testing.assert_array_equal(t.numpy(), a)


def _np_load(path):
    return np.load(path, allow_pickle=False)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_npy_roundtrip_both_directions(tmp_path, dtype, shape):
    a = random_array(shape, dtype)
    tf.save(tmp_path / "t.npy", tf.asarray(a))
    b = _np_load(tmp_path / "t.npy")               # NumPy reads tenferro's file
    assert b.dtype == a.dtype and b.shape == a.shape
    np.testing.assert_array_equal(b, a)
    np.save(tmp_path / "n.npy", a)                 # tenferro reads NumPy's
    _same(tf.load(tmp_path / "n.npy"), a)


@pytest.mark.parametrize("layout", ["transposed", "strided", "reversed", "fortran"])
def test_npy_layouts(tmp_path, layout):
    a = random_array((4, 6), np.float64)
    t = {"transposed": lambda x: x.T, "strided": lambda x: x[::2, 1::3],
         "reversed": lambda x: x[::-1], "fortran": lambda x: x.T.copy().T}[layout](tf.asarray(a))
    tf.save(tmp_path / "t.npy", t)
    _same(tf.load(tmp_path / "t.npy"), t.numpy())
    np.testing.assert_array_equal(_np_load(tmp_path / "t.npy"), t.numpy())
    f = np.asfortranarray(a)                       # NumPy's Fortran-order file
    np.save(tmp_path / "f.npy", f)
    _same(tf.load(tmp_path / "f.npy"), f)


def test_special_values(tmp_path):
    a = np.array([np.nan, np.inf, -np.inf, -0.0, 5e-324, 1.7976931348623157e308])
    tf.save(tmp_path / "s.npy", tf.asarray(a))
    b = _np_load(tmp_path / "s.npy")
    np.testing.assert_array_equal(b, a)
    assert np.signbit(b[3])


def test_npz_roundtrip_both_directions(tmp_path):
    arrays = {d.name: random_array((2, 3), d, seed=i) for i, d in enumerate(DTYPES)}
    arrays["scalar"] = np.array(2.5)
    tf.save(tmp_path / "a.npz", {k: tf.asarray(v) for k, v in arrays.items()})
    with np.load(tmp_path / "a.npz", allow_pickle=False) as z:
        assert sorted(z.files) == sorted(arrays)
        for k, v in arrays.items():
            assert z[k].dtype == v.dtype
            np.testing.assert_array_equal(z[k], v)
    for saver in (np.savez, np.savez_compressed):
        saver(tmp_path / "n.npz", **arrays)
        with tf.load(tmp_path / "n.npz") as d:
            assert isinstance(d, tf._io.NpzTensors)
            assert sorted(d) == sorted(arrays) and len(d) == len(arrays)
            for k, v in arrays.items():
                _same(d[k], v)
            assert "missing" not in d
            with pytest.raises(KeyError):
                d["missing"]


def test_npz_positional_names_and_names_numpy_cannot_take(tmp_path):
    np.savez(tmp_path / "p.npz", np.arange(3), np.ones(2))      # arr_0, arr_1
    with tf.load(tmp_path / "p.npz") as d:
        assert list(d) == ["arr_0", "arr_1"]
    # np.savez(file, **arrays) cannot take these names; tenferro writes its own zip
    tf.save(tmp_path / "k.npz", {"file": tf.zeros(2), "allow_pickle": tf.ones(1)})
    with np.load(tmp_path / "k.npz") as z:
        assert sorted(z.files) == ["allow_pickle", "file"]
    tf.save(tmp_path / "e.npz", {})
    with tf.load(tmp_path / "e.npz") as d:
        assert dict(d) == {}


def test_npz_compressed(tmp_path):
    t = tf.zeros((100, 100))
    tf.save(tmp_path / "c.npz", {"z": t}, compressed=True)
    tf.save(tmp_path / "u.npz", {"z": t})
    with zipfile.ZipFile(tmp_path / "c.npz") as z:
        assert z.getinfo("z.npy").compress_type == zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(tmp_path / "u.npz") as z:
        assert z.getinfo("z.npy").compress_type == zipfile.ZIP_STORED
    assert (tmp_path / "c.npz").stat().st_size < (tmp_path / "u.npz").stat().st_size / 10
    with tf.load(tmp_path / "c.npz") as d:
        _same(d["z"], np.zeros((100, 100)))


def test_npz_closes(tmp_path):
    tf.save(tmp_path / "a.npz", {"x": tf.ones(3)})
    d = tf.load(tmp_path / "a.npz")
    x = d["x"]
    d.close()
    with pytest.raises((ValueError, AttributeError)):   # NumPy's NpzFile, closed
        d["x"]
    _same(x, np.ones(3))                                  # what was read stays valid
    with tf.load(tmp_path / "a.npz") as d:
        assert "NpzTensors" in repr(d) and "'x'" in repr(d)
    assert d._npz.fid is None


def test_paths_suffixes_and_file_objects(tmp_path):
    t = tf.arange(5)
    tf.save(str(tmp_path / "plain"), t)               # .npy appended, as np.save does
    _same(tf.load(tmp_path / "plain.npy"), np.arange(5))
    tf.save(tmp_path / "arch", {"t": t})              # .npz appended, as np.savez does
    assert (tmp_path / "arch.npz").exists()
    buf = io.BytesIO()
    tf.save(buf, t)
    buf.seek(0)
    np.testing.assert_array_equal(np.load(buf), np.arange(5))
    buf.seek(0)
    _same(tf.load(buf), np.arange(5))
    buf = io.BytesIO()
    tf.save(buf, {"t": t}, compressed=True)
    buf.seek(0)
    with tf.load(buf) as d:
        _same(d["t"], np.arange(5))
    with open(tmp_path / "fo.npy", "wb") as f:        # an open file, written then read
        tf.save(f, t)
    with open(tmp_path / "fo.npy", "rb") as f:
        f.read(0)
        _same(tf.load(f), np.arange(5))
    # the format comes from the bytes, not the name
    np.save(tmp_path / "x.npy", np.arange(2))
    (tmp_path / "x.npy").rename(tmp_path / "x.bin")
    _same(tf.load(pathlib.Path(tmp_path / "x.bin")), np.arange(2))


def test_save_takes_array_likes_and_values_of_autodiff_tensors(tmp_path):
    tf.save(tmp_path / "l.npy", [[1, 2], [3, 4]])
    _same(tf.load(tmp_path / "l.npy"), np.array([[1, 2], [3, 4]]))
    w = tf.ones(3, requires_grad=True)
    y = w * 2
    tf.save(tmp_path / "w.npz", {"w": w, "y": y})
    with tf.load(tmp_path / "w.npz") as d:
        _same(d["y"], np.full(3, 2.0))
        assert not d["w"].requires_grad


def test_save_inside_a_transform_raises(tmp_path):
    def f(x):
        tf.save(tmp_path / "x.npy", x)
        return x.sum()
    with pytest.raises(tf.ConcretizationError):
        tf.grad(f)(tf.ones(2))
    with pytest.raises(tf.ConcretizationError):
        tf.make_graph(f, tf.TensorSpec((2,), tf.float64))


def test_device_tensor_is_saved_from_host_data(tmp_path, accel_device):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = tf.asarray(a).to(accel_device)
    tf.save(tmp_path / "d.npy", t)
    tf.save(tmp_path / "d.npz", {"t": t})
    np.testing.assert_array_equal(_np_load(tmp_path / "d.npy"), a)
    with tf.load(tmp_path / "d.npz") as d:
        _same(d["t"], a)                  # loaded on the CPU; .to(device) moves it back


def test_mmap_read_only(tmp_path):
    a = np.arange(12.0).reshape(3, 4)
    np.save(tmp_path / "m.npy", a)
    t = tf.load(tmp_path / "m.npy", mmap_mode="r")
    _same(t, a)
    assert isinstance(t._data.base, np.memmap) or isinstance(t._data.base.base, np.memmap)
    assert not t._data.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        t[0, 0] = 5.0
    with pytest.raises(ValueError, match="read-only"):
        t += 1
    _same((t + 1).sum(axis=0), (a + 1).sum(axis=0))   # ops give tensors in memory
    np.testing.assert_array_equal(np.load(tmp_path / "m.npy"), a)


def test_mmap_writes(tmp_path):
    a = np.arange(4.0)
    np.save(tmp_path / "w.npy", a)
    t = tf.load(tmp_path / "w.npy", mmap_mode="r+")
    t[1] = 10.0
    del t
    np.testing.assert_array_equal(np.load(tmp_path / "w.npy"), [0.0, 10.0, 2.0, 3.0])
    c = tf.load(tmp_path / "w.npy", mmap_mode="c")       # copy-on-write: memory only
    c[0] = -1.0
    _same(c, np.array([-1.0, 10.0, 2.0, 3.0]))
    del c
    np.testing.assert_array_equal(np.load(tmp_path / "w.npy"), [0.0, 10.0, 2.0, 3.0])


def test_mmap_errors(tmp_path):
    np.save(tmp_path / "m.npy", np.arange(3.0))
    with pytest.raises(ValueError, match="mmap_mode must be None or one of"):
        tf.load(tmp_path / "m.npy", mmap_mode="w+")
    np.savez(tmp_path / "z.npz", x=np.arange(3.0))
    with pytest.raises(ValueError, match="mmap_mode applies to .npy files"):
        tf.load(tmp_path / "z.npz", mmap_mode="r")
    with open(tmp_path / "m.npy", "rb") as f, \
            pytest.raises(ValueError, match="mmap_mode needs a path"):
        tf.load(f, mmap_mode="r")
    swapped = np.arange(3.0).astype(">f8")
    np.save(tmp_path / "be.npy", swapped)
    with pytest.raises(ValueError, match="byte-swapped"):
        tf.load(tmp_path / "be.npy", mmap_mode="r")
    t = tf.load(tmp_path / "be.npy")                     # converted to native order
    assert t.dtype == tf.float64
    np.testing.assert_array_equal(t.numpy(), np.arange(3.0))


@pytest.mark.parametrize("arr", [np.zeros(3, np.float16), np.arange(3, dtype=np.uint8),
                                 np.array(["ab", "c"]), np.zeros(2, [("a", "f8"), ("b", "i4")])],
                         ids=["float16", "uint8", "str", "structured"])
def test_foreign_dtype_names_it_and_the_supported_ones(tmp_path, arr):
    np.save(tmp_path / "f.npy", arr)
    with pytest.raises(TypeError, match=r"tenferro.load\(.*f.npy'\): dtype .* is not a "
                       "tenferro dtype; tenferro supports bool, int32, int64, float32, "
                       "float64, complex64, complex128") as e:
        tf.load(tmp_path / "f.npy")
    assert "dtype %s " % arr.dtype in str(e.value)    # named as NumPy names it
    np.savez(tmp_path / "f.npz", x=arr)
    with tf.load(tmp_path / "f.npz") as d:
        assert "x" in d and list(d) == ["x"]      # listed without being read
        with pytest.raises(TypeError, match=r"\['x'\]: dtype .* is not a tenferro dtype"):
            d["x"]


def test_object_arrays_are_never_unpickled(tmp_path):
    obj = np.array([1, "a", None], dtype=object)
    np.save(tmp_path / "o.npy", obj, allow_pickle=True)
    with pytest.raises(ValueError, match="dtype object .*never unpickles.*supports only bool"):
        tf.load(tmp_path / "o.npy")
    np.savez(tmp_path / "o.npz", o=obj)
    with tf.load(tmp_path / "o.npz") as d, \
            pytest.raises(ValueError, match=r"\['o'\]: the file holds an array of dtype object"):
        d["o"]


def test_unknown_formats(tmp_path):
    (tmp_path / "p.pkl").write_bytes(pickle.dumps({"x": np.arange(3)}))
    (tmp_path / "t.txt").write_text("1 2 3\n")
    (tmp_path / "empty").write_bytes(b"")
    for name in ("p.pkl", "t.txt", "empty"):
        with pytest.raises(ValueError, match="not a NumPy .npy file or .npz archive"):
            tf.load(tmp_path / name)
    with pytest.raises(FileNotFoundError):
        tf.load(tmp_path / "absent.npy")


def test_save_errors(tmp_path):
    with pytest.raises(ValueError, match="compressed=True applies to .npz archives"):
        tf.save(tmp_path / "x.npy", tf.ones(2), compressed=True)
    with pytest.raises(ValueError, match="names a .npy file, but the object is a dict"):
        tf.save(tmp_path / "x.npy", {"a": tf.ones(2)})
    with pytest.raises(ValueError, match="names a .npz file, but the object is a single"):
        tf.save(tmp_path / "x.npz", tf.ones(2))
    with pytest.raises(TypeError, match="names of an .npz archive's tensors are strings"):
        tf.save(tmp_path / "y.npz", {1: tf.ones(2)})
    assert not list(tmp_path.iterdir())                   # nothing half-written
