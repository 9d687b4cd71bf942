"""Downloading and unpacking dataset files: MD5-checked, written atomically, with clear offline errors.

Every file is first written to a temporary name in the target folder and renamed into place only once
complete and verified, so an interrupted or failed download never leaves a half-written file where a
dataset would find it. Archives are unpacked into a temporary folder and moved in the same way.
"""

import gzip
import hashlib
import os
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.request
import zipfile

__all__ = [
    "calculate_md5",
    "check_md5",
    "check_integrity",
    "download_url",
    "extract_archive",
    "download_and_extract_archive",
    "verify_str_arg",
]

USER_AGENT = "ember-vision"


def calculate_md5(fpath, chunk_size=1024 * 1024):
    digest = hashlib.md5(usedforsecurity=False)
    with open(fpath, "rb") as file:
        for chunk in iter(lambda: file.read(chunk_size), b""):
            digest.update(chunk)
    return digest.hexdigest()


def check_md5(fpath, md5, **kwargs):
    return md5 == calculate_md5(fpath, **kwargs)


def check_integrity(fpath, md5=None):
    """True when the file exists and (if `md5` is given) has that MD5."""
    if not os.path.isfile(fpath):
        return False
    return md5 is None or check_md5(fpath, md5)


def verify_str_arg(value, arg=None, valid_values=None, custom_msg=None):
    """`value` if it is one of `valid_values`, else ValueError listing them (torchvision's helper)."""
    if not isinstance(value, str):
        raise ValueError(
            f"Expected type str{'' if arg is None else f' for argument {arg}'}, "  # noqa: TRY004
            f"but got type {type(value)}."
        )  # torchvision raises ValueError here
    if valid_values is not None and value not in valid_values:
        raise ValueError(
            custom_msg
            or f"Unknown value '{value}' for argument {arg}. "
            f"Valid values are {{{', '.join(repr(v) for v in valid_values)}}}."
        )
    return value


def _fetch(url, target, timeout=60):
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    with urllib.request.urlopen(request, timeout=timeout) as response, open(target, "wb") as file:
        shutil.copyfileobj(response, file, 1 << 20)


def download_url(url, root, filename=None, md5=None, max_redirect_hops=3):
    """Download `url` into `root/filename` (default: the URL's last part), checking `md5` when given.

    Skips the download when a file with the right MD5 is already there. Raises RuntimeError naming the URL
    and the folder to put the file in when the download fails (no network, say) or the MD5 differs.
    """
    root = os.path.expanduser(os.fspath(root))
    filename = filename or os.path.basename(url)
    fpath = os.path.join(root, filename)
    if check_integrity(fpath, md5):
        return
    os.makedirs(root, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=root, prefix=f".{filename}.", suffix=".part")
    os.close(handle)
    try:
        try:
            print(f"Downloading {url} to {fpath}")
            _fetch(url, temporary)
        except (urllib.error.URLError, OSError) as error:
            raise RuntimeError(
                f"could not download {url}: {error}.\nIf this machine has no network, download the file elsewhere "
                f"and put it at {fpath}"
            ) from None
        if md5 is not None and not check_md5(temporary, md5):
            raise RuntimeError(
                f"the file downloaded from {url} has MD5 {calculate_md5(temporary)}, not the expected "
                f"{md5}: the download is damaged or the file changed; nothing was written to {root}"
            )
        os.replace(temporary, fpath)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def _check_tar_members(archive, destination):
    root = os.path.realpath(destination)
    for member in archive.getmembers():
        target = os.path.realpath(os.path.join(destination, member.name))
        if not target.startswith(root + os.sep) or member.issym() or member.islnk() or member.isdev():
            raise RuntimeError(
                f"refusing to extract {member.name!r}: a link, a device, or a path outside {destination}"
            )


def _safe_members_zip(archive, destination):
    for name in archive.namelist():
        target = os.path.realpath(os.path.join(destination, name))
        if not target.startswith(os.path.realpath(destination) + os.sep):
            raise RuntimeError(f"refusing to extract {name!r}: it would be written outside {destination}")


def extract_archive(from_path, to_path=None, remove_finished=False):
    """Unpack a .tar[.gz|.bz2|.xz], .tgz, .zip or single-file .gz archive into `to_path` (default: its folder).

    The contents appear in `to_path` only once completely unpacked. Members that would land outside
    `to_path` (absolute paths, `..`, links out) are refused. Returns `to_path`.
    """
    from_path = os.fspath(from_path)
    to_path = os.path.dirname(from_path) if to_path is None else os.fspath(to_path)
    os.makedirs(to_path, exist_ok=True)
    staging = tempfile.mkdtemp(dir=to_path, prefix=".extracting-")
    try:
        try:
            if from_path.endswith((".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz", ".tar.xz", ".txz")):
                with tarfile.open(from_path) as archive:
                    if hasattr(tarfile, "data_filter"):  # Python >= 3.10.12 / 3.11.4: refuses unsafe members
                        archive.extractall(staging, filter="data")
                    else:
                        _check_tar_members(archive, staging)
                        archive.extractall(staging)
            elif from_path.endswith(".zip"):
                with zipfile.ZipFile(from_path) as archive:
                    _safe_members_zip(archive, staging)
                    archive.extractall(staging)
            elif from_path.endswith(".gz"):
                name = os.path.basename(from_path)[: -len(".gz")]
                with gzip.open(from_path, "rb") as source, open(os.path.join(staging, name), "wb") as target:
                    shutil.copyfileobj(source, target)
            else:
                raise RuntimeError(
                    f"extract_archive: don't know how to unpack {from_path} "
                    "(supported: .tar, .tar.gz, .tgz, .tar.bz2, .tar.xz, .zip, .gz)"
                )
        except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as error:
            raise RuntimeError(f"could not unpack {from_path}: {error}; delete it and download it again") from None
        for entry in os.listdir(staging):
            destination = os.path.join(to_path, entry)
            if os.path.isdir(destination) and not os.path.islink(destination):
                shutil.rmtree(destination)
            os.replace(os.path.join(staging, entry), destination)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if remove_finished:
        os.remove(from_path)
    return to_path


def download_and_extract_archive(url, download_root, extract_root=None, filename=None, md5=None, remove_finished=False):
    """download_url, then extract_archive into `extract_root` (default: `download_root`)."""
    download_root = os.path.expanduser(os.fspath(download_root))
    filename = filename or os.path.basename(url)
    download_url(url, download_root, filename, md5)
    return extract_archive(os.path.join(download_root, filename), extract_root or download_root, remove_finished)
