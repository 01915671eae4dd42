"""`python -m iobook new-chapter NAME`: a new chapter that runs, to edit into your own study.

Writes the four files a chapter is made of, in the house's conventions, and registers it:
- iobook/studies/NAME.py: a get_* query (a DataFrame), a chart_* figure and the findings, working on any
  database, the empty one included;
- notebooks/NAME.ipynb: the parameters cell, one hidden cell of calls that glue values, and Markdown cells
  (findings first) that paste them;
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

from .. import nb


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


def findings(files: pd.DataFrame) -> str:
    """The findings as the Markdown list the page shows, main result first (TODO: your results, each with its
    number and interval, linked to the figure or table showing it)."""
    if files.empty:
        return "This database holds no file yet: build the book on your logs, `make book DATA=path/to/logs`."
    read = files[files["tool"] != "not read"]
    top = files.iloc[0]
    return "\\n".join([
        f"- **{{nb.md_escape(top['tool'])}}** has the most files: {{top['files']:,}} of {{files['files'].sum():,}} "
        "{{numref}}`fig-{slug}-files`",
        f"- {{read['files'].sum():,}} files were read as logs of {{len(read):,}} tool(s) {{{{numref}}}}`tab-{slug}-files`",
        f"- {{files['mib'].sum():,.1f}} MiB in all {{{{numref}}}}`tab-{slug}-files`",
    ])
'''

TEST = '''"""The {name} chapter: its study on the empty and default test databases, and its notebook executed on both."""
import pytest

from conftest import execute_chapter
from iobook import store
from iobook.studies import {name} as study


@pytest.mark.parametrize("db", ["empty", "default"])
def test_study_runs(databases, db):
    con = store.open_read(databases[db])
    files = study.get_files(con)
    assert files.empty == (db == "empty")
    assert study.findings(files)
    if len(files):
        assert study.chart_files(files).to_dict()
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
            "from IPython.display import Markdown\nfrom myst_nb import glue\n\nfrom iobook import nb\n"
            f"from iobook.studies import {name} as study\n\n"
            "con = nb.setup(db_path)\nfiles = study.get_files(con)\n\n"
            'glue("findings", Markdown(study.findings(files)), display=False)\n'
            f'glue("fig-{slug}-files", study.chart_files(files), display=False)\n'
            f'glue("tab-{slug}-files", nb.table(files, formats={{"mib": ",.1f"}}), display=False)\n'
            'glue("files", int(files["files"].sum()) if len(files) else 0, display=False)',
            metadata=hidden),
        new_markdown_cell("## Findings\n\n```{glue:md} findings\n:format: myst\n```"),
        new_markdown_cell(
            "## What the database holds\n\nTODO: prose you edit. Computed values are pasted, never typed: "
            "{glue:text}`files:,` files.\n\n"
            f"```{{glue:figure}} fig-{slug}-files\n:name: \"fig-{slug}-files\"\n\n"
            "Files per tool (TODO: a caption stating what the figure shows).\n```\n\n"
            f"```{{glue:figure}} tab-{slug}-files\n:name: \"tab-{slug}-files\"\n\n"
            "Files and MiB per tool.\n```"),
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
