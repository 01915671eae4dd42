"""What every chapter notebook shares: a read-only database, offline charts, exact run selection, tables
formatted for people, and the short section a chapter shows when the database has no data of its kind."""
from __future__ import annotations

import difflib
import html
import json
import posixpath
import re
import urllib.parse
from collections.abc import Iterable
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path, PurePosixPath

import pandas as pd
from IPython.display import HTML, Markdown

from . import charts, store
from .digest import tables_read

REPO_ROOT = Path(__file__).resolve().parents[1]
MAX_ROWS_SHOWN = 25  # longer tables show this many rows and the whole table one click away
MAX_ROWS_INLINE = 1000  # longer tables are whole only in their CSV download (5,159 sources made a 1.6 MB page)
def setup(db_path: str | Path):
    """Open the database read-only and make Altair charts draw offline."""
    charts.enable_offline()
    return store.open_read(db_path)


def shown_path(path: str) -> str:
    """A path as the reader should see it: relative to the repository when inside it."""
    p = Path(path)
    return str(p.relative_to(REPO_ROOT)) if p.is_relative_to(REPO_ROOT) else path


def reader_paths(con, paths: pd.Series) -> pd.Series:
    """Source paths as readers see them, never the build machine's: relative to the repository when inside
    it, else relative to the folder above the deepest one holding every file of the database outside it
    (/x/shared/fixtures/built-tools/ior/a.log -> built-tools/ior/a.log)."""
    shown = paths.map(shown_path)
    outside = shown.str.startswith("/")
    if not outside.any():
        return shown
    base = store.outside_base(con, REPO_ROOT)
    return shown.where(~outside, shown[outside].map(lambda p: str(PurePosixPath(p).relative_to(base))))


def not_a_copy(source_id: str) -> str:
    """SQL condition: the fio, IOR or mdtest log in the column `source_id` is no copy of a log stored already (view
    duplicate_logs): a copy of a file is the same run, counted once."""
    return f"{source_id} NOT IN (SELECT source_id FROM duplicate_logs)"


def half_up(x: float, digits: int) -> float:
    """Round as slides and tools print (0.05 -> 0.1), not as Python's round() does (to even)."""
    return float(Decimal(repr(x)).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


class UnknownSelection(ValueError):
    """A chapter parameter names something the database does not hold."""


def select(requested: Iterable[str] | None, available: Iterable[str], what: str) -> list[str]:
    """The requested names, checked exactly against what the database holds; None or empty selects all.
    An unknown name is an error that names it and the nearest names that exist."""
    available = sorted(set(available))
    if not requested:
        return available
    requested = list(requested)
    unknown = [r for r in requested if r not in available]
    if unknown:
        hints = "; ".join(f"{u!r}: nearest {difflib.get_close_matches(u, available, n=3, cutoff=0.5) or 'none'}"
                          for u in unknown)
        raise UnknownSelection(f"no {what} named {', '.join(map(repr, unknown))} in this database ({hints})")
    return requested


def select_or_note(requested: Iterable[str] | None, available: Iterable[str], what: str) -> tuple[list[str], str | None]:
    """`select` for a chapter's pinned parameter on data it was not tuned to: the requested names the database
    holds (all of them when none is requested or none is held), and a note for the chapter to show (None when
    every requested name is held) naming those that match nothing and the nearest that exist. A pinned choice
    that matches nothing is a note in its chapter, never a failed book."""
    available = sorted(set(available))
    requested = list(requested or [])
    try:
        return select(requested, available, what), None
    except UnknownSelection as e:
        held = [r for r in requested if r in available]
        return (held or available), f"{e}: {'the others are' if held else 'every one it holds is'} used instead"


_MD_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def md_escape(text) -> str:
    """Text from the data (a folder, a label, a parameter) made literal in Markdown/MyST: every ASCII
    punctuation character backslash-escaped (CommonMark), line breaks as spaces. For computed sentences a
    chapter glues ({glue:md}), so a name like `<b>` or `**x**` shows as typed."""
    return _MD_PUNCTUATION.sub(r"\\\1", " ".join(str(text).split()))


def no_data(kind: str, how_to_add: str) -> Markdown:
    """The section a chapter renders instead of its analysis when the database holds none of its data."""
    return Markdown(f"```{{note}}\nThis database holds no {kind}, so this chapter has nothing to show.\n"
                    f"{how_to_add}\n```")


def sources(con, source_ids) -> pd.DataFrame:
    """The files behind a figure: path, format, tool version and the first 12 hex digits of its sha256."""
    df = con.execute(
        "SELECT path, format, tool_version, left(sha256, 12) AS sha256 "
        "FROM sources WHERE list_contains(?, source_id) ORDER BY path",
        [sorted({int(s) for s in source_ids})],
    ).df()
    df["path"] = reader_paths(con, df["path"])
    return df


def anchor(name: str) -> HTML:
    """A target a finding links to, shown just before its figure (`fig-...`) or table (`tab-...`)."""
    return HTML(f'<span id="{html.escape(name)}" class="iobook-anchor"></span>')


def findings(items: Iterable[str | tuple[str, str]], heading: str = "## Findings") -> Markdown:
    """The chapter's opening list: each finding a sentence, optionally with the anchor (see `anchor`,
    `table(anchor=...)`) of the figure or table that shows it, linked after the sentence. The page check
    fails on a link whose target is not on the page."""
    def line(item) -> str:
        if isinstance(item, str):
            return f"- {item}"
        text, target = item
        kind = "table" if target.startswith("tab-") else "figure"
        return f'- {text} <a class="iobook-finding-link" href="#{html.escape(target)}">({kind})</a>'
    return Markdown("\n".join([heading, ""] + [line(i) for i in items]))


# --- glue: values computed in code cells, shown from markdown cells (docs/writing-a-chapter.md) ----------------

FIRST_FINDING_WORDS = 30  # the chapter's main result, as the landing page and the page check read it


def glue(values: dict) -> None:
    """Glue every value under its key for the markdown cells ({glue:text}`key:,.1f`, {glue:md}`key`,
    {glue:figure}); nothing shows in the cell. An Altair chart glues as its SVG (charts.py), a `table(...)` as
    its HTML, `Markdown(...)` as markdown."""
    from myst_nb import glue as glue_one  # ~0.3 s: only chapters need it, not ingest

    for key, value in values.items():
        glue_one(key, value, display=False)


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


TABLES_READ_KEY = "iobook_tables_read"  # the tables the chapter read (iobook.digest), for the runner's digest


def glue_report(report) -> None:
    """Glue everything a study's report holds (iobook/report.py): values as they are, tables as `table(...)`,
    figures as charts, and the findings under "findings"; shows the report's note, if any."""
    if report.note is not None:
        from IPython.display import display

        display(report.note)
    glue({**report.values, **report.figures,
          **{key: table(t.frame, t.formats, searchable=t.searchable) for key, t in report.tables.items()},
          TABLES_READ_KEY: tables_read()})
    for key, items in (("findings", report.findings), ("abstract", report.abstract)):
        if items:
            glue_findings([f.text if f.target is None else (f.text, f.target) for f in items], key)


def _is_list(value) -> bool:
    return isinstance(value, (list, tuple)) or (hasattr(value, "ndim") and getattr(value, "ndim") == 1)


MAX_ROWS_SEARCHABLE = 8000  # a searchable table carries its rows as JSON (~160 bytes a file: 1.3 MB) up to this many

# A searchable table: its rows (formatted cells) as JSON beside the table, a box that filters them, and pages
# of MAX_ROWS_SHOWN rows. Cells are set as text, never as HTML. Static code: the data is only in the JSON.
_SEARCH = """<script>
(function (root) {
  const rows = JSON.parse(root.querySelector("script.iobook-rows").textContent);
  const body = root.querySelector("tbody"), first = body.innerHTML, box = root.querySelector("input");
  const count = root.querySelector(".iobook-search-count"), [prev, next] = root.querySelectorAll("button");
  const numeric = [...body.rows[0].cells].map(c => c.className === "n");  // columns of numbers stay right-aligned
  let matches = rows, page = 0;
  function show() {
    const n = %(n)d, pages = Math.max(1, Math.ceil(matches.length / n));
    page = Math.min(Math.max(page, 0), pages - 1);
    body.replaceChildren(...matches.slice(page * n, page * n + n).map(cells => {
      const tr = document.createElement("tr");
      cells.forEach((c, i) => { const td = document.createElement("td"); td.textContent = c; td.className = numeric[i] ? "n" : ""; tr.appendChild(td); });
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
</script>""" % {"n": MAX_ROWS_SHOWN}


def files_link(paths: pd.Series, label: str) -> HTML:
    """A link to the Data chapter's list of files filtered to the folder holding all of `paths` (as readers see
    them, e.g. from `sources`), or to `paths`' one file."""
    folder = posixpath.commonpath(list(paths)) if len(paths) else ""
    href = f"data.html?files={urllib.parse.quote(folder)}#data-sources"
    return HTML(f'<p class="iobook-files-link">{html.escape(label)}: <a href="{html.escape(href)}">the files under '
                f'{html.escape(folder)} in the Data chapter</a> ({len(paths):,} read here)</p>')


UNIT = re.compile(r"^(.*\S) \(([^()]+)\)$")  # "size (MiB)": the header "size" over the units row's "MiB"
FOLD_ITEMS = 5  # a cell holding a longer list (hosts, settings) shows its first item and folds the rest


def table(df: pd.DataFrame, formats: dict[str, str] | None = None, caption: str | None = None,
          anchor: str | None = None, searchable: bool = False) -> HTML:
    """A table for people: no index column, escaped text, numbers formatted (`formats` maps a column to a
    format spec such as ',.1f'; other floats get 3 significant digits), at most MAX_ROWS_SHOWN rows with
    the whole table in a collapsible block below (in the CSV only past MAX_ROWS_INLINE rows), and its
    unformatted data as a CSV download. `anchor` gives the table an id findings can link to. A `searchable`
    table (up to MAX_ROWS_SEARCHABLE rows) shows pages of MAX_ROWS_SHOWN rows and a box that filters them.

    Tables fit any page width without splitting a word: the table scrolls sideways in its own box with its
    first column fixed (book/_static/iobook.css), a header's "(unit)" moves to a units row below the headers,
    and a cell holding a list of more than FOLD_ITEMS items (hosts, settings) is folded."""
    formats = formats or {}

    def cell(column: str, value) -> str:
        if value is None or (isinstance(value, float) and pd.isna(value)) or value is pd.NA:
            return "–"
        if column in formats:
            return format(value, formats[column])
        if isinstance(value, float):
            return f"{value:,.3g}" if abs(value) < 1e5 else f"{value:,.0f}"
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
        return f'<td class="w">{text}</td>' if " " in text and len(text) > 30 else f"<td>{text}</td>"  # prose wraps

    headers = [UNIT.match(str(c)) for c in df.columns]
    units = any(headers)

    def render(frame: pd.DataFrame, first: bool = True) -> str:
        table_id = f' id="{html.escape(anchor)}"' if anchor and first else ""  # ids are unique on a page
        head = "".join(f"<th>{html.escape(m.group(1) if m else str(c))}</th>" for c, m in zip(frame.columns, headers))
        if units:
            head += '</tr><tr class="iobook-units">' + "".join(
                f"<th>{html.escape(m.group(2)) if m else ''}</th>" for m in headers)
        rows = "".join("<tr>" + "".join(td(c, v) for c, v in zip(frame.columns, row)) + "</tr>"
                       for row in frame.itertuples(index=False, name=None))
        title = f"<caption>{html.escape(caption)}</caption>" if caption else ""
        return (f'<div class="iobook-table-box"><table class="iobook-table"{table_id}>{title}<thead><tr>{head}</tr>'
                f"</thead><tbody>{rows}</tbody></table></div>")

    df = df.reset_index(drop=True)
    link = charts.download(df.map(lambda v: "; ".join(map(str, v)) if _is_list(v) else v), "Download this table")
    if len(df) <= MAX_ROWS_SHOWN:
        return HTML(render(df) + link)
    if searchable and len(df) <= MAX_ROWS_SEARCHABLE:
        cells = [[cell(c, v) for c, v in zip(df.columns, row)] for row in df.itertuples(index=False, name=None)]
        rows_json = charts.script_safe(json.dumps(cells, separators=(",", ":")))
        return HTML('<div class="iobook-searchable"><p><input type="search" placeholder="Filter the rows (any column)" '
                    'aria-label="Filter rows"> <button type="button">Previous</button> <button type="button">Next'
                    '</button> <span class="iobook-search-count"></span></p>' + render(df.head(MAX_ROWS_SHOWN))
                    + f'<script type="application/json" class="iobook-rows">{rows_json}'
                    + "</script>" + _SEARCH + "</div>" + link)
    if len(df) > MAX_ROWS_INLINE:  # the whole of a long table in the page would make it heavy: the CSV has it
        return HTML(render(df.head(MAX_ROWS_SHOWN))
                    + f"<p>The first {MAX_ROWS_SHOWN} of {len(df):,} rows; all of them are in the download.</p>" + link)
    return HTML(render(df.head(MAX_ROWS_SHOWN))
                + f"<details><summary>All {len(df):,} rows</summary>{render(df, first=False)}</details>" + link)
