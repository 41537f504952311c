#!/usr/bin/env python
"""Standalone CUDA comparison: tenferro's CUDA device beside CuPy and PyTorch on CUDA
(each only where installed) on the cases of ``benchmarks/bench_cuda.py``, as a
Markdown table.

Times are best-of-N (``--repeat``, default 5) as in ``compare.py``: one warm-up call,
then N repeats of a calibrated number of calls (each repeat >= ``--min-time``), the
minimum per-call time reported; every call ends with a device synchronisation.
Ratios are "other / tenferro": above 1 means tenferro is faster.  The elementwise,
compiled and reduction cases also give tenferro's achieved bandwidth (bytes read and
written once) and its share of the GPU's peak, computed from the memory clock and bus
width the driver reports (issue 18's goal: 80%).  ``--check`` first compares every
lib's results with NumPy's (float64 from the same inputs).

    python asv_bench/compare_cuda.py [--check] [--repeat 5] [--min-time 0.1] [--only SUBSTR]

Without a CUDA GPU (or with TENFERRO_CUDA_SIMULATOR=1) it exits with a message.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402  (best_of, fmt_t, parse_args, time_libs, versions_comment)
from benchmarks import bench_cuda as B  # noqa: E402
import numpy as np  # noqa: E402

NAMES = {"tenferro-cuda": "tenferro CUDA", "cupy": "CuPy", "torch-cuda": "PyTorch CUDA"}


def _libs():
    libs = []
    for lib in B.CUDA_LIBS:
        try:
            B.module(lib)
        except NotImplementedError as e:
            print("<!-- %s: %s -->" % (lib, e))
            continue
        libs.append(lib)
    return libs


def peak_bandwidth():
    """The GPU's peak memory bandwidth in bytes/s (double data rate x bus width), or
    None where the driver does not report the memory clock."""
    from tenferro.devices.cuda import backend
    be = backend.get(0)
    attr = be.cu.CUdevice_attribute
    try:
        khz = backend.check(be.cu.cuDeviceGetAttribute(
            attr.CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, be.dev), "memory clock")
        bits = backend.check(be.cu.cuDeviceGetAttribute(
            attr.CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, be.dev), "bus width")
    except (AttributeError, backend.CUDAError):
        return None
    return 2.0 * khz * 1e3 * bits / 8 if khz and bits else None


def traffic(case):
    """Bytes a case must move (inputs read once, the output written once), or None."""
    ins = B.inputs(case)
    if case in B.ELEMENTWISE or case in B.COMPILED:
        return sum(a.nbytes for a in ins) + ins[0].nbytes
    if case in B.REDUCTIONS:
        return ins[0].nbytes
    return None


def reference(case):
    """NumPy's result in float64 and a tolerance for float32/float64 results."""
    ins = [a.astype(np.float64) for a in B.inputs(case)]
    if case in B.COMPILED:
        return B.program(np, case)(*ins), 1e-4
    if case in B.ELEMENTWISE or case in B.OVERHEAD:
        x, y = ins
        return (x + y if case.startswith("x + y") else x * y + np.sin(x)), 1e-5
    if case in B.REDUCTIONS:
        axis = int(case.split("=")[1][0]) if "axis" in case else None
        return ins[0].sum(axis=axis), 1e-4
    if case in B.MATMULS:
        a, b = ins
        return a @ b, 1e-4
    (a,) = ins
    if case.startswith("cholesky"):
        return np.linalg.cholesky(a), 1e-10
    return np.linalg.eigvalsh(a), 1e-10


def check(libs):
    bad = 0
    for case in B.CASES:
        want, rtol = reference(case)
        for lib in libs:
            try:
                got = B.sync(B.make(lib, case)(), lib)
            except NotImplementedError:
                continue
            if case.startswith("eigh"):
                got = got[0]
            got = B.to_numpy(got, lib).astype(np.float64)
            scale = max(1.0, float(np.abs(want).max()))
            if got.shape != want.shape or not np.allclose(got, want, rtol=rtol,
                                                          atol=rtol * scale):
                bad += 1
                print("MISMATCH %s, %s: max |error| %s" % (
                    case, lib, np.abs(got - want).max() if got.shape == want.shape
                    else "shape %s" % (got.shape,)))
        print("checked", case, flush=True)
    if bad:
        raise SystemExit("%d results disagree with NumPy" % bad)


def main(argv=None):
    args = compare.parse_args(sys.argv[1:] if argv is None else argv, __doc__, repeat=5,
                              min_time=0.1)
    dev = compare.device_or_exit("compare_cuda", B.cuda_device)
    libs = _libs()
    if args.check:
        check(libs)
    info = dev.driver.info(dev.index)
    peak = peak_bandwidth()
    print(compare.versions_comment(args))
    print("<!-- %s: %s (%s, %.0f GiB), driver %s, runtime %s, NVRTC %s, cuBLAS %s; peak "
          "memory bandwidth %s -->" % (
              dev, info.get("name"), info.get("arch"), info.get("memory_bytes", 0) / 2**30,
              info.get("driver_version"), info.get("cuda_runtime"),
              info.get("nvrtc_version"), info.get("cublas"),
              "%.0f GB/s" % (peak / 1e9) if peak else "unknown"))
    others = [lib for lib in libs if lib != "tenferro-cuda"]
    print("| case | %s | %s | GB/s tenferro | %% of peak |" % (
        " | ".join(NAMES[lib] for lib in libs),
        " | ".join("%s / tenferro" % NAMES[o] for o in others)))
    print("|---|%s%s---:|---:|" % ("---:|" * len(libs), "---:|" * len(others)))
    for case in B.CASES:
        if args.only and args.only not in case:
            continue

        def timed(lib):
            fn = B.make(lib, case)
            return lambda: B.sync(fn(), lib)
        t = compare.time_libs(timed, libs, args, case)
        base = t.get("tenferro-cuda")
        ratios = ["n/a" if base is None or t[o] is None else "%.3g" % (t[o] / base)
                  for o in others]
        nbytes = traffic(case)
        gbs = nbytes / base / 1e9 if nbytes and base else None
        print("| %s | %s | %s | %s | %s |" % (
            case, " | ".join(compare.fmt_t(t[lib]) for lib in libs), " | ".join(ratios),
            "%.0f" % gbs if gbs else "", "%.0f%%" % (100 * gbs * 1e9 / peak)
            if gbs and peak else ""), flush=True)


if __name__ == "__main__":
    main()
