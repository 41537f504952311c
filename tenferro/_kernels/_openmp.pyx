# cython: language_level=3
"""OpenMP facts for tenferro's thread policy (tenferro/devices/cpu/threads.py decides; this only reports)."""

IF TENFERRO_HAVE_OPENMP:
    cimport openmp

    def have_openmp():
        """True when the kernels were compiled with OpenMP."""
        return True

    def max_threads():
        """omp_get_max_threads(): what OMP_NUM_THREADS / the runtime allow."""
        return openmp.omp_get_max_threads()

    def num_procs():
        return openmp.omp_get_num_procs()
ELSE:
    def have_openmp():
        return False

    def max_threads():
        return 1

    def num_procs():
        import os
        return os.cpu_count() or 1
