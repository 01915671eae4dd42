"""Altair charts that draw offline.

Altair's default HTML output loads Vega from a CDN, which leaves charts blank in an offline book. The book
ships one Vega bundle in its static files (`write_static`, run by `make book`); notebooks call
`enable_offline()` so every chart becomes a static SVG plus a div and a `vegaEmbed` call that uses that
bundle. Chart ids are derived from the spec and vl-convert's SVG is deterministic, so re-executing a
chapter yields identical output and nbval can compare it.
"""
from __future__ import annotations

import hashlib
import html
import json
import tempfile
from functools import cache
from pathlib import Path

import altair as alt
import font_source_sans_pro
import pandas as pd
import vl_convert

BUNDLE_NAME = "vega-bundle.js"
# vl-convert measures SVG text with whatever fonts the machine has, so a chart's SVG differed between a
# machine with Chromium's fonts and one without. Charts name a font the project pins (a PyPI package).
FONT = "Source Sans Pro"
FONT_FILES = ("SourceSansPro-Regular.ttf", "SourceSansPro-Bold.ttf")  # served to browsers (book/_static/fonts)

# The chart is drawn twice: a static SVG (vl-convert, now), shown wherever no script runs (JupyterLab
# without the bundle, a notebook viewer), and the interactive vegaEmbed view with tooltips, which replaces
# the static copy once the book's bundle has drawn it.
_EMBED = """<div class="iobook-chart-static">{svg}</div>
<div id="{id}" class="iobook-chart"></div>
<script type="text/javascript">
(function draw() {{
  if (!window.vegaEmbed) {{ window.addEventListener("load", draw, {{once: true}}); return; }}
  vegaEmbed("#{id}", {spec}, {{renderer: "svg", actions: false}}).then(function () {{
    document.getElementById("{id}").previousElementSibling.remove();
  }});
}})();
</script>"""

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
            f"({len(frame):,} rows, CSV)</p>")


_counts: dict[str, int] = {}


def script_safe(spec_json: str) -> str:
    """JSON that cannot end or open anything inside a <script> element: `<`, `>` and `&` (from file and
    folder names in a spec's data) become JSON escapes, which parse back to the same characters."""
    return spec_json.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _render(spec: dict, **_metadata) -> dict:
    text = json.dumps(spec, sort_keys=True)
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    _counts[digest] = _counts.get(digest, 0) + 1  # the same chart twice on a page needs two ids
    chart_id = f"chart-{digest}-{_counts[digest]}"
    html = _EMBED.format(id=chart_id, svg=vl_convert.vegalite_to_svg(spec), spec=script_safe(text))
    for rows in spec.get("datasets", {}).values():  # the chart's own (aggregated) data, as drawn
        html += download(pd.DataFrame(rows), "Download the data of this chart")
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
    alt.theme.register("iobook", enable=True)(
        lambda: alt.theme.ThemeConfig(config={"font": FONT}))
    alt.renderers.register("iobook-offline", _render)
    alt.renderers.enable("iobook-offline")


def write_static(static_dir: Path) -> None:
    """The book's own static files: Vega, Vega-Lite and vega-embed as one script, wrapped in a function so
    its top-level names (e.g. `_`) do not clash with Sphinx's own scripts, and the charts' font, so the
    interactive charts draw in the face their static SVG was measured with. Files are left untouched when
    unchanged (no page rebuilds)."""
    fonts = Path(font_source_sans_pro.__file__).parent / "files"
    wanted = {static_dir / BUNDLE_NAME: ("(function () {\n" + vl_convert.javascript_bundle() + "\n})();\n").encode()}
    wanted |= {static_dir / "fonts" / name: (fonts / name).read_bytes() for name in FONT_FILES}
    for target, data in wanted.items():
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists() or target.read_bytes() != data:
            target.write_bytes(data)
