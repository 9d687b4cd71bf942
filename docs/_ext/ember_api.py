"""The `ember-api` directive (for MyST pages): one group of a reference page, listed from the code, not typed by hand.

    ```{ember-api} ember
    :from: ember.ops.elementwise ember.ops.pointwise
    ```

documents the public names of `ember` (its `__all__`, or its public attributes) whose objects are
defined in those modules: a summary table, then each object's docstring. ember declares each op
family in its own module, so grouping by defining module gives PyTorch's groups ("Pointwise Ops",
"Reduction Ops", ...) and a new op joins its group's page by itself. Other options:

* `:names: a b c`: these names, in this order (for objects with no `__module__`, e.g. dtypes);
* `:remaining:`: every public name of the module not yet documented on this page, so that nothing
  public is left out when a family module is added;
* `:exclude-from: modules` / `:exclude: names`: leave these out (e.g. in-place variants);
* `:members:`: classes are documented with their public methods and attributes.
"""

import importlib
import inspect

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles


def public_names(module):
    """The objects a module offers, by name: its `__all__`, else its public attributes; submodules
    have pages of their own."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [name for name in dir(module) if not name.startswith("_")]
    return [name for name in dict.fromkeys(names) if not inspect.ismodule(getattr(module, name))]


def defined_in(obj, prefixes):
    """Whether `obj` is written in one of the modules `prefixes` (a published op: where its body is)."""
    home = getattr(inspect.unwrap(obj) if inspect.isfunction(obj) else obj, "__module__", None)
    return isinstance(home, str) and any(home == prefix or home.startswith(prefix + ".") for prefix in prefixes)


def directive_for(obj):
    if inspect.isclass(obj):
        return "autoclass"
    if callable(obj):
        return "autofunction"
    return "autodata"


class EmberApi(SphinxDirective):
    required_arguments = 1
    has_content = False
    option_spec = {
        "from": str,
        "names": str,
        "remaining": lambda argument: True,
        "exclude-from": str,
        "exclude": str,
        "members": lambda argument: True,
    }

    def run(self):
        module_name = self.arguments[0]
        module = importlib.import_module(module_name)
        on_this_page = self.env.temp_data.setdefault("ember_api_documented", {})
        first_group = module_name not in on_this_page  # the module's page: links to it land here
        documented = on_this_page.setdefault(module_name, set())
        names = self._select(module, documented)
        if not names:
            if "remaining" in self.options:
                return []  # every name has its place above
            raise self.error(f"ember-api {module_name}: no names selected (options {sorted(self.options)})")
        documented.update(names)
        lines = [
            f".. py:module:: {module_name}" if first_group else f".. currentmodule:: {module_name}",
            "",
            ".. autosummary::",
            "   :nosignatures:",
            "",
        ]
        lines += [f"   {name}" for name in names]
        lines.append("")
        for name in names:
            kind = directive_for(getattr(module, name))
            lines.append(f".. {kind}:: {name}")
            if kind == "autoclass" and "members" in self.options:
                lines.append("   :members:")
            if kind == "autodata":
                lines.append("   :no-value:")
            lines.append("")
        # The pages are MyST markdown: the generated reStructuredText goes through its eval-rst fence.
        markdown = ["```{eval-rst}", *lines, "```"]
        container = nodes.container()
        nested_parse_with_titles(self.state, StringList(markdown, source=f"<ember-api {module_name}>"), container)
        return container.children

    def _select(self, module, documented):
        public = public_names(module)
        excluded = set(self.options.get("exclude", "").split())
        exclude_from = self.options.get("exclude-from", "").split()
        if exclude_from:
            excluded.update(name for name in public if defined_in(getattr(module, name), exclude_from))
        if "names" in self.options:
            names = self.options["names"].split()
            unknown = [name for name in names if not hasattr(module, name)]
            if unknown:
                raise self.error(f"ember-api {module.__name__}: no such names {unknown}")
        elif "from" in self.options:
            prefixes = self.options["from"].split()
            names = [name for name in public if defined_in(getattr(module, name), prefixes)]
        elif "remaining" in self.options:
            names = [name for name in public if name not in documented]
        else:
            raise self.error("ember-api needs :names:, :from: or :remaining:")
        return [name for name in names if name not in excluded and name not in documented]


def setup(app):
    app.add_directive("ember-api", EmberApi)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
