"""The documentation site builds with warnings as errors, gallery included.

One Sphinx build (docs/conf.py): the Markdown chapters, the API reference generated
from every public name's docstring, and the gallery, which runs each
``examples/plot_*.py`` (each asserts its result against an independent reference, so a
wrong result fails here too) and captures its figures.  In CI (TENFERRO_REQUIRE_OPTIONAL)
a missing Sphinx is a failure, not a skip.
"""
import os
import subprocess
import sys

import pytest

for _module in ("sphinx", "numpydoc", "myst_parser", "sphinx_gallery", "pydata_sphinx_theme",
                "matplotlib", "sklearn"):
    pytest.importorskip(_module, reason="the docs extra (pip install -e '.[docs]')")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = sorted(f for f in os.listdir(os.path.join(ROOT, "examples")) if f.startswith("plot_"))


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONWARNINGS="ignore::DeprecationWarning",
               TENFERRO_DOCS_RUN_ALL="1")   # every example runs, changed or not
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(out / "doctrees"), os.path.join(ROOT, "docs"), str(out / "html")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, "sphinx-build -W failed:\n%s\n%s" % (
        proc.stdout[-6000:], proc.stderr[-12000:])
    return out / "html"


def test_site_builds_with_warnings_as_errors(site):
    assert (site / "index.html").is_file()
    assert (site / "api" / "index.html").is_file()


def test_every_example_ran_and_drew(site):
    assert len(EXAMPLES) >= 6, EXAMPLES
    images = os.listdir(site / "_images")
    for name in EXAMPLES:
        stem = name[:-3]
        page = site / "auto_examples" / (stem + ".html")
        assert page.is_file(), "no gallery page for %s" % name
        drawn = [i for i in images if i.startswith("sphx_glr_%s_0" % stem)]
        assert drawn, "%s drew no figure" % name


def test_every_public_name_has_a_page(site):
    from test_docstrings import PUBLIC   # (the public names, as that test lists them)

    pages = set(os.listdir(site / "api" / "generated"))
    names_of = {}   # an object exported under several names has a page under one of them
    for modname, name, obj in PUBLIC:
        names_of.setdefault(id(obj), []).append("%s.%s.html" % (modname, name))
    missing = [names[0] for names in names_of.values() if not pages & set(names)]
    assert not missing, "public names without an API page: %s" % missing[:20]
