"""The package as users and tools meet it: ``tenferro.__all__`` complete (so help()
lists the functions), submodules imported lazily on first access (PEP 562) and what a
bare ``import tenferro`` leaves out, the pip metadata of pyproject.toml, ``py.typed``,
and ``mypy --strict`` on the typed user scripts (tests/typing/*.py)."""
import ast
import importlib.util
import inspect
import os
import pathlib
import pydoc
import subprocess
import sys
import tomllib
import types

import pytest

import tenferro as tf

ROOT = pathlib.Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())

# public names deliberately left out of tenferro.__all__, with the reason: none so far
NOT_IN_ALL = {
    "dask": "an optional subpackage that imports Dask: `import tenferro.dask` sets it",
}


def _run(code, **kw):
    """Run ``code`` in a fresh interpreter importing this tree's tenferro."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", code], cwd=str(ROOT), env=env,
                          capture_output=True, text=True, **kw)


def test_all_is_complete_and_resolves():
    public = {n for n in dir(tf) if not n.startswith("_")}
    missing = public - set(tf.__all__) - set(NOT_IN_ALL)
    assert not missing, "public names missing from tenferro.__all__: %s" % sorted(missing)
    for name in tf.__all__:
        assert hasattr(tf, name), name
    assert len(tf.__all__) == len(set(tf.__all__))
    for name in ("einsum", "matmul", "save", "load", "grad", "jit", "Tensor", "linalg",
                 "autograd", "random", "devices", "graph", "float64", "newaxis"):
        assert name in tf.__all__, name
    for name in tf.__all__:   # submodules in __all__ are tenferro's own
        value = getattr(tf, name)
        if isinstance(value, types.ModuleType):
            assert value.__name__ == "tenferro." + name, name


def test_help_lists_the_functions_and_submodules():
    text = pydoc.render_doc(tf, renderer=pydoc.plaintext)
    functions = text.split("\nFUNCTIONS\n")[1].split("\nDATA\n")[0]
    for name in ("einsum(", "matmul(", "sum(", "save(", "load(", "asarray(", "grad("):
        assert name in functions, name
    assert "cholesky(" not in functions   # tenferro.linalg's, not the top level's
    contents = text.split("\nPACKAGE CONTENTS\n")[1].split("\n\n")[0]
    for sub in ("linalg (package)", "autograd (package)", "random"):  # linalg: a submodule
        assert sub in contents, sub


def test_linalg_is_lazy_and_reachable_after_a_bare_import():
    code = """if 1:
        import sys
        import tenferro as tf
        heavy = ["tenferro.linalg", "tenferro.demo", "tenferro.devices.webgpu",
                 "tenferro.devices.cuda", "wgpu", "torch", "cotengra", "hypothesis",
                 "opt_einsum", "scipy", "scipy.linalg", "scipy.special", "scipy.sparse",
                 "scipy.optimize", "scipy.stats", "tenferro._kernels._matmul",
                 "tenferro._kernels._lapack", "numpy.random", "importlib.metadata"]
        print(sorted(m for m in heavy if m in sys.modules))
        c = tf.linalg.cholesky(tf.asarray([[4.0, 2.0], [2.0, 3.0]]), lower=True)
        print("tenferro.linalg" in sys.modules, tf.linalg is sys.modules["tenferro.linalg"])
        print(round(float(c[1, 1]), 12))
        print("linalg" in dir(tf), hasattr(tf, "no_such_thing"))
    """
    r = _run(code)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "[]", "import tenferro imported: %s" % lines[0]
    assert lines[1] == "True True"
    assert lines[2] == str(round(2 ** 0.5, 12))
    assert lines[3] == "True False"


def test_a_bare_import_leaves_scipy_and_the_blas_kernels_out():
    """``import tenferro`` imports neither SciPy nor the kernels calling its BLAS (nor
    numpy.random, importlib.metadata): the first product imports them, set up as an
    eager import did (tenferro's short OpenBLAS spin, the BLAS thread count set before,
    the module itself in the CPU ops' globals), and tenferro.linalg the LAPACK ones."""
    code = """if 1:
        import os, sys
        os.environ.pop("OPENBLAS_THREAD_TIMEOUT", None)
        import tenferro as tf
        from tenferro.devices.cpu import blas, ops
        lazy = ["scipy", "scipy.linalg", "scipy.linalg.cython_blas", "numpy.random",
                "importlib.metadata", "tenferro._kernels._matmul", "tenferro._kernels._lapack"]
        print(sorted(m for m in lazy if m in sys.modules), blas.scipy_blas_spin())
        tf.set_num_threads(1)
        print(sorted(m for m in lazy if m in sys.modules))
        a = tf.asarray([[1.0, 2.0], [3.0, 4.0]])
        print((a @ a).tolist(), ops._mm is sys.modules["tenferro._kernels._matmul"])
        print(blas.scipy_blas_spin(), blas.get_blas_threads() in (None, 1),
              "OPENBLAS_THREAD_TIMEOUT" in os.environ, "tenferro._kernels._lapack" in sys.modules)
        print(round(float(tf.linalg.det(a)), 12), tf.random.normal(size=2).shape)
    """
    r = _run(code)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "[] not loaded", "import tenferro imported: %s" % lines[0]
    assert lines[1] == "[]", "set_num_threads imported: %s" % lines[1]
    assert lines[2] == "[[7.0, 10.0], [15.0, 22.0]] True"
    assert lines[3] == "short True False True"
    assert lines[4] == "-2.0 (2,)"


def test_unknown_attribute_raises_attribute_error():
    with pytest.raises(AttributeError, match="module 'tenferro' has no attribute 'nope'"):
        tf.nope


def test_lazy_table_matches_the_type_checking_imports():
    """Type checkers do not run __getattr__: each lazy submodule is imported in the
    ``if _typing.TYPE_CHECKING:`` block of tenferro/__init__.py as well."""
    tree = ast.parse((ROOT / "tenferro" / "__init__.py").read_text())
    typed = set()
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "_typing.TYPE_CHECKING":
            for imp in node.body:
                if isinstance(imp, ast.ImportFrom) and imp.level == 1 and imp.module is None:
                    typed.update(a.asname or a.name for a in imp.names)
    assert typed == set(tf._LAZY_SUBMODULES)
    for name, module in tf._LAZY_SUBMODULES.items():
        assert module == "tenferro." + name and importlib.util.find_spec(module), name


def test_pip_metadata():
    project = PYPROJECT["project"]
    assert project["readme"] == "README.md" and (ROOT / "README.md").exists()
    assert project["license"] == "MIT OR Apache-2.0"
    assert project["license-files"] == ["LICENSE-MIT", "LICENSE-APACHE"]   # as tenferro-rs
    mit = (ROOT / "LICENSE-MIT").read_text()
    assert mit.startswith("MIT License\n\nCopyright (c) 2026 tenferro contributors\n")
    apache = (ROOT / "LICENSE-APACHE").read_text()
    assert apache.split()[:4] == ["Apache", "License", "Version", "2.0,"]
    assert "END OF TERMS AND CONDITIONS" in apache and len(apache.splitlines()) == 202
    classifiers = project["classifiers"]
    assert "Typing :: Typed" in classifiers
    assert any(c.startswith("Development Status") for c in classifiers)
    assert not any(c.startswith("License ::") for c in classifiers)   # PEP 639: the expression
    readme = (ROOT / "README.md").read_text()
    for url in project["urls"].values():   # only URLs the README itself gives
        assert url in readme, url
    assert project["version"] == tf.__version__


def test_py_typed_ships():
    assert (ROOT / "tenferro" / "py.typed").exists()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["tenferro"]


# -- type hints ------------------------------------------------------------------------

ANNOTATED = ["asarray", "zeros", "ones", "arange", "linspace", "eye", "sum", "mean",
             "matmul", "einsum", "reshape", "transpose", "concatenate", "stack", "grad",
             "value_and_grad", "vjp", "jvp", "save", "load", "take", "take_along_axis",
             "where", "nonzero", "argwhere", "sort", "argsort", "unique", "median", "var",
             "full", "zeros_like", "squeeze", "vstack", "split", "pad", "dot", "tensordot",
             "nansum", "average", "astype", "trapezoid", "device", "get_num_threads",
             "set_num_threads", "hessian", "jacrev", "checkpoint", "stop_gradient"]
ANNOTATED_LINALG = ["cholesky", "solve", "eigh", "svd", "qr", "norm", "lstsq", "det", "inv",
                    "slogdet", "eigvalsh", "svdvals", "lu_factor", "lu_solve", "pinv", "expm",
                    "eig", "eigvals", "solve_triangular", "cho_factor", "cho_solve", "lu"]
ANNOTATED_RANDOM = ["default_rng", "seed", "normal", "uniform", "integers", "get_state",
                    "set_state"]


def _annotated(fn):
    """Every parameter and the return annotated (what mypy --strict asks of a callee)."""
    sig = inspect.signature(fn)
    return sig.return_annotation is not sig.empty and all(
        p.annotation is not p.empty for p in sig.parameters.values() if p.name != "self")


def test_the_public_api_users_call_most_is_annotated():
    import tenferro.linalg as tl

    missing = [n for n in ANNOTATED if not _annotated(getattr(tf, n))]
    missing += ["linalg." + n for n in ANNOTATED_LINALG if not _annotated(getattr(tl, n))]
    missing += ["random." + n for n in ANNOTATED_RANDOM if not _annotated(getattr(tf.random, n))]
    missing += ["jit." + n for n in ("__init__", "__call__") if not _annotated(getattr(tf.jit, n))]
    missing += ["Tensor." + n for n in ("item", "numpy", "__len__", "__float__")
                if not _annotated(getattr(tf.Tensor, n))]
    assert not missing, "not annotated: %s" % missing


# public functions without annotations, as "module.name": none left
NOT_ANNOTATED = set()


def test_every_public_function_is_annotated():
    """Every function tenferro, tenferro.linalg, tenferro.random, tenferro.special,
    tenferro.fft, tenferro.nn, tenferro.batching, tenferro.graph, tenferro.autograd.extend and the
    Array API namespace (tenferro.array_api, its linalg and fft) export is annotated,
    but NOT_ANNOTATED and those typed through a declaration: the generated elementwise
    functions (tenferro/_ops/elementwise.py's TYPE_CHECKING block) and the quantile
    family (made by one annotated factory: ``Callable[..., Tensor]``)."""
    import tenferro.linalg as tl
    from tenferro._ops import elementwise, quantiles

    declared = set(elementwise.UNARY) | set(elementwise.BINARY)
    factory_made = {"quantile", "percentile", "nanquantile", "nanpercentile"}
    assert _annotated(quantiles._public)
    import tenferro.autograd.extend as extend
    import tenferro.array_api.fft as xp_fft
    import tenferro.array_api.linalg as xp_linalg
    import tenferro.graph as graph

    modules = (tf, tl, tf.random, tf.special, tf.fft, tf.nn, tf.batching, graph, extend,
               tf.array_api, xp_linalg, xp_fft)
    missing, checked = [], 0
    for mod in modules:
        for n in mod.__all__:
            f, name = getattr(mod, n), mod.__name__ + "." + n
            if inspect.isfunction(f):
                checked += 1
                if (f.__name__ not in declared and n not in factory_made
                        and name not in NOT_ANNOTATED and not _annotated(f)):
                    missing.append(name)
    assert checked > 450 and not missing, "not annotated: %s" % missing
    still = [n for n in NOT_ANNOTATED
             if _annotated(getattr(importlib.import_module(n.rpartition(".")[0]),
                                   n.rpartition(".")[2]))]
    assert not still, "annotated now: drop %s from NOT_ANNOTATED" % still


def _type_checking_block(tree):
    """The statements of the ``if TYPE_CHECKING:`` (or ``_typing.TYPE_CHECKING``) blocks
    directly under ``tree`` (a module or class) that declare rather than import."""
    body = [n for node in tree.body if isinstance(node, ast.If)
            and ast.unparse(node.test) in ("TYPE_CHECKING", "_typing.TYPE_CHECKING")
            for n in node.body
            if not isinstance(n, (ast.Import, ast.ImportFrom))]
    assert body, "no TYPE_CHECKING block of declarations"
    return body


def test_declared_tensor_methods_match_the_attached_ones():
    """The methods the layers above attach to Tensor, declared for type checkers in
    tenferro/_tensor.py, exist at run time with the declared parameters."""
    tree = ast.parse((ROOT / "tenferro" / "_tensor.py").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor")
    block = [n for n in _type_checking_block(cls) if isinstance(n, ast.FunctionDef)]
    assert len(block) > 50
    for fn in block:
        value = inspect.getattr_static(tf.Tensor, fn.name)
        assert value is not None, fn.name
        if isinstance(value, property) or not inspect.isfunction(value):
            continue   # a property, or a compiled operator without a signature
        declared = [a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs]
        declared += ["*" + fn.args.vararg.arg] if fn.args.vararg else []
        actual = [("*" if p.kind == p.VAR_POSITIONAL else "") + p.name
                  for p in inspect.signature(value).parameters.values()]
        assert sorted(declared) == sorted(actual), (fn.name, declared, actual)


def test_declared_elementwise_names_match_the_op_tables():
    """tenferro/_ops/elementwise.py declares the functions it generates for type
    checkers; tenferro/_ops/__init__.py lists its __all__ for them: both agree with
    what runs."""
    import tenferro._ops as ops
    from tenferro._ops import elementwise

    tree = ast.parse((ROOT / "tenferro" / "_ops" / "elementwise.py").read_text())
    declared = {t.id for n in _type_checking_block(tree) if isinstance(n, ast.Assign)
                for t in n.targets}
    generated = set(elementwise.UNARY) | set(elementwise.BINARY)
    aliases = {n for n in elementwise.__all__ if n not in generated
               and getattr(getattr(elementwise, n), "__name__", n) in generated}
    want = (generated | aliases) - {"round"}   # round is a def of its own
    assert declared == want, (
        "tenferro/_ops/elementwise.py's TYPE_CHECKING block: declare %s, drop %s"
        % (sorted(want - declared), sorted(declared - want)))
    tree = ast.parse((ROOT / "tenferro" / "_ops" / "__init__.py").read_text())
    typed = next(n for n in _type_checking_block(tree) if isinstance(n, ast.Assign))
    typed, runs = set(ast.literal_eval(typed.value)), set(ops.__all__)
    assert typed == runs, (
        "tenferro/_ops/__init__.py: the __all__ for type checkers lags the one that runs: "
        "add %s, drop %s" % (sorted(runs - typed), sorted(typed - runs)))


def test_array_api_type_checking_imports_match_its_tables():
    """tenferro/array_api/__init__.py fills its namespace from tenferro's ops at run time
    (_SAME, _RENAMED) and adds up its __all__; its TYPE_CHECKING blocks import the same
    names and spell out the same __all__ for type checkers."""
    import tenferro.array_api as xp

    tree = ast.parse((ROOT / "tenferro" / "array_api" / "__init__.py").read_text())
    imported = {a.asname or a.name: a.name for node in tree.body if isinstance(node, ast.If)
                and ast.unparse(node.test) == "TYPE_CHECKING" for imp in node.body
                if isinstance(imp, ast.ImportFrom) and imp.module == "_ops" and imp.level == 2
                for a in imp.names}
    want = dict({n: n for n in xp._SAME}, **xp._RENAMED)
    assert imported == want, (
        "tenferro/array_api/__init__.py's TYPE_CHECKING block: import %s, drop %s"
        % (sorted(want.items() - imported.items()), sorted(imported.items() - want.items())))
    typed = next(n for n in _type_checking_block(tree) if isinstance(n, ast.Assign))
    typed, runs = ast.literal_eval(typed.value), xp.__all__
    assert typed == runs, (
        "tenferro/array_api/__init__.py: the __all__ for type checkers lags the one that "
        "runs: add %s, drop %s" % (sorted(set(runs) - set(typed)), sorted(set(typed) - set(runs))))


def test_mypy_strict_on_a_typed_user_script(tmp_path):
    """The typed user scripts in tests/typing/ (user_script.py: the API users call most;
    everyday_script.py: indexing, where/nonzero, linalg, random, devices, sorting and
    quantiles, shapes, the other transforms; extensions_script.py: tenferro.special,
    tenferro.fft, vmap, the structural functions, the index types; array_api_script.py:
    the Array API namespace, through ``x.__array_namespace__()`` and imported) type-check
    under ``mypy --strict``.

    ``--follow-imports=silent``: mypy reads tenferro's modules for the types they
    declare but does not report errors inside them.  That is how mypy treats an
    installed package; run on this source tree, it would otherwise apply --strict to
    the bodies of tenferro's modules, whose internals are not annotated (the public
    functions are: an unannotated one would be a "Call to untyped function" here)."""
    pytest.importorskip("mypy")
    scripts = sorted((ROOT / "tests" / "typing").glob("*.py"))
    assert [s.name for s in scripts] == ["array_api_script.py", "everyday_script.py",
                                         "extensions_script.py", "user_script.py"]
    args = [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
            "--cache-dir", str(tmp_path / "mypy-cache")]
    r = subprocess.run(args + [str(s) for s in scripts], cwd=str(ROOT), capture_output=True,
                       text=True, env=dict(os.environ, MYPYPATH=str(ROOT)), timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    # ... and the scripts run, their asserts holding at run time too
    for script in scripts:
        r = _run(script.read_text())
        assert r.returncode == 0, r.stderr
    # mypy reads tenferro's types (nothing silently Any): wrong uses are reported
    bad = tmp_path / "bad.py"
    bad.write_text("import tenferro as tf\n"
                   "s: str = tf.zeros(3)\n"
                   "n: str = tf.ones(2).shape\n"
                   "tf.no_such_function()\n"
                   "tf.linalg.cholesky(tf.eye(2), lower='yes')\n"
                   "w: tf.Tensor = tf.linalg.eigh(tf.eye(2))\n"
                   "tf.ones(2)['a']\n"
                   "tf.fft.fft(tf.ones(2), norm='orth')\n"
                   "tf.special.softmax(tf.ones(2), axis='a')\n"
                   "v: tf.Tensor = tf.special.logsumexp(tf.ones(2), return_sign=True)\n"
                   "tf.roll(tf.ones(2), 1.5)\n"
                   "tf.array_api.linalg.qr(tf.eye(2), mode='economic')\n"
                   "tf.array_api.sort(tf.ones(2), -1)\n"
                   "tf.ones(2).to_device('cpu', stream=1)\n")
    r = subprocess.run(args + [str(bad)], cwd=str(ROOT), capture_output=True, text=True,
                       env=dict(os.environ, MYPYPATH=str(ROOT)), timeout=900)
    for line in range(2, 15):
        assert "bad.py:%d: error" % line in r.stdout, r.stdout
