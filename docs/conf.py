"""Sphinx configuration of ember's documentation site.

    pip install -e ".[docs]" && python -m sphinx -W -b html docs docs/_build/html

Tutorials are MyST notebooks (docs/tutorials/*.md) that myst-nb executes on every build, so their
outputs are what this ember prints today and a broken example fails the build (-W). The reference is
autodoc over the public modules, grouped by docs/_ext/ember_api.py.
"""

import os
import pathlib
import sys

DOCS = pathlib.Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))  # the ember of this checkout, installed or not
sys.path.insert(0, str(DOCS / "_ext"))
# The notebooks' kernels start in docs/tutorials/; they import the same ember.
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
# One BLAS thread in the kernels: the tutorials' arrays are small, and on a busy machine idle BLAS
# threads spinning for work made training several times slower (measured: 6x on 2 shared cores).
for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(variable, "1")

import ember  # noqa: E402

project = "ember"
author = "the ember authors"
copyright = "the ember authors"
release = version = ember.__version__

extensions = [
    "myst_nb",  # MyST markdown + notebooks executed at build time
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",  # the docstrings' "Args:" / "Returns:" sections
    "sphinx.ext.viewcode",
    "sphinx_copybutton",
    "ember_api",
    "ember_differences",
    "ember_docstrings",
]

exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints", "jupyter_execute"]

# ---------------------------------------------------------------- MyST and notebook execution
myst_enable_extensions = ["colon_fence", "deflist"]
# No math markup: MathJax would load from a CDN, and the site must read the same offline.
myst_heading_anchors = 3
nb_execution_mode = "force"  # every build runs every tutorial: outputs never go stale
nb_execution_raise_on_error = True  # a cell that raises (unless tagged raises-exception) fails the build
nb_execution_show_tb = True  # ... and the traceback is in the build log
nb_execution_timeout = 300
nb_merge_streams = True

# ---------------------------------------------------------------- reference (autodoc)
autosummary_generate = False  # one page per group (docs/reference), not one per function
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "signature"
autodoc_inherit_docstrings = False  # a Module's forward() need not repeat Module.forward's text
napoleon_google_docstring = True
napoleon_numpy_docstring = False
# Docstrings write `code` with single backquotes, as Markdown does.
default_role = "code"
# Cross-references to objects outside the documented set (e.g. numpy.ndarray in a signature) stay plain text.
nitpicky = False

# ---------------------------------------------------------------- HTML
html_theme = "furo"
html_title = f"ember {release}"
html_theme_options = {"navigation_with_keys": True}
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
