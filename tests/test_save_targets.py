"""ember.save never damages what is at the path: symlinks, hard links, pipes, devices, descriptors.

Each case is done for real (a FIFO with a reader thread, a device node made with os.mknod, a full
tmpfs); those that need root skip otherwise. PyTorch writes through all of these; so must ember.
"""

import io
import os
import pickle
import stat
import subprocess
import threading

import numpy as np
import pytest

import ember


def _weights(value, size=64):
    return {"w": ember.full((size,), float(value))}


def _loaded_value(path_or_bytes):
    source = io.BytesIO(path_or_bytes) if isinstance(path_or_bytes, bytes) else path_or_bytes
    return ember.load(source)["w"][0].item()


def _no_temporaries(*folders):
    leftovers = [name for folder in folders for name in os.listdir(folder) if name.endswith(".tmp")]
    assert not leftovers, f"temporary files left behind: {leftovers}"


def test_symlink_is_kept_and_its_target_receives_the_checkpoint(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    ember.save(_weights(1), run / "ckpt_100.pt")
    os.chmod(run / "ckpt_100.pt", 0o640)
    os.symlink(os.path.join("run", "ckpt_100.pt"), tmp_path / "latest.pt")
    ember.save(_weights(2), tmp_path / "latest.pt")
    assert os.path.islink(tmp_path / "latest.pt"), "the symlink was replaced by a file"
    assert _loaded_value(run / "ckpt_100.pt") == 2.0
    assert stat.S_IMODE(os.stat(run / "ckpt_100.pt").st_mode) == 0o640
    _no_temporaries(tmp_path, run)


def test_dangling_symlink_creates_its_target(tmp_path):
    os.symlink("target.pt", tmp_path / "link.pt")
    ember.save(_weights(3), tmp_path / "link.pt")
    assert os.path.islink(tmp_path / "link.pt") and _loaded_value(tmp_path / "target.pt") == 3.0


def test_symlink_to_a_missing_folder_names_the_folder(tmp_path):
    os.symlink(os.path.join("nowhere", "t.pt"), tmp_path / "link.pt")
    with pytest.raises(RuntimeError, match="Parent directory .*nowhere does not exist"):
        ember.save(_weights(1), tmp_path / "link.pt")


def test_hard_links_stay_joined(tmp_path):
    first, second = tmp_path / "a.pt", tmp_path / "b.pt"
    ember.save(_weights(1), first)
    os.link(first, second)
    ember.save(_weights(5), first)
    assert os.stat(first).st_ino == os.stat(second).st_ino and os.stat(first).st_nlink == 2
    assert _loaded_value(second) == 5.0
    ember.save(_weights(6, size=3), second)  # a shorter checkpoint: the file is truncated in place
    assert _loaded_value(first) == 6.0 and first.stat().st_size == second.stat().st_size
    _no_temporaries(tmp_path)


def test_fifo_with_a_reader_receives_the_whole_checkpoint(tmp_path):
    fifo = tmp_path / "pipe.pt"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    ember.save(_weights(7), fifo)
    reader.join(timeout=20)
    assert received and _loaded_value(received[0]) == 7.0
    assert stat.S_ISFIFO(os.stat(fifo).st_mode), "the named pipe was replaced"


def test_loading_from_a_fifo(tmp_path):
    fifo = tmp_path / "pipe.pt"
    os.mkfifo(fifo)
    buffer = io.BytesIO()
    ember.save(_weights(8), buffer)
    writer = threading.Thread(target=lambda: fifo.write_bytes(buffer.getvalue()), daemon=True)
    writer.start()
    assert _loaded_value(fifo) == 8.0
    writer.join(timeout=20)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="os.mknod of a device needs root")
def test_character_device_is_written_through_not_replaced(tmp_path):
    device = tmp_path / "null"
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a second /dev/null, in a temporary folder
    ember.save(_weights(1), device)
    assert stat.S_ISCHR(os.stat(device).st_mode), "the device node was replaced by a regular file"
    _no_temporaries(tmp_path)


def test_dev_null_is_written_through(monkeypatch):
    def refuse_rename(source, target):  # never let a regression replace the system's /dev/null
        raise AssertionError(f"ember.save tried to rename {source} over {target}")

    monkeypatch.setattr(os, "replace", refuse_rename)
    ember.save(_weights(1), "/dev/null")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_proc_self_fd_paths(tmp_path):
    descriptor = os.open(tmp_path / "via_fd.pt", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        ember.save(_weights(4), f"/proc/self/fd/{descriptor}")
    finally:
        os.close(descriptor)
    assert _loaded_value(tmp_path / "via_fd.pt") == 4.0
    read_end, write_end = os.pipe()
    received = []

    def read_all():
        with os.fdopen(read_end, "rb") as pipe:
            received.append(pipe.read())

    reader = threading.Thread(target=read_all, daemon=True)
    reader.start()
    try:
        ember.save(_weights(9), f"/proc/self/fd/{write_end}")
    finally:
        os.close(write_end)
    reader.join(timeout=20)
    assert _loaded_value(received[0]) == 9.0


def test_open_file_objects_for_save_and_load(tmp_path):
    with open(tmp_path / "f.pt", "wb") as handle:
        ember.save(_weights(2), handle)
    with open(tmp_path / "f.pt", "rb") as handle:
        assert ember.load(handle)["w"].tolist() == [2.0] * 64
    buffer = io.BytesIO()
    ember.save(_weights(3), buffer)
    buffer.seek(0)
    assert _loaded_value(buffer) == 3.0


class _ReadOnlyStream:
    """A stream without seek or readinto (a socket's makefile, a pipe)."""

    def __init__(self, data):
        self.data = io.BytesIO(data)

    def read(self, size=-1):
        return self.data.read(size)


def test_loading_from_a_non_seekable_stream():
    buffer = io.BytesIO()
    ember.save(_weights(5), buffer)
    assert _loaded_value(_ReadOnlyStream(buffer.getvalue())) == 5.0


def test_missing_parent_folder_uses_pytorchs_wording(tmp_path):
    target = tmp_path / "missing" / "model.pt"
    with pytest.raises(RuntimeError, match=r"^Parent directory .*missing does not exist\.$"):
        ember.save(_weights(1), target)


def test_missing_parent_folder_matches_pytorch(tmp_path):
    torch = pytest.importorskip("torch")
    target = str(tmp_path / "missing" / "model.pt")
    with pytest.raises(RuntimeError) as theirs:
        torch.save(torch.ones(1), target)
    with pytest.raises(RuntimeError) as ours:
        ember.save(ember.ones(1), target)
    assert str(ours.value) == str(theirs.value)


def test_directory_path_is_a_clear_error(tmp_path):
    with pytest.raises(RuntimeError, match="is a directory") as error:
        ember.save(_weights(1), tmp_path)
    assert isinstance(error.value, IsADirectoryError.__mro__[1])  # an OSError too


def test_unsupported_object_leaves_the_existing_file_untouched(tmp_path):
    path = tmp_path / "model.pt"
    ember.save(_weights(1), path)
    before = path.read_bytes()
    with pytest.raises((AttributeError, pickle.PicklingError)):  # pickle's class, as torch.save
        ember.save({"w": lambda: None}, path)  # pickle cannot store a lambda
    assert path.read_bytes() == before
    _no_temporaries(tmp_path)


def _mount_tmpfs(folder, options):
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    folder.mkdir()
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True)
    if result.returncode != 0:
        pytest.skip(f"mount not permitted here: {result.stderr.decode().strip()}")


def test_full_disk_keeps_the_old_file_and_names_the_path(tmp_path):
    disk = tmp_path / "disk"
    _mount_tmpfs(disk, "size=64k")
    try:
        path = disk / "model.pt"
        ember.save(_weights(1, size=1000), path)
        before = path.read_bytes()
        with pytest.raises(OSError) as error:
            ember.save(_weights(2, size=100_000), path)
        assert isinstance(error.value, RuntimeError)  # what PyTorch raises, for `except RuntimeError`
        assert "model.pt" in str(error.value) and ".tmp" not in str(error.value), str(error.value)
        assert path.read_bytes() == before
        _no_temporaries(disk)
    finally:
        subprocess.run(["umount", str(disk)], check=True)


def test_read_only_folder_error_names_the_users_path(tmp_path):
    folder = tmp_path / "ro"
    if os.geteuid() == 0:  # root ignores permission bits: use a read-only file system instead
        _mount_tmpfs(folder, "ro,size=64k")
    else:
        folder.mkdir()
        os.chmod(folder, 0o555)
    try:
        with pytest.raises(OSError) as error:
            ember.save(_weights(1), folder / "model.pt")
        message = str(error.value)
        assert "model.pt" in message and ".tmp" not in message, message
        assert isinstance(error.value, RuntimeError)
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", str(folder)], check=True)
        else:
            os.chmod(folder, 0o755)


def test_file_in_read_only_folder_is_still_writable_in_place(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root ignores folder permissions")
    folder = tmp_path / "locked"
    folder.mkdir()
    ember.save(_weights(1), folder / "model.pt")
    os.chmod(folder, 0o555)
    try:
        ember.save(_weights(2), folder / "model.pt")  # open(path, "wb") would succeed, so must ember
        assert _loaded_value(folder / "model.pt") == 2.0
    finally:
        os.chmod(folder, 0o755)


def test_save_error_class_is_both_os_error_and_runtime_error():
    from ember import _save_target

    error = _save_target.CheckpointFileError(28, "ember.save: could not write 'x': No space left on device", "x")
    assert isinstance(error, OSError) and isinstance(error, RuntimeError) and error.errno == 28
    assert str(error) == "ember.save: could not write 'x': No space left on device"
    np.testing.assert_equal(error.filename, "x")


def test_descriptor_links_redirected_to_a_file_and_to_a_pipe(tmp_path):
    """`python train.py > ckpt.pt` saving to /dev/stdout, and `... | next`: the path leads to the shell's
    open file, which a rename beside the file it resolves to would cut off. The link used is one in a
    temporary folder (like /dev/stdout, it points at /proc/self/fd/1), so that a regression replaces
    that link, never the machine's /dev/stdout."""
    import sys

    link = tmp_path / "stdout"
    os.symlink("/proc/self/fd/1", link)
    script = f"import ember; ember.save({{'w': ember.full((3,), 6.0)}}, {str(link)!r})"
    environment = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(tmp_path / "redirected.pt", "wb") as output:
        subprocess.run([sys.executable, "-c", script], stdout=output, check=True, env=environment)
    assert os.path.islink(link), "the descriptor link was replaced"
    assert _loaded_value(tmp_path / "redirected.pt") == 6.0
    piped = subprocess.run([sys.executable, "-c", script], stdout=subprocess.PIPE, check=True, env=environment)
    assert _loaded_value(piped.stdout) == 6.0


def test_read_only_file_is_not_replaced(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root may write read-only files (open(path, 'wb') succeeds), so ember.save does too")
    path = tmp_path / "frozen.pt"
    ember.save(_weights(1), path)
    os.chmod(path, 0o444)
    with pytest.raises(OSError, match="frozen.pt.*read-only"):
        ember.save(_weights(2), path)
    assert _loaded_value(path) == 1.0


def test_saving_into_a_pipe_file_object():
    """A file object that cannot seek or tell (a pipe): the archive is streamed."""
    read_end, write_end = os.pipe()
    received = []

    def read_all():
        with os.fdopen(read_end, "rb") as pipe:
            received.append(pipe.read())

    reader = threading.Thread(target=read_all, daemon=True)
    reader.start()
    with os.fdopen(write_end, "wb") as pipe:
        ember.save(_weights(4), pipe)
    reader.join(timeout=20)
    assert _loaded_value(received[0]) == 4.0
