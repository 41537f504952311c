"""Write the offline intersphinx inventories docs/conf.py falls back on.

The site links NumPy's, SciPy's, scikit-learn's, PyTorch's and JAX's functions through
each project's own ``objects.inv`` when the build can reach it.  Offline (a CI machine
without the internet), docs/conf.py reads the files this script writes instead: one entry per
public function or class, at the address each project's API pages have (their
autosummary pages, ``<module>.<name>.html``).  A name missing here renders as plain
text, never as a wrong link or a build error.

Run from the repository root after adding references to new names:
``python docs/_inv/make_inventories.py``.  NumPy's, SciPy's and scikit-learn's names
are read from the installed packages; PyTorch's and JAX's (not installed with the
docs) from the references the docs and docstrings make, found by a regular expression.
"""
import importlib
import inspect
import os
import re
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# project -> (modules whose public names are listed, the page address of "mod.name")
INSTALLED = {
    "numpy": (["numpy", "numpy.linalg", "numpy.fft"],
              "reference/generated/{name}.html#{name}"),
    "numpy.random": (["numpy.random"], "reference/random/generated/{name}.html#{name}"),
    "sklearn": (["sklearn.gaussian_process", "sklearn.gaussian_process.kernels",
                 "sklearn.linear_model"], "modules/generated/{name}.html#{name}"),
    "scipy": (["scipy.linalg", "scipy.special", "scipy.fft", "scipy.optimize",
               "scipy.integrate", "scipy.sparse.linalg", "scipy.stats", "scipy.signal"],
              "reference/generated/{name}.html#{name}"),
}
REFERENCED = {
    "torch": (r"(?<![\w./])torch(?:\.[A-Za-z_][A-Za-z0-9_]*)+", "generated/{name}.html#{name}"),
    "jax": (r"(?<![\w./])jax(?:\.[A-Za-z_][A-Za-z0-9_]*)+", "_autosummary/{name}.html#{name}"),
}
# module names the references also match: they have no page of this form
MODULES = {"torch.autograd", "torch.fft", "torch.func", "torch.linalg", "torch.nn",
           "torch.nn.functional", "torch.cuda", "torch.special", "jax.nn", "jax.numpy",
           "jax.scipy", "jax.lax", "jax.random", "jax.tree_util", "jax.scipy.linalg"}
# names that are not functions or classes (dtypes, ...)
NOT_OBJECTS = {"torch.bool", "torch.float32", "torch.float64", "torch.complex64",
               "torch.complex128", "torch.int32", "torch.int64"}


def _public(modname):
    mod = importlib.import_module(modname)
    for name in getattr(mod, "__all__", None) or dir(mod):
        if name.startswith("_"):
            continue
        obj = getattr(mod, name, None)
        if inspect.isclass(obj):
            yield "%s.%s" % (modname, name), "class"
        elif callable(obj):
            yield "%s.%s" % (modname, name), "function"


def _referenced(pattern):
    names = set()
    for top in ("docs", "tenferro", "examples"):
        for folder, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                if f.endswith((".py", ".md", ".rst", ".pyx")):
                    with open(os.path.join(folder, f), errors="replace") as fh:
                        names.update(m.rstrip(".") for m in re.findall(pattern, fh.read()))
    return sorted(n for n in names if n not in MODULES | NOT_OBJECTS
                  and not n.endswith((".py", ".html", ".inv")))


def _write(project, entries):
    """objects.inv for ``entries``: (name, role, address pattern) triples."""
    lines = ["# Sphinx inventory version 2", "# Project: %s" % project, "# Version: ",
             "# The remainder of this file is compressed using zlib."]
    body = "".join("%s py:%s 1 %s -\n" % (name, role, address.format(name=name))
                   for name, role, address in sorted(set(entries)))
    with open(os.path.join(HERE, project + ".inv"), "wb") as f:
        f.write(("\n".join(lines) + "\n").encode())
        f.write(zlib.compress(body.encode()))
    print("%s: %d names" % (project, len(set(entries))))


def main():
    numpy_random = INSTALLED["numpy.random"]
    for project, (modules, address) in INSTALLED.items():
        if project == "numpy.random":
            continue   # written into numpy's inventory, at its own addresses
        entries = [(n, r, address) for m in modules for n, r in _public(m)]
        if project == "numpy":
            entries += [(n, r, numpy_random[1]) for n, r in _public(numpy_random[0][0])]
        _write(project, entries)
    for project, (pattern, address) in REFERENCED.items():
        _write(project, [(n, "function", address) for n in _referenced(pattern)])


if __name__ == "__main__":
    main()
