"""The generated docstrings of the elementwise ops and reductions stay true.

Their per-op data (tenferro/_ops/_elementwise_doc.py, _reduction_doc.py) repeats facts
held elsewhere: which ops the catalog has and whether they are differentiable, the
source of each derivative rule (quoted from the comments of the rule files), and the
example outputs.  These tests hold the copies to the originals.
"""
import inspect
import pathlib
import re
import warnings

import numpy as np
import pytest

import tenferro as tf
from tenferro._catalog import BINARY, UNARY
from tenferro._ops import _elementwise_doc as ewdoc, _reduction_doc as reddoc

RULES = pathlib.Path(tf.__file__).parent / "autograd" / "_rules"


def _rules_text(name):
    return (RULES / name).read_text()


def test_every_catalog_op_has_a_doc_row():
    assert set(ewdoc.UNARY_DOC) == set(UNARY)
    assert set(ewdoc.BINARY_DOC) == set(BINARY)


@pytest.mark.parametrize("name", sorted(set(UNARY) | set(BINARY)))
def test_rule_source_is_quoted_from_the_rules(name):
    """A differentiable op cites the comment above its rule; the others cite none."""
    spec = UNARY.get(name) or BINARY[name]
    row = (ewdoc.UNARY_DOC.get(name) or ewdoc.BINARY_DOC[name])
    src = row[3]
    if not spec.differentiable:
        assert src is None
        return
    assert src and src in _rules_text("elementwise.py"), src


def _reduction_sources():
    for name, row in reddoc.ROWS.items():
        for src in re.findall(r"(?:PyTorch|JAX) [\w.]+ \w+|PyTorch cumprod_backward",
                              row["diff"]):
            yield name, src


@pytest.mark.parametrize("name,src", list(_reduction_sources()))
def test_reduction_rule_sources_are_in_the_rules(name, src):
    assert src in _rules_text("structural.py"), (name, src)


@pytest.mark.parametrize("name,aliases", sorted(ewdoc.ALIASES.items()))
def test_aliases_are_the_same_functions(name, aliases):
    fn = getattr(tf, ewdoc.PUBLIC.get(name, name))
    for a in aliases:
        assert getattr(tf, a) is fn
        assert getattr(tf.array_api, a, fn) is fn


_REFERENCE = {"rsqrt": lambda x: 1 / np.sqrt(x), "round": np.rint,
              "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
              "erf": lambda x: np.vectorize(__import__("math").erf)(x)}


def _shown(text):
    return eval(text.replace("tensor(", "np.array("), {"np": np, "nan": np.nan,
                                                       "inf": np.inf})


@pytest.mark.parametrize("name", sorted(set(UNARY) | set(BINARY)))
def test_elementwise_examples_agree_with_numpy(name):
    """The example output in the docstring is NumPy's answer (values and dtype)."""
    row = ewdoc.UNARY_DOC.get(name) or ewdoc.BINARY_DOC[name]
    ex = row[4] if name in BINARY else (row[4],)
    args = [np.asarray(eval(e, {"np": np})) for e in ex]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.asarray(_REFERENCE.get(name, getattr(np, name, None))(*args))
    shown = _shown(row[5])
    np.testing.assert_allclose(shown, want, rtol=1e-8, equal_nan=True)
    got = getattr(tf, ewdoc.PUBLIC.get(name, name))(*[tf.asarray(a) for a in args])
    assert got.dtype == want.dtype


@pytest.mark.parametrize("name", ["argmax", "argmin", "cumsum", "cumprod", "var", "std"])
def test_out_wrappers_show_their_signature(name):
    """The ``out=`` wrappers present the function's parameters and ``out`` (what the
    API reference and numpydoc's parameter check read)."""
    fn = getattr(tf, name)
    params = inspect.signature(fn).parameters
    assert list(params)[0] == "x" and params["out"].kind is inspect.Parameter.KEYWORD_ONLY
    out = tf.zeros((), dtype=fn(tf.asarray([1.0, 3.0, 2.0])).dtype) \
        if name not in ("cumsum", "cumprod") else tf.zeros(3)
    r = fn(tf.asarray([1.0, 3.0, 2.0]), out=out)
    assert r is out


def test_dtype_table_follows_the_type_rule():
    """The docstring's dtype table is the op's own type resolution."""
    assert "bool -> float32; int32, int64 -> float64" in tf.exp.__doc__
    assert "bool" in tf.negative.__doc__.split("Raises")[1].split("Notes")[0]
    assert "complex" in tf.erf.__doc__.split("Raises")[1].split("Notes")[0]


# The hand-written and row-made examples of these functions, run by NumPy itself
# (``tf`` bound to numpy): what the docstring shows must be NumPy's answer.
_NUMPY_TWINS = sorted(set(reddoc.ROWS) | {
    "where", "clip", "real", "imag", "angle", "round", "average", "cov", "corrcoef",
    "bincount", "histogram", "trapezoid", "cross", "polyval", "interp"})


@pytest.mark.parametrize("name", _NUMPY_TWINS)
def test_examples_agree_with_numpy(name):
    import doctest

    doc = inspect.getdoc(getattr(tf, name))
    examples = doctest.DocTestParser().get_examples(doc)
    assert examples
    env = {"np": np, "tf": np}
    for ex in examples:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if not ex.want:
                exec(ex.source, env)
                continue
            got = eval(ex.source, env)
        shown = _shown(ex.want)
        if isinstance(shown, tuple):
            assert isinstance(got, tuple) and len(got) == len(shown)
        else:
            got, shown = (got,), (shown,)
        for g, s in zip(got, shown):
            np.testing.assert_allclose(np.asarray(s), np.asarray(g), rtol=1e-8,
                                       equal_nan=True)
            assert np.asarray(g).dtype.kind == np.asarray(s).dtype.kind, (name, ex.source)
