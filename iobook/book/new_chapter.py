"""`python -m iobook new-chapter NAME`: a new chapter that runs, to edit into your own study.

Writes the files a chapter is made of, in the house's conventions, and registers it:
- iobook/studies/NAME/: a study package in layers (docs/writing-a-chapter.md): queries/files.sql, analysis (the
  query's frame and the evidence record built from it), charts, findings, and `report(con)` in `__init__.py`
  that wires them and returns the chapter's values, tables, figures and findings (iobook/book/report.py), on any
  database, the empty one included; its packages are added to pyproject.toml's list, so a wheel carries them;
- notebooks/NAME.ipynb: the parameters cell, one hidden cell (`r = study.report(...)`, `nb.glue_report(r)`),
  and Markdown cells (findings first) that paste the report's values;
- tests/test_study_NAME.py: the study on the empty and default test databases, and the notebook executed
  on both;
- an entry in notebooks/chapters.yml (before the Data chapter), then _toc.yml and the chapter tables.
"""
from __future__ import annotations

import re
from pathlib import Path

from . import chapters

NAME = re.compile(r"[a-z][a-z0-9_]*")
PACKAGES_START = "packages = ["  # pyproject.toml's list of packages, under [tool.setuptools]

# The study's package, file by file: one module per layer (docs/writing-a-chapter.md)
STUDY = {
    "__init__.py": '''"""{title}: TODO say what this chapter shows and from which data (the chapter `{name}`).
Layers: queries/*.sql (the SQL), analysis (frames -> evidence records), charts, findings; `report` wires them."""
from __future__ import annotations

from ...book import present
from ...book.report import Report, Table
from . import analysis, charts, findings

HOW_TO_ADD_DATA = "Build the book on your logs: `make book DATA=path/to/logs`."


def report(con) -> Report:
    """The chapter (TODO: your results), on any database, the empty one included."""
    files = analysis.get_files(con)
    if files.empty:
        return Report(values={{"has_data": False}}, note=present.no_data("files", HOW_TO_ADD_DATA))
    census, top_tool, most = analysis.files_read(files), *analysis.most_files(files)
    return Report(
        values={{"has_data": True, "files": census.n}},
        tables={{"tab-{slug}-files": Table(frame=files, formats={{"mib": ",.1f"}})}},
        figures={{"fig-{slug}-files": charts.chart_files(files)}},
        findings=findings.chapter_findings(census, top_tool, most),
        evidence=[census, most])
''',
    "analysis.py": '''"""{title}'s analysis: the queries' frames in, evidence records out (iobook/inference/evidence.py: count for a
census, estimate for a value over runs, compare + decide for two groups, decided once per report)."""
from __future__ import annotations

import pandas as pd

from ...database import store
from ...inference import evidence
from ...inference.units import MIB

NOT_READ = "not read"  # queries/files.sql's tool of a file no parser read


def get_files(con) -> pd.DataFrame:
    """Files and MiB per tool (queries/files.sql; TODO: the queries your study needs, values bound as ?)."""
    return store.frame(con, __package__, "files", [NOT_READ, MIB])


def files_read(files: pd.DataFrame) -> evidence.Count:
    """A census: of the files ingest saw, those a parser read."""
    read = files.loc[files["tool"] != NOT_READ, "files"].sum()
    return evidence.count(read, files["files"].sum(), quantity="files read as logs", of=evidence.Replicate.CENSUS)


def most_files(files: pd.DataFrame) -> tuple[str, evidence.Count]:
    """The tool with the most files (queries/files.sql orders by files), and its share of the files as a census."""
    top = files.iloc[0]
    return top["tool"], evidence.count(top["files"], files["files"].sum(), quantity=f"files of {{top['tool']}}",
                                       of=evidence.Replicate.CENSUS)
''',
    "charts.py": '''"""{title}'s charts: one Altair chart per function, from the analysis's frames."""
from __future__ import annotations

import altair as alt
import pandas as pd


def chart_files(files: pd.DataFrame) -> alt.Chart:
    """Files per tool, one bar each."""
    return alt.Chart(files).mark_bar().encode(
        x=alt.X("files:Q", title="files"), y=alt.Y("tool:N", sort="-x", title=None),
        tooltip=["tool:N", "files:Q", alt.Tooltip("mib:Q", format=",.1f", title="MiB")],
    ).properties(width=360)
''',
    "findings.py": '''"""{title}'s findings: sentences from evidence records (evidence.phrase), each with the records it
rests on, the first one the answer."""
from __future__ import annotations

from ...book import present
from ...book.report import Finding
from ...inference import evidence


def chapter_findings(census: evidence.Count, top_tool: str, most: evidence.Count) -> list[Finding]:
    """What the files are, then the tool with most of them; every number from the record the finding carries."""
    return [Finding(text=f"{{evidence.phrase(census)}} were read as logs.", target="tab-{slug}-files",
                    evidence=(census,)),
            Finding(text=f"**{{present.md_escape(top_tool)}}** has the most files: {{evidence.phrase(most)}}.",
                    target="fig-{slug}-files", evidence=(most,))]
''',
    "queries/files.sql": '''-- Files per tool, and their size in MiB (TODO: the query your study needs). Parameters: the tool shown
-- for a file no parser read, bytes per MiB.
SELECT coalesce(tool, ?) AS tool, count(*) AS files, sum(bytes) / ? AS mib
FROM sources
WHERE status <> 'gone'
GROUP BY ALL
ORDER BY files DESC, tool
''',
}

TEST = '''"""The {name} chapter: its study on the empty and default test databases, and its notebook executed on both."""
import pytest

from conftest import execute_chapter
from iobook.database import store
from iobook.studies import {name} as study


@pytest.mark.parametrize("db", ["empty", "default"])
def test_study_runs(databases, db):
    con = store.open_read(databases[db])
    r = study.report(con)
    assert r.values["has_data"] == (db != "empty")
    assert bool(r.findings) == (db != "empty")  # TODO: assert real values from real files, naming where they come from
    con.close()


@pytest.mark.parametrize("db", ["empty", "default"])
def test_chapter_executes(databases, db, tmp_path):
    execute_chapter("{name}", databases[db], tmp_path)
'''


def _notebook(name: str, title: str):
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    slug = name.replace("_", "-")
    hidden = {"tags": ["remove-input"]}
    cells = [
        new_markdown_cell(f"# {title}\n\nTODO: the question this chapter answers, and from which data."),
        new_code_cell('# Parameters (papermill overrides these; see notebooks/chapters.yml)\n'
                      'db_path = "../data/iobook.duckdb"  # DuckDB file written by `python -m iobook ingest`',
                      metadata={"tags": ["parameters", "remove-input"]}),
        new_code_cell(
            f"from iobook.book import nb\nfrom iobook.studies import {name} as study\n\n"
            "r = study.report(nb.setup(db_path))\nnb.glue_report(r)",
            metadata=hidden),
        new_markdown_cell("## Findings\n\n```{glue:md} findings\n:format: myst\n```",
                          metadata={"tags": ["only-if:has_data"]}),
        new_markdown_cell(
            "## What the database holds\n\nTODO: prose you edit. Computed values are pasted, never typed: "
            "{glue:text}`files:,` files.\n\n"
            f"```{{glue:figure}} fig-{slug}-files\n:name: \"fig-{slug}-files\"\n\n"
            "Files per tool (TODO: a caption stating what the figure shows).\n```\n\n"
            f"```{{glue:figure}} tab-{slug}-files\n:name: \"tab-{slug}-files\"\n\n"
            "Files and MiB per tool.\n```", metadata={"tags": ["only-if:has_data"]}),
        new_markdown_cell("## What this cannot say\n\nTODO: the limits of the data and of the method."),
    ]
    return new_notebook(cells=cells, metadata={"kernelspec": {"display_name": "Python 3", "language": "python",
                                                              "name": "python3"}, "language_info": {"name": "python"}})


def add_packages(pyproject: Path, names: list[str]) -> None:
    """`names` added to pyproject.toml's list of packages, which stays sorted, one per line (tests/test_packaging.py
    checks the list against the folders under iobook/)."""
    text = pyproject.read_text(encoding="utf-8")
    start = text.index(PACKAGES_START)
    end = text.index("]", start)
    listed = re.findall(r'"([\w.]+)"', text[start:end])
    lines = "".join(f'    "{package}",\n' for package in sorted({*listed, *names}))
    pyproject.write_text(text[:start] + PACKAGES_START + "\n" + lines + text[end:], encoding="utf-8")


def new_chapter(name: str, title: str | None = None) -> list[Path]:
    """Write the chapter `name`'s study, notebook and test, register it, and regenerate the files made from the
    registry. Refuses a name that is not a Python identifier in lower case or that a chapter already uses."""
    import nbformat
    import yaml

    if not NAME.fullmatch(name):
        raise ValueError(f"{name!r}: a chapter's name is lower-case letters, digits and _, starting with a letter")
    title = title or name.replace("_", " ").capitalize()
    root, registry = chapters.REPO_ROOT, chapters.REGISTRY
    study = root / "iobook" / "studies" / name
    slug = name.replace("_", "-")
    files = {**{study / module: text.format(name=name, title=title, slug=slug) for module, text in STUDY.items()},
             root / "tests" / f"test_study_{name}.py": TEST.format(name=name),
             root / "notebooks" / f"{name}.ipynb": None}
    taken = [p for p in (study, *files) if p.exists()]
    if taken or name in {c.name for c in chapters.load_registry(registry)}:
        raise FileExistsError(f"chapter {name!r} exists already: {', '.join(map(str, taken)) or registry}")
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if text is None:
            nbformat.write(_notebook(name, title), path)
        else:
            path.write_text(text, encoding="utf-8")
    pyproject = root / "pyproject.toml"
    add_packages(pyproject, [f"iobook.studies.{name}", f"iobook.studies.{name}.queries"])
    entry = yaml.safe_dump([{"name": name, "title": title, "about": "TODO: one line, what the chapter shows",
                             "data": "TODO: one line, what it is built from", "reads": ["*"], "parameters": {}}],
                           sort_keys=False, allow_unicode=True)
    text = registry.read_text(encoding="utf-8")
    marker = "- name: data\n"  # the Data chapter, the catalogue of every file, stays last
    text = text.replace(marker, entry + marker, 1) if marker in text else text.rstrip("\n") + "\n" + entry
    registry.write_text(text, encoding="utf-8")
    return [*files, pyproject, registry, *chapters.write_generated(chapters.load_registry(registry))]
