"""The runtime's cache store: extension_cache (bounded LRU with stats), cache_stats over
every cache (einsum plans, jit programs, CPU buffers, linalg's, the drivers'),
clear_caches; clearing at any point changes no result."""
import gc

import numpy as np
import pytest

import tenferro as tf
import tenferro.linalg as tl
from tenferro import _caches
from test_runtime_context import other_device


def test_extension_cache_is_a_bounded_lru_with_stats():
    c = tf.extension_cache("test.lru", maxsize=2)
    assert tf.extension_cache("test.lru", maxsize=2) is c
    c.clear()
    c["a"] = 1
    c["b"] = 2
    assert c.get("a") == 1          # hit; "a" is now the most recent
    assert c.get("z") is None       # miss
    c["c"] = 3                      # evicts "b", the least recently used
    assert "b" not in c and "a" in c and "c" in c and len(c) == 2
    with pytest.raises(KeyError):
        c["b"]                      # a miss too
    s = tf.cache_stats()["test.lru"]
    assert (s.hits, s.misses, s.size, s.maxsize, s.unit) == (1, 2, 2, 2, "entries")
    assert c.evictions == 1
    assert c.setdefault("d", lambda: 4) == 4 and c.setdefault("d", lambda: 5) == 4
    c.resize(1)
    assert list(c) == ["d"]
    tf.extension_cache("test.lru", maxsize=3)      # another maxsize: resized
    assert c.maxsize == 3
    tf.clear_caches()
    assert len(c) == 0 and tf.cache_stats()["test.lru"][:3] == (0, 0, 0)


def test_extension_cache_zero_and_bad_arguments():
    c = tf.extension_cache("test.zero", maxsize=0)
    c["x"] = 1
    assert len(c) == 0
    with pytest.raises(ValueError, match="maxsize"):
        tf.extension_cache("test.bad", maxsize=-1)
    with pytest.raises(TypeError, match="name"):
        tf.extension_cache("")
    with pytest.raises(ValueError, match="tenferro's own"):
        tf.extension_cache("einsum plans")


def test_memoize_reports_hits_and_misses():
    calls = []

    @_caches.memoize("test.memo", maxsize=4)
    def f(x):
        calls.append(x)
        return x * 2

    assert f(1) == f(1) == 2 and f(2) == 4
    s = tf.cache_stats()["test.memo"]
    assert (s.hits, s.misses, s.size, s.maxsize) == (1, 2, 2, 4)
    tf.clear_caches()
    assert f(1) == 2 and calls == [1, 2, 1]


def test_every_existing_cache_is_listed():
    import tenferro.fft  # noqa: F401
    names = set(tf.cache_stats())
    assert {"einsum plans", "jit programs", "cpu buffers", "linalg.half_triangle",
            "fft.weights", "fast-path entries", "scalar operands"} <= names
    for s in tf.cache_stats().values():
        assert s.size >= 0 and (s.hits is None or s.hits >= 0 and s.misses >= 0)


def test_einsum_plan_stats_and_clear_midway():
    rng = np.random.default_rng(0)
    a, b, c = (tf.asarray(rng.standard_normal((4, 4))) for _ in range(3))
    tf.clear_caches()
    ref = np.einsum("ij,jk,kl->il", *map(np.asarray, (a, b, c)))
    for i in range(6):
        if i == 3:
            tf.clear_caches()
            assert tf.cache_stats()["einsum plans"].size == 0
        r = tf.einsum("ij,jk,kl->il", a, b, c)
        np.testing.assert_allclose(np.asarray(r), ref, rtol=1e-12)
        # and a two-operand einsum of the same shapes (its own fast memo)
        np.testing.assert_allclose(np.asarray(tf.einsum("ij,jk->ik", a, b)),
                                   np.asarray(a) @ np.asarray(b), rtol=1e-12)
    s = tf.cache_stats()["einsum plans"]
    assert s.misses == 2 and s.hits >= 4 and s.size == 2   # after the clear: 2 plans


def test_jit_programs_stats_and_clear():
    tf.clear_caches()
    f = tf.jit(lambda x: tf.sin(x) * 2.0)
    x = tf.asarray(np.linspace(0, 1, 5))
    for i in range(4):
        if i == 2:
            tf.clear_caches()
            assert tf.cache_stats()["jit programs"].size == 0
        np.testing.assert_allclose(np.asarray(f(x)), np.sin(np.linspace(0, 1, 5)) * 2)
    s = tf.cache_stats()["jit programs"]
    assert s.size == 1 and s.misses == 1 and s.hits == 1
    before = s.maxsize
    del f
    gc.collect()
    assert tf.cache_stats()["jit programs"].maxsize < before   # held weakly


def test_linalg_results_unchanged_across_clears():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((5, 5)) + 5 * np.eye(5)
    b = rng.standard_normal(5)
    ta, tb = tf.asarray(a), tf.asarray(b)
    ref_x, ref_c = np.linalg.solve(a, b), np.linalg.cholesky(a @ a.T)
    for i in range(4):
        if i % 2:
            tf.clear_caches()
        np.testing.assert_allclose(np.asarray(tl.solve(ta, tb)), ref_x, rtol=1e-12)
        np.testing.assert_allclose(np.asarray(tl.cholesky(ta @ ta.T, lower=True)), ref_c, rtol=1e-12)


def test_fast_path_entries_and_scalar_operands_clear_midway():
    x = tf.asarray(np.arange(4.0))
    y = tf.asarray(np.arange(4, dtype=np.int32))
    for i in range(4):
        if i == 2:
            tf.clear_caches()
            stats = tf.cache_stats()
            assert stats["fast-path entries"].size == 0
            assert stats["scalar operands"].size == 0
        np.testing.assert_array_equal((x * 2.5 + x).numpy(), np.arange(4.0) * 3.5)
        np.testing.assert_array_equal((y + 3).numpy(), np.arange(4) + 3)
        assert (y + 3).dtype == tf.int32
    stats = tf.cache_stats()
    assert stats["fast-path entries"].size >= 2 and stats["scalar operands"].size >= 2


def test_cpu_buffer_cache():
    big = tf.asarray(np.ones(1 << 18))      # 2 MiB: outputs this large are cached
    tf.clear_caches()
    for _ in range(3):
        r = big + big
        del r
    s = tf.cache_stats()["cpu buffers"]
    assert s.unit == "bytes" and s.hits >= 1
    tf.clear_caches()
    assert tf.cache_stats()["cpu buffers"].size == 0
    np.testing.assert_array_equal(np.asarray(big + big), 2 * np.ones(1 << 18))


def test_driver_kernel_caches_when_loaded():
    dev = other_device()
    x = tf.asarray(np.arange(4.0, dtype=np.float32), device=dev)
    ref = np.asarray((x * x + 1.0).to("cpu"))
    kind = dev.partition(":")[0]
    mine = [n for n in tf.cache_stats() if n.startswith(kind + ".")]
    assert mine, tf.cache_stats()
    tf.clear_caches()
    assert all(tf.cache_stats()[n].size == 0 for n in mine)
    np.testing.assert_array_equal(np.asarray((x * x + 1.0).to("cpu")), ref)
