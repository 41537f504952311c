"""Sphinx configuration of tenferro's documentation site.

Build (warnings are errors): ``python -m sphinx -W -b html docs docs/_build/html``
(``pip install -e ".[docs]"`` first).  The chapters are the Markdown pages in this
folder (MyST), the API reference is generated from the numpydoc docstrings
(``docs/api/``), and the gallery runs ``examples/plot_*.py`` and captures their figures
(sphinx-gallery).  tests/test_docs_build.py runs this build in CI.
"""
import os
import sys
import warnings

import tenferro
# SciPy's OpenBLAS is tenferro's BLAS: loaded by tenferro first, it gets tenferro's short
# thread spin.  The gallery runs every example in this process, and an example that
# imports scipy.optimize or scikit-learn first would otherwise load it with OpenBLAS's
# long default spin, whose idle threads then slow tenferro's kernels several-fold
# (docs/performance.md, "BLAS-bound calls beside NumPy").
import tenferro.linalg  # noqa: E402,F401

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

project = "tenferro"
author = "the tenferro developers"
copyright = "2026, the tenferro developers"
version = release = tenferro.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "matplotlib.sphinxext.plot_directive",   # figures drawn by code on a page
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "examples", "**/README.md",
                    "auto_examples/*.ipynb", "auto_examples/*.py", "auto_examples/*.zip",
                    "auto_examples/*.md5", "auto_examples/*.pickle", "sg_execution_times.rst"]
templates_path = ["_templates"]
html_static_path = ["_static"]

# ---- Markdown chapters (MyST) -------------------------------------------------------
myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3          # [text](page.md#a-heading) links resolve
suppress_warnings = ["myst.header"]   # pages that open with a level-2 heading

# ---- API reference -------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"        # the numpydoc Parameters sections say the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = set()   # tests/test_docstrings.py is the check

# ---- intersphinx ---------------------------------------------------------------------
# Each project's own inventory first; offline (CI without the internet), the inventory
# written by docs/_inv/make_inventories.py from the installed packages' public names and
# each site's URL scheme (a missing target then renders as plain text, never an error).
_inv = os.path.join(HERE, "_inv")
intersphinx_mapping = {
    "numpy": ("https://numpy.org/doc/stable/", (None, os.path.join(_inv, "numpy.inv"))),
    "scipy": ("https://docs.scipy.org/doc/scipy/", (None, os.path.join(_inv, "scipy.inv"))),
    "sklearn": ("https://scikit-learn.org/stable/", (None, os.path.join(_inv, "sklearn.inv"))),
    "torch": ("https://docs.pytorch.org/docs/stable/", (None, os.path.join(_inv, "torch.inv"))),
    "jax": ("https://docs.jax.dev/en/latest/", (None, os.path.join(_inv, "jax.inv"))),
}
intersphinx_timeout = 5

# ---- gallery ---------------------------------------------------------------------------
os.environ.setdefault("WGPU_BACKEND_TYPE", "Vulkan")
sphinx_gallery_conf = {
    "examples_dirs": os.path.join(ROOT, "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "matplotlib_animations": False,
    "abort_on_example_error": True,    # an example that raises fails the build
    "only_warn_on_example_error": False,
    "show_memory": False,
    "image_scrapers": ("matplotlib",),
    "within_subsection_order": "FileNameSortKey",
    # sphinx-gallery skips an example whose source did not change since its last run;
    # tests/test_docs_build.py sets this so that every example runs against the
    # tenferro being tested
    "run_stale_examples": os.environ.get("TENFERRO_DOCS_RUN_ALL") == "1",
}
warnings.filterwarnings("ignore", category=UserWarning,
                        message="Matplotlib is currently using agg")

# figures drawn by ```{plot} blocks (complex_gradients.md): PNG only, no source links
plot_formats = [("png", 110)]
plot_html_show_formats = False
plot_html_show_source_link = False
plot_rcparams = {"figure.autolayout": True}

# ---- HTML ------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = "tenferro"
html_logo = None
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "icon_links": [{"name": "tenferro-rs (Rust)",
                    "url": "https://github.com/tensor4all/tenferro-rs",
                    "icon": "fa-brands fa-github"}],
    "secondary_sidebar_items": ["page-toc"],
}
html_sidebars = {"index": [], "for_*": []}
html_show_sourcelink = False

# ---- the API reference's pages, from each module's __all__ (docs/_api_pages.py) --------
sys.path.insert(0, HERE)
import _api_pages  # noqa: E402

_api_pages.write(os.path.join(HERE, "api"))
