"""Import time of tenferro beside ``import numpy, scipy.linalg`` (docs/performance.md,
"Import time").

Each statement runs in fresh interpreters, ``--runs`` times in turn (median and best
printed): the time the import statement itself takes (measured inside the process) and
the wall time of the whole process (interpreter start-up included).  The interpreters
may write and read bytecode caches (``PYTHONDONTWRITEBYTECODE`` is dropped, and one
untimed run per statement writes them), as an installed package's are.  Then
``python -X importtime``'s largest entries under ``import tenferro``, with NumPy already
imported, so the list shows what tenferro's own modules cost.

    python asv_bench/import_time.py [--runs 11] [--top 15]
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = [("import numpy", "import numpy"),
         ("import numpy, scipy.linalg", "import numpy, scipy.linalg"),
         ("import tenferro", "import tenferro")]
_TIMED = "import time; t = time.perf_counter(); %s; print(time.perf_counter() - t)"


def _run(args):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return subprocess.run([sys.executable] + args, env=env, cwd=ROOT, check=True,
                          capture_output=True, text=True)


def import_times(stmts, runs):
    """{stmt: (in-process import times, process wall times)} in seconds, ``runs`` of
    each, the statements run in turn (a busy machine slows them alike)."""
    for stmt in stmts:
        _run(["-c", stmt])   # writes the bytecode caches
    times = {s: ([], []) for s in stmts}
    for _ in range(runs):
        for stmt in stmts:
            t = time.perf_counter()
            inner = float(_run(["-c", _TIMED % stmt]).stdout)
            times[stmt][0].append(inner)
            times[stmt][1].append(time.perf_counter() - t)
    return times


def importtime_top(top):
    """The ``top`` largest cumulative -X importtime entries below ``import tenferro``."""
    err = _run(["-X", "importtime", "-c", "import numpy; import tenferro"]).stderr
    lines = err.splitlines()
    start = next(i for i, l in enumerate(lines) if l.rstrip().endswith("| tenferro")) + 1
    for i in range(start - 2, -1, -1):   # -X importtime prints a module after its imports
        if not lines[i].split("|")[-1].startswith("  "):
            break
    rows = []
    for line in lines[i + 1:start]:
        _, self_us, cum_us, name = [p.strip() for p in line.replace(":", "|", 1).split("|")]
        rows.append((int(cum_us), int(self_us), name))
    return sorted(rows, reverse=True)[:top]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    print("%-28s %20s %20s" % ("statement", "import median/best", "process median/best"))
    times = import_times([stmt for _, stmt in CASES], args.runs)
    for label, stmt in CASES:
        cells = ["%9.0f/%.0f ms" % (1e3 * statistics.median(t), 1e3 * min(t))
                 for t in times[stmt]]
        print("%-28s %20s %20s" % (label, *cells))
    print("\n-X importtime below `import tenferro` (NumPy imported first):")
    print("%10s %10s  module" % ("cum (ms)", "self (ms)"))
    for cum, own, name in importtime_top(args.top):
        print("%10.1f %10.1f  %s" % (cum / 1e3, own / 1e3, name))


if __name__ == "__main__":
    main()
