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
"""
import os
import re
import sys
import glob
import shutil
import subprocess
import tempfile

import numpy
from setuptools import setup, Extension

HERE = os.path.dirname(os.path.abspath(__file__))
KDIR = os.path.join("tenferro", "_kernels")
ADIR_TAPE = os.path.join("tenferro", "autograd", "_tape.pyx")
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
    exts = []
    # the kernels, the compiled core of the eager autodiff engine (autograd/_tape.pyx)
    # and the eager elementwise fast path (_ops/_fastpath.pyx)
    pyxs = sorted(glob.glob(os.path.join(KDIR, "*.pyx"))) + [ADIR_TAPE, OPS_FAST]
    for pyx in pyxs:
        name = os.path.splitext(os.path.basename(pyx))[0]
        if only and name not in only:
            continue
        exts.append(Extension(
            os.path.splitext(pyx)[0].replace(os.sep, "."), [pyx],
            include_dirs=[numpy.get_include(), KDIR],
            define_macros=macros,
            extra_compile_args=cflags, extra_link_args=ldflags, libraries=libs))
    from Cython.Build import cythonize

    return cythonize(
        exts, language_level=3, nthreads=int(os.environ.get("TENFERRO_CYTHON_JOBS", "0")),
        compile_time_env={"TENFERRO_HAVE_OPENMP": openmp},
        compiler_directives={"boundscheck": False, "wraparound": False,
                             "cdivision": True, "initializedcheck": False,
                             "nonecheck": False, "embedsignature": True})


setup(ext_modules=extensions())
