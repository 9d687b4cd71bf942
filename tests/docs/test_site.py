"""The documentation site builds, and its tutorial pages work in a browser.

The site is built with the README's command (`python -m sphinx -W -b html docs ...`: warnings are
errors and every tutorial is executed), then each tutorial page is opened in headless Chromium, as a
reader would open it, and the DOM Chromium ends up with is checked: the page loaded, its code cells
have the outputs they printed at build time, and every local link and image it points to exists.

Skips without Sphinx and myst-nb (`pip install -e ".[docs]"`) or without Chromium
(`apt-get install chromium`). Building takes minutes; to check a site already built, point
EMBER_DOCS_HTML at its folder (e.g. docs/_build/html).
"""

import functools
import html.parser
import os
import pathlib
import shutil
import subprocess
import sys
import urllib.parse

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("myst_nb")

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
TUTORIALS = sorted(path.stem for path in (DOCS / "tutorials").glob("[0-9][0-9]-*.md"))

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (apt-get install chromium)")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The folder of the built HTML site."""
    built = os.environ.get("EMBER_DOCS_HTML")
    if built:
        return pathlib.Path(built).resolve()
    output = tmp_path_factory.mktemp("docs") / "html"
    completed = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(DOCS), str(output)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert completed.returncode == 0, f"the site does not build:\n{completed.stderr[-6000:]}"
    return output


class PageParser(html.parser.HTMLParser):
    """What the checks need from a page: its ids, links, images, headings and cell outputs."""

    def __init__(self):
        super().__init__()
        self.ids, self.links, self.images, self.external_resources = set(), [], [], []
        self.h1_text, self.in_h1 = "", False
        self.code_cells = self.outputs = self.error_outputs = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        classes = (attrs.get("class") or "").split()
        if "cell_input" in classes:
            self.code_cells += 1
        if "cell_output" in classes:
            self.outputs += 1
        if "output" in classes and ("traceback" in classes or "error" in classes):
            self.error_outputs += 1
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        if tag in ("img", "script", "source") and attrs.get("src"):
            self.images.append(attrs["src"])
        if tag == "link" and attrs.get("href"):
            self.links.append(attrs["href"])
        resource = (
            attrs.get("src")
            if tag in ("img", "script", "source")
            else attrs.get("href")
            if tag == "link" and attrs.get("rel") != "canonical"
            else None
        )
        if resource and urllib.parse.urlparse(resource).scheme in ("http", "https"):
            self.external_resources.append(resource)
        if tag == "h1":
            self.in_h1 = True

    def handle_endtag(self, tag):
        if tag == "h1":
            self.in_h1 = False

    def handle_data(self, data):
        if self.in_h1:
            self.h1_text += data


def parse(text):
    parser = PageParser()
    parser.feed(text)
    return parser


def dump_dom(page):
    """The page's DOM after Chromium loaded it (scripts run), as HTML text."""
    completed = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--allow-file-access-from-files",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert completed.returncode == 0, f"chromium could not open {page}:\n{completed.stderr[-2000:]}"
    return completed.stdout


def local_target(page, reference):
    """(file, fragment) that a link or image of `page` points to, or None for a link off the site."""
    parsed = urllib.parse.urlparse(reference)
    if parsed.scheme in ("http", "https", "mailto", "data", "javascript") or parsed.netloc:
        return None
    if parsed.scheme == "file":
        target = pathlib.Path(urllib.parse.unquote(parsed.path))
    elif parsed.path:
        target = (page.parent / urllib.parse.unquote(parsed.path)).resolve()
    else:
        target = page
    return target, urllib.parse.unquote(parsed.fragment)


@functools.lru_cache(maxsize=None)
def ids_in(page):
    """The ids of a built page (the anchors a link's #fragment may name)."""
    return frozenset(parse(page.read_text("utf-8")).ids)


def broken_references(page, parser):
    """The links and images of the page that point to a missing local file or anchor."""
    broken = []
    for reference in parser.links + parser.images:
        found = local_target(page, reference)
        if found is None:
            continue
        target, fragment = found
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            broken.append(f"{reference} (no file {target})")
        elif fragment and target.suffix == ".html" and fragment not in ids_in(target):
            broken.append(f"{reference} (no id {fragment!r} in {target.name})")
    return sorted(set(broken))


@pytest.fixture(scope="module")
def tutorial_pages(site):
    """{tutorial: (path of its page, what Chromium's DOM of it holds)}, each page opened once."""
    pages = {}
    for tutorial in TUTORIALS:
        page = site / "tutorials" / f"{tutorial}.html"
        assert page.is_file(), f"{page} was not built"
        pages[tutorial] = page, parse(dump_dom(page))
    return pages


def test_every_tutorial_is_in_the_site():
    assert len(TUTORIALS) >= 6, TUTORIALS
    index = (DOCS / "tutorials" / "index.md").read_text()
    missing = [name for name in TUTORIALS if name not in index]
    assert not missing, f"tutorials missing from docs/tutorials/index.md: {missing}"


@pytest.mark.parametrize("tutorial", TUTORIALS)
def test_tutorial_page_loads_with_its_outputs_and_working_links(tutorial_pages, tutorial):
    page, dom = tutorial_pages[tutorial]
    title = (DOCS / "tutorials" / f"{tutorial}.md").read_text().split("\n# ", 1)[1].splitlines()[0]
    assert title in dom.h1_text, f"{tutorial}: heading {dom.h1_text!r}, expected {title!r}"
    assert dom.code_cells >= 5, f"{tutorial}: {dom.code_cells} code cells"
    # Cells that only define things print nothing; most cells show what they computed.
    assert dom.outputs >= dom.code_cells // 2, f"{tutorial}: {dom.outputs} outputs for {dom.code_cells} cells"
    assert dom.error_outputs == 0, f"{tutorial}: a cell's output is an error"
    assert not dom.external_resources, f"{tutorial}: loads from the network: {dom.external_resources}"
    broken = broken_references(page, dom)
    assert not broken, f"{tutorial}: broken local links or images:\n  " + "\n  ".join(broken)


def test_graph_drawings_and_loss_curve_are_images(tutorial_pages):
    images = {
        tutorial: [src for src in dom.images if "_images/" in src] for tutorial, (_, dom) in tutorial_pages.items()
    }
    first, training = TUTORIALS[0], next(name for name in TUTORIALS if "training" in name)
    if shutil.which("dot"):
        assert any(src.endswith(".svg") for src in images[first]), f"no graph drawing in {first}: {images[first]}"
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return
    assert any(src.endswith(".png") for src in images[training]), f"no loss curve in {training}: {images[training]}"


@pytest.mark.parametrize(
    "page",
    [
        "index.html",
        "reference/index.html",
        "reference/differences.html",
        "reference/autograd.html",
        "reference/ember.html",
    ],
)
def test_other_pages_have_no_broken_local_links(site, page):
    path = site / page
    text = path.read_text("utf-8")
    broken = broken_references(path, parse(text))
    assert not broken, f"{page}: broken local links or images:\n  " + "\n  ".join(broken)
    # Docstrings' `code` is code (the site's default role), not a title citation in italics.
    assert "<cite>" not in text, f"{page}: single-backquoted code rendered as <cite>"
