#!/usr/bin/env python
"""Standalone WebGPU comparison: tenferro's WebGPU device beside tenferro's CPU device,
NumPy, PyTorch on the CPU and (when CUDA is available) PyTorch on CUDA, on the float32
cases of ``benchmarks/bench_webgpu.py``, as a Markdown table.

Times are best-of-N (``--repeat``, default 5) as in ``compare.py``: one warm-up call,
then N repeats of a calibrated number of calls (each repeat >= ``--min-time``,
default 0.05 s), the minimum per-call time reported.  Every timed call ends with
``common.sync``, so queued WebGPU / CUDA work is included.  Ratios are
"other / WebGPU": above 1 means the WebGPU device is faster.  The adapter (name,
backend, type) heads the table: on a CPU adapter (Mesa's lavapipe) the WebGPU
column measures the driver's overhead, not a GPU.  ``--check`` first verifies that
every library's results agree with NumPy's (float64 from the same float32 inputs).

    WGPU_BACKEND_TYPE=Vulkan python asv_bench/compare_webgpu.py [--check] [--repeat 5]
        [--min-time 0.05] [--threads 2] [--only SUBSTR]
"""
import os
import platform
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402  (best_of, fmt_t, parse_args, time_libs; puts tenferro on sys.path)
from benchmarks import bench_webgpu as B, common  # noqa: E402
import numpy as np  # noqa: E402

NAMES = {"tenferro-webgpu": "tenferro WebGPU", "tenferro-cpu": "tenferro CPU",
         "numpy": "NumPy", "torch": "PyTorch CPU", "torch-cuda": "PyTorch CUDA"}
EPS32 = float(np.finfo(np.float32).eps)


def _libs():
    torch = common.torch_or_none()
    cuda = torch is not None and torch.cuda.is_available()
    return [lib for lib in common.DEVICE_LIBS if lib != "torch-cuda" or cuda]


def _reference(case):
    """NumPy's result in float64 from the case's float32 inputs, and the number of
    terms summed per output element (1 for elementwise cases and transfers)."""
    ins = [a.astype(np.float64) for a in B.inputs(case)]
    if case in B.COMPILED:
        # the chain multiplies each round's rounding error by x (|x| up to ~4) four
        # times over: NumPy's own float32 result is 3e-6 off, WebGPU's tanh 9e-6
        return B.program(np, case)(*ins), 256 if "chain" in case else 1
    if case in B.ELEMENTWISE or case == B.OVERHEAD[0]:
        x, y = ins
        op = case.partition(",")[0]
        return {"x + y": x + y, "x*y + sin(x)": x * y + np.sin(x),
                "exp(x)": np.exp(x)}[op], 1
    if case in B.REDUCTIONS:
        (x,) = ins
        axis = int(case.rpartition("=")[2]) if "axis" in case else None
        f = np.max if case == "max" else np.sum
        return f(x, axis=axis), 1 if case == "max" else (x.size if axis is None
                                                          else x.shape[axis])
    if case in B.MATMULS:
        a, b = ins
        return a @ b, a.shape[-1]
    if case in B.SORTS:
        return np.sort(ins[0], axis=-1), 1
    return ins[0], 1


def check(libs):
    """Every lib's result against NumPy's within float32 rounding: rtol 1e-5 (WGSL's
    exp is within 3 + 2|x| ULP, sin within an absolute 2^-11 that lavapipe stays far
    inside) plus, for sums of k terms of size O(1), an atol of 2·k·eps32 (recursive
    summation errs by at most (k-1)·eps·Σ|x| (Higham, Accuracy and Stability of
    Numerical Algorithms, 2nd ed., §4.2); random rounding stays far below)."""
    bad = 0
    for case in B.CASES:
        want, k = _reference(case)
        for lib in libs:
            try:
                r = common.sync(B.make(lib, case)(), lib)
            except NotImplementedError:
                continue
            got = common.to_numpy(r, lib)
            try:
                where = {"tenferro-webgpu": "webgpu", "torch-cuda": "cuda"}.get(lib)
                if where and not case.startswith("from device"):  # timed on the device
                    assert str(r.device).startswith(where), r.device
                assert got.dtype == np.float32, got.dtype
                assert got.shape == want.shape, (got.shape, want.shape)
                np.testing.assert_allclose(got, want, rtol=1e-5,
                                           atol=2 * k * EPS32 if k > 1 else 1e-6)
            except AssertionError as e:
                bad += 1
                print("MISMATCH %s, %s: %s" % (case, lib, str(e).strip().splitlines()[0]))
        print("ok " if not bad else "   ", case, flush=True)
    if bad:
        raise SystemExit("%d results disagree with NumPy" % bad)


def main(argv=None):
    args = compare.parse_args(sys.argv[1:] if argv is None else argv, __doc__, repeat=5,
                              min_time=0.05)
    dev = compare.device_or_exit("compare_webgpu", common.webgpu_device)
    libs = _libs()
    if args.check:
        check(libs)
    info = dev.driver.info(dev.index)
    torch = common.torch_or_none()
    print("<!-- %s: adapter %s, backend %s, adapter_type %s; tenferro %s, numpy %s, "
          "torch %s, python %s, %s, %d threads; best of %d repeats of >= %g s -->" % (
              dev, info.get("adapter"), info.get("backend"), info.get("adapter_type"),
              getattr(common.tenferro, "__version__", "?"), np.__version__,
              torch.__version__ if torch else "not installed", platform.python_version(),
              platform.machine(), args.threads, args.repeat, args.min_time))
    others = [lib for lib in ("numpy", "torch", "torch-cuda") if lib in libs]
    print("| case | %s | %s |" % (" | ".join(NAMES[lib] for lib in libs),
                                  " | ".join("%s / WebGPU" % NAMES[o] for o in others)))
    print("|---|%s%s" % ("---:|" * len(libs), "---:|" * len(others)))
    for case in B.CASES:
        if args.only and args.only not in case:
            continue

        def timed(lib):
            fn = B.make(lib, case)
            return lambda: common.sync(fn(), lib)
        t = compare.time_libs(timed, libs, args, case)
        base = t["tenferro-webgpu"]
        ratios = ["n/a" if base is None or t[o] is None else "%.3g" % (t[o] / base)
                  for o in others]
        print("| %s | %s | %s |" % (case, " | ".join(compare.fmt_t(t[lib]) for lib in libs),
                                    " | ".join(ratios)), flush=True)


if __name__ == "__main__":
    main()
