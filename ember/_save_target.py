"""Where `ember.save` puts its bytes, without damaging what is at the path.

PyTorch opens the path for writing, so it writes *through* whatever is there: a symlink's target, every
name of a hard-linked file, a named pipe's reader, a device. ember keeps those semantics and adds
atomicity where it cannot break them:

- a regular file with one name (or no file yet): the checkpoint goes to a temporary file beside the
  *real* file (symlinks resolved first, so `latest.pt -> run/ckpt.pt` updates `run/ckpt.pt`), which is
  renamed over it once complete and synced, with the old file's permissions (and owner, as root). A
  crash or a full disk leaves the old checkpoint whole.
- a regular file with several names (hard links): a rename would split the links, so the checkpoint
  is first written to a temporary file (a full disk or an error fails there, old data untouched), then
  copied over the file in place, so every name sees the new data, as with PyTorch.
- pipes, character and block devices, sockets and `/proc/self/fd/N`-style paths: written straight
  through, as PyTorch does (renaming over them would replace `/dev/null` or leave a pipe's reader
  waiting forever).

Failures raise `CheckpointFileError` (an OSError that is also a RuntimeError, PyTorch's class for save
failures) naming the path the user gave, never the temporary file.
"""

import errno
import os
import shutil
import stat
import tempfile

__all__ = ["CheckpointFileError", "write_to_path"]

_STRAIGHT_THROUGH_PREFIXES = ("/proc/", "/dev/fd/")


class CheckpointFileError(OSError, RuntimeError):
    """`ember.save` could not write the path: an OSError (errno set) and a RuntimeError, as PyTorch's."""

    def __str__(self):
        return self.strerror or super().__str__()


def write_to_path(path, write):
    """Call `write(binary_file)` so that the bytes it writes end up at `path` (see the module notes)."""
    if _through_proc(path):
        return _write_straight_through(path, path, write)
    real = os.path.realpath(path)
    try:
        status = os.stat(real)
    except FileNotFoundError:
        status = None
    except OSError as error:
        raise _file_error(error, path, "cannot look at") from None
    if status is None:
        parent = os.path.dirname(real)
        if not os.path.isdir(parent):
            via = "" if real == os.path.abspath(path) else f" (the symlink {path!r} points to {real!r})"
            raise CheckpointFileError(errno.ENOENT, f"Parent directory {parent} does not exist.{via}", path)
        return _write_atomically(path, real, write, None)
    if stat.S_ISDIR(status.st_mode):
        raise CheckpointFileError(
            errno.EISDIR,
            f"ember.save: {path!r} is a directory; give the name of a file "
            "inside it (e.g. os.path.join(folder, 'model.pt'))",
            path,
        )
    if not stat.S_ISREG(status.st_mode):
        return _write_straight_through(path, real, write)
    if not os.access(real, os.W_OK):  # a rename would overwrite a file its owner made read-only
        raise CheckpointFileError(
            errno.EACCES,
            f"ember.save: cannot write {path!r}: Permission denied (the "
            "file is read-only; ember.save does not replace it)",
            path,
        )
    if status.st_nlink > 1:
        return _write_in_place(path, real, write)
    return _write_atomically(path, real, write, status)


def _through_proc(path):
    """Whether `path` or a symlink it leads through is a descriptor link (`/proc/self/fd/1`,
    `/dev/stdout`, `/dev/fd/3`): those name an open file, not a place in a folder, so replacing what
    they resolve to would cut the link (a shell redirect would keep writing the old file)."""
    current = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit on symlink hops
        if current.startswith(_STRAIGHT_THROUGH_PREFIXES):
            return True
        if not os.path.islink(current):
            return False
        current = os.path.normpath(os.path.join(os.path.dirname(current), os.readlink(current)))
    return False


def _write_straight_through(path, real, write):
    try:
        with open(real, "wb") as file:
            write(_Stream(file))
    except OSError as error:
        raise _file_error(error, path, "could not write") from None


class _Stream:
    """Only `write` and `flush`: a device's `tell()` says 0 forever (/dev/null), which would corrupt the
    zip's offsets, so the zip writer must treat every straight-through target as a stream."""

    def __init__(self, file):
        self.write = file.write
        self.flush = file.flush


def _write_atomically(path, real, write, status):
    directory = os.path.dirname(real)
    temporary = _temporary_beside(path, real, status)
    if temporary is None:  # the folder refuses new files but the file itself is writable
        return _write_straight_through(path, real, write)
    try:
        _fill(temporary, write, path)
        os.chmod(temporary, status.st_mode & 0o7777 if status else _default_mode())
        if status is not None and os.geteuid() == 0:
            _keep_owner(temporary, status)
        os.replace(temporary, real)
    except BaseException as error:
        _remove_quietly(temporary)
        if isinstance(error, OSError) and not isinstance(error, CheckpointFileError):
            raise _file_error(error, path, "could not write") from None
        raise
    _fsync_directory(directory)


def _write_in_place(path, real, write):
    temporary = _temporary_beside(path, real, None)
    if temporary is None:
        return _write_straight_through(path, real, write)
    try:
        _fill(temporary, write, path)
        try:
            with open(temporary, "rb") as source, open(real, "r+b") as target:
                shutil.copyfileobj(source, target, 1 << 20)
                target.truncate()
                target.flush()
                os.fsync(target.fileno())
        except OSError as error:
            raise _file_error(error, path, "could not write") from None
    finally:
        _remove_quietly(temporary)


def _temporary_beside(path, real, status):
    """A new private file next to `real`, or None when the folder is read-only but `real` is writable."""
    directory = os.path.dirname(real)
    try:
        handle, temporary = tempfile.mkstemp(prefix="." + os.path.basename(real) + ".", suffix=".tmp", dir=directory)
    except OSError as error:
        if error.errno in (errno.EACCES, errno.EPERM) and os.path.exists(real) and os.access(real, os.W_OK):
            return None
        raise _file_error(error, path, "cannot write", f" (the folder {directory} does not accept new files)") from None
    os.close(handle)
    return temporary


def _fill(temporary, write, path):
    try:
        with open(temporary, "wb") as file:
            write(file)
            file.flush()
            os.fsync(file.fileno())
    except OSError as error:
        raise _file_error(
            error, path, "could not write", "; the file that was at the path (if any) is unchanged"
        ) from None


def _file_error(error, path, action, detail=""):
    reason = error.strerror or str(error)
    return CheckpointFileError(error.errno, f"ember.save: {action} {path!r}: {reason}{detail}", path)


def _keep_owner(temporary, status):
    try:
        os.chown(temporary, status.st_uid, status.st_gid)
    except OSError:
        pass


def _default_mode():
    """The permissions a plain `open(path, "w")` would give (mkstemp makes files private)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _remove_quietly(path):
    try:
        os.remove(path)
    except OSError:
        pass


def _fsync_directory(directory):
    """Make the rename itself durable (POSIX); platforms that cannot open a directory skip it."""
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
