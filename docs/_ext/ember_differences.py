"""The `ember-differences` directive: every "Difference from PyTorch" that a docstring states.

ember's docstrings end with a "Difference(s) from PyTorch: ..." (or "Unlike PyTorch, ...") sentence
where the behaviour departs from PyTorch's. Collected at build time, the list on the differences page
cannot fall behind the code: a new difference documented in a docstring appears by itself.
"""

import importlib
import inspect
import pkgutil
import re

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

from ember_api import public_names

_STATEMENT = re.compile(r"(?:Differences? from PyTorch:\s*|(?=Unlike PyTorch\b))", re.IGNORECASE)


def public_modules(package_name):
    """`package_name` and its submodules whose dotted names have no private part."""
    package = importlib.import_module(package_name)
    names = [package_name] + [
        info.name
        for info in pkgutil.walk_packages(package.__path__, package_name + ".")
        if not any(part.startswith("_") for part in info.name.split("."))
    ]
    modules = []
    for name in names:
        try:
            modules.append(importlib.import_module(name))
        except ImportError:
            continue  # a module whose optional dependency is not installed here
    return modules


def stated_differences(package_name="ember"):
    """[(public name, text)]: each object (module, function, class) once, under its first public name."""
    seen, found = set(), []
    for module in public_modules(package_name):
        candidates = [(module.__name__, module)]
        candidates += [(f"{module.__name__}.{name}", getattr(module, name)) for name in public_names(module)]
        for qualified_name, obj in candidates:
            if id(obj) in seen or not (inspect.ismodule(obj) or inspect.isclass(obj) or callable(obj)):
                continue
            seen.add(id(obj))
            for paragraph in (inspect.getdoc(obj) or "").split("\n\n"):
                match = _STATEMENT.search(paragraph)
                if match:
                    text = " ".join(line.strip() for line in paragraph[match.end() :].splitlines())
                    found.append((qualified_name, text[0].upper() + text[1:]))
    return found


class EmberDifferences(SphinxDirective):
    has_content = False

    def run(self):
        lines = [f"- {{py:obj}}`{name}`: {text}" for name, text in stated_differences()]
        container = nodes.container()
        nested_parse_with_titles(self.state, StringList(lines, source="<ember-differences>"), container)
        return container.children


def setup(app):
    app.add_directive("ember-differences", EmberDifferences)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
