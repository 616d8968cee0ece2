"""Per-file test times, longest first, in tests/data/durations.json: conftest hands CI's
workers the longest files first so that both finish together (a file stays on one worker).

    python -m pytest -n 3 --dist loadfile --junitxml=.ci/junit.xml   # as .ci/run does on 2 cores
    python tests/durations.py .ci/junit.xml [more.xml ...]

or, on a machine too busy for wall times, a folder at a time by CPU seconds (this file as a
pytest plugin writes each test's wall and CPU seconds, its children's included):

    PYTHONPATH=tests python -m pytest tests/judging -p durations   # appends to .ci/cpu.tsv
    python tests/durations.py .ci/cpu.tsv

Each report's files replace their entries; the files a report did not run keep theirs, so
folders may be measured one at a time.  A report is pytest's JUnit XML (seconds of setup,
call and teardown a test) or a TSV of ``nodeid, wall seconds, CPU seconds`` lines (CPU is
taken: on a loaded machine it is what an idle core's wall time would be).
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
WEIGHTS = ROOT / "tests" / "data" / "durations.json"


def _file_of_class(classname: str) -> str:
    """tests.web.test_web -> tests/web/test_web.py (a class's name may follow the module)."""
    parts = classname.split(".")
    for end in range(len(parts), 0, -1):
        path = "/".join(parts[:end]) + ".py"
        if (ROOT / path).is_file():
            return path
    raise ValueError(f"no test file for {classname!r}")


def read_report(path: Path) -> dict[str, float]:
    """Seconds a test file took, by file, from a JUnit XML or a TSV report."""
    seconds: dict[str, float] = defaultdict(float)
    if path.suffix == ".tsv":
        for line in path.read_text().splitlines():
            nodeid, _wall, cpu = line.split("\t")
            if "::" in nodeid:
                seconds[nodeid.split("::")[0]] += float(cpu)
        return dict(seconds)
    for case in ET.parse(path).getroot().iter("testcase"):
        seconds[_file_of_class(case.get("classname", ""))] += float(case.get("time", 0))
    return dict(seconds)


def _cpu() -> float:
    """CPU seconds of this process and of the children it has waited for."""
    own, children = (
        resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: Any) -> Iterator[None]:
    """As a plugin: a test's wall and CPU seconds, setup and teardown included, to the TSV."""
    wall, cpu = time.perf_counter(), _cpu()
    yield
    out = Path(os.environ.get("DURATIONS_TSV", ROOT / ".ci" / "cpu.tsv"))
    with out.open("a") as f:
        f.write(f"{item.nodeid}\t{time.perf_counter() - wall:.2f}\t{_cpu() - cpu:.2f}\n")


def main(reports: list[str]) -> None:
    weights = json.loads(WEIGHTS.read_text()) if WEIGHTS.exists() else {}
    for report in reports:
        weights.update({k: round(v, 1) for k, v in read_report(Path(report)).items()})
    weights = {k: v for k, v in weights.items() if (ROOT / k).is_file()}
    ordered = dict(sorted(weights.items(), key=lambda kv: -kv[1]))
    WEIGHTS.write_text(json.dumps(ordered, indent=1) + "\n")
    print(f"{len(ordered)} files, {sum(ordered.values()) / 60:.1f} min in all -> {WEIGHTS}")


if __name__ == "__main__":
    main(sys.argv[1:])
