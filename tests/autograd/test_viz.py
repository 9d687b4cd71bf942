"""Graph drawing: the Graphviz source is parsed (node shapes, labels, edges); SVG rendered when dot exists."""

import re
import shutil

import pathlib

import pytest

import ember
import ember.viz as viz

NODE = re.compile(r'^\t"(n\d+)" \[(.*)\]$')
EDGE = re.compile(r'^\t"(n\d+)" -> "(n\d+)"(?: \[(.*)\])?$')
ATTRIBUTE = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def parse(dot):
    """{id: attributes} and [(tail, head, attributes)] from make_dot's source."""
    nodes, edges = {}, []
    for line in dot.source.splitlines():
        match = NODE.match(line)
        if match:
            nodes[match.group(1)] = dict(ATTRIBUTE.findall(match.group(2)))
            continue
        match = EDGE.match(line)
        if match:
            edges.append((match.group(1), match.group(2), dict(ATTRIBUTE.findall(match.group(3) or ""))))
    assert dot.source.startswith('digraph "autograd" {') and dot.source.rstrip().endswith("}")
    return nodes, edges


def by_label(nodes, label):
    found = [key for key, attrs in nodes.items() if attrs.get("label") == label]
    assert len(found) == 1, f"{label!r} not found once in {[a.get('label') for a in nodes.values()]}"
    return found[0]


def book_graph():
    x = ember.ones(1)
    w, b = ember.rand(1, requires_grad=True), ember.rand(1, requires_grad=True)
    z = w * x + b
    return x, w, b, z


def test_books_graph_shapes_and_labels():
    x, w, b, z = book_graph()
    nodes, edges = parse(viz.make_dot(z, params={"w": w, "x": x, "b": b, "z": z}))
    add, mul = by_label(nodes, "AddBackward0"), by_label(nodes, "MulBackward0")
    assert nodes[add]["shape"] == nodes[mul]["shape"] == "box"
    leaf_w, leaf_b = by_label(nodes, "w\\n(1,) float32"), by_label(nodes, "b\\n(1,) float32")
    output = by_label(nodes, "z\\n(1,) float32")
    for key in (leaf_w, leaf_b, output):
        assert nodes[key]["shape"] == "oval"
    assert nodes[leaf_w]["fillcolor"] == "lightblue" and nodes[output]["fillcolor"] != "lightblue"
    accumulators = [key for key, attrs in nodes.items() if attrs["label"] == "AccumulateGrad"]
    assert len(accumulators) == 2
    assert all("rounded" in nodes[key]["style"] for key in accumulators)  # distinct from Function boxes
    pairs = {(tail, head) for tail, head, _ in edges}
    assert (add, output) in pairs and (mul, add) in pairs
    assert any((leaf_w, acc) in pairs and (acc, mul) in pairs for acc in accumulators)
    assert any((leaf_b, acc) in pairs and (acc, add) in pairs for acc in accumulators)
    assert not any("x\\n" in attrs["label"] for attrs in nodes.values())  # x needs no gradient: not drawn
    assert len(nodes) == 7 and len(edges) == 6


def test_user_function_node_is_named_after_the_function():
    from ember._examples import MultiplyAdd

    x, w, b, _ = book_graph()
    nodes, _ = parse(viz.make_dot(MultiplyAdd.apply(w, x, b)))
    assert nodes[by_label(nodes, "MultiplyAddBackward")]["shape"] == "box"
    assert by_label(nodes, "output\\n(1,) float32")


def test_saved_tensors_on_request():
    w, x = ember.rand(1, requires_grad=True), ember.rand(1, requires_grad=True)
    z = w * x
    nodes, edges = parse(viz.make_dot(z, params={"w": w, "x": x}, show_saved=True))
    saved = [key for key, attrs in nodes.items() if attrs.get("fillcolor") == "orange"]
    assert sorted(nodes[key]["label"] for key in saved) == ["saved w\\n(1,) float32", "saved x\\n(1,) float32"]
    mul = by_label(nodes, "MulBackward0")
    assert all((key, mul) in {(t, h) for t, h, _ in edges} for key in saved)
    assert all(attrs.get("style") == "dashed" for t, h, attrs in edges if t in saved)
    plain, _ = parse(viz.make_dot(z))
    assert not any(attrs.get("fillcolor") == "orange" for attrs in plain.values())


def test_show_attrs_lists_ctx_attributes():
    x = ember.ones(2, 3, requires_grad=True)
    nodes, _ = parse(viz.make_dot(x.sum(1), show_attrs=True))
    labels = [attrs["label"] for attrs in nodes.values()]
    assert any(label.startswith("SumBackward1\\n") and "dims: (1,)" in label for label in labels)


def test_graph_recorded_with_create_graph_is_drawable():
    x = ember.tensor([2.0], requires_grad=True)
    (x**3).backward(create_graph=True)
    nodes, _ = parse(viz.make_dot(x.grad, params={"x": x}))
    labels = {attrs["label"] for attrs in nodes.values()}
    assert "x\\n(1,) float32" in labels and "AccumulateGrad" in labels
    assert any(label.endswith("Backward0") for label in labels)


def test_shared_nodes_are_drawn_once_and_multiple_outputs():
    x = ember.ones(2, requires_grad=True)
    h = x.exp()
    nodes, edges = parse(viz.make_dot((h.sum(), (h * 2).sum())))
    assert by_label(nodes, "ExpBackward0")
    assert {attrs["label"] for attrs in nodes.values()} >= {"output 0\\n() float32", "output 1\\n() float32"}


def test_labels_are_escaped():
    x = ember.ones(1, requires_grad=True)
    nodes, _ = parse(viz.make_dot(x * 2, params={'say "hi"\\': x}))
    assert by_label(nodes, 'say \\"hi\\"\\\\\\n(1,) float32')


def test_deep_graph_without_recursion():
    x = ember.ones(1, requires_grad=True)
    y = x
    for _ in range(3000):
        y = y * 1.0
    nodes, _ = parse(viz.make_dot(y))
    assert len(nodes) == 3000 + 3
    assert viz.format_graph(y).count("MulBackward0") == 3000


def test_print_graph_text_tree(capsys):
    x, w, b, z = book_graph()
    viz.print_graph(z, params={"w": w, "b": b})
    assert capsys.readouterr().out.splitlines() == [
        "output  (1,) float32",
        "└── AddBackward0",
        "    ├── MulBackward0",
        "    │   └── AccumulateGrad ── w  (1,) float32",
        "    └── AccumulateGrad ── b  (1,) float32",
    ]
    viz.print_graph(ember.ones(1))
    assert "no graph" in capsys.readouterr().out


def test_render_without_dot_raises_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(viz.shutil, "which", lambda name: None)
    _, _, _, z = book_graph()
    with pytest.raises(viz.GraphvizNotFoundError, match="apt-get install graphviz.*print_graph"):
        viz.make_dot(z).render(str(tmp_path / "graph.svg"))
    assert viz.make_dot(z).save(str(tmp_path / "graph.dot"))  # the source is always available


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed")
def test_render_svg_and_png(tmp_path):
    x, w, b, z = book_graph()
    dot = viz.make_dot(z, params={"w": w, "x": x, "b": b, "z": z})
    path = dot.render(str(tmp_path / "graph.svg"))
    svg = pathlib.Path(path).read_text(encoding="utf-8")
    assert path.endswith("graph.svg") and "<svg" in svg and "MulBackward0" in svg and "AccumulateGrad" in svg
    assert dot.render(str(tmp_path / "graph"), format="png").endswith("graph.png")
    assert (tmp_path / "graph.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_collapse_modules():
    nn = pytest.importorskip("ember.nn")
    if not all(hasattr(nn, name) for name in ("Sequential", "Linear", "ReLU")):
        pytest.skip("ember.nn.Sequential/Linear/ReLU not available")
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    with viz.record_modules(model):
        loss = model(ember.randn(5, 3)).sum()
    params = dict(model.named_parameters())
    full, _ = parse(viz.make_dot(loss, params=params))
    collapsed, edges = parse(viz.make_dot(loss, params=params, collapse_modules=True))
    boxes = {attrs["label"]: key for key, attrs in collapsed.items() if attrs.get("shape") == "box3d"}
    assert set(boxes) == {"0\\nLinear", "1\\nReLU", "2\\nLinear"}
    pairs = {(tail, head) for tail, head, _ in edges}
    assert (boxes["0\\nLinear"], boxes["1\\nReLU"]) in pairs and (boxes["1\\nReLU"], boxes["2\\nLinear"]) in pairs
    assert len(collapsed) < len(full)
    assert not any("weight" in attrs["label"] for attrs in collapsed.values())  # parameters inside the boxes
    assert any("0.weight" in attrs["label"] for attrs in full.values())
    # After the block the hooks are gone: a new call is not tagged.
    second = model(ember.randn(5, 3)).sum()
    node = second.grad_fn.next_functions[0][0]
    assert node.metadata_dict is None or "module" not in node.metadata_dict
    tagged = loss.grad_fn.next_functions[0][0]
    assert tagged.metadata["module"] == "2"


def _chain(length):
    x = ember.ones(1, requires_grad=True)
    y = x
    for _ in range(length):
        y = y * 1.0
    return x, y


def test_deep_graphs_print_in_linear_size():
    # Indentation that grew with depth made a 20,000-op chain an 800 MB text.
    length = 20_000
    _, y = _chain(length)
    text = viz.format_graph(y)
    lines = text.splitlines()
    assert text.count("MulBackward0") == length
    assert len(lines) <= length + 4
    widest = max(len(line) for line in lines)
    assert widest <= 4 * viz.MAX_INDENT_LEVELS + 60, widest
    assert len(text) <= length * (4 * viz.MAX_INDENT_LEVELS + 60)
    assert "not indented further" in text
    source = viz.make_dot(y).source
    assert len(source) < length * 200, len(source)
    assert len(repr(y.grad_fn)) < 80 and len(repr(y)) < 200


def test_shallow_trees_keep_their_indentation():
    _, y = _chain(viz.MAX_INDENT_LEVELS - 2)
    text = viz.format_graph(y)
    assert "not indented further" not in text
    assert text.splitlines()[-1].startswith("    " * (viz.MAX_INDENT_LEVELS - 2) + "└── AccumulateGrad")


def test_backward_trace_of_a_deep_graph_is_linear():
    length = 20_000
    x, y = _chain(length)
    with ember.autograd.trace() as recorded:
        y.backward()
    text = str(recorded)
    assert len(recorded.steps) == length + 1
    assert len(text) < (length + 10) * 200, len(text)
