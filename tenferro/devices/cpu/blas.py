"""The BLAS behind ``scipy.linalg.cython_blas``: what it is, and its thread count.

tenferro never links a BLAS itself: matmul, einsum and linalg call the BLAS/LAPACK
that SciPy exports through ``scipy.linalg.cython_blas`` / ``cython_lapack``.  This
module finds that library among those loaded in the process (``/proc/self/maps`` on
Linux, opened again with ``RTLD_NOLOAD`` so nothing new is loaded) and reaches its
threading API through ctypes.  Supported: OpenBLAS (scipy-openblas builds prefix
their symbols with ``scipy_openblas_``; ILP64 builds add ``64_``) and MKL.

SciPy's BLAS loads on first need, not with ``import tenferro`` (``cython_blas`` runs
``scipy.linalg``'s ``__init__``, about 140 ms): ``load_library()`` loads it, with
tenferro's short OpenBLAS spin (``load_env``) unless the user set one.

Nothing here raises at import: when no BLAS threading API is found the functions
return ``None`` / do nothing.  ``_thread_fn_addresses()`` hands the raw C function
pointers (``void set(int)``, ``int get(void)``) to the matmul and LAPACK kernels, which
keep BLAS single-threaded while they spread a batch over tenferro's kernel pool.  Once
those kernels are loaded (``blas_kernels``), ``set_blas_threads``/``get_blas_threads``
go through their BLAS gate (``_kernels/_blas_gate.h``): a set waits for the kernels'
BLAS calls in flight in other threads, and a get reports the count between calls.
"""
import contextlib
import ctypes
import os
import sys
import threading

_lock = threading.Lock()
_state = None  # dict once probed
_load_lock = threading.Lock()
# The kernel module whose BLAS gate sets and reads the count (blas_kernels.load puts
# _matmul here); None before the BLAS kernels load.
_kernel_threads = None
_spin = None   # how SciPy's OpenBLAS spins, once load_library() ran (scipy_blas_spin)
# What SciPy's OpenBLAS is to read from the environment when it loads, unless the user
# set it: tenferro/__init__.py puts its OPENBLAS_THREAD_TIMEOUT (the threads' short spin)
# here, as it sets it for the runtimes that load during ``import tenferro``.
load_env = {}


def load_library():
    """Load SciPy's BLAS and LAPACK (import ``scipy.linalg.cython_blas`` and
    ``cython_lapack``), once.  OpenBLAS reads ``OPENBLAS_THREAD_TIMEOUT`` when it
    loads: unless the environment has it, tenferro's short spin (``load_env``) is set
    for the import and removed afterwards, as ``import tenferro`` does for the runtimes
    it loads."""
    global _spin
    if _spin is not None:
        return
    key = "OPENBLAS_THREAD_TIMEOUT"
    with _load_lock:
        if _spin is not None:
            return
        if key in os.environ:
            spin = "set by you (%s=%s)" % (key, os.environ[key])
        elif "scipy.linalg" in sys.modules or key not in load_env:
            spin = "long"             # loaded already, or nothing to set: the default
        else:
            spin = "short"
            os.environ[key] = load_env[key]
        try:
            import scipy.linalg.cython_blas  # noqa: F401
            import scipy.linalg.cython_lapack  # noqa: F401
        finally:
            if spin == "short":
                os.environ.pop(key, None)
        _spin = spin


def loaded():
    """Whether ``load_library()`` ran (probing the BLAS no longer loads anything)."""
    return _spin is not None


def scipy_blas_spin():
    """How long SciPy's OpenBLAS threads (tenferro's BLAS) spin after a call: "short"
    (loaded by tenferro, which shortened it), "long" (SciPy's BLAS was loaded before
    tenferro's first matmul or linalg call: OpenBLAS's default), "set by you", or
    "not loaded" (no matmul or linalg call yet)."""
    return _spin or "not loaded"


def _loaded_libraries():
    """Paths of shared libraries mapped into this process (Linux only)."""
    paths = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) == 6:
                    p = parts[5].strip()
                    if p.startswith("/") and ".so" in p and p not in paths:
                        paths.append(p)
    except OSError:
        pass
    return paths


def _scipy_blas_config():
    try:
        import scipy

        cfg = scipy.show_config(mode="dicts")
        return cfg.get("Build Dependencies", {}).get("blas", {}) or {}
    except Exception:
        return {}


def _candidates(cfg):
    """Loaded BLAS-like libraries, the one SciPy's cython_blas uses first."""
    libs = _loaded_libraries()
    try:
        import scipy

        scipy_dir = os.path.dirname(os.path.dirname(os.path.abspath(scipy.__file__)))
    except Exception:
        scipy_dir = None
    name = (cfg.get("name") or "").replace("-", "_").lower()
    libdir = cfg.get("lib directory") or ""

    def rank(p):
        base = os.path.basename(p).lower()
        if "numpy.libs" in p:          # numpy's own (ILP64) copy: a different library
            return 9
        if scipy_dir and p.startswith(os.path.join(scipy_dir, "scipy.libs")):
            return 0
        if libdir and libdir != "unknown" and p.startswith(libdir):
            return 1
        if name and name in base:
            return 2
        return 3

    keys = ("openblas", "mkl_rt", "mkl_core", "libblas", "blis", "flexiblas")
    cands = [p for p in libs if any(k in os.path.basename(p).lower() for k in keys)]
    cands.sort(key=rank)
    return cands


def _find(lib, names):
    for n in names:
        try:
            return getattr(lib, n)
        except AttributeError:
            continue
    return None


def _variants(stem, prefixes=("scipy_openblas_", "openblas_"), suffixes=("", "64_", "_64")):
    return [p + stem + s for p in prefixes for s in suffixes]


def _probe():
    try:
        load_library()
    except Exception:
        pass
    cfg = _scipy_blas_config()
    mode = getattr(os, "RTLD_NOLOAD", 0) | getattr(os, "RTLD_LOCAL", 0)
    for path in _candidates(cfg):
        try:
            lib = ctypes.CDLL(path, mode=mode)
        except OSError:
            continue
        setf = _find(lib, _variants("set_num_threads"))
        getf = _find(lib, _variants("get_num_threads"))
        if setf is not None and getf is not None:
            setf.argtypes, setf.restype = [ctypes.c_int], None
            getf.argtypes, getf.restype = [], ctypes.c_int
            version = cfg.get("version")
            conf = _find(lib, _variants("get_config"))
            config = None
            if conf is not None:
                conf.argtypes, conf.restype = [], ctypes.c_char_p
                try:
                    config = conf().decode("ascii", "replace").strip()
                except Exception:
                    config = None
                if config and not version:
                    parts = config.split()
                    version = parts[1] if len(parts) > 1 else None
            par = _find(lib, _variants("get_parallel"))
            threading_ = None
            if par is not None:
                par.argtypes, par.restype = [], ctypes.c_int
                threading_ = {0: "sequential", 1: "pthreads", 2: "openmp"}.get(par(), None)
            return dict(name=cfg.get("name") or "openblas", version=version,
                        library_path=path, threading=threading_, config=config,
                        _set=setf, _get=getf)
        setf = _find(lib, ["MKL_Set_Num_Threads"])
        getf = _find(lib, ["MKL_Get_Max_Threads"])
        if setf is not None and getf is not None:
            setf.argtypes, setf.restype = [ctypes.c_int], None
            getf.argtypes, getf.restype = [], ctypes.c_int
            return dict(name=cfg.get("name") or "mkl", version=cfg.get("version"),
                        library_path=path, threading="mkl", config=None,
                        _set=setf, _get=getf)
    return dict(name=cfg.get("name"), version=cfg.get("version"), library_path=None,
                threading=None, config=None, _set=None, _get=None)


def _info():
    global _state
    if _state is None:
        with _lock:
            if _state is None:
                try:
                    _state = _probe()
                except Exception:  # never fail: threading control is optional
                    _state = dict(name=None, version=None, library_path=None,
                                  threading=None, config=None, _set=None, _get=None)
    return _state


def blas_info():
    """``dict(name, version, library_path, threading)`` of the BLAS SciPy uses.

    ``library_path``/``threading`` are ``None`` when the library or its threading
    API was not found (then thread control is a no-op).
    """
    s = _info()
    return dict(name=s["name"], version=s["version"], library_path=s["library_path"],
                threading=s["threading"])


def get_blas_threads():
    """The BLAS's thread count, or ``None`` when it cannot be queried.  While a
    tenferro kernel in another thread holds BLAS at one thread for a batch, the count
    it will have again afterwards."""
    g = _info()["_get"]
    if g is None:
        return None
    k = _kernel_threads
    n = k.get_blas_threads() if k is not None else None
    return int(g()) if n is None else n


def set_blas_threads(n):
    """Set the BLAS thread count (``n >= 1``); does nothing when unsupported."""
    n = int(n)
    if n < 1:
        raise ValueError("tenferro.set_blas_threads: expected n >= 1, got %d" % n)
    s = _info()["_set"]
    if s is None:
        return
    k = _kernel_threads
    if k is None or not k.set_blas_threads(n):   # waits for the kernels' calls in flight
        s(n)


@contextlib.contextmanager
def blas_threads(n):
    """``with blas_threads(1): ...`` runs the block with ``n`` BLAS threads."""
    old = get_blas_threads()
    set_blas_threads(n)
    try:
        yield
    finally:
        if old is not None:
            set_blas_threads(old)


def _thread_fn_addresses():
    """``(set_addr, get_addr)``: C pointers ``void(int)`` / ``int(void)``, or ``(0, 0)``."""
    s = _info()
    if s["_set"] is None or s["_get"] is None:
        return 0, 0
    return (ctypes.cast(s["_set"], ctypes.c_void_p).value or 0,
            ctypes.cast(s["_get"], ctypes.c_void_p).value or 0)
