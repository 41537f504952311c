"""``tenferro.show_config()``: what this build is and what it runs on."""
from __future__ import annotations

import platform
import sys
import sysconfig
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any


def config() -> dict[str, Any]:
    """The facts show_config prints, as a dict."""
    import numpy
    import scipy

    import tenferro
    from . import __version__, _caches, _profile
    from .devices.cpu import blas as _blas, threads as _threads
    from .devices import available, get_driver

    devs = {}
    for name in available():
        kind = name.partition(":")[0]
        idx = int(name.partition(":")[2] or 0)
        try:
            devs[name] = get_driver(kind).info(idx)
        except Exception as e:  # a driver's info must not break show_config
            devs[name] = {"error": str(e)}
    return {
        "tenferro": __version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "compiler": sysconfig.get_config_var("CC"),
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "openmp": _threads.have_openmp(),
        "threads": _threads.get_num_threads(),
        "blas": _blas.blas_info(),            # loads SciPy's BLAS if no call has yet
        "blas_threads": _blas.get_blas_threads(),
        "backward_workers": tenferro.get_backward_workers(),
        "scipy_blas_spin": _blas.scipy_blas_spin(),
        "runtime_env": dict(tenferro.runtime_env),
        "numpy_blas_spin": numpy_blas_spin(),
        "devices": devs,
        "profiling": bool(_profile._open),          # a tenferro.profile() is recording
        "caches": _caches.cache_stats(),
    }


def numpy_blas_spin():
    """How long NumPy's own OpenBLAS threads spin after a call, as far as tenferro can
    tell: "short" (they loaded during ``import tenferro``, which shortens it as for
    SciPy's), "long" (NumPy was imported first: OpenBLAS's default of ~0.1 s; a
    BLAS-bound tenferro call right after a NumPy BLAS call then competes with them),
    or "set by you" (``OPENBLAS_THREAD_TIMEOUT`` was in the environment)."""
    import os

    import tenferro

    if tenferro._numpy_blas_first:
        return "long"
    if "OPENBLAS_THREAD_TIMEOUT" in tenferro.runtime_env:
        return "short"
    return "set by you (OPENBLAS_THREAD_TIMEOUT=%s)" % os.environ.get(
        "OPENBLAS_THREAD_TIMEOUT", "?")


def show_config() -> None:
    """Print tenferro's build and runtime configuration (``numpy.show_config``).

    The version, compiler, OpenMP status, thread counts, BLAS/LAPACK, the caches and
    every available device with its properties: what to paste into a bug report.
    Looking for devices loads their runtimes.

    Returns
    -------
    None

    See Also
    --------
    get_num_threads, tenferro.devices.available, cache_stats

    Examples
    --------
    >>> tf.show_config()
    tenferro ...
      python: ...
      openmp: ...
      devices:
        cpu ...
    """
    c = config()
    lines = ["tenferro %s" % c["tenferro"],
             "  python:    %s on %s" % (c["python"], c["platform"]),
             "  compiler:  %s" % c["compiler"],
             "  numpy:     %s   scipy: %s" % (c["numpy"], c["scipy"]),
             "  openmp:    %s" % ("yes" if c["openmp"] else
                                  "no (kernels run on one thread)"),
             "  threads:   %d (tenferro kernels)   BLAS: %s   backward workers: %d"
             % (c["threads"], c["blas_threads"], c["backward_workers"])]
    if c["runtime_env"]:
        lines.append("  set at load: %s" % " ".join("%s=%s" % kv
                                                    for kv in c["runtime_env"].items()))
    spin = c["numpy_blas_spin"]
    lines.append("  numpy's OpenBLAS spin: %s" % (
        spin if spin != "long" else "long (NumPy was imported before tenferro: "
        "BLAS-bound calls right after a NumPy BLAS call may run up to 2.5x slower; "
        "import tenferro first or set OPENBLAS_THREAD_TIMEOUT=4 before starting Python, "
        "see docs/performance.md)"))
    spin = c["scipy_blas_spin"]
    lines.append("  scipy's OpenBLAS spin (tenferro's BLAS): %s" % (
        spin if spin != "long" else "long (scipy.linalg was imported before tenferro's "
        "first matmul or linalg call; set OPENBLAS_THREAD_TIMEOUT=4 before starting Python "
        "to shorten it, see docs/performance.md)"))
    b = c["blas"] or {}
    lines.append("  blas/lapack: %s %s (%s)" % (b.get("name", "?"), b.get("version", ""),
                                                 b.get("library_path", "via scipy")))
    lines.append("  profiling: %s" % ("on (tenferro.profile() or TENFERRO_PROFILE=1)"
                                      if c["profiling"] else "off"))
    lines.append("  caches:    %s" % ", ".join(
        "%s %d/%s" % (name, s.size, "-" if s.maxsize is None else s.maxsize)
        for name, s in c["caches"].items() if s.unit == "entries"))
    lines.append("  devices:")
    for name, info in c["devices"].items():
        extra = ", ".join("%s=%s" % kv for kv in info.items())
        lines.append("    %-10s %s" % (name, extra))
    print("\n".join(lines))
