"""The README's Python examples run as written (a newcomer's first code must work)."""

import pathlib
import re

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_blocks_run():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert len(blocks) >= 2, "README lost its python examples"
    namespace = {}
    exec(compile(blocks[0], str(README), "exec"), namespace)
    assert float(namespace["w"].grad) == 1.0 and float(namespace["b"].grad) == 1.0
    assert namespace["x"].grad is None
    assert namespace["z"].grad_fn.name() == "MultiplyAddBackward"
    exec(compile(blocks[1], str(README), "exec"), namespace)
    assert float(namespace["dx"]) == 10.0 and float(namespace["ddx"]) == 2.0
    for block in blocks[2:]:
        exec(compile(block, str(README), "exec"), namespace)
