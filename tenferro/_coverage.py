"""What each device driver supports: a Markdown table generated from the drivers' own
declarations (``Driver.supports(op, dtype)``), so the documentation cannot drift.

``python -m tenferro._coverage`` prints the table;
``python -m tenferro._coverage --write docs/devices.md`` rewrites the part of
that file between the markers ``<!-- coverage:start -->`` and ``<!-- coverage:end -->``;
``--check docs/devices.md`` exits 1 when those markers are missing or the table there is
stale (CI runs it: the device tests skip only what that table documents).
"""
import importlib.util
import pkgutil
import sys

import tenferro.autograd  # noqa: F401  (registers every rule)
import tenferro.linalg  # noqa: F401  (an extension: its primitives are in the table)
import tenferro.special  # noqa: F401  (another)
import tenferro.fft  # noqa: F401  (another)
import tenferro.nn  # noqa: F401  (another)

from . import _dtypes, _primitive

if importlib.util.find_spec("dask") is not None:   # an optional extension (tenferro[dask])
    import tenferro.dask  # noqa: F401
from .devices import __path__ as _DEVICES_PATH, _BUILTIN_SKIP, get_driver

START = "<!-- coverage:start -->"
END = "<!-- coverage:end -->"

# short names of tenferro's dtypes, in tenferro's order
_SHORT = {"bool": "bool", "int32": "i32", "int64": "i64", "float32": "f32",
          "float64": "f64", "complex64": "c64", "complex128": "c128"}


def builtin_kinds():
    """tenferro's own driver modules (``tenferro/devices/<name>.py``), CPU first.

    Entry-point drivers are left out so the table is the same on every machine."""
    names = sorted(m.name for m in pkgutil.iter_modules(_DEVICES_PATH)
                   if not m.name.startswith("_") and m.name not in _BUILTIN_SKIP)
    return sorted(names, key=lambda n: n != "cpu")


def _primitives():
    # extensions register their primitives on import (above): included for a stable table
    # names starting with "_" are private (tests register such scratch primitives)
    return {n: p for n, p in sorted(_primitive.registry.items()) if not n.startswith("_")}


def _cell(driver, prim, name):
    if prim.impl is not None:
        return "any device"
    dtypes = [d for d in _dtypes.DTYPES if driver.supports(name, d)]
    if not dtypes:
        return "-"
    if len(dtypes) == len(_dtypes.DTYPES):
        return "all"
    return " ".join(_SHORT.get(d.name, d.name) for d in dtypes)


def coverage_table(kinds=None):
    """A Markdown table: one row per public primitive of ``tenferro._primitive.registry``
    (tenferro's, tenferro.linalg's and any other imported extension's), one
    column per driver in ``kinds`` (default: tenferro's own drivers), each cell the
    dtypes that driver supports for that primitive ("all", "-" for none, "any device"
    for the device-independent primitives that no driver implements).  Drivers that are
    not in this build are left out; the table does not depend on the hardware."""
    prims = _primitives()  # first: extensions may add implementations to drivers
    drivers = []
    for kind in (builtin_kinds() if kinds is None else list(kinds)):
        try:
            drivers.append((kind, get_driver(kind)))
        except ValueError:  # no such driver in this build
            continue
    lines = ["| primitive | " + " | ".join("`%s`" % k for k, _ in drivers) + " |",
             "|---|" + "---|" * len(drivers)]
    for name, prim in prims.items():
        lines.append("| `%s` | " % name
                     + " | ".join(_cell(d, prim, name) for _, d in drivers) + " |")
    legend = ("dtypes: " + ", ".join("%s = %s" % (s, n) for n, s in _SHORT.items() if s != n)
              + '; "all": every tenferro dtype; "-": not supported (raises '
              "`UnsupportedOperation`); \"any device\": runs above the drivers.")
    return "\n".join(lines) + "\n\n" + legend + "\n"


def replace_section(text, table):
    """``text`` with the part between the coverage markers replaced by ``table``;
    ValueError when the markers are missing or out of order."""
    i = text.find(START)
    j = text.find(END)
    if i < 0 or j < 0 or j < i:
        raise ValueError("tenferro._coverage: expected the markers %s and %s (in "
                         "this order) in the file" % (START, END))
    return text[:i + len(START)] + "\n" + table + text[j:]


def section(text):
    """The text between the coverage markers (without the markers), or None."""
    i = text.find(START)
    j = text.find(END)
    if i < 0 or j < 0 or j < i:
        return None
    return text[i + len(START):j]


def main(argv=None):
    import argparse

    p = argparse.ArgumentParser(prog="python -m tenferro._coverage",
                                description="Print (or write into a Markdown file) the "
                                            "table of what each device driver supports.")
    p.add_argument("--write", metavar="FILE",
                   help="rewrite FILE's section between %s and %s" % (START, END))
    p.add_argument("--check", metavar="FILE",
                   help="exit 1 if FILE lacks the markers or its table is stale")
    p.add_argument("--kinds", nargs="*", help="driver names (default: tenferro's own)")
    args = p.parse_args(argv)
    table = coverage_table(args.kinds)
    if args.check:
        with open(args.check, encoding="utf-8") as f:
            current = section(f.read())
        if current is None:
            sys.stderr.write("%s: expected the markers %s and %s (in this order)\n"
                             % (args.check, START, END))
            return 1
        if current.strip() != table.strip():
            sys.stderr.write("%s: the coverage table is stale: run python -m "
                             "tenferro._coverage --write %s\n"
                             % (args.check, args.check))
            return 1
        print("%s: coverage table current" % args.check)
        return 0
    if not args.write:
        sys.stdout.write(table)
        return 0
    with open(args.write, encoding="utf-8") as f:
        text = f.read()
    try:
        new = replace_section(text, table)
    except ValueError as e:
        sys.stderr.write("%s: %s\n" % (args.write, e))
        return 1
    if new != text:
        with open(args.write, "w", encoding="utf-8") as f:
            f.write(new)
    print("%s: coverage table %s" % (args.write, "updated" if new != text else "unchanged"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
