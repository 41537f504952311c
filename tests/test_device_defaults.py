"""Per-device default dtypes (``Driver.default_dtypes``): creation functions without
``dtype=`` and Python data take the device's defaults; data with a dtype of its own
keeps it.  A fake device with float32/int32/complex64 defaults (and every dtype) runs
everywhere; the WebGPU device, where present, must agree."""
import numpy as np
import pytest

import tenferro as tf
from conftest import NumpyDriver

F32, F64, I32, I64 = (np.dtype(d) for d in ("float32", "float64", "int32", "int64"))
C64, C128, B = np.dtype("complex64"), np.dtype("complex128"), np.dtype(bool)


class _Narrow(NumpyDriver):
    """Holds every dtype, but defaults to 32-bit ones (as a device without float64)."""

    name = "narrow"
    dtypes = frozenset((B, I32, I64, F32, F64, C64, C128))
    default_dtypes = {"b": B, "i": I32, "f": F32, "c": C64}

    def full(self, shape, dtype, value, device):
        return np.full(shape, value, dtype)


@pytest.fixture
def narrow():
    import tenferro.devices as devs

    devs._drivers["narrow"] = _Narrow()
    try:
        yield "narrow"
    finally:
        devs._drivers.pop("narrow", None)
        for k in [k for k in devs._devices if str(k).startswith("narrow")]:
            del devs._devices[k]


# (call, NumPy's value, the dtype on a 32-bit-default device)
CASES = [
    (lambda dev: tf.ones((2, 3), device=dev), np.ones((2, 3)), F32),
    (lambda dev: tf.zeros(4, device=dev), np.zeros(4), F32),
    (lambda dev: tf.full(3, 1.5, device=dev), np.full(3, 1.5), F32),
    (lambda dev: tf.full(3, 7, device=dev), np.full(3, 7), I32),
    (lambda dev: tf.full(2, True, device=dev), np.full(2, True), B),
    (lambda dev: tf.full(2, 1 + 2j, device=dev), np.full(2, 1 + 2j), C64),
    (lambda dev: tf.asarray([1.5, -2.0], device=dev), np.array([1.5, -2.0]), F32),
    (lambda dev: tf.asarray([[1, 2], [3, 4]], device=dev), np.array([[1, 2], [3, 4]]), I32),
    (lambda dev: tf.asarray(3.25, device=dev), np.array(3.25), F32),
    (lambda dev: tf.tensor([True, False], device=dev), np.array([True, False]), B),
    (lambda dev: tf.arange(5, device=dev), np.arange(5), I32),
    (lambda dev: tf.arange(0.0, 1.0, 0.25, device=dev), np.arange(0.0, 1.0, 0.25), F32),
    (lambda dev: tf.linspace(0, 1, 5, device=dev), np.linspace(0, 1, 5), F32),
    (lambda dev: tf.eye(3, k=1, device=dev), np.eye(3, k=1), F32),
    (lambda dev: tf.identity(2, device=dev), np.identity(2), F32),
    (lambda dev: tf.from_col_major([1.0, 2.0, 3.0, 4.0], (2, 2), device=dev),
     np.array([[1.0, 3.0], [2.0, 4.0]]), F32),
    (lambda dev: tf.random.default_rng(3).normal(size=4, device=dev),
     np.random.Generator(np.random.PCG64(3)).normal(size=4), F32),
    (lambda dev: tf.random.default_rng(3).integers(0, 9, size=4, device=dev),
     np.random.Generator(np.random.PCG64(3)).integers(0, 9, size=4), I32),
]


@pytest.mark.parametrize("k", range(len(CASES)))
def test_creation_takes_the_device_defaults(narrow, k):
    make, want, dtype = CASES[k]
    t = make(narrow)
    assert t.device == narrow and t.dtype == dtype
    np.testing.assert_array_equal(t.to("cpu").numpy(), want.astype(dtype))
    # on the CPU: NumPy's own defaults, unchanged
    c = make(None)
    assert c.dtype == want.dtype
    np.testing.assert_array_equal(c.numpy(), want)


def test_empty_takes_the_device_default(narrow):
    assert tf.empty((2, 2), device=narrow).dtype == F32
    assert tf.empty((2, 2)).dtype == F64


@pytest.mark.parametrize("data, dtype", [
    (np.arange(3.0), F64),                  # an ndarray keeps its dtype
    (np.arange(3), I64),
    (np.float64(2.5), F64),                 # so does a NumPy scalar
    ([np.float32(1.0), np.float32(2.0)], F32),
])
def test_data_with_a_dtype_keeps_it(narrow, data, dtype):
    t = tf.asarray(data, device=narrow)
    assert t.dtype == dtype
    np.testing.assert_array_equal(t.to("cpu").numpy(), np.asarray(data))


def test_explicit_dtype_wins(narrow):
    assert tf.ones(2, dtype=tf.float64, device=narrow).dtype == F64
    assert tf.asarray([1, 2], dtype=tf.int64, device=narrow).dtype == I64
    assert tf.arange(3, dtype=tf.float64, device=narrow).dtype == F64
    assert tf.full(2, 1.0, dtype=tf.complex128, device=narrow).dtype == C128
    # *_like follow their argument, not the device default
    x64 = tf.asarray(np.ones(2), device=narrow)
    assert tf.zeros_like(x64).dtype == F64


@pytest.mark.skipif("webgpu:0" not in tf.devices.available(), reason="no WebGPU adapter")
def test_webgpu_defaults_are_32_bit():
    assert tf.ones(3, device="webgpu").dtype == F32
    assert tf.arange(4, device="webgpu").dtype == I32
    np.testing.assert_array_equal(tf.linspace(0, 1, 3, device="webgpu").to("cpu").numpy(),
                                  np.linspace(0, 1, 3).astype(np.float32))
    # float64 data is still refused, naming the device, op and dtype
    with pytest.raises(tf.UnsupportedOperation, match="webgpu.*float64"):
        tf.asarray(np.ones(3), device="webgpu")
