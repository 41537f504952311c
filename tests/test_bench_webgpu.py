"""The WebGPU benchmarks (asv_bench/benchmarks/bench_webgpu.py) compute what they claim:
every library's result agrees with NumPy (compare_webgpu.check), the WebGPU cases run
on the WebGPU device, and the skips name their reason."""
import os
import sys

import numpy as np
import pytest

import tenferro as tf

if tf.devices.get_driver("webgpu").device_count() == 0:
    pytest.skip("no WebGPU device", allow_module_level=True)
ASV = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "asv_bench")
SLOW = {"matmul 512", "matmul 1024"}  # seconds a call on lavapipe
C = B = common = None


@pytest.fixture(autouse=True, scope="module")
def _bench_modules():
    # Imported here, not at collection: they import torch, which other tests' scans of
    # gc.get_objects() would then meet (a FutureWarning from torch.distributed).
    global C, B, common
    if ASV not in sys.path:
        sys.path.insert(0, ASV)
    import compare_webgpu
    from benchmarks import bench_webgpu, common as bench_common

    C, B, common = compare_webgpu, bench_webgpu, bench_common


def test_every_case_agrees_with_numpy(monkeypatch, capsys):
    monkeypatch.setattr(B, "CASES", [c for c in B.CASES if c not in SLOW])
    C.check(C._libs())
    out = capsys.readouterr().out
    assert "MISMATCH" not in out
    assert out.count("ok ") == len(B.CASES)


def test_check_reports_a_wrong_result(monkeypatch, capsys):
    monkeypatch.setattr(B, "CASES", ["sum axis=0"])
    real = C._reference

    def off(case):
        want, k = real(case)
        want = want.copy()
        want[5] += 0.01   # far outside float32 rounding of 1000 terms (2.4e-4)
        return want, k
    monkeypatch.setattr(C, "_reference", off)
    with pytest.raises(SystemExit, match="results disagree with NumPy"):
        C.check(C._libs())
    assert "MISMATCH sum axis=0, tenferro-webgpu" in capsys.readouterr().out


def test_webgpu_cases_run_on_the_device():
    r = B.make("tenferro-webgpu", "x*y + sin(x), 1e3")()
    assert r.device == tf.device("webgpu")
    np.testing.assert_allclose(common.to_numpy(common.sync(r, "tenferro-webgpu"),
                                               "tenferro-webgpu"),
                               C._reference("x*y + sin(x), 1e3")[0], rtol=1e-5, atol=1e-6)


def test_skips_say_why():
    with pytest.raises(NotImplementedError, match="host library: no device transfer"):
        B.make("numpy", "to device, 1e6")
    torch = common.torch_or_none()
    if torch is not None and not torch.cuda.is_available():
        with pytest.raises(NotImplementedError, match="cuda.is_available"):
            B.make("torch-cuda", "x + y, 1e3")


def test_no_webgpu_skips_every_lib(monkeypatch):
    monkeypatch.setattr(common, "_webgpu", lambda: (None, "wgpu found no WebGPU adapter"))
    for lib in ("tenferro-cpu", "numpy"):
        with pytest.raises(NotImplementedError, match="no WebGPU device: wgpu found no"):
            B.make(lib, "x + y, 1e3")
