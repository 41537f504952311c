"""Build tenferro's Cython kernels.

Every ``tenferro/_kernels/*.pyx.tp`` is rendered with Tempita into a ``.pyx``
(generated, never committed), then every ``.pyx`` there becomes one extension
module compiled with ``-O3`` and OpenMP (``_tape.pyx``, the eager autodiff tape's
compiled core, and ``_ops/_fastpath.pyx``, the elementwise ops' eager fast path, are
built the same way: they have no loops for the flags to matter).
A ``*.pxi.tp`` is rendered the same way into a ``.pxi`` that a module ``include``s
(``_lapack.pyx`` is put together from one per routine family), and a template line
``{{include "NAME"}}`` is replaced by the text of NAME beside it before rendering
(Tempita definitions that several templates share, as ``_lapack_defs.tpi``).

Environment knobs:

* ``TENFERRO_MARCH`` -- value for ``-march`` (default ``native``: tenferro is built
  from source on the machine that runs it, and SIMD math (libmvec) is 3x faster with
  AVX2/AVX-512 than with the x86-64 baseline).  ``TENFERRO_MARCH=none`` drops the flag.
* ``TENFERRO_NO_OPENMP=1`` -- build without OpenMP (tenferro then runs on one thread).
* ``TENFERRO_EXT=_elementwise,_reduce`` -- build only these modules (kernel development).
* ``TENFERRO_DEBUG_INFO=1`` -- keep the C debug information (``-g``, from Python's flags),
  which the build otherwise drops (``-g0``).
* ``TENFERRO_CYTHON_JOBS=N`` -- Cython processes (default: one per core); ``build_ext -j N``
  sets the C compiler jobs (default: one per core).

The build is parallel and incremental (see README.md, "Building"): Cython regenerates a
``.c`` only when its ``.pyx`` or something it includes or cimports is newer, the C compiler
runs only for a module whose ``.c`` (or a header it uses) is newer than its library, and an
editable install (whose build folder is fresh each time) reuses an in-place library that
is up to date instead of compiling it again.  The compile configuration (flags, macros,
Cython and NumPy versions) is kept per module in ``build/tenferro-config/``; a module
whose configuration changed is generated and compiled again.
"""
import os
import re
import sys
import glob
import shutil
import subprocess
import tempfile
import threading
import time

import numpy
from setuptools import setup, Extension
from setuptools.command.build_ext import build_ext
from setuptools.modified import newer_group

HERE = os.path.dirname(os.path.abspath(__file__))
KDIR = os.path.join("tenferro", "_kernels")
ADIR_TAPE = os.path.join("tenferro", "autograd", "_tape.pyx")
CONFIG_DIR = os.path.join(HERE, "build", "tenferro-config")
JOBS = os.cpu_count() or 1
OPS_FAST = os.path.join("tenferro", "_ops", "_fastpath.pyx")


INCLUDE = re.compile(r'^\{\{include "([^"]+)"\}\}\n', re.M)


def read_template(path):
    """The text of template path, each ``{{include "NAME"}}`` line replaced by the text
    of the file NAME in the same folder (recursively)."""
    with open(path) as f:
        src = f.read()
    here = os.path.dirname(path)
    return INCLUDE.sub(lambda m: read_template(os.path.join(here, m.group(1))), src)


def render_templates(only=()):
    """Render the templates (with TENFERRO_EXT, only those modules' ``.pyx.tp``; the
    included ``.pxi.tp`` always, as it is not known here which module includes them)."""
    from Cython import Tempita

    for tp in glob.glob(os.path.join(HERE, KDIR, "*.tp")):
        target = tp[:-3]
        if (only and target.endswith(".pyx")
                and os.path.basename(target).split(".")[0] not in only):
            continue
        text = Tempita.sub(read_template(tp))
        header = "# Generated from %s by setup.py: do not edit.\n" % os.path.basename(tp)
        text = header + text
        old = open(target).read() if os.path.exists(target) else None
        if old != text:
            with open(target, "w") as f:
                f.write(text)


def compiler_has_openmp():
    if os.environ.get("TENFERRO_NO_OPENMP"):
        return False
    cc = os.environ.get("CC", "cc")
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "t.c")
        with open(src, "w") as f:
            f.write("#include <omp.h>\nint main(void){return omp_get_max_threads() > 0 ? 0 : 1;}\n")
        try:
            r = subprocess.run([cc, "-fopenmp", src, "-o", os.path.join(d, "t")],
                               capture_output=True)
        except OSError:
            return False
        return r.returncode == 0


def have_libmvec():
    cc = os.environ.get("CC", "cc")
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "t.c")
        with open(src, "w") as f:
            f.write("int main(void){return 0;}\n")
        try:
            r = subprocess.run([cc, src, "-lmvec", "-o", os.path.join(d, "t")],
                               capture_output=True)
        except OSError:
            return False
        return r.returncode == 0


def extensions():
    only = [s for s in os.environ.get("TENFERRO_EXT", "").split(",") if s]
    render_templates(only)
    openmp = compiler_has_openmp()
    march = os.environ.get("TENFERRO_MARCH", "native")
    cflags = ["-O3", "-fno-math-errno", "-fno-trapping-math", "-Wno-unused-function",
              "-Wno-maybe-uninitialized", "-Wno-unreachable-code"]
    if not os.environ.get("TENFERRO_DEBUG_INFO"):
        cflags.append("-g0")  # Python's -g: 13% of the compile time, objects 5x larger
    if march and march != "none":
        cflags.append("-march=" + march)
    ldflags = []
    libs = ["m"]
    if have_libmvec():
        libs.insert(0, "mvec")
    if openmp:
        cflags.append("-fopenmp")
        ldflags.append("-fopenmp")
    else:
        cflags.append("-fopenmp-simd")
        print("tenferro: compiler without OpenMP; kernels will run on one thread",
              file=sys.stderr)
    macros = [("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION"),
              ("TENFERRO_HAVE_OPENMP", "1" if openmp else "0")]
    directives = {"boundscheck": False, "wraparound": False, "cdivision": True,
                  "initializedcheck": False, "nonecheck": False, "embedsignature": True}
    cython_env = {"TENFERRO_HAVE_OPENMP": openmp}
    config = configuration_text(cflags, ldflags, libs, macros, cython_env, directives)
    exts = []
    # the kernels, the compiled core of the eager autodiff engine (autograd/_tape.pyx)
    # and the eager elementwise fast path (_ops/_fastpath.pyx)
    pyxs = sorted(glob.glob(os.path.join(KDIR, "*.pyx"))) + [ADIR_TAPE, OPS_FAST]
    for pyx in pyxs:
        name = os.path.splitext(os.path.basename(pyx))[0]
        if only and name not in only:
            continue
        note_configuration(pyx, config)
        exts.append(Extension(
            os.path.splitext(pyx)[0].replace(os.sep, "."), [pyx],
            # its own headers (_special.h, _special_math.h, ...), nested includes too
            depends=sorted(glob.glob(os.path.join(KDIR, name + "*.h"))),
            include_dirs=[numpy.get_include(), KDIR],
            define_macros=macros,
            extra_compile_args=cflags, extra_link_args=ldflags, libraries=libs))
    from Cython.Build import cythonize

    return cythonize(
        exts, language_level=3,
        nthreads=int(os.environ.get("TENFERRO_CYTHON_JOBS", JOBS)),
        compile_time_env=cython_env, compiler_directives=directives)


def configuration_text(cflags, ldflags, libs, macros, cython_env, directives):
    """What a module's generated C and library depend on besides its sources."""
    import Cython

    return "\n".join("%s: %r" % kv for kv in [
        ("cflags", cflags), ("ldflags", ldflags), ("libraries", libs), ("macros", macros),
        ("compile_time_env", sorted(cython_env.items())),
        ("directives", sorted(directives.items())),
        ("Cython", Cython.__version__), ("numpy", numpy.__version__)]) + "\n"


def note_configuration(pyx, config):
    """Record the configuration a module is built with; when it differs from the last
    build's, remove the module's generated ``.c`` so that Cython and the C compiler run
    again (their timestamp checks do not see flags, macros or versions)."""
    stamp = os.path.join(CONFIG_DIR, pyx.replace(os.sep, ".") + ".txt")
    old = open(stamp).read() if os.path.exists(stamp) else None
    if old == config:
        return
    c_file = os.path.splitext(pyx)[0] + ".c"
    if os.path.exists(c_file):
        os.remove(c_file)
    os.makedirs(CONFIG_DIR, exist_ok=True)
    with open(stamp, "w") as f:
        f.write(config)


class BuildExt(build_ext):
    """``build_ext`` with one C compiler job per core unless ``-j`` says otherwise, a
    progress line per module, and reuse of an up-to-date in-place module when the build
    folder lacks it (an editable install builds in a fresh temporary folder each time)."""

    def finalize_options(self):
        if self.parallel is None:
            self.parallel = JOBS
        super().finalize_options()

    def run(self):
        self._reuse_inplace = bool(self.inplace)  # run() clears inplace while building
        self._lock = threading.Lock()
        self._started = 0
        self._compiled = 0
        t0 = time.perf_counter()
        super().run()
        self._say("%d modules, %d compiled in %.0f s (%s jobs)" % (
            len(self.extensions), self._compiled, time.perf_counter() - t0,
            self.parallel or 1))

    def build_extensions(self):
        # the largest generated C first: the compile jobs then end at about the same time
        self.extensions.sort(key=lambda e: -sum(os.path.getsize(s) for s in e.sources
                                                if os.path.exists(s)))
        super().build_extensions()

    def _say(self, msg):
        with self._lock:
            print("tenferro: " + msg, flush=True)

    def build_extension(self, ext):
        name = ext.name.rsplit(".", 1)[-1]
        with self._lock:
            self._started += 1
            step = "(%d/%d)" % (self._started, len(self.extensions))
        depends = list(ext.sources) + list(ext.depends)
        built = self.get_ext_fullpath(ext.name)
        inplace = os.path.join(HERE, self.get_ext_filename(ext.name))
        if not self.force and not newer_group(depends, built, "newer"):
            self._say("%s is up to date %s" % (name, step))
            return
        if (not self.force and self._reuse_inplace and os.path.exists(inplace)
                and not newer_group(depends, inplace, "newer")):
            os.makedirs(os.path.dirname(built), exist_ok=True)
            shutil.copy2(inplace, built)
            self._say("%s is up to date in place %s" % (name, step))
            return
        self._say("compiling %s %s" % (name, step))
        t0 = time.perf_counter()
        super().build_extension(ext)
        with self._lock:
            self._compiled += 1
        self._say("compiled %s in %.0f s" % (name, time.perf_counter() - t0))


if __name__ == "__main__":  # Cython's worker processes may import this file (spawn)
    setup(ext_modules=extensions(), cmdclass={"build_ext": BuildExt})
