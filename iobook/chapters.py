"""Execute chapter templates with papermill into executed copies, as listed in notebooks/chapters.yml.

Jupyter Book then builds from the executed copies with its own execution off. When a chapter fails, the
partly executed notebook (with the traceback in the failing cell) is kept in _build/reports/.
"""
from __future__ import annotations

import shutil
import time
from pathlib import Path

import papermill
import yaml

REPORTS = Path("_build/reports")


def load_config(config: Path) -> list[dict]:
    return yaml.safe_load(config.read_text(encoding="utf-8"))["chapters"]


def run_chapters(config: Path, only: list[str] | None = None) -> int:
    failed = []
    for chapter in load_config(config):
        if only and chapter["name"] not in only:
            continue
        template, output = Path(chapter["template"]), Path(chapter["output"])
        output.parent.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        try:
            papermill.execute_notebook(
                str(template), str(output), parameters=chapter.get("parameters", {}),
                cwd=str(output.parent), kernel_name="python3", progress_bar=False,
            )
        except papermill.PapermillExecutionError as e:
            REPORTS.mkdir(parents=True, exist_ok=True)
            report = REPORTS / output.name
            shutil.copy(output, report)
            output.unlink()
            print(f"chapter {chapter['name']}: FAILED in cell {e.exec_count}: {e.ename}: {e.evalue}\n"
                  f"  report: {report}")
            failed.append(chapter["name"])
            continue
        print(f"chapter {chapter['name']}: {output} ({time.perf_counter() - started:.1f} s)")
    return 1 if failed else 0
