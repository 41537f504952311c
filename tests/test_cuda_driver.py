"""The CUDA driver (issue 18): discovery that explains itself, the host simulator, and
the NVRTC compiler with its cache.  NVRTC needs no GPU, so the compiler tests run on any
machine with cuda-python and nvidia-cuda-nvrtc installed (CI installs them)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tenferro as tf
from tenferro.devices.cuda import backend, cmath, nvrtc, runtime

ADD = r'''
extern "C" __global__ void add(const double* a, const double* b, double* c, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
'''

def _have_nvrtc():
    try:
        nvrtc.version()
    except RuntimeError:
        return False
    return True


requires_nvrtc = pytest.mark.skipif(not _have_nvrtc(), reason="cuda-python/NVRTC not installed")


def _run(code, simulator):
    """Run ``code`` in a fresh process, with or without the host simulator."""
    env = dict(os.environ)
    env.pop(backend.SIMULATOR_ENV, None)
    if simulator:
        env[backend.SIMULATOR_ENV] = "1"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env)


def test_cuda_is_a_known_device_type_that_says_why_it_is_absent():
    assert "cuda" in tf.devices.known_device_types()
    n, reason = runtime.probe()
    if n:
        pytest.skip("a CUDA runtime with %d GPU(s): the no-GPU message is not shown" % n)
    assert reason
    code = """
import tenferro as tf
assert "cuda:0" not in tf.devices.available(), tf.devices.available()
for name in ("cuda", "cuda:1"):
    try:
        tf.device(name)
    except RuntimeError as e:
        print(e)
print(tf.devices.get_driver("cuda").unavailable_reason())
"""
    out = _run(code, simulator=False)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("tenferro.device: 'cuda' is not available on this machine: ")
    assert "cuda-python" in lines[0] or "CUDA" in lines[0]
    assert lines[1].startswith("tenferro.device: 'cuda:1' is not available")
    assert lines[2] == reason


def test_the_simulator_is_cuda_0_and_says_what_it_is():
    code = """
import numpy as np, tenferro as tf
d = tf.device("cuda")
print(d, "cuda:0" in tf.devices.available())
print(d.driver.info()["name"])
x = tf.asarray(np.arange(6.0).reshape(2, 3), device=d)
print(np.asarray((x * x + x).to("cpu")).tolist())
try:
    tf.device("cuda:1")
except RuntimeError as e:
    print(e)
"""
    out = _run(code, simulator=True)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "cuda:0 True"
    assert lines[1].startswith("host simulator (TENFERRO_CUDA_SIMULATOR=1")
    assert lines[2] == str((np.arange(6.0) ** 2 + np.arange(6.0)).reshape(2, 3).tolist())
    assert "'cuda:1' is not available on this machine: it has 1 device(s)" in lines[3]


def test_cuda_supports_what_the_math_prelude_implements():
    drv = tf.devices.get_driver("cuda")
    for table in (cmath.UNARY_SUPPORT, cmath.BINARY_SUPPORT):
        for op, dts in table.items():
            for d in tf._dtypes.DTYPES:
                assert drv.supports(op, d) == (d in dts), (op, d)
    assert not drv.supports("no_such_op", np.float64)


@requires_nvrtc
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_nvrtc_compiles_cubin_and_caches_it(arch, tmp_path, monkeypatch):
    monkeypatch.setenv("TENFERRO_CUDA_CACHE", str(tmp_path))
    src = ADD + "// %s %s\n" % (arch, tmp_path)          # a key no other test shares
    before = nvrtc.cache_info()
    cubin = nvrtc.compile_cubin(src, "add.cu", arch)
    assert cubin.startswith(b"\x7fELF") and len(cubin) > 500
    assert nvrtc.compile_cubin(src, "add.cu", arch) == cubin      # from memory
    after = nvrtc.cache_info()
    assert after["compiled"] == before["compiled"] + 1
    assert after["memory_hits"] == before["memory_hits"] + 1
    files = list(tmp_path.glob("*.cubin"))
    assert len(files) == 1 and files[0].read_bytes() == cubin
    # another process finds it on disk and compiles nothing
    code = ("from tenferro.devices.cuda import nvrtc; import sys; "
            "b = nvrtc.compile_cubin(sys.stdin.read(), 'add.cu', %r); "
            "print(nvrtc.cache_info()['disk_hits'], nvrtc.cache_info()['compiled'], len(b))"
            % arch)
    out = subprocess.run([sys.executable, "-c", code], input=src, capture_output=True,
                         text=True, check=True, env=dict(os.environ)).stdout.split()
    assert out == ["1", "0", str(len(cubin))]
    # another architecture or option is another key
    other = nvrtc.compile_cubin(src, "add.cu", arch, options=("-DTF_UNUSED=1",))
    assert other.startswith(b"\x7fELF") and len(list(tmp_path.glob("*.cubin"))) == 2


@requires_nvrtc
def test_nvrtc_memory_only_cache_and_a_corrupt_disk_entry(tmp_path, monkeypatch):
    monkeypatch.setenv("TENFERRO_CUDA_CACHE", "")
    assert nvrtc.cache_dir() is None
    nvrtc.compile_cubin(ADD + "// memory only\n", "add.cu", "sm_90")
    monkeypatch.setenv("TENFERRO_CUDA_CACHE", str(tmp_path))
    src = ADD + "// corrupt %s\n" % tmp_path
    good = nvrtc.compile_cubin(src, "add.cu", "sm_90")
    (path,) = tmp_path.glob("*.cubin")
    path.write_bytes(b"not a cubin")
    nvrtc._memory.clear()        # as a new process: the disk entry is read, and refused
    n = nvrtc.cache_info()["compiled"]
    assert nvrtc.compile_cubin(src, "add.cu", "sm_90") == good
    assert nvrtc.cache_info()["compiled"] == n + 1


@requires_nvrtc
def test_nvrtc_errors_name_the_program_and_show_the_log():
    with pytest.raises(RuntimeError, match=r"(?s)NVRTC could not compile broken\.cu "
                                           r"\(--gpu-architecture=sm_90.*undefined_name"):
        nvrtc.compile_cubin('extern "C" __global__ void k(){ undefined_name = 1; }',
                            "broken.cu", "sm_90")
    for bad in ("90", "compute_90", "sm_9", None):
        with pytest.raises(ValueError, match="arch must look like 'sm_90', got"):
            nvrtc.compile_cubin(ADD, "add.cu", bad)
