"""Altair charts that draw offline, as static SVG with a tooltip on every mark.

Altair's default HTML output loads Vega from a CDN, which leaves charts blank in an offline book. Notebooks
call `enable_offline()` so every chart becomes the SVG vl-convert draws from its spec, with the chart's own
data as a CSV download below it: no script, so charts show at once, in JupyterLab, in notebook viewers and in
the book. The interactive Vega view is not used: its runtime (0.90 MB, vl-convert's only working bundle)
and the theme's files already weigh 1.47 MB, the page budget was 1.5 MB. What its tooltips showed stays:
each mark's description (its fields, as Vega writes them into `aria-label`) becomes the mark's SVG <title>,
which browsers show on hover. Chart ids are derived from the spec and vl-convert's SVG is deterministic, so
re-executing a chapter yields identical output and nbval can compare it.
"""
from __future__ import annotations

import hashlib
import html
import json
import re
import tempfile
import textwrap
from collections.abc import Callable
from functools import cache
from pathlib import Path

import altair as alt
import font_source_sans_pro
import pandas as pd
import vl_convert

from ..inference.evidence import plural

# vl-convert measures SVG text with whatever fonts the machine has, so a chart's SVG differed between a
# machine with Chromium's fonts and one without. Charts name a font the project pins (a PyPI package), which
# vl-convert finds; browsers, which are not sent it (0.58 MB), show the SVG's text in their own sans-serif.
FONT = "Source Sans Pro, sans-serif"
# No chart text under 11 px (issue 37: Vega's 10 px axis and legend labels were too small to read on a page)
TEXT_PX, TITLE_PX = 11, 12
LEGIBLE = {"axis": {"labelFontSize": TEXT_PX, "titleFontSize": TITLE_PX},  # labels whole: Vega cuts them with "…"
           "legend": {"labelFontSize": TEXT_PX, "titleFontSize": TITLE_PX, "labelLimit": 0, "titleLimit": 0},
           "header": {"labelFontSize": TITLE_PX, "titleFontSize": TITLE_PX}, "title": {"subtitleFontSize": TEXT_PX},
           # room on the right for text a browser draws in its own, wider sans-serif (the SVG is measured with FONT)
           "padding": {"left": 5, "top": 5, "right": 24, "bottom": 5}}

# A quantitative axis' or legend's format that rounds to three significant digits: a mark's tooltip (the description
# Vega gives it) prints its position and colour in their axis' and legend's formats, raw floats without one
# ("bandwidth (MiB/s, log): 9.34579372406", issue 50); tick labels read as Vega's default ones. Two helpers on
# purpose: this is d3's format, which Vega applies to an axis, a legend and the description it makes; tooltip_text
# writes a description in Python where a mark's text must round as its table does (present.significant), which no
# d3 format prints.
ROUNDED = ",.3~r"

# A mark of a chart, with the description Vega gives it: `<path aria-label="x: 1; y: 3" ... d="..."/>`
_MARK = re.compile(r'<(path|rect|circle|ellipse|line|polygon|polyline|image)\b([^>]*?)\saria-label="([^"]*)"([^>]*?)/>')


# A coordinate's digits past the second decimal (vl-convert prints up to 14): a hundredth of a pixel is
# below what any screen draws, the digits were a tenth of a chart's bytes, and a line's end
# (x2="135.6986163786736") carried its data's last bit into the page.
_GEOMETRY = re.compile(r'\s(transform|d|x|y|x1|x2|y1|y2|width|height)="([^"]*)"')
_LONG_DECIMALS = re.compile(r"(\d\.\d\d)\d+")


def svg_with_tooltips(svg: str) -> str:
    """vl-convert's SVG with each mark's aria-label moved into a <title> child (a tooltip on hover), and its
    coordinates to a hundredth of a pixel (the data in the tooltips is left as it is)."""
    svg = _GEOMETRY.sub(lambda m: f' {m[1]}="{_LONG_DECIMALS.sub(lambda d: d[1], m[2])}"', svg)
    return _MARK.sub(lambda m: f"<{m[1]}{m[2]}{m[4]}><title>{m[3]}</title></{m[1]}>", svg)


# Downloads are written beside the executed chapter (the kernel's working folder, book/) into the book's
# static files, which Sphinx copies to the site; chapter pages sit one folder below the site's root.
DOWNLOADS = Path("_static") / "downloads"
DOWNLOADS_HREF = "../_static/downloads"


def download(frame: pd.DataFrame, label: str) -> str:
    """Write `frame` as CSV under a name made from its content (the same data, the same file: stable for
    nbval and for caches) and return an HTML link to it."""
    text = frame.to_csv(index=False)
    name = f"{hashlib.sha256(text.encode()).hexdigest()[:16]}.csv"
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    if not (DOWNLOADS / name).exists():
        (DOWNLOADS / name).write_text(text, encoding="utf-8")
    return (f'<p class="iobook-download"><a href="{DOWNLOADS_HREF}/{name}" download>{html.escape(label)}</a> '
            f"({plural(len(frame), 'row')}, CSV)</p>")


# A chart draws at most this many marks. vl-convert failed on one of ~10,000 (issue 30: "Maximum call stack size
# exceeded" for the Stragglers chapter on four copies of the archive), and a page of thousands of marks is read
# by no one: past the cap a chart draws the rows that stand out most and its caption says so.
MAX_MARKS = 3000


def within_mark_cap(frame: pd.DataFrame, *, marks_per_row: int = 1, what: str = "rows",
                    max_rows: int | None = None) -> tuple[pd.DataFrame, str]:
    """The rows of `frame` (ordered most telling first) a chart draws, and the sentence its caption adds: every
    row while rows x marks_per_row stays within MAX_MARKS and within `max_rows` (a chart with a row per item,
    whose height grows with them: what stays readable), and no sentence; else the first rows that fit and a
    sentence saying how many of how many are drawn. The chart's CSV download holds the rows drawn."""
    limit = max(1, min(MAX_MARKS // marks_per_row, max_rows or MAX_MARKS))
    if len(frame) <= limit:
        return frame, ""
    return frame.head(limit), f"The chart draws the {limit:,} {what} that stand out most, of {len(frame):,}."


def tooltip_text(frame: pd.DataFrame, fields: list[tuple[str, str, "str | Callable[[float], str]"]]) -> pd.Series:
    """Each row's tooltip as the tables round it, for a chart's `description` channel (encode(description=...)):
    'run: 4; bandwidth (MiB/s): 1,234' from (column, title, format spec or a function that formats) triples (an empty
    title: the value alone), a missing value left out. Vega's own
    description of a mark names every encoded field with its raw value ('bandwidth (MiB/s, log): 9.34579372406',
    issue 50); a description channel replaces it."""
    def value(x, spec: str) -> str | None:
        if x is None or (isinstance(x, float) and pd.isna(x)):
            return None
        return spec(x) if callable(spec) else format(x, spec) if spec else str(x)

    return pd.Series(["; ".join(f"{title}: {shown}" if title else shown for (column, title, spec) in fields
                                if (shown := value(row[column], spec)) is not None)
                      for _, row in frame.iterrows()], index=frame.index, dtype=object)


_counts: dict[str, int] = {}


def script_safe(spec_json: str) -> str:
    """JSON that cannot end or open anything inside a <script> element: `<`, `>` and `&` (from file and
    folder names in a spec's data) become JSON escapes, which parse back to the same characters."""
    return spec_json.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# Vega-Lite draws a title on one line and the SVG cuts what passes its edge ("decided after Holm's corre"):
# titles and subtitles are wrapped at spaces to the chart's width, at a generous width per character of the
# book's font (Source Sans Pro: ~0.5 em; Vega's title 13 px bold, subtitle 10 px).
TITLE_CHAR_PX, SUBTITLE_CHAR_PX = 7.5, 5.5
CHART_KEYS = {"mark", "layer", "hconcat", "vconcat", "concat", "facet", "spec", "repeat"}  # a (sub)chart's keys
DEFAULT_HEIGHT_PX = 300  # Vega-Lite's default height
DEFAULT_WIDTH_PX = 400  # a chart whose width is not a number ("container", a concatenation): Vega-Lite's 400


def _wrap(text, width_px: float, char_px: float):
    lines = [text] if isinstance(text, str) else list(text)
    wrapped = [part for line in lines
               for part in (textwrap.wrap(line, max(20, int(width_px / char_px)), break_long_words=False) or [line])]
    return wrapped[0] if len(wrapped) == 1 else wrapped


def wrap_titles(spec, width_px: float = DEFAULT_WIDTH_PX):
    """The spec with every title and subtitle (of the chart and of its parts) wrapped to its chart's width, and
    its axis titles to the axis' length."""
    if isinstance(spec, list):
        return [wrap_titles(part, width_px) for part in spec]
    if not isinstance(spec, dict):
        return spec
    width = spec["width"] if isinstance(spec.get("width"), (int, float)) else width_px
    out = {key: wrap_titles(value, width) for key, value in spec.items() if key != "title"}
    title = spec.get("title")
    if not CHART_KEYS & spec.keys() or title is None:  # an axis', legend's, header's or tooltip's title
        if "title" in spec:  # (Vega-Lite places those itself), or None: no title at all
            out["title"] = title
    elif isinstance(title, (str, list)):
        out["title"] = _wrap(title, width, TITLE_CHAR_PX)
    elif isinstance(title, dict):
        out["title"] = {**title, **({"text": _wrap(title["text"], width, TITLE_CHAR_PX)} if "text" in title else {}),
                        **({"subtitle": _wrap(title["subtitle"], width, SUBTITLE_CHAR_PX)} if "subtitle" in title else {})}
    else:
        out["title"] = title
    encoding = out.get("encoding")
    if isinstance(encoding, dict):  # axis titles: x along the width, y (drawn turned) along the height
        height = spec["height"] if isinstance(spec.get("height"), (int, float)) else DEFAULT_HEIGHT_PX
        for channel, length in (("x", width), ("y", height)):
            axis = encoding.get(channel)
            if isinstance(axis, dict) and isinstance(axis.get("title"), str):
                encoding[channel] = {**axis, "title": _wrap(axis["title"], length, SUBTITLE_CHAR_PX)}
    return out


def _is_database_id(key: str, rows: list[dict]) -> bool:
    return (key in ("id", "run_id", "source_id") or key.endswith(("_id", "_source_id"))) and all(
        row.get(key) is None or isinstance(row.get(key), int) for row in rows)


def without_database_ids(spec: dict) -> dict:
    """The spec with every integer id column (run_id, source_id, step_id, ...) that no part of the chart reads
    left out of its data. Ingest numbers rows in the order it meets files, so an id differs between a database
    built at once and one that grew: in the data it changed the chart's id and download on a fresh clone, though
    no mark drew it. Ids the chart does read (a collector's run_id names a run) stay."""
    datasets = spec.get("datasets")
    if not datasets:
        return spec
    read = json.dumps({k: v for k, v in spec.items() if k != "datasets"})
    kept, renamed = {}, {}
    for name, rows in datasets.items():
        unread = {k for row in rows[:1] for k in row
                  if not re.search(rf"\b{re.escape(k)}\b", read) and _is_database_id(k, rows)}
        if not unread:
            kept[name] = rows
            continue
        rows = [{k: v for k, v in row.items() if k not in unread} for row in rows]
        # Altair names a dataset by a hash of its rows: named again from what is left
        renamed[name] = "data-" + hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()[:32]
        kept[renamed[name]] = rows
    text = read
    for old, new in renamed.items():
        text = text.replace(f'"{old}"', f'"{new}"')
    return {**json.loads(text), "datasets": kept}


def _render(spec: dict, **_metadata) -> dict:
    spec = without_database_ids(wrap_titles(spec))
    text = json.dumps(spec, sort_keys=True)
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    _counts[digest] = _counts.get(digest, 0) + 1  # the same chart twice on a page needs two ids
    chart_id = f"chart-{digest}-{_counts[digest]}"
    html = f'<div id="{chart_id}" class="iobook-chart">{svg_with_tooltips(vl_convert.vegalite_to_svg(spec))}</div>'
    # the chart's own (aggregated) data, as drawn, in one file: of a chart of several parts (layers, panels),
    # each part's rows numbered in `part` (1, 2, ... in the spec's order), none of a part that draws nothing
    drawn = [pd.DataFrame(rows) for rows in spec.get("datasets", {}).values() if rows]
    if drawn:
        frame = drawn[0] if len(drawn) == 1 else pd.concat(
            [rows.assign(part=part) for part, rows in enumerate(drawn, start=1)], ignore_index=True)
        html += download(frame, "Download the data of this chart")
    return {"text/html": html, "text/plain": f"<chart {chart_id}>"}


@cache
def _register_font() -> None:
    """Give vl-convert the pinned font's TTFs only: the package also ships OTFs of the same faces, and which
    of two equal faces fontdb picks follows directory order, which differs between file systems."""
    folder = Path(tempfile.mkdtemp(prefix="iobook-fonts-"))
    for ttf in sorted((Path(font_source_sans_pro.__file__).parent / "files").glob("*.ttf")):
        (folder / ttf.name).symlink_to(ttf)
    vl_convert.register_font_directory(str(folder))


def enable_offline() -> None:
    _register_font()
    alt.theme.register("iobook", enable=True)(lambda: alt.theme.ThemeConfig(config={"font": FONT, **LEGIBLE}))
    alt.renderers.register("iobook-offline", _render)
    alt.renderers.enable("iobook-offline")
