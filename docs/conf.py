"""Sphinx configuration of contactcp's documentation (built in CI with warnings as errors:
``sphinx-build -W -b html docs docs/_build``)."""

import os
import sys

sys.path.insert(0, os.path.abspath("../src"))
os.environ.setdefault("MPLBACKEND", "Agg")

from contactcp._version import __version__  # noqa: E402

project = "contactcp"
author = "the contactcp developers"
release = version = __version__
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "matplotlib.sphinxext.plot_directive",
]
autodoc_member_order = "bysource"
autodoc_typehints = "none"
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_custom_sections = [("Options", "params_style"), ("Stats", "params_style"), ("Status", "notes_style")]
plot_include_source = False
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 90)]
html_theme = "alabaster"
html_theme_options = {"description": "Certified rigid-body contact with Coulomb friction", "fixed_sidebar": True}
exclude_patterns = ["_build"]
nitpicky = False
suppress_warnings = ["ref.python"]
