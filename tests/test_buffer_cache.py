"""The CPU output-buffer cache: large outputs reuse freed buffers, values stay right."""
import gc
import os
import subprocess
import sys

import numpy as np

import tenferro as tf
from tenferro.devices import cpu
from tenferro._kernels import _alloc

N = 300_000  # 2.4 MB of float64: above the 1 MiB threshold


def test_large_outputs_reuse_freed_buffers():
    x = tf.asarray(np.arange(N, dtype=np.float64))
    y = x + 1.0
    before = cpu.buffer_cache_info()
    del y
    gc.collect()
    assert cpu.buffer_cache_info()["cached_bytes"] >= before["cached_bytes"] + 8 * N
    z = x * 2.0  # same size: served from the cache
    after = cpu.buffer_cache_info()
    assert after["hits"] == before["hits"] + 1
    np.testing.assert_array_equal(z.numpy(), np.arange(N) * 2.0)


def test_reused_buffers_hold_only_the_new_values():
    a = np.random.default_rng(0).normal(size=N)
    for k in range(5):
        r = tf.asarray(a) * float(k)
        np.testing.assert_array_equal(r.numpy(), a * k)
        del r


def test_small_outputs_bypass_the_cache():
    before = cpu.buffer_cache_info()
    r = tf.ones(10) + 1
    del r
    gc.collect()
    assert cpu.buffer_cache_info() == before


def test_clear_and_limit():
    r = tf.ones(N) + 1
    del r
    gc.collect()
    cpu.clear_buffer_cache()
    assert cpu.buffer_cache_info()["cached_bytes"] == 0
    try:
        _alloc.configure(limit_bytes=0)
        r = tf.ones(N) + 1
        del r
        gc.collect()
        assert cpu.buffer_cache_info()["cached_bytes"] == 0  # nothing kept over the limit
    finally:
        _alloc.configure(limit_bytes=1 << 30)


def test_env_disables_the_cache():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = ("import tenferro as tf, gc; from tenferro.devices import cpu; "
            "r = tf.ones(10**6) + 1; del r; gc.collect(); i = cpu.buffer_cache_info(); "
            "print(i['enabled'], i['cached_bytes'])")
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True,
                         env=dict(os.environ, TENFERRO_BUFFER_CACHE_MB="0", PYTHONPATH=root),
                         check=True)
    assert out.stdout.split() == ["False", "0"]
