"""The notebook layer, the only one that knows Jupyter: a read-only database, offline charts, a report's values,
tables and findings glued for the chapter's Markdown cells, and tables formatted for people."""
from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path

import pandas as pd
from IPython.display import HTML, Markdown

from ..database import store
from ..database.digest import tables_read
from ..inference import evidence
from . import charts
from .report import MAX_ROWS_SEARCHABLE, Html, Prose

MAX_ROWS_SHOWN = 25  # longer tables show this many rows and the whole table one click away
MAX_ROWS_INLINE = 1000  # longer tables are whole only in their CSV download (5,159 sources made a 1.6 MB page)


def setup(db_path: str | Path):
    """Open the database read-only and make Altair charts draw offline."""
    charts.enable_offline()
    return store.open_read(db_path)


# --- glue: values computed in code cells, shown from markdown cells (docs/writing-a-chapter.md) ----------------



def glue(values: dict) -> None:
    """Glue every value under its key for the markdown cells ({glue:text}`key:,.1f`, {glue:md}`key`,
    {glue:figure}); nothing shows in the cell. An Altair chart glues as its SVG (charts.py), a `table(...)` as
    its HTML, Prose as markdown and Html as HTML."""
    from myst_nb import glue as glue_one  # ~0.3 s: only chapters need it, not ingest

    for key, value in values.items():
        glue_one(key, shown(value), display=False)


def shown(value):
    """A report's value as Jupyter shows it: Prose as Markdown, Html as HTML, anything else as it is."""
    if isinstance(value, Prose):
        return Markdown(str(value))
    if isinstance(value, Html):
        return HTML(str(value))
    return value


def finding_lines(items: Iterable[str | tuple[str, str]]) -> str:
    """Findings as a MyST list: each a sentence, optionally with the :name: of the figure or table that shows
    it, linked after the sentence by its number ("(Table 2)")."""
    def line(item) -> str:
        if isinstance(item, str):
            return f"- {item}"
        text, target = item
        return f"- {text} ({{numref}}`{target}`)"
    return "\n".join(line(i) for i in items)


def glue_findings(items: Iterable[str | tuple[str, str]], key: str = "findings") -> None:
    """Glue the chapter's findings (see `finding_lines`) under `key`, for a markdown cell holding
    "## Findings" and a ```{glue:md} findings``` block with `:format: myst`. The first is the chapter's main
    result: at most FIRST_FINDING_WORDS words, with its number (the page check counts them)."""
    glue({key: Markdown(finding_lines(items))})


TABLES_READ_KEY = "iobook_tables_read"  # the tables the chapter read (iobook.database.digest), for the runner's digest


def glue_report(report) -> None:
    """Glue everything a study's report holds (iobook/book/report.py): values as they are, tables as `table(...)`,
    figures as charts, and the findings under "findings"; shows the report's note, if any."""
    if report.note is not None:
        from IPython.display import display

        display(shown(report.note))
    glue({**report.values, **report.figures,
          **{key: table(t.frame, t.formats, searchable=t.searchable, shared=t.shared, note=t.note)
             for key, t in report.tables.items()},
          TABLES_READ_KEY: tables_read()})
    for key, items in (("findings", report.findings), ("abstract", report.abstract)):
        if items:
            glue_findings([f.text if f.target is None else (f.text, f.target) for f in items], key)


def front_coded(rows: list[list[str]]) -> list[list]:
    """Rows with each first cell written as [the characters it shares with the row before's, the rest]: the paths of
    a sorted file list share most of their folders, which the page then carries once (the Data chapter's 7,435 files:
    0.98 MB of JSON as they are, 0.41 MB so, of the 1.5 MB a page may weigh). The search's script decodes them."""
    coded, previous = [], ""
    for first, *cells in rows:
        shared = len(os.path.commonprefix([previous, first]))
        coded.append([[shared, first[shared:]], *cells])
        previous = first
    return coded


def _is_list(value) -> bool:
    return isinstance(value, (list, tuple)) or (hasattr(value, "ndim") and getattr(value, "ndim") == 1)



# A range of numbers in a cell ("0.98–1.05", "runs 583–1,131)"): browsers break a line after its en dash, which split
# an interval in two where a column was narrow (issue 50: the page check's split words); a span keeps it whole, with
# the bracket or comma that closes it
NUMBER_RANGE = re.compile(r"[\d.,]*\d–[\d.,]*\d[)\],;]?")


# A searchable table: its rows (formatted cells) as JSON beside the table, a box that filters them, and pages
# of MAX_ROWS_SHOWN rows. Cells are set as text, never as HTML. Static code: the data is only in the JSON.
_SEARCH = """<script>
(function (root) {
  let previous = "";  // each row's first cell comes as [characters shared with the row before's, the rest]
  const rows = JSON.parse(root.querySelector("script.iobook-rows").textContent).map(([[shared, rest], ...cells]) => {
    previous = previous.slice(0, shared) + rest;
    return [previous, ...cells];
  });
  const body = root.querySelector("tbody"), first = body.innerHTML, box = root.querySelector("input");
  const count = root.querySelector(".iobook-search-count"), [prev, next] = root.querySelectorAll("button");
  const numeric = [...body.rows[0].cells].map(c => c.className === "n");  // columns of numbers stay right-aligned
  let matches = rows, page = 0;
  function fill(td, text) {  // as the table's own cells: a range of numbers in a span that keeps it on one line
    let last = 0;
    for (const m of text.matchAll(/%(range)s/g)) {
      const span = document.createElement("span");
      span.className = "iobook-range"; span.textContent = m[0];
      td.append(text.slice(last, m.index), span); last = m.index + m[0].length;
    }
    td.append(text.slice(last));
  }
  function show() {
    const n = %(n)d, pages = Math.max(1, Math.ceil(matches.length / n));
    page = Math.min(Math.max(page, 0), pages - 1);
    body.replaceChildren(...matches.slice(page * n, page * n + n).map(cells => {
      const tr = document.createElement("tr");
      cells.forEach((c, i) => { const td = document.createElement("td"); fill(td, c); td.className = numeric[i] ? "n" : ""; tr.appendChild(td); });
      return tr;
    }));
    count.textContent = `${matches.length.toLocaleString("en")} of ${rows.length.toLocaleString("en")} rows, page ${page + 1} of ${pages}`;
    prev.disabled = page === 0; next.disabled = page >= pages - 1;
  }
  box.addEventListener("input", () => {
    const q = box.value.toLowerCase();
    matches = q ? rows.filter(cells => cells.join(" ").toLowerCase().includes(q)) : rows;
    page = 0; show();
  });
  prev.addEventListener("click", () => { page -= 1; show(); });
  next.addEventListener("click", () => { page += 1; show(); });
  box.value = new URLSearchParams(location.search).get("files") || "";  // a chapter's link to its files
  box.dispatchEvent(new Event("input"));
})(document.currentScript.parentElement);
</script>""" % {"n": MAX_ROWS_SHOWN, "range": NUMBER_RANGE.pattern}


UNIT = re.compile(r"^(.*\S) \(([^()]+)\)$")  # "size (MiB)": the header "size" over the units row's "MiB"
FOLD_ITEMS = 5  # a cell holding a longer list (hosts, settings) shows its first item and folds the rest


def table(df: pd.DataFrame, formats: dict[str, str] | None = None, caption: str | None = None,
          searchable: bool = False, shared: dict | None = None, note: str = "") -> HTML:
    """A table for people: no index column, escaped text, numbers formatted (`formats` maps a column to a
    format spec such as ',.1f', or a function of the value where no spec does, as present.significant; other floats
    as evidence.number prints them), at most MAX_ROWS_SHOWN rows with
    the whole table in a collapsible block below (in the CSV only past MAX_ROWS_INLINE rows), and its
    unformatted data as a CSV download. A `searchable`
    table (up to MAX_ROWS_SEARCHABLE rows) shows pages of MAX_ROWS_SHOWN rows and a box that filters them.

    Tables fit any page width without splitting a word: the table scrolls sideways in its own box with its
    first column fixed (book/_static/iobook.css), a header's "(unit)" moves to a units row below the headers,
    and a cell holding a list of more than FOLD_ITEMS items (hosts, settings) is folded. `shared`: columns with
    one value in every row (column -> value), said once above the table; `note`: text said once under it (a
    legend of its verdicts), escaped."""
    formats = formats or {}

    def cell(column: str, value) -> str:
        if value is None or (isinstance(value, float) and pd.isna(value)) or value is pd.NA:
            return "–"
        if column in formats:
            spec = formats[column]
            return spec(value) if callable(spec) else format(value, spec)
        if isinstance(value, float):
            return evidence.number(value)
        if isinstance(value, int) and not isinstance(value, bool):
            return f"{value:,}"
        if _is_list(value):
            return ", ".join(map(str, value))
        return str(value)

    def td(column: str, value) -> str:
        text = html.escape(cell(column, value))
        if _is_list(value) and len(value) > FOLD_ITEMS:
            return (f'<td><details class="iobook-fold"><summary>{html.escape(str(value[0]))} and {len(value) - 1:,} '
                    f"more</summary>{text}</details></td>")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return f'<td class="n">{text}</td>'  # numbers right-aligned
        wraps = " " in text and len(text) > 30  # prose
        text = NUMBER_RANGE.sub(r'<span class="iobook-range">\g<0></span>', text)
        return f'<td class="w">{text}</td>' if wraps else f"<td>{text}</td>"

    headers = [UNIT.match(str(c)) for c in df.columns]
    units = any(headers)

    def render(frame: pd.DataFrame) -> str:
        head = "".join(f"<th>{html.escape(m.group(1) if m else str(c))}</th>" for c, m in zip(frame.columns, headers))
        if units:
            head += '</tr><tr class="iobook-units">' + "".join(
                f"<th>{html.escape(m.group(2)) if m else ''}</th>" for m in headers)
        rows = "".join("<tr>" + "".join(td(c, v) for c, v in zip(frame.columns, row)) + "</tr>"
                       for row in frame.itertuples(index=False, name=None))
        title = f"<caption>{html.escape(caption)}</caption>" if caption else ""
        return (f'<div class="iobook-table-box"><table class="iobook-table">{title}<thead><tr>{head}</tr>'
                f"</thead><tbody>{rows}</tbody></table></div>")

    df = df.reset_index(drop=True)
    if note:
        return HTML(table(df, formats, caption, searchable, shared).data
                    + f'<p class="iobook-table-note">{html.escape(note)}</p>')
    if shared:
        said = "; ".join(f"{html.escape(str(column))} {html.escape(cell(column, value))}"
                         for column, value in shared.items())
        shown = table(df, formats, caption, searchable).data
        return HTML(f'<p class="iobook-table-shared">Every row: {said}.</p>' + shown)
    link = charts.download(df.map(lambda v: "; ".join(map(str, v)) if _is_list(v) else v), "Download this table")
    if len(df) <= MAX_ROWS_SHOWN:
        return HTML(render(df) + link)
    if searchable and len(df) <= MAX_ROWS_SEARCHABLE:
        cells = [[cell(c, v) for c, v in zip(df.columns, row)] for row in df.itertuples(index=False, name=None)]
        rows_json = charts.script_safe(json.dumps(front_coded(cells), separators=(",", ":")))
        return HTML('<div class="iobook-searchable"><p><input type="search" placeholder="Filter the rows (any column)" '
                    'aria-label="Filter rows"> <button type="button">Previous</button> <button type="button">Next'
                    '</button> <span class="iobook-search-count"></span></p>' + render(df.head(MAX_ROWS_SHOWN))
                    + f'<script type="application/json" class="iobook-rows">{rows_json}'
                    + "</script>" + _SEARCH + "</div>" + link)
    if len(df) > MAX_ROWS_INLINE:  # the whole of a long table in the page would make it heavy: the CSV has it
        return HTML(render(df.head(MAX_ROWS_SHOWN))
                    + f"<p>The first {MAX_ROWS_SHOWN} of {len(df):,} rows; all of them are in the download.</p>" + link)
    return HTML(render(df.head(MAX_ROWS_SHOWN))
                + f"<details><summary>All {len(df):,} rows</summary>{render(df)}</details>" + link)
