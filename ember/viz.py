"""Drawing the backward graph: Graphviz source in the book's convention, or a text tree.

    z = w * x + b
    dot = ember.viz.make_dot(z, params={"w": w, "x": x, "b": b, "z": z})
    dot.render("graph.svg")          # needs the Graphviz `dot` program (apt-get install graphviz)
    ember.viz.print_graph(z)         # no Graphviz needed

The picture (torchviz's layout, arrows in the forward direction):

* a Function node (`MulBackward0`, `MultiplyAddBackward`) is a grey rectangle labelled with its name;
* a tensor is an oval with its name (from `params`), shape and dtype: blue for leaves that require
  grad, green for the tensors drawn from, orange for saved tensors (`show_saved=True`);
* a leaf reaches the graph through its `AccumulateGrad` node, drawn as a rounded, lighter box.

Graphs recorded by `backward(create_graph=True)` (e.g. `make_dot(x.grad)`) draw the same way. For
large models, record which module call made each node and collapse each call into one box:

    with ember.viz.record_modules(model):
        loss = model(x).sum()
    ember.viz.make_dot(loss, params=dict(model.named_parameters()), collapse_modules=True)

Only the `dot` binary is used (through subprocess), not the `graphviz` Python package.
"""

import contextlib
import os
import shutil
import subprocess
import sys

from ._tensor import Tensor
from .autograd.function import AccumulateGrad, _SavedOutput

__all__ = ["make_dot", "print_graph", "record_modules", "Digraph", "GraphvizNotFoundError"]

_FUNCTION_STYLE = {"shape": "box", "style": "filled", "fillcolor": "lightgrey"}
_ACCUMULATE_STYLE = {"shape": "box", "style": "filled,rounded", "fillcolor": "gray92", "color": "gray50"}
_LEAF_STYLE = {"shape": "oval", "style": "filled", "fillcolor": "lightblue"}
_OUTPUT_STYLE = {"shape": "oval", "style": "filled", "fillcolor": "darkolivegreen1"}
_SAVED_STYLE = {"shape": "oval", "style": "filled", "fillcolor": "orange"}
_MODULE_STYLE = {"shape": "box3d", "style": "filled", "fillcolor": "lightyellow"}
_SAVED_EDGE = {"style": "dashed", "dir": "none"}


class GraphvizNotFoundError(RuntimeError):
    """The Graphviz `dot` program is not installed."""


# ---------------------------------------------------------------- Graphviz source
def _quote(text):
    escaped = str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _attributes(attrs):
    return " ".join(f"{key}={_quote(value)}" for key, value in attrs.items())


class Digraph:
    """Graphviz source of a directed graph, with the part of `graphviz.Digraph`'s API that
    drawings need: `node`, `edge`, `.source`, `save`, `pipe` and `render`."""

    def __init__(self, name="autograd", graph_attr=None, node_attr=None):
        self.name = name
        self.graph_attr = dict(graph_attr or {})
        self.node_attr = dict(node_attr or {})
        self.body = []

    def node(self, name, label=None, **attrs):
        """Add a node `name` (with `label` and Graphviz attributes such as `fillcolor`)."""
        if label is not None:
            attrs = {"label": label, **attrs}
        self.body.append(f"\t{_quote(name)} [{_attributes(attrs)}]")

    def edge(self, tail_name, head_name, **attrs):
        """Add an edge from `tail_name` to `head_name`, with Graphviz attributes."""
        suffix = f" [{_attributes(attrs)}]" if attrs else ""
        self.body.append(f"\t{_quote(tail_name)} -> {_quote(head_name)}{suffix}")

    @property
    def source(self):
        """The graph as Graphviz DOT text."""
        lines = [f"digraph {_quote(self.name)} {{"]
        if self.graph_attr:
            lines.append(f"\tgraph [{_attributes(self.graph_attr)}]")
        if self.node_attr:
            lines.append(f"\tnode [{_attributes(self.node_attr)}]")
        lines.extend(self.body)
        lines.append("}")
        return "\n".join(lines) + "\n"

    def __str__(self):
        return self.source

    def save(self, filename):
        """Write the Graphviz source to `filename` (readable by `dot` and online viewers)."""
        with open(filename, "w", encoding="utf-8") as file:
            file.write(self.source)
        return filename

    def pipe(self, format="svg"):
        """The drawing as bytes in `format` ("svg", "png", "pdf", ...), made by the `dot` program."""
        dot = shutil.which("dot")
        if dot is None:
            raise GraphvizNotFoundError(
                "rendering needs the Graphviz 'dot' program, which is not installed (on Debian/Ubuntu: "
                "`apt-get install graphviz`; elsewhere see https://graphviz.org/download/). Without it, save the "
                "source with .save('graph.dot'), or print the graph as text with ember.viz.print_graph(tensor)."
            )
        completed = subprocess.run(
            [dot, f"-T{format}"], input=self.source.encode("utf-8"), capture_output=True, check=False
        )
        if completed.returncode != 0:
            raise RuntimeError(f"dot -T{format} failed: {completed.stderr.decode(errors='replace').strip()}")
        return completed.stdout

    def render(self, filename="autograd_graph", format=None):
        """Draw the graph into a file and return its path. The format comes from `format` or from
        the file's extension (.svg, .png, .pdf); without either it is SVG and '.svg' is appended."""
        extension = os.path.splitext(filename)[1]
        if format is None:
            format = extension[1:] if extension else "svg"
        if extension[1:].lower() != format.lower():
            filename = f"{filename}.{format}"
        data = self.pipe(format)
        with open(filename, "wb") as file:
            file.write(data)
        return filename

    def _repr_svg_(self):
        """Jupyter shows the drawing when Graphviz is installed."""
        return self.pipe("svg").decode("utf-8") if shutil.which("dot") else None


# ---------------------------------------------------------------- walking the graph
def _names_of(params):
    """{id(tensor): name} from a dict or an iterable of (name, tensor) pairs (named_parameters())."""
    if params is None:
        return {}
    items = params.items() if isinstance(params, dict) else params
    return {id(tensor): name for name, tensor in items}


def _tensor_label(tensor, names, default=""):
    name = names.get(id(tensor), default)
    shape = "(" + ", ".join(str(size) for size in tensor._data.shape) + ("," if tensor._data.ndim == 1 else "") + ")"
    dtype = str(tensor.dtype).replace("torch.", "")
    return f"{name}\n{shape} {dtype}" if name else f"{shape} {dtype}"


def _roots(output):
    tensors = list(output) if isinstance(output, (tuple, list)) else [output]
    for tensor in tensors:
        if not isinstance(tensor, Tensor):
            raise TypeError(f"make_dot: expected a Tensor or a tuple of Tensors, got {type(tensor).__name__}")
    return tensors


def _walk(roots):
    """Every node reachable from `roots` (tensors), parents before children, without recursion."""
    order, seen = [], set()
    stack = [tensor._grad_fn or tensor._grad_accumulator for tensor in roots]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)
        stack.extend(edge.node for edge in reversed(node._edges) if edge.node is not None)
    return order


def _module_of(node):
    metadata = node.metadata_dict
    return None if metadata is None else metadata.get("module_call")


class _Graph:
    """Nodes and edges before they become Graphviz source (so module calls can be collapsed)."""

    def __init__(self):
        self.nodes = {}  # key -> (label, style, module call or None)
        self.edges = []  # (tail key, head key, attrs)

    def add_node(self, key, label, style, module=None):
        self.nodes.setdefault(key, (label, style, module))

    def add_edge(self, tail, head, **attrs):
        self.edges.append((tail, head, attrs))


def _build(roots, names, show_attrs, show_saved, max_attr_chars):
    graph = _Graph()
    for index, tensor in enumerate(roots):
        default = "output" if len(roots) == 1 else f"output {index}"
        key = ("tensor", id(tensor))
        graph.add_node(key, _tensor_label(tensor, names, default), _OUTPUT_STYLE)
        node = tensor._grad_fn or tensor._grad_accumulator
        if node is not None:
            graph.add_edge(("node", id(node)), key)
    for node in _walk(roots):
        key = ("node", id(node))
        if type(node) is AccumulateGrad:
            graph.add_node(key, "AccumulateGrad", _ACCUMULATE_STYLE)
            variable = node.variable
            if variable is not None:
                leaf_key = ("tensor", id(variable))
                graph.add_node(leaf_key, _tensor_label(variable, names), _LEAF_STYLE)
                graph.add_edge(leaf_key, key)
        else:
            label = node.name() + (_attribute_text(node, max_attr_chars) if show_attrs else "")
            graph.add_node(key, label, _FUNCTION_STYLE, _module_of(node))
            if show_saved:
                _add_saved(graph, node, names)
        for edge in node._edges:
            if edge.node is not None:
                graph.add_edge(("node", id(edge.node)), key)
    return graph


def _attribute_text(node, max_chars):
    attributes = getattr(node, "__dict__", {})
    lines = []
    for name, value in attributes.items():
        if name.startswith("_") or name in ("needs_input_grad", "metadata_dict"):
            continue
        text = repr(value) if not isinstance(value, Tensor) else _tensor_label(value, {}).replace("\n", " ")
        lines.append(f"{name}: {text if len(text) <= max_chars else text[: max_chars - 3] + '...'}")
    return "\n" + "\n".join(lines) if lines else ""


def _add_saved(graph, node, names):
    """Orange ovals for what the node saved for backward (none once backward freed them)."""
    saved = node._saved or ()
    for index, item in enumerate(saved):
        if isinstance(item, Tensor):
            tensor, label_name = item, "saved " + names.get(id(item), str(index))
        elif isinstance(item, _SavedOutput):
            tensor, label_name = item.unpack(node), f"saved {index} (output)"
        else:
            continue  # None or a number kept for backward
        key = ("saved", id(node), index)
        graph.add_node(key, _tensor_label(tensor, {id(tensor): label_name}), _SAVED_STYLE, _module_of(node))
        graph.add_edge(key, ("node", id(node)), **_SAVED_EDGE)


def _collapse(graph):
    """One box per module call: nodes tagged with the same call merge; a leaf whose only consumer is
    one call (its parameters) disappears into it."""
    group_of = {key: ("module", module) for key, (_, _, module) in graph.nodes.items() if module is not None}
    consumers = {}
    for tail, head, _ in graph.edges:
        consumers.setdefault(tail, set()).add(group_of.get(head, head))
    # AccumulateGrad boxes (and their leaves) used by a single module call belong to it.
    for key, (label, style, _) in graph.nodes.items():
        if style is _ACCUMULATE_STYLE and len(consumers.get(key, ())) == 1:
            (target,) = consumers[key]
            if target[0] == "module":
                group_of[key] = target
    for tail, head, _ in graph.edges:
        if graph.nodes[head][1] is _ACCUMULATE_STYLE and head in group_of:
            group_of[tail] = group_of[head]

    collapsed = _Graph()
    for key, (label, style, module) in graph.nodes.items():
        group = group_of.get(key)
        if group is None:
            collapsed.add_node(key, label, style)
        else:
            collapsed.add_node(group, _module_label(group[1]), _MODULE_STYLE)
    seen = set()
    for tail, head, attrs in graph.edges:
        tail, head = group_of.get(tail, tail), group_of.get(head, head)
        if tail != head and (tail, head) not in seen:
            seen.add((tail, head))
            collapsed.add_edge(tail, head, **attrs)
    return collapsed


def _module_label(call):
    name, type_name, number = call
    return f"{name}\n{type_name}" + (f" (call {number + 1})" if number else "")


def make_dot(output, params=None, show_attrs=False, show_saved=False, max_attr_chars=50, collapse_modules=False):
    """Graphviz drawing of the backward graph that produced `output` (a tensor or a tuple of them).

    Args:
        params: names for tensors, `{name: tensor}` or `model.named_parameters()`.
        show_attrs: list each node's ctx attributes (dims, shapes, ...) in its box.
        show_saved: draw the tensors saved for backward (orange, dashed edges); after a backward
            without retain_graph there are none left to draw.
        max_attr_chars: attribute values longer than this are cut.
        collapse_modules: draw each module call recorded by `record_modules` as one box.

    Returns a `Digraph`: `.source` is the Graphviz text, `.render("graph.svg")` draws it.
    Same arguments as torchviz's make_dot, plus `collapse_modules`.
    """
    roots = _roots(output)
    graph = _build(roots, _names_of(params), show_attrs, show_saved, max_attr_chars)
    if collapse_modules:
        graph = _collapse(graph)
    dot = Digraph(
        graph_attr={"size": "12,12", "rankdir": "TB"},
        node_attr={"fontsize": "10", "fontname": "monospace", "height": "0.2", "ranksep": "0.1"},
    )
    keys = {}
    for key, (label, style, _) in graph.nodes.items():
        keys[key] = f"n{len(keys)}"
        dot.node(keys[key], label, **style)
    for tail, head, attrs in graph.edges:
        if tail in keys and head in keys:
            dot.edge(keys[tail], keys[head], **attrs)
    return dot


# ---------------------------------------------------------------- text tree
# Deeper levels of the text tree are not indented further, so that a deep graph (a chain of
# 20,000 ops) prints one line of bounded width per node instead of indentation growing with depth.
MAX_INDENT_LEVELS = 24


def format_graph(output, params=None):
    """The backward graph of `output` as a text tree (what `print_graph` prints).

    Levels deeper than `MAX_INDENT_LEVELS` stay at that indentation (a line says where), so the
    text grows linearly with the number of nodes, however deep the graph is."""
    names = _names_of(params)
    lines = []
    deepest_prefix, capped = "    " * MAX_INDENT_LEVELS, False
    for index, tensor in enumerate(_roots(output)):
        lines.append(_tensor_label(tensor, names, "output" if index == 0 else f"output {index}").replace("\n", "  "))
        root = tensor._grad_fn or tensor._grad_accumulator
        if root is None:
            lines.append("└── (no graph: the tensor does not require grad)")
            continue
        shown = set()
        stack = [(root, "", True)]
        while stack:
            node, prefix, last = stack.pop()
            branch = "└── " if last else "├── "
            if type(node) is AccumulateGrad:
                variable = node.variable
                leaf = _tensor_label(variable, names).replace("\n", "  ") if variable is not None else "(freed)"
                lines.append(f"{prefix}{branch}AccumulateGrad ── {leaf}")
                continue
            if id(node) in shown:
                lines.append(f"{prefix}{branch}{node.name()} (shared: see above)")
                continue
            shown.add(id(node))
            lines.append(f"{prefix}{branch}{node.name()}")
            children = [edge.node for edge in node._edges if edge.node is not None]
            if len(prefix) < len(deepest_prefix):
                child_prefix = prefix + ("    " if last else "│   ")
            else:
                child_prefix = prefix
                if children and not capped:
                    capped = True
                    lines.append(f"{prefix}┊ (deeper levels are not indented further)")
            for position, child in reversed(list(enumerate(children))):
                stack.append((child, child_prefix, position == len(children) - 1))
    return "\n".join(lines)


def print_graph(output, params=None, file=None):
    """Print the backward graph of `output` as a text tree; no Graphviz needed.

    >>> ember.viz.print_graph(w * x + b, params={"w": w, "b": b})
    (1,) float32
    └── AddBackward0
        ├── MulBackward0
        │   └── AccumulateGrad ── w  (1,) float32
        └── AccumulateGrad ── b  (1,) float32
    """
    print(format_graph(output, params), file=file if file is not None else sys.stdout)


# ---------------------------------------------------------------- module calls
@contextlib.contextmanager
def record_modules(model, depth=None):
    """Tag the nodes made inside each submodule call of `model` (for `collapse_modules=True`).

    Each node gets `node.metadata["module"]` (the submodule's name, e.g. "encoder.fc1") and the
    innermost call wins. `depth=1` records only the direct children (coarser boxes). Nodes are
    found by walking back from a call's outputs to its inputs, so a module that uses a tensor
    computed before the call (other than parameters) may claim that tensor's history too.
    """
    handles = []
    calls = {}
    for name, module in model.named_modules():
        if not name or (depth is not None and name.count(".") + 1 > depth):
            continue
        handles.append(module.register_forward_pre_hook(_remember_inputs))
        handles.append(module.register_forward_hook(_tagger(name, calls)))
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()


_call_inputs = []  # stack of the boundary nodes of the module calls in progress


def _tensors_in(value):
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [tensor for item in value for tensor in _tensors_in(item)]
    if isinstance(value, dict):
        return [tensor for item in value.values() for tensor in _tensors_in(item)]
    return []


def _remember_inputs(module, args):
    _call_inputs.append({id(tensor._grad_fn) for tensor in _tensors_in(args) if tensor._grad_fn is not None})


def _tagger(name, calls):
    def tag_nodes(module, args, output):
        boundary = _call_inputs.pop() if _call_inputs else set()
        number = calls.get(name, 0)
        calls[name] = number + 1
        call = (name, type(module).__name__, number)
        stack = [tensor._grad_fn for tensor in _tensors_in(output) if tensor._grad_fn is not None]
        seen = set()
        while stack:
            node = stack.pop()
            if id(node) in seen or id(node) in boundary or type(node) is AccumulateGrad:
                continue
            seen.add(id(node))
            metadata = node.metadata
            if "module" not in metadata:  # an inner call already claimed it
                metadata["module"] = name
                metadata["module_call"] = call
            stack.extend(edge.node for edge in node._edges if edge.node is not None)

    return tag_nodes
