"""Shared helpers of tenferro's public-API tests: data per dtype and domain, a per-dtype
tolerance table, and a generator of memory layouts holding the same logical values."""
import os
import re
import sys
import zlib

import numpy as np
import pytest

import tenferro as tf

# On Linux wgpu finds Mesa's software Vulkan (lavapipe) only through the Vulkan backend;
# elsewhere (Metal, D3D12) its own choice stands.  Before any test opens the device.
if sys.platform.startswith("linux"):
    os.environ.setdefault("WGPU_BACKEND_TYPE", "Vulkan")

# -- hypothesis: one budget for every property test ------------------------------------
#
# Every property test takes its settings from ``hyp_settings(n)``: ``n`` examples locally,
# ``n * HYPOTHESIS_SCALE`` where the scale is 10 under CI's profile (CI=1), or whatever
# TENFERRO_HYPOTHESIS_SCALE says (a larger local run: TENFERRO_HYPOTHESIS_SCALE=100).
# The seed varies per run and is printed at the start and end of the session; replay a
# failure with ``--hypothesis-seed=<seed>`` and pin what it found with ``@example(...)``
# on the test (CI has no example database: a pinned example is the only memory).
from hypothesis import HealthCheck as _HealthCheck, settings as _hyp_settings  # noqa: E402

_hyp_settings.register_profile("ci", database=None, print_blob=True, deadline=None)
_hyp_settings.register_profile("dev", deadline=None)
_hyp_settings.load_profile("ci" if os.environ.get("CI") else "dev")
HYPOTHESIS_SCALE = float(os.environ.get("TENFERRO_HYPOTHESIS_SCALE",
                                        10 if os.environ.get("CI") else 1))


def hyp_settings(examples, **kwargs):
    """``hypothesis.settings`` for a property test worth ``examples`` examples locally
    (scaled by HYPOTHESIS_SCALE), no deadline, no too-slow/too-large health checks."""
    kwargs.setdefault("suppress_health_check",
                      [_HealthCheck.too_slow, _HealthCheck.data_too_large])
    return _hyp_settings(max_examples=max(1, int(examples * HYPOTHESIS_SCALE)),
                         deadline=None, **kwargs)


def pytest_configure(config):
    """A hypothesis seed per run (``--hypothesis-seed`` or TENFERRO_HYPOTHESIS_SEED
    fixes it), shared by every property test of the session."""
    import random

    import hypothesis.core

    seed = config.getoption("hypothesis_seed", None)
    if seed is None:
        seed = os.environ.get("TENFERRO_HYPOTHESIS_SEED") or random.SystemRandom().randrange(2**32)
        hypothesis.core.global_force_seed = int(seed)
    config._tenferro_hypothesis_seed = seed


def _seed_line(config):
    seed = getattr(config, "_tenferro_hypothesis_seed", None)
    return ("hypothesis: seed %s, %gx examples (replay: python -m pytest "
            "--hypothesis-seed=%s ...)" % (seed, HYPOTHESIS_SCALE, seed))


def pytest_sessionstart(session):
    tr = session.config.pluginmanager.get_plugin("terminalreporter")
    if tr is not None:
        tr.write_line(_seed_line(session.config))


pytest_plugins = ["pytester"]

DTYPES = [np.dtype(d) for d in ("bool", "int32", "int64", "float32", "float64",
                                "complex64", "complex128")]
INT = [np.dtype("int32"), np.dtype("int64")]
FLOAT = [np.dtype("float32"), np.dtype("float64")]
COMPLEX = [np.dtype("complex64"), np.dtype("complex128")]
INEXACT = FLOAT + COMPLEX
NUMERIC = INT + INEXACT
INTEGRAL = [np.dtype("bool")] + INT

# relative tolerance per (result) dtype: a few ulp for elementwise math
RTOL = {np.dtype("float32"): 4e-6, np.dtype("float64"): 1e-14,
        np.dtype("complex64"): 4e-6, np.dtype("complex128"): 1e-14}
ATOL = {np.dtype("float32"): 1e-6, np.dtype("float64"): 1e-15,
        np.dtype("complex64"): 1e-6, np.dtype("complex128"): 1e-15}


def rng(seed=0):
    return np.random.default_rng(seed)


def stable_rng(*key):
    """A generator seeded from ``key`` the same way in every run (``hash`` of a string
    changes between processes, so it would make a test's data differ from run to run)."""
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def sample(gen, shape, dtype):
    """Values of ``dtype`` from an existing Generator: ints in [-50, 50), bools, normals."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return np.asarray(gen.random(shape) < 0.4)
    if dtype.kind in "iu":
        return np.asarray(gen.integers(-50, 50, shape).astype(dtype))
    x = gen.standard_normal(shape)
    if dtype.kind == "c":
        x = x + 1j * gen.standard_normal(shape)
    return np.asarray(x.astype(dtype))


def random_array(shape, dtype, domain="any", seed=0):
    """NumPy data of ``dtype`` and ``shape`` drawn from ``domain``.

    domains: any (real in [-3, 3]), pos ((0.1, 3]), unit ((-0.95, 0.95)), ge1 ([1.05, 4]),
    small ([-1, 1]), nonzero (|x| >= 0.5), shift ([0, 8) integers).
    """
    dtype = np.dtype(dtype)
    r = rng(seed)
    if dtype.kind == "b":
        return r.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        lo, hi = {"pos": (1, 10), "nonzero": (1, 10), "shift": (0, 8), "ge1": (1, 10),
                  "unit": (0, 1), "small": (-1, 2)}.get(domain, (-20, 20))
        a = r.integers(lo, hi, shape).astype(dtype)
        if domain == "nonzero":
            a = a * np.where(r.integers(0, 2, shape), 1, -1).astype(dtype)
        return a

    def real():
        if domain == "pos":
            return r.uniform(0.1, 3, shape)
        if domain == "unit":
            return r.uniform(-0.95, 0.95, shape)
        if domain == "ge1":
            return r.uniform(1.05, 4, shape)
        if domain == "small":
            return r.uniform(-1, 1, shape)
        if domain == "nonzero":
            return r.uniform(0.5, 3, shape) * np.where(r.integers(0, 2, shape), 1, -1)
        return r.uniform(-3, 3, shape)
    if dtype.kind == "c":
        a = real() + 1j * (real() if domain not in ("pos", "ge1") else r.uniform(-1, 1, shape))
    else:
        a = real()
    return np.asarray(a).astype(dtype)


def assert_close(t, expected, dtype=None, rtol=None, atol=None, check_dtype=True):
    """``t`` (a Tensor) equals NumPy's ``expected`` in dtype, shape and values.

    Integer and bool results must be exact; inexact ones within the per-dtype table
    (or ``rtol``/``atol``).  NaNs must be in the same places; infinities and signs
    of zero are checked through ``assert_allclose``'s exact handling of non-finites.
    """
    assert isinstance(t, tf.Tensor), type(t)
    expected = np.asarray(expected)
    got = np.asarray(t.detach())   # a value check: reading a tensor that requires grad
    if check_dtype:
        want = np.dtype(dtype) if dtype is not None else expected.dtype
        assert t.dtype == want, (t.dtype, want)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    d = got.dtype
    if d.kind in "biu" and expected.dtype.kind in "biu":
        np.testing.assert_array_equal(got, expected)
        return
    rt = RTOL.get(d, 1e-14) if rtol is None else rtol
    at = ATOL.get(d, 0) if atol is None else atol
    np.testing.assert_allclose(got, expected.astype(d) if expected.dtype.kind != "O" else expected,
                               rtol=rt, atol=at, equal_nan=True)


# -- layouts -----------------------------------------------------------------------

LAYOUTS = ["contiguous", "fortran", "transposed", "step2", "negstride", "broadcast"]


def make_layout(a, layout):
    """A Tensor with the logical values of ndarray ``a`` stored in ``layout``."""
    a = np.array(a)  # a private copy: the tensor never shares memory with the caller's
    if layout == "contiguous":
        t = tf.asarray(a)
    elif layout == "fortran":
        t = tf.asarray(np.asfortranarray(a))
    elif layout == "transposed":
        base = tf.asarray(np.ascontiguousarray(a.T))
        t = base.T
    elif layout == "step2":
        big = np.zeros(tuple(2 * n for n in a.shape), a.dtype)
        big[tuple(slice(None, None, 2) for _ in a.shape)] = a
        t = tf.asarray(big)[tuple(slice(None, None, 2) for _ in a.shape)]
    elif layout == "negstride":
        flipped = np.ascontiguousarray(a[tuple(slice(None, None, -1) for _ in a.shape)])
        t = tf.flip(tf.asarray(flipped)) if a.ndim else tf.asarray(flipped)
    elif layout == "broadcast":
        # zero strides: only possible when values are constant along an axis, so
        # broadcast the first row along axis 0 and return the matching values too
        if a.ndim == 0 or a.shape[0] == 0:
            t = tf.asarray(a.copy())
        else:
            t = tf.broadcast_to(tf.asarray(np.ascontiguousarray(a[:1])), a.shape)
    else:
        raise ValueError(layout)
    return t


def layout_values(a, layout):
    """The logical values ``make_layout(a, layout)`` holds (differs only for broadcast)."""
    a = np.asarray(a)
    if layout == "broadcast" and a.ndim and a.shape[0]:
        return np.broadcast_to(a[:1], a.shape).copy()
    return a


def layouts(a):
    """Yield (name, tensor, numpy values) for every layout of ``a``."""
    for name in LAYOUTS:
        yield name, make_layout(a, name), layout_values(a, name)


@pytest.fixture(params=LAYOUTS)
def layout(request):
    return request.param


# how a stack of matrices is laid out: C, F (transposed per matrix), strided (non-unit
# leading and inner strides), negative strides
MATRIX_LAYOUTS = ["C", "F", "slice", "neg"]


def matrix_layout(x, how):
    """The values of the stack of matrices ``x`` in memory layout ``how`` (a view)."""
    if how == "C":
        return x
    if how == "F":
        return np.swapaxes(np.swapaxes(x, -1, -2).copy(), -1, -2)
    if how == "slice":
        big = np.zeros(x.shape[:-2] + (x.shape[-2] * 2, x.shape[-1] * 3 + 1), x.dtype)
        v = big[..., ::2, 1::3]
        v[...] = x
        return v
    if how == "neg":
        return np.flip(np.flip(x, (-2, -1)).copy(), (-2, -1))
    raise ValueError(how)


def central_grad(f, a, h=1e-6):
    """The gradient of the real NumPy function ``f`` at ``a`` by central differences, in
    tenferro's (PyTorch's) convention for complex ``a``: d/dRe + i d/dIm."""
    a = np.asarray(a)
    units = (1, 1j) if a.dtype.kind == "c" else (1,)
    g = np.zeros_like(a)
    for idx in np.ndindex(*a.shape):
        for unit in units:
            e = np.zeros_like(a)
            e[idx] = unit * h
            g[idx] += unit * (f(a + e) - f(a - e)) / (2 * h)
    return g



# -- devices -------------------------------------------------------------------------
#
# Table-driven op tests take the ``device`` fixture and run once per device type in
# DEVICE_KINDS: every type the drivers make known (tenferro's own driver modules and
# third-party entry points: ``tenferro.devices.known_device_types``).  A device absent
# from this machine (a driver with no device here) is skipped with the reason its driver
# gives, so the test report says why; a device that is present runs every case for real.

DEVICE_KINDS = tf.devices.known_device_types()

# Looser float32 tolerances on WebGPU: WGSL's builtins are not correctly rounded, and
# reductions sum in workgroup trees in another order than the CPU.  Elementwise ops
# looser still say so in their row of tests/op_table.py (``device_tol``).
DEVICE_RTOL = {("webgpu", np.dtype("float32")): 2e-5}
DEVICE_ATOL = {("webgpu", np.dtype("float32")): 2e-6}


def device_kind(device):
    return device if isinstance(device, str) else device.type


def device_tol(device, dtype, op=None):
    """(rtol, atol) for results of ``dtype`` computed on ``device`` (by ``op``)."""
    from op_table import OPS   # (op_table takes its dtype lists from this module)

    kind = device_kind(device)
    dtype = np.dtype(dtype)
    rt, at = RTOL.get(dtype, 0.0), ATOL.get(dtype, 0.0)
    rt = DEVICE_RTOL.get((kind, dtype), rt)
    at = DEVICE_ATOL.get((kind, dtype), at)
    loose = OPS[op].device_tol.get(kind) if op in OPS and dtype.kind == "f" else None
    if loose:
        rt, at = max(rt, loose[0]), max(at, loose[1])
    return rt, at


# Reductions: an absolute bound from the summation's error, not a blanket atol.  A
# pairwise or workgroup-tree sum of n values of magnitude <= scale errs by a few eps
# times sum|a| <= n * scale; a mean divides that by n; max/min are exact.
REDUCTION_ULPS = 4


def reduction_tol(device, dtype, n, op, scale=1.0):
    """(rtol, atol) for ``op`` (sum, mean, max, min, prod) over ``n`` values of
    magnitude <= ``scale`` of ``dtype`` on ``device``."""
    rt, _ = device_tol(device, dtype)
    eps = float(np.finfo(dtype).eps)
    if op in ("max", "min", "argmax", "argmin"):
        return 0.0, 0.0
    if op == "mean":
        return rt, REDUCTION_ULPS * eps * scale
    if op == "sum":
        return rt, REDUCTION_ULPS * eps * n * scale
    return rt * n, 0.0  # prod: n rounding errors, relative


def _absent_reason(kind):
    """Why device type ``kind`` cannot be tested here, or None when it is present."""
    import tenferro.devices as devs

    try:
        drv = devs.get_driver(kind)
    except ValueError:  # no module tenferro/devices/<kind>.py and no entry point
        return "no %s driver in this build" % kind
    if drv.device_count() == 0:
        return "%s: %s" % (kind, drv.unavailable_reason())
    return None


def get_test_device(kind):
    """``tf.device(kind)``, or a skip carrying the driver's reason when it is absent."""
    why = _absent_reason(kind)
    if why is not None:
        pytest.skip("device absent: " + why)
    return tf.device(kind)


@pytest.fixture(params=DEVICE_KINDS, ids=DEVICE_KINDS)
def device(request):
    """Every device type tenferro knows about; absent ones skip with their reason."""
    return get_test_device(request.param)


@pytest.fixture(params=[k for k in DEVICE_KINDS if k != "cpu"],
                ids=[k for k in DEVICE_KINDS if k != "cpu"])
def accel_device(request):
    """The non-CPU device types (for tests that need a second device beside the CPU)."""
    return get_test_device(request.param)


# The fixed, documented list of what each device lacks: the coverage table committed in
# docs/devices.md (between its coverage markers), NOT what the driver answers at run
# time.  A kernel removed from a driver therefore makes its tests fail (and
# tests/test_devices_coverage.py's stale-table check) instead of turning them into skips.
DEVICES_DOC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "docs", "devices.md")
_COVERAGE = {}


def documented_coverage(path=DEVICES_DOC):
    """{device kind: {primitive: frozenset of dtypes, or None for "any device"}} read
    from the committed coverage table of ``path``; a RuntimeError when the table or its
    markers are missing."""
    if path in _COVERAGE:
        return _COVERAGE[path]
    from tenferro import _dtypes
    from tenferro import _coverage

    with open(path, encoding="utf-8") as f:
        text = _coverage.section(f.read())
    if text is None or "| primitive |" not in text:
        raise RuntimeError("%s has no coverage table between %s and %s: the device tests "
                           "skip only what that table documents" % (path, _coverage.START,
                                                                     _coverage.END))
    names = {s: n for n, s in _coverage._SHORT.items()}
    every = frozenset(_dtypes.DTYPES)
    rows = [[c.strip().strip("`") for c in line.strip().strip("|").split("|")]
            for line in text.splitlines() if line.startswith("|")]
    kinds = rows[0][1:]
    table = {k: {} for k in kinds}
    for row in rows[2:]:
        for kind, cell in zip(kinds, row[1:]):
            if cell == "any device":  # runs above the drivers: on every device
                table[kind][row[0]] = None
            elif cell == "all":
                table[kind][row[0]] = every
            else:
                table[kind][row[0]] = frozenset(
                    np.dtype(names[w]) for w in cell.split() if w != "-")
    _COVERAGE[path] = table
    return table


def documented_unsupported(device, dtype, op=None):
    """``dtype`` (or ``op`` for ``dtype``) is in the fixed, documented list of what
    ``device`` lacks: docs/devices.md's committed coverage table (a dtype no primitive of
    its column lists, e.g. float64 and complex on WebGPU; an (op, dtype) its row leaves
    out).  Never true on the CPU.  A driver absent from the table (a test double) is
    judged by its declared ``dtypes`` and ``supports``."""
    if dtype is None:
        return False
    dtype = np.dtype(dtype)
    table = documented_coverage().get(device_kind(device))
    if table is None:
        drv = device.driver
        return dtype not in drv.dtypes or (op is not None and not drv.supports(op, dtype))
    if op in table and table[op] is not None:
        return dtype not in table[op]
    return not any(dts and dtype in dts for dts in table.values())


def skip_unless_supported(device, op, *dtypes):
    """Skip when the documented coverage (docs/devices.md) leaves out ``op`` for one of
    ``dtypes``, naming them; the CPU supports every primitive and dtype."""
    for d in dtypes:
        if documented_unsupported(device, d, op):
            pytest.skip("%s does not support %s for %s (documented in docs/devices.md)"
                        % (device, op, np.dtype(d)))


def run_on(device, fn, *args, **kwargs):
    """``fn(*args, **kwargs)``; an ``UnsupportedOperation`` becomes a skip ONLY when its
    (op, dtype) is in the documented list of what ``device`` lacks (the coverage table of
    docs/devices.md, see ``documented_unsupported``), and its message must name the
    device.  Any other failure, a refusal the table does not document included, stays a
    failure."""
    try:
        return fn(*args, **kwargs)
    except tf.UnsupportedOperation as e:
        if device.type in str(e) and documented_unsupported(device, e.dtype, e.op):
            pytest.skip("%s (documented as unsupported on %s)" % (e, device))
        raise


def to_device(a, device):
    """NumPy data as a Tensor on ``device`` (through the CPU, an explicit transfer)."""
    return tf.asarray(np.asarray(a)).to(device)


def check_on(t, expected, device, op=None, dtype=None, rtol=None, atol=None):
    """``t`` is on ``device`` and equals NumPy's ``expected`` (dtype, shape, values)
    within the device's tolerance for the result dtype (and ``op``)."""
    assert isinstance(t, tf.Tensor), type(t)
    assert t.device == device, (str(t.device), str(device))
    rt, at = device_tol(device, t.dtype, op)
    host = t.to("cpu")
    assert host.device == tf.device("cpu")
    assert_close(host, expected, dtype=dtype, rtol=rt if rtol is None else rtol,
                 atol=at if atol is None else atol)


# -- skips that CI turns into failures -------------------------------------------------
#
# .ci/run installs lavapipe, wgpu, PyTorch and cotengra and sets these switches, so a
# broken install fails the run instead of quietly skipping ~2,150 WebGPU tests or the
# PyTorch comparisons.  Locally (switches unset) such tests skip with their reason.
REQUIRED = {
    "TENFERRO_REQUIRE_WEBGPU": re.compile(r"(?i)device absent: webgpu|no webgpu (device|adapter)"),
    "TENFERRO_REQUIRE_OPTIONAL": re.compile(r"could not import '"),  # pytest.importorskip
    # the CUDA driver: a GPU, or the host simulator (TENFERRO_CUDA_SIMULATOR=1)
    "TENFERRO_REQUIRE_CUDA": re.compile(r"device absent: cuda|no C\+\+ compiler"),
}


def required_but_skipped(reason):
    """The switch (name) under which the skip ``reason`` is a failure, or None."""
    for var, pattern in REQUIRED.items():
        if os.environ.get(var, "") not in ("", "0") and pattern.search(str(reason)):
            return var
    return None


def _fail_required_skip(rep):
    if rep.skipped and isinstance(rep.longrepr, tuple):
        var = required_but_skipped(rep.longrepr[2])
        if var is not None:
            rep.outcome = "failed"
            rep.longrepr = "%s is set, so this skip is a failure: %s" % (var, rep.longrepr[2])


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_required_skip(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _fail_required_skip(outcome.get_result())  # module-level skips (webgpu_or_skip)


# -- per-device test counts in the report ------------------------------------------------

def _device_of_nodeid(nodeid):
    """The device a test runs on: its ``device`` parameter, or the device a module
    named ``test_<device>...``/``test_bench_<device>...`` is about (test_webgpu_math.py)."""
    import re

    name = os.path.basename(nodeid.split("::")[0])
    for kind in DEVICE_KINDS:
        if kind != "cpu" and re.match(r"test_(bench_)?%s(_|\.)" % kind, name):
            return kind
    params = re.search(r"\[(.*)\]$", nodeid)
    if not params:
        return None
    parts = params.group(1).split("-")
    for kind in DEVICE_KINDS:
        if kind in parts:
            return kind
    return None


def _device_label(kind):
    """``kind`` as the summary names it: the CUDA host simulator says it is one."""
    if kind == "cuda":
        from tenferro.devices.cuda import backend

        if backend.simulated():
            return "cuda (host simulator, TENFERRO_CUDA_SIMULATOR=1)"
    return kind


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """One line per device: how many tests on it (device-parametrized ones and those of
    its own modules) passed, failed, skipped (with the skip reasons), so a CI log shows
    how many WebGPU tests really ran."""
    counts = {k: {} for k in DEVICE_KINDS}
    reasons = {k: set() for k in DEVICE_KINDS}
    for outcome in ("passed", "failed", "error", "skipped"):
        for rep in terminalreporter.stats.get(outcome, []):
            kind = _device_of_nodeid(getattr(rep, "nodeid", ""))
            if kind is None or getattr(rep, "when", "call") not in ("call", "setup"):
                continue
            if outcome == "passed" and rep.when != "call":
                continue
            counts[kind][outcome] = counts[kind].get(outcome, 0) + 1
            if outcome == "skipped" and isinstance(rep.longrepr, tuple):
                reasons[kind].add(str(rep.longrepr[2]).replace("Skipped: ", ""))
    terminalreporter.write_line(_seed_line(config))
    if not any(counts.values()):
        return
    terminalreporter.write_sep("-", "tests per device")
    for kind in DEVICE_KINDS:
        c = counts[kind]
        if not c:
            continue
        line = "%s: %d passed, %d failed, %d skipped" % (
            _device_label(kind), c.get("passed", 0), c.get("failed", 0) + c.get("error", 0),
            c.get("skipped", 0))
        absent = sorted(r for r in reasons[kind] if r.startswith("device absent"))
        if absent:
            line += " (%s)" % "; ".join(absent)
        terminalreporter.write_line(line)


class NumpyDriver(tf.devices.Driver):
    """A second device for tests: NumPy storage (separate copies: transfers are real
    copies) and no ops unless a subclass adds them."""

    name = "fake"
    dtypes = frozenset()
    implementations = {}

    def device_count(self):
        return 1

    def empty(self, shape, dtype, device):
        return np.empty(shape, dtype)

    def from_numpy(self, array, device):
        return np.array(array)  # a separate "device" buffer

    def to_numpy(self, data):
        return np.array(data)


# -- the WebGPU test modules' shared preamble --------------------------------------------

def webgpu_or_skip():
    """The WebGPU driver module; without an adapter, a module-level skip giving the
    driver's reason (call at the top of a WebGPU-only test module)."""
    drv = tf.devices.get_driver("webgpu")
    if drv.device_count() == 0:
        pytest.skip("no WebGPU device: %s" % drv.unavailable_reason(),
                    allow_module_level=True)
    from tenferro.devices import webgpu

    return webgpu


def gpu(a):
    """NumPy data as a WebGPU tensor (an explicit transfer from the CPU)."""
    return tf.asarray(np.asarray(a)).to("webgpu")


def host(t):
    """A WebGPU tensor's values on the host (asserting it was on the device)."""
    assert t.device == tf.device("webgpu"), t.device
    return t.to("cpu").numpy()
