"""CI's order of test files: tests/durations.py reads a run's report into
tests/data/durations.json, and conftest hands the files out longest first."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import conftest
import durations
import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_a_junit_report_gives_each_files_seconds(tmp_path: Path) -> None:
    report = tmp_path / "junit.xml"
    report.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="tests.web.test_web" name="a" time="1.5"/>'
        '<testcase classname="tests.web.test_web" name="b[sqlite]" time="2.0"/>'
        '<testcase classname="tests.test_readme" name="c" time="0.25"/>'
        "</testsuite></testsuites>"
    )
    assert durations.read_report(report) == {
        "tests/web/test_web.py": 3.5,
        "tests/test_readme.py": 0.25,
    }
    with pytest.raises(ValueError, match="no test file"):
        durations._file_of_class("tests.no_such_file")


def test_a_tsv_report_gives_each_files_cpu_seconds(tmp_path: Path) -> None:
    report = tmp_path / "cpu.tsv"
    report.write_text(
        "tests/core/test_turn.py::test_a\t9.0\t1.0\n"
        "tests/core/test_turn.py::test_b[x]\t9.0\t0.5\n"
        "SESSION-END\t0\t30\n"
    )
    assert durations.read_report(report) == {"tests/core/test_turn.py": 1.5}


def test_the_files_go_longest_first_each_in_its_own_order(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "durations.json").write_text(json.dumps({"b.py": 10.0, "c.py": 99.0}))
    monkeypatch.setattr(conftest, "__file__", str(tmp_path / "conftest.py"))
    ids = ["a.py::1", "b.py::1", "b.py::2", "c.py::1", "a.py::2", "c.py::2[x]"]
    items = [SimpleNamespace(nodeid=i) for i in ids]
    conftest._longest_files_first(items)  # type: ignore[arg-type]
    assert [i.nodeid for i in items] == [
        "c.py::1", "c.py::2[x]", "b.py::1", "b.py::2", "a.py::1", "a.py::2"
    ]  # fmt: skip


def test_the_recorded_files_are_test_files() -> None:
    seconds = json.loads((ROOT / "tests" / "data" / "durations.json").read_text())
    assert seconds and all(v >= 0 for v in seconds.values())
    for name in seconds:
        assert (ROOT / name).is_file() and Path(name).name.startswith("test_"), name
    assert list(seconds.values()) == sorted(seconds.values(), reverse=True)
