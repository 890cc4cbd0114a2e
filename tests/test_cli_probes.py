"""Faults found by probing the command line as a new user would: a
``--json`` that is a device or a pipe (renaming over it replaced /dev/full with a plain file),
a write that fails once the work is done (a full disk), absurd run counts."""

from __future__ import annotations

import errno
import json
import os
import threading
from pathlib import Path

import pytest

from mipview.cli import output as cli_output
from mipview.cli.main import main
from mipview.io import atomic
from tests.stderr import without_compile_progress
from tests.test_cli_faults import _one_line_error, no_work  # noqa: F401 (a fixture)

BENCH = ["bench", "--size", "16", "--strategies", "per-level", "--repeat", "2",
         "--warmup-ms", "0"]
COMMANDS = {"bench": BENCH,
            "mean": ["mean", "--size", "16", "--strategies", "per-level"],
            "sweep": ["sweep", "--width-range", "4:5", "--height", "3", "--strategies",
                      "per-level"]}


def _release(fifo: Path) -> None:
    """Let a reader still waiting on ``fifo`` go, if the command never opened it. A blocking
    open would wait forever when the reader has just finished (it was alive, with nothing
    appended yet, when looked at): without O_NONBLOCK there is no reader to meet."""
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:  # ENXIO: no reader has it open, nothing to release
        assert exc.errno == errno.ENXIO, exc
        return
    os.close(fd)


def _full(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("command", COMMANDS)
def test_json_to_a_pipe_is_written_to_it_and_it_stays_a_pipe(command, tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()), daemon=True)
    reader.start()
    try:
        assert main([*COMMANDS[command], "--json", str(fifo)]) == 0
    finally:
        assert fifo.is_fifo()  # not replaced by a plain file (a reader would wait forever)
        _release(fifo)
        reader.join(10)
    assert "validation_messages" in json.loads(got[0])
    assert without_compile_progress(capsys.readouterr().err) == ""


def test_json_through_a_link_replaces_the_file_it_names(tmp_path):
    (tmp_path / "real.json").write_text("{}")
    (tmp_path / "link.json").symlink_to("real.json")
    assert main([*BENCH, "--json", str(tmp_path / "link.json")]) == 0
    assert (tmp_path / "link.json").is_symlink()
    assert "strategies" in json.loads((tmp_path / "real.json").read_text())


def test_a_device_that_refuses_the_write_is_one_line(tmp_path, capsys, monkeypatch):
    # /dev/full itself would do, but a test that fails on a broken build must not take
    # /dev/full with it: a FIFO whose every write fails stands in for it
    fifo = tmp_path / "full"
    os.mkfifo(fifo)
    monkeypatch.setattr(cli_output, "open", lambda *a, **k: _FullStream(), raising=False)
    assert main([*BENCH, "--json", str(fifo)]) == 2
    _one_line_error(capsys, f"cannot write {fifo}: No space left on device")
    assert fifo.is_fifo()


class _FullStream:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def write(self, text):
        _full()


@pytest.mark.parametrize("command", COMMANDS)
def test_a_full_disk_under_json_is_one_line_and_keeps_the_old_file(command, tmp_path, capsys,
                                                                   monkeypatch):
    target = tmp_path / "r.json"
    target.write_text('{"previous": true}')
    monkeypatch.setattr(atomic, "write_atomic", _full)
    assert main([*COMMANDS[command], "--json", str(target)]) == 2
    _one_line_error(capsys, f"cannot write {target}: No space left on device")
    assert json.loads(target.read_text()) == {"previous": True}


@pytest.mark.parametrize("where", ["report", "level"])
def test_a_full_disk_under_out_is_one_line_and_leaves_nothing(where, tmp_path, capsys,
                                                              monkeypatch):
    out = tmp_path / "o"
    if where == "report":
        monkeypatch.setattr(Path, "write_text", _full)
        said = f"cannot write {out}: No space left on device"
    else:  # the level writer's own message, about the file where it was to be
        real = atomic.write_atomic

        def fills_up(path, data):
            if Path(path).name == "level_02.png":  # mid-way through the levels
                _full()
            return real(path, data)

        monkeypatch.setattr(atomic, "write_atomic", fills_up)
        said = f"cannot write '{out}/per-level/level_02.png': No space left on device"
    assert main(["run", "--size", "40x24", "--strategies", "per-level", "--out", str(out)]) == 2
    _one_line_error(capsys, said)
    assert list(tmp_path.iterdir()) == []  # no folder, no temporary one


@pytest.mark.parametrize("argv", [
    [*BENCH[:-4], "--repeat", "1000001"],
    ["mean", "--size", "16", "--bench", "--repeat", "1000000000"],
], ids=["bench", "mean"])
def test_an_absurd_run_count_is_refused_before_any_work(argv, capsys, no_work):  # noqa: F811
    assert main(argv) == 2
    _one_line_error(capsys, "--repeat: at most 1,000,000 runs")
