"""`python -m iobook new-chapter NAME`: a new chapter that runs, to edit into your own study.

Writes the four files a chapter is made of, in the house's conventions, and registers it:
- iobook/studies/NAME.py: a get_* query (a DataFrame), a chart_* figure, and `report(con)` that returns the
  chapter's values, tables, figures and findings (iobook/report.py), built from evidence records
  (iobook/evidence.py), working on any database, the empty one included;
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

STUDY = '''"""{title}: TODO say what this chapter shows and from which data (the chapter `{name}`)."""
from __future__ import annotations

import altair as alt
import pandas as pd

from .. import evidence, present
from ..report import Finding, Report, Table


def get_files(con) -> pd.DataFrame:
    """Files read per tool (TODO: replace by the query your study needs; bind values as SQL parameters)."""
    return con.execute(
        """
        SELECT coalesce(tool, 'not read') AS tool, count(*) AS files, sum(bytes) / 2^20 AS mib
        FROM sources WHERE status <> 'gone' GROUP BY ALL ORDER BY files DESC, tool
        """).df()


def chart_files(files: pd.DataFrame) -> alt.Chart:
    """Files per tool, one bar each."""
    return alt.Chart(files).mark_bar().encode(
        x=alt.X("files:Q", title="files"), y=alt.Y("tool:N", sort="-x", title=None),
        tooltip=["tool:N", "files:Q", alt.Tooltip("mib:Q", format=",.1f", title="MiB")],
    ).properties(width=360)


def report(con) -> Report:
    """The chapter (TODO: your results). A finding's numbers come from its evidence record (evidence.count for a
    census, evidence.estimate for a value over runs, evidence.compare + evidence.decide for two groups), read
    in a sentence with evidence.phrase."""
    files = get_files(con)
    if files.empty:
        return Report(values={{"has_data": False}}, note=present.no_data(
            "files", "Build the book on your logs: `make book DATA=path/to/logs`."))
    read = files[files["tool"] != "not read"]
    census = evidence.count(int(read["files"].sum()), int(files["files"].sum()), quantity="files read as logs",
                            of=evidence.Replicate.CENSUS)
    top = files.iloc[0]
    return Report(
        values={{"has_data": True, "files": census.n}},
        tables={{"tab-{slug}-files": Table(frame=files, formats={{"mib": ",.1f"}})}},
        figures={{"fig-{slug}-files": chart_files(files)}},
        findings=[Finding(text=f"**{{present.md_escape(top['tool'])}}** has the most files: {{top['files']:,}} of {{census.n:,}}.",
                          target="fig-{slug}-files"),
                  Finding(text=f"{{evidence.phrase(census)}} were read as logs.", target="tab-{slug}-files",
                          evidence=(census,))],
        evidence=[census])
'''

TEST = '''"""The {name} chapter: its study on the empty and default test databases, and its notebook executed on both."""
import pytest

from conftest import execute_chapter
from iobook import store
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
            f"from iobook import nb\nfrom iobook.studies import {name} as study\n\n"
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


def new_chapter(name: str, title: str | None = None) -> list[Path]:
    """Write the chapter `name`'s study, notebook and test, register it, and regenerate the files made from the
    registry. Refuses a name that is not a Python identifier in lower case or that a chapter already uses."""
    import nbformat
    import yaml

    if not NAME.fullmatch(name):
        raise ValueError(f"{name!r}: a chapter's name is lower-case letters, digits and _, starting with a letter")
    title = title or name.replace("_", " ").capitalize()
    root, registry = chapters.REPO_ROOT, chapters.REGISTRY
    files = {root / "iobook" / "studies" / f"{name}.py": STUDY.format(name=name, title=title, slug=name.replace("_", "-")),
             root / "tests" / f"test_study_{name}.py": TEST.format(name=name),
             root / "notebooks" / f"{name}.ipynb": None}
    taken = [p for p in files if p.exists()]
    if taken or name in {c.name for c in chapters.load_registry(registry)}:
        raise FileExistsError(f"chapter {name!r} exists already: {', '.join(map(str, taken)) or registry}")
    for path, text in files.items():
        if text is None:
            nbformat.write(_notebook(name, title), path)
        else:
            path.write_text(text, encoding="utf-8")
    entry = yaml.safe_dump([{"name": name, "title": title, "about": "TODO: one line, what the chapter shows",
                             "data": "TODO: one line, what it is built from", "reads": ["*"], "parameters": {}}],
                           sort_keys=False, allow_unicode=True)
    text = registry.read_text(encoding="utf-8")
    marker = "- name: data\n"  # the Data chapter, the catalogue of every file, stays last
    text = text.replace(marker, entry + marker, 1) if marker in text else text.rstrip("\n") + "\n" + entry
    registry.write_text(text, encoding="utf-8")
    return [*files, registry, *chapters.write_generated(chapters.load_registry(registry))]
