"""Hostile folder and file names holding real logs, through a chapter to a page in headless Chromium:
nothing in them runs and the page is whole.

The Data chapter (every file's path, every failed file's reason) is executed on a database ingested from
such a tree and rendered to HTML with nbconvert (the book's jupyter-book build is the same outputs under
another template; building the whole book takes minutes and writes into the checkout)."""
import shutil

import nbformat
import pytest
from conftest import BUILT_TOOLS, REPO, TUCSON_SC23, execute_chapter
from nbconvert import HTMLExporter

from iobook.database.ingest import ingest

pytestmark = pytest.mark.slow  # every test here runs a kernel, a book, a browser, a real tool or an ingest

TUCSON = TUCSON_SC23 / "results" / "2023.10.22-06.40.20"
HOSTILE_FOLDERS = ["<!--<script>", "<img src=x onerror=alert(1)>", "\"'><svg onload=alert(2)>", "line\nbreak <b>"]
HOSTILE_FILES = {
    "<script>alert(3)<!--.txt": TUCSON / "ior-easy-write.txt",
    "x\" onmouseover=\"alert(4).log": BUILT_TOOLS / "mdtest" / "mdtest_n1000_i3_np2.log",
    "]]><table><script>alert(5)<!--.txt": REPO / "tests" / "fixtures" / "fio" / "errors" / "failed-parsing-rw.txt",
    "`${alert(6)}`.txt": BUILT_TOOLS / "ior" / "ior_error_nonexistent_dir_np2.log",
}


def test_hostile_names_run_nothing_and_the_page_is_whole(tmp_path):
    from playwright.sync_api import sync_playwright

    tree = tmp_path / "data"
    for folder in HOSTILE_FOLDERS:
        (tree / folder).mkdir(parents=True)
        for name, source in HOSTILE_FILES.items():
            shutil.copyfile(source, tree / folder / name)
    db = tmp_path / "hostile.duckdb"
    counts = ingest([tree], db, progress=False)
    assert counts["parsed"] == 8 and counts["failed"] == 8  # the fio and IOR error outputs in each folder
    execute_chapter("data", db, tmp_path, kernel=True)
    notebook = nbformat.read(tmp_path / "data.ipynb", 4)
    for output in (o for cell in notebook.cells for o in cell.get("outputs", [])):  # glued values, shown as the
        prefix = output.get("metadata", {}).get("scrapbook", {}).get("mime_prefix", "")  # book's {glue} shows them
        output["data"] = {k.removeprefix(prefix): v for k, v in output.get("data", {}).items()}
    body, _ = HTMLExporter(template_name="classic").from_notebook_node(notebook)
    page = tmp_path / "data.html"
    page.write_text(body, encoding="utf-8")
    assert "alert(3)" in body  # the names are on the page, as text

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"])
        tab = browser.new_page()
        dialogs = []
        tab.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        tab.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort())
        tab.goto(page.as_uri(), wait_until="load")
        tab.wait_for_timeout(500)
        for el in tab.query_selector_all("img, svg, b, td, a, span, p, li, code"):  # what a reader would hover
            el.dispatch_event("mouseover")
        found = tab.evaluate("""() => ({
            injected: document.querySelectorAll('img[src="x"], svg[onload], [onmouseover], [onerror]').length,
            scripts: [...document.scripts].filter(s => /alert\\(/.test(s.textContent)).length,
            text: document.body.innerText,
        })""")
        browser.close()
    assert dialogs == []
    assert found["injected"] == 0 and found["scripts"] == 0
    # whole: every name is shown as text and the chapter's last section is there after them
    for name in HOSTILE_FILES:
        assert name.split("\n")[0] in found["text"], name
    assert "What this cannot say" in found["text"]
    assert found["text"].rindex("What this cannot say") > found["text"].rindex("alert(3)")
