"""The machinery behind the chapter conventions (docs/writing-a-chapter.md): values glued by iobook.book.nb reach
the executed notebook as myst-nb reads them, the landing page takes each chapter's first glued finding, and
cells tagged only-if:<key> leave the page when the chapter glued <key> False."""
import json

import nbformat
import pytest

from iobook.book import build, chapters, nb


@pytest.fixture
def glued(monkeypatch):
    """The outputs iobook.book.nb's glue functions display, as the kernel would write them into the notebook."""
    import myst_nb.ext.glue

    outputs = []
    monkeypatch.setattr(myst_nb.ext.glue, "ipy_display", lambda data, raw, metadata: outputs.append(
        nbformat.v4.new_output("display_data", data=data, metadata=metadata)))
    return outputs


def write_notebook(path, cells, outputs):
    cells = [*cells, nbformat.v4.new_code_cell(outputs=outputs)]
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)


@pytest.mark.slow
def test_findings_glue_as_one_myst_list_linked_by_number(glued):
    nb.glue_findings([("2,410 files were read.", "tab-data-files"), "No file failed."])
    (output,) = glued
    assert output.metadata["scrapbook"]["name"] == "findings"
    assert output.data["application/papermill.record/text/markdown"] == (
        "- 2,410 files were read. ({numref}`tab-data-files`)\n- No file failed.")


@pytest.mark.slow
def test_glue_takes_many_values_at_once(glued):
    nb.glue({"files": 2410, "mib": 33.25})
    assert [(o.metadata["scrapbook"]["name"], o.data["application/papermill.record/text/plain"]) for o in glued] == [
        ("files", "2410"), ("mib", "33.25")]


def test_landing_page_headline_is_the_first_glued_finding(glued, tmp_path, monkeypatch):
    monkeypatch.setattr(chapters, "REPO_ROOT", tmp_path)
    (tmp_path / "book").mkdir()
    nb.glue_findings([("247 of the 250 runs agree.", "fig-io500-recomputed"), ("second", "tab-x")])
    write_notebook(tmp_path / "book" / "a.ipynb", [], glued)
    registry = [chapters.Chapter(name="a", title="Title a", about="", data="", reads=["*"])]
    assert build.write_headlines(registry).read_text() == (
        "- **[Title a](a)**: 247 of the 250 runs agree. ({numref}`fig-io500-recomputed`)\n")


@pytest.mark.parametrize("has_data", [True, False])
def test_cells_tagged_only_if_a_glued_key_leave_when_it_is_false(has_data, glued, tmp_path):
    nb.glue({"has_data": has_data})
    cells = [nbformat.v4.new_markdown_cell("The database holds {glue:text}`files:,d` files.",
                                           metadata={"tags": ["only-if:has_data"]}),
             nbformat.v4.new_markdown_cell("Shown always."),
             nbformat.v4.new_markdown_cell("Never shown: its key was not glued.", metadata={"tags": ["only-if:other"]})]
    path = tmp_path / "c.ipynb"
    write_notebook(path, cells, glued)
    published = json.loads(chapters._published(json.loads(path.read_text(encoding="utf-8")), "digest"))
    removed = ["remove-cell" in c.get("metadata", {}).get("tags", []) for c in published["cells"]]
    assert removed == [not has_data, False, True, False]


def test_landing_page_leads_with_real_systems_and_labels_the_build_machine(glued, tmp_path, monkeypatch):
    monkeypatch.setattr(chapters, "REPO_ROOT", tmp_path)
    (tmp_path / "book").mkdir()
    nb.glue_findings(["fio on this VM: 1.2x."])
    write_notebook(tmp_path / "book" / "local.ipynb", [], list(glued))
    glued.clear()
    nb.glue_findings(["first finding, not the abstract"])
    nb.glue_findings(["IBM's table reproduced.", "Tianhe's DAOS 2.6x."], "abstract")
    write_notebook(tmp_path / "book" / "archive.ipynb", [], list(glued))
    registry = [chapters.Chapter(name="local", title="Local", about="", data="", reads=["*"], measured="build machine"),
                chapters.Chapter(name="archive", title="Archive", about="", data="", reads=["*"])]
    text = build.write_headlines(registry).read_text()
    archive, local = text.split("\n\n", 1)
    assert archive == ("- **[Archive](archive)**: IBM's table reproduced.\n"
                       "- **[Archive](archive)**: Tianhe's DAOS 2.6x.")
    assert local.startswith(build.MEASURED_ON["build machine"]) and local.endswith("- **[Local](local)**: fio on this VM: 1.2x.\n")
