"""ember's docstrings as Sphinx reads them.

The docstrings are written to be read as plain text (`help()`, an editor) and most of them are valid
reStructuredText as well: `code` in single backquotes (the site's default role), `Example::` blocks,
"Args:" sections (napoleon). Some are not — `|x|` for an absolute value, `**kwargs` in a sentence,
`Subset`s — and docutils warns about them, which fails the build (-W). Rather than edit the
docstrings for the site, each docstring is checked on its own before anything else reads it:

* `|x|` outside code is an absolute value, never a substitution, so its bars are escaped;
* a summary line that still does not parse is shown with its markup characters escaped;
* a body that still does not parse is shown preformatted, as `help()` shows it.

Data objects (`ember.float32`, a dict of configurations) are documented without the docstring of
their type.
"""

import re

import docutils.core
import docutils.utils
from docutils.parsers.rst import roles

_ABSOLUTE_VALUE = re.compile(r"(?<![\\`|])\|(?=[^\s|`][^|`]*\|)")
_CODE_SPAN = re.compile(r"(`[^`]+`)")
_MARKUP = re.compile(r"([\\`*_|\[\]])")


def parses_cleanly(lines):
    """True if docutils reads the text without a warning (Sphinx's roles and directives aside)."""
    text = "\n".join(lines)
    if not text.strip():
        return True
    reports = []
    settings = {
        "report_level": 2,
        "halt_level": 5,
        "warning_stream": False,
        "file_insertion_enabled": False,
        "raw_enabled": False,
        "_disable_config": True,
    }
    # docutils' parser forgets the default role when it starts (so that one document's `default-role`
    # does not leak into the next); the page being read still needs Sphinx's, so it is put back.
    default_role = roles._roles.get("")
    try:
        document = docutils.core.publish_doctree(text, settings_overrides=settings)
    finally:
        if default_role is not None:
            roles._roles[""] = default_role
    for message in document.findall(docutils.nodes.system_message):
        if message["level"] >= docutils.utils.Reporter.WARNING_LEVEL:
            reports.append(message)
    return not reports


def escape_absolute_values(line):
    """`|x|` -> `\\|x\\|` outside code spans."""
    parts = _CODE_SPAN.split(line)
    return "".join(
        part if position % 2 or not _ABSOLUTE_VALUE.search(part) else re.sub(r"(?<!\\)\|", r"\\|", part)
        for position, part in enumerate(parts)
    )


def plain_text(lines):
    """The lines with every markup character escaped: shown as written."""
    return [_MARKUP.sub(r"\\\1", line) for line in lines]


def preformatted(lines):
    return ["::", ""] + ["    " + line if line.strip() else "" for line in lines] + [""]


def make_readable(app, what, name, obj, options, lines):
    """Runs before napoleon: the checks read the docstring as written."""
    if what in ("data", "attribute") and getattr(obj, "__doc__", None) == getattr(type(obj), "__doc__", None):
        lines[:] = []  # the docstring is the type's (dict, dtype), not the object's
        return
    lines[:] = [escape_absolute_values(line) for line in lines]
    split = lines.index("") if "" in lines else len(lines)
    summary, body = lines[:split], lines[split:]
    summary = [keep_sentence_whole(line) for line in summary]
    if not parses_cleanly(summary + body):
        if not parses_cleanly(summary):
            summary = plain_text(summary)
        if not parses_cleanly(body):
            body = [""] + preformatted(_dedent(body))
    lines[:] = summary + body
    if what in ("attribute", "property"):
        _as_written[name] = list(lines)


def keep_sentence_whole(line):
    """autosummary's table shows a docstring's first sentence, cut at the first '. '; a '. ' inside
    `code` (`x1 . x2`) would cut the code span in two, so a zero-width space goes between them."""
    parts = _CODE_SPAN.split(line)
    return "".join(part.replace(". ", ".\u200b ") if position % 2 else part for position, part in enumerate(parts))


# napoleon reads the first line of an attribute's or property's docstring as "type: description"
# when it holds a colon; ember's docstrings never use that convention, so they are put back.
_as_written = {}


def restore_attribute_docstrings(app, what, name, obj, options, lines):
    if what in ("attribute", "property") and name in _as_written:
        lines[:] = _as_written.pop(name)


def _dedent(lines):
    indents = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    margin = min(indents, default=0)
    while lines and not lines[0].strip():
        lines = lines[1:]
    return [line[margin:] for line in lines]


def setup(app):
    app.connect("autodoc-process-docstring", make_readable, priority=100)
    app.connect("autodoc-process-docstring", restore_attribute_docstrings, priority=900)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
