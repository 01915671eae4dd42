"""Sphinx extension (in _config.yml's extension list): a glued figure named `tab-...` is a table.

myst-nb's {glue:figure} makes every glued output a figure, so a table glued from `nb.table` would be numbered
"Fig. N" with its caption below it. This numbers such figures "Table N" (Sphinx's own table counter and
`numfig_format`) and puts the caption above the table, as tables are read.
"""
from __future__ import annotations

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
            table["classes"].append("iobook-glued-table")
            captions = [c for c in table.children if isinstance(c, nodes.caption)]
            for caption in captions:  # above the table
                table.remove(caption)
                table.insert(0, caption)
            figure.replace_self(table)
            for node_id in table["ids"]:  # what {numref} looks its target up by
                self.document.ids[node_id] = table


def setup(app):
    app.add_enumerable_node(glued_table, "table",
                            html=(HTML5Translator.visit_figure, HTML5Translator.depart_figure))
    app.add_transform(GluedTables)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
