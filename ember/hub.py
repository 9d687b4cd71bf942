"""`ember.hub` (torch.hub): the cache folder, checkpoints by URL, and entry points from a `hubconf.py`.

The folders are PyTorch's (`$TORCH_HOME/hub`, default `~/.cache/torch/hub`), so checkpoints and
repositories a user already fetched with PyTorch are found and not fetched again. Downloading is what
these functions are asked to do, so they do it when there is a network; without one, the error names
the URL and the file to put in place. A repository's `hubconf.py` imports `torch`, so `load` from
GitHub or a local folder gives ember's models under `python -m ember run` (or `ember.compat`).
"""

import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile

__all__ = ["get_dir", "set_dir", "download_url_to_file", "load_state_dict_from_url", "load", "list", "help"]

_hub_dir = None
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")  # the sha256 prefix torchvision-style file names carry


def get_dir():
    """The hub folder: set_dir's choice, else $TORCH_HOME/hub (TORCH_HOME defaults to ~/.cache/torch)."""
    if _hub_dir is not None:
        return _hub_dir
    torch_home = os.environ.get("TORCH_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.join(os.path.expanduser("~"), ".cache")), "torch"
    )
    return os.path.join(os.path.expanduser(torch_home), "hub")


def set_dir(d):
    """Use `d` as the hub folder from now on."""
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Download `url` to the file `dst` (through a temporary file, so a broken download leaves nothing),
    checking that its SHA-256 starts with `hash_prefix` when given."""
    folder = os.path.dirname(os.path.abspath(dst))
    os.makedirs(folder, exist_ok=True)
    digest = hashlib.sha256()
    with tempfile.NamedTemporaryFile(delete=False, dir=folder) as partial:
        try:
            try:
                response = urllib.request.urlopen(urllib.request.Request(url, headers={"User-Agent": "ember"}))
            except urllib.error.URLError as error:
                error.reason = f"{error.reason} (downloading {url}; without a network, put the file at {dst})"
                raise
            with response:
                while chunk := response.read(1 << 20):
                    partial.write(chunk)
                    digest.update(chunk)
            partial.close()
            if hash_prefix is not None and not digest.hexdigest().startswith(hash_prefix):
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest.hexdigest()}")')
            shutil.move(partial.name, dst)
        finally:
            if os.path.exists(partial.name):
                os.remove(partial.name)


def load_state_dict_from_url(
    url, model_dir=None, map_location=None, progress=True, check_hash=False, file_name=None, weights_only=False
):
    """The object saved at `url`, from `<hub dir>/checkpoints` (downloaded there first if missing)."""
    from .serialization import load as load_file

    model_dir = model_dir or os.path.join(get_dir(), "checkpoints")
    filename = file_name or os.path.basename(urllib.parse.urlparse(url).path)
    cached = os.path.join(model_dir, filename)
    if not os.path.exists(cached):
        match = HASH_REGEX.search(filename) if check_hash else None
        download_url_to_file(url, cached, match.group(1) if match else None, progress=progress)
    return load_file(cached, map_location=map_location, weights_only=weights_only)


def load(
    repo_or_dir,
    model,
    *args,
    source="github",
    trust_repo=None,
    force_reload=False,
    verbose=True,
    skip_validation=False,
    **kwargs,
):
    """Call the entry point `model` of the repository's `hubconf.py` with `args` and `kwargs`.

    `source="local"`: `repo_or_dir` is a folder; `source="github"`: "owner/name[:ref]", fetched into
    the hub folder once (as PyTorch names it: owner_name_ref) and read from there afterwards."""
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    folder = repo_or_dir if source == "local" else _github_folder(repo_or_dir, force_reload)
    return _entry_point(_hubconf(folder), model)(*args, **kwargs)


def list(github, force_reload=False, skip_validation=False, trust_repo=None, verbose=True):  # noqa: A001 (PyTorch's name)
    """The names of the entry points in the repository's hubconf.py."""
    hubconf = _hubconf(_github_folder(github, force_reload))
    return [name for name in dir(hubconf) if callable(getattr(hubconf, name)) and not name.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False, trust_repo=None):  # noqa: A001 (PyTorch's name)
    """The docstring of an entry point."""
    return _entry_point(_hubconf(_github_folder(github, force_reload)), model).__doc__


def _hubconf(folder):
    path = os.path.join(folder, "hubconf.py")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"ember.hub: no hubconf.py in {folder}")
    sys.path.insert(0, folder)  # hubconf imports its repository's modules
    try:
        spec = importlib.util.spec_from_file_location("hubconf", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(folder)
    return module


def _entry_point(hubconf, name):
    function = getattr(hubconf, name, None)
    if function is None or not callable(function):
        raise RuntimeError(f"Cannot find callable {name} in hubconf")
    return function


def _github_folder(repo, force_reload):
    owner_name, _, ref = repo.partition(":")
    owner, name = owner_name.split("/")
    ref = ref or "main"
    folder = os.path.join(get_dir(), f"{owner}_{name}_{ref.replace('/', '_')}")
    if os.path.isdir(folder) and not force_reload:
        return folder
    archive = os.path.join(get_dir(), f"{ref.replace('/', '_')}.zip")
    download_url_to_file(f"https://github.com/{owner}/{name}/zipball/{ref}", archive, progress=False)
    with zipfile.ZipFile(archive) as zipped:
        top = zipped.namelist()[0].split("/")[0]
        zipped.extractall(get_dir())
    os.remove(archive)
    shutil.rmtree(folder, ignore_errors=True)
    shutil.move(os.path.join(get_dir(), top), folder)
    return folder
