"""The layer order of docs/design.md, enforced: no module imports from a layer above its
own, at module level or inside a function (an AST walk over every import; needs no
build).  Also: only the CPU driver and the CPU implementations extensions register
(linalg) import the Cython kernels, and no module imports at its bottom."""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1] / "tenferro"

# Bottom first; a module belongs to the longest matching prefix.  A module may import
# from its own layer and those below it.
LAYERS = [
    ["tenferro._kernels"],                                     # L0 compute only
    ["tenferro._errors", "tenferro._dtypes", "tenferro._catalog", "tenferro._tree",
     "tenferro._versions", "tenferro._tensor", "tenferro._ir", "tenferro._primitive",
     "tenferro._fused", "tenferro._caches"],                                       # L1 vocabulary
    ["tenferro.devices"],                                      # L2 drivers
    ["tenferro._ops", "tenferro.random"],                      # L3 public ops
    ["tenferro.graph"],                                        # L4 compiler
    ["tenferro.autograd", "tenferro.batching", "tenferro._lazy"],  # L5 autodiff, vmap, lazy
    ["tenferro.linalg", "tenferro.special", "tenferro.fft", "tenferro.array_api",
     "tenferro.nn"],                                           # L6
    ["tenferro", "tenferro.dask"],                             # L7 the package, Dask
]
# (importer, imported) pairs still to fix: empty, and it must stay so
ALLOWED = set()
# who may import tenferro._kernels (tenferro/_kernels/CONTRACT.md)
KERNEL_USERS = ("tenferro.devices.cpu", "tenferro.linalg", "tenferro.special", "tenferro.nn")


def _layer(mod):
    return max((len(p), i) for i, ps in enumerate(LAYERS) for p in ps
               if mod == p or mod.startswith(p + "."))[1]


def _modules():
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        yield path, ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path, mod):
    """(line, imported module) for every import statement of the file."""
    is_pkg = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = mod.split(".")
                base = parts[:len(parts) - (not is_pkg) - (node.level - 1)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module
            for a in node.names:   # `from . import _ops` imports the module tenferro._ops
                sub = ROOT.parent.joinpath(*(name + "." + a.name).split("."))
                is_mod = sub.is_dir() or any(sub.with_suffix(s).exists()
                                             for s in (".py", ".pyx"))
                yield node.lineno, name + "." + a.name if is_mod else name


def test_every_module_has_a_layer():
    for _, mod in _modules():
        assert any(mod == p or mod.startswith(p + ".") for ps in LAYERS for p in ps), mod


def test_no_upward_imports():
    bad = set()
    for path, mod in _modules():
        for line, dep in _imports(path, mod):
            if dep.startswith("tenferro") and _layer(dep) > _layer(mod) \
                    and (mod, dep) not in ALLOWED:
                bad.add("%s:%d imports %s (layer %d > %d)"
                        % (path.relative_to(ROOT.parent), line, dep, _layer(dep), _layer(mod)))
    assert not bad, "upward imports:\n" + "\n".join(sorted(bad))


def test_allow_list_is_empty():
    assert not ALLOWED, "the layer test's allow-list must end empty: %s" % sorted(ALLOWED)


def test_kernels_are_imported_only_by_their_users():
    bad = set()
    for path, mod in _modules():
        if mod.startswith("tenferro._kernels"):
            continue
        for line, dep in _imports(path, mod):
            if dep.startswith("tenferro._kernels") and not mod.startswith(KERNEL_USERS):
                bad.add("%s:%d imports %s" % (path.relative_to(ROOT.parent), line, dep))
    assert not bad, "only %s may import tenferro._kernels:\n%s" % (
        ", ".join(KERNEL_USERS), "\n".join(sorted(bad)))


def test_no_import_after_code():
    """Imports sit at the top of a module (after its docstring and ``__future__``/
    environment set-up) -- a bottom-of-file import hides a cycle."""
    bad = []
    for path, mod in _modules():
        body = ast.parse(path.read_text()).body
        seen_def = False
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
                seen_def = True
            elif seen_def and isinstance(node, (ast.Import, ast.ImportFrom)):
                bad.append("%s:%d" % (path.relative_to(ROOT.parent), node.lineno))
    assert not bad, "imports after the first def/class:\n" + "\n".join(bad)


def test_the_checker_sees_an_upward_import(tmp_path):
    """The walk resolves relative imports, function-local ones included (a check that
    could never fail would prove nothing)."""
    pkg = tmp_path / "x.py"
    pkg.write_text("def f():\n    from ..autograd import _engine\n")
    deps = [d for _, d in _imports(pkg, "tenferro._ops.x")]
    assert deps == ["tenferro.autograd._engine"]
    assert _layer(deps[0]) > _layer("tenferro._ops.x")
