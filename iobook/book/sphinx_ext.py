"""The book's Sphinx extension (in _config.yml's extension list).

- A glued figure named `tab-...` is a table: myst-nb's {glue:figure} makes every glued output a figure, so a
  table glued from `nb.table` would be numbered "Fig. N" with its caption below it. Such figures are numbered
  "Table N" (Sphinx's own table counter and `numfig_format`), with the caption above the table.
- Light pages: the theme's icons are drawn from inline SVG instead of its 0.16 MB icon font: the stylesheet written into the site keeps the
  glyph rules only for the icons the pages use, each as an SVG mask taken from the theme's own icon set (the
  theme's 1.49 MB fontawesome.js is not loaded: book/_templates/static/webpack-macros.html). The font still
  loads where the theme draws an icon from CSS alone (an admonition's title).
"""
from __future__ import annotations

import re
import urllib.parse
from pathlib import Path

from docutils import nodes
from sphinx.transforms import SphinxTransform
from sphinx.writers.html5 import HTML5Translator

TABLE_PREFIX = "tab-"


class glued_table(nodes.figure):  # noqa: N801 (docutils names node classes in lower case)
    """A {glue:figure} whose :name: starts with `tab-`."""


class GluedTables(SphinxTransform):
    # after myst's own transforms have set the figure's names, before the environment reads labels and numbers
    default_priority = 400

    def apply(self, **kwargs) -> None:
        for figure in list(self.document.findall(nodes.figure)):
            if type(figure) is not nodes.figure or not any(n.startswith(TABLE_PREFIX) for n in figure["names"]):
                continue
            table = glued_table(figure.rawsource, *figure.children, **figure.attributes)
            # its caption shows above the table (book/_static/iobook.css): docutils writes the <figcaption>
            # open until the figure's end, so a caption moved first would hold the table
            table["classes"].append("iobook-glued-table")
            figure.replace_self(table)
            for node_id in table["ids"]:  # what {numref} looks its target up by
                self.document.ids[node_id] = table


# `.fa-bars:before,.fa-navicon:before{content:"\f0c9"}`: one rule per icon in the theme's stylesheet
ICON_RULE = re.compile(r'(?:\.fa-[a-z0-9-]+:before,?)+\{content:"[^"]*"\}')
# an icon of the solid set in fontawesome.js: name: [width, height, [aliases], "unicode", "svg path"]
SOLID_ICON = re.compile(r'(?:"([a-z0-9-]+)"|\b([a-z][a-z0-9]*)):\[(\d+),(\d+),\[[^\]]*\],"[0-9a-f]+","(M[^"]+)"\]')


def solid_icons(fontawesome_js: str) -> dict[str, tuple[int, int, str]]:
    """name -> (width, height, SVG path) of the theme's solid icons (the pack registered as "fas")."""
    end = fontawesome_js.index('d("fas",p)')
    start = fontawesome_js.rindex("var p={", 0, end)
    return {m.group(1) or m.group(2): (int(m.group(3)), int(m.group(4)), m.group(5))
            for m in SOLID_ICON.finditer(fontawesome_js, start, end)}


def icon_rule(name: str, width: int, height: int, path: str) -> str:
    svg = urllib.parse.quote(f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {width} {height}'>"
                             f"<path d='{path}'/></svg>", safe=" '=/:.,-")
    mask = f'url("data:image/svg+xml,{svg}") center/contain no-repeat'
    return (f".fa-{name}:before{{content:\"\";display:inline-block;width:{width / height:.4g}em;height:1em;"
            f"vertical-align:-.125em;background-color:currentColor;-webkit-mask:{mask};mask:{mask}}}")


def light_icons(app, exception) -> None:
    """Rewrite the site's copy of the theme's stylesheet: no glyph rules but those of the icons the pages use,
    drawn as SVG masks, so no page needs the icon font for them."""
    if exception is not None or app.builder.format != "html":
        return
    static = Path(app.outdir) / "_static"
    css_file = static / "styles" / "pydata-sphinx-theme.css"
    icons = solid_icons((static / "scripts" / "fontawesome.js").read_text(encoding="utf-8"))
    pages = "".join(p.read_text(encoding="utf-8") for p in Path(app.outdir).rglob("*.html"))
    used = sorted(set(re.findall(r"\bfa-([a-z0-9-]+)", pages)) & set(icons))
    css = ICON_RULE.sub("", css_file.read_text(encoding="utf-8"))
    # an icon element keeps the page's font: with the icon font named, its empty line box alone loaded the font
    css += "\n.fa,.fa-solid,.fas,.fa-regular,.far,.fa-classic,.fa-brands,.fab{font-family:inherit}\n"
    css_file.write_text(css + "\n".join(icon_rule(name, *icons[name]) for name in used) + "\n", encoding="utf-8")


def setup(app):
    app.connect("build-finished", light_icons)
    app.add_enumerable_node(glued_table, "table",
                            html=(HTML5Translator.visit_figure, HTML5Translator.depart_figure))
    app.add_transform(GluedTables)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
