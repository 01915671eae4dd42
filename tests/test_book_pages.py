"""Every page of the built book as a reader sees it: headless Chromium at 1280 px, then the same page narrowed
to 800 px, offline (served on 127.0.0.1, every request elsewhere refused and reported). A page fails on a
request to another host, a chart not drawn or whose static copy was not replaced by the interactive one, a
visible code cell, a table showing more than 25 rows, a truncation mark, a traceback, warning or absolute path
in an output, an element overflowing horizontally, a link to a download that does not resolve, or more than
1.5 MB of its own (HTML, inline chart data). Each page loads once. A full-page screenshot of each page at each
width is kept in _build/screenshots/. The HTML is built from the chapters in book/ (conftest.book_site)."""
import functools
import json
import http.server
import re
import threading
from pathlib import Path

import pytest

from conftest import SHARED
from iobook import chapters

REPO = Path(__file__).resolve().parents[1]
SHOTS = REPO / "_build" / "screenshots"
MAX_PAGE_BYTES = 1.5e6  # per page, besides the theme and Vega shared by all pages
MAX_ROWS = 25
NARROW_PX = 800  # charts and tables must stay readable (inside the page) on a narrow window too
REPORTS = REPO / "_build" / "page-report"  # per page: findings, tables, charts, downloads, MB
# The landing page lists each chapter's headline finding instead; the Data chapter is a catalogue.
FINDINGS_EXEMPT = {"book/intro.html"}
# Paths of the build machine: this checkout, the shared data beside it, root's home.
# Paths quoted from a submission's own files (e.g. a config.ini naming /home/<user>/...) are data, not these.
BUILD_PATHS = "|".join(re.escape(p) for p in sorted({str(REPO) + "/", str(REPO.resolve()) + "/", str(SHARED) + "/",
                                                      str(SHARED.resolve()) + "/", "/root/"}))

# Everything measured in one evaluation in the page: what a reader would see that they should not.
PROBE = r"""(absolutePath) => {
  // checkVisibility: rows inside a closed <details> still have a layout box (content-visibility: hidden)
  const visible = el => el.checkVisibility({contentVisibilityAuto: true, visibilityProperty: true, opacityProperty: true});
  const article = document.querySelector('article') || document.body;
  const box = article.getBoundingClientRect();
  const outputs = [...article.querySelectorAll('.cell_output, .output')].filter(visible);
  const text = outputs.map(o => o.innerText).join('\n');
  const overflowing = [...article.querySelectorAll('*')].filter(visible).filter(el => !el.closest('pre')).filter(el => {
    const r = el.getBoundingClientRect();
    // a code block that scrolls sideways is how documentation shows a long command; anything else is not
    const clipped = !el.closest('pre') && el.scrollWidth > el.clientWidth + 1
                    && ['auto', 'scroll', 'hidden'].includes(getComputedStyle(el).overflowX);
    return r.right > box.right + 1 || clipped;
  }).map(el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + '.' + [...el.classList].join('.'));
  return {
    codeCells: [...article.querySelectorAll('.cell_input')].filter(visible).length,
    longestTable: Math.max(0, ...[...article.querySelectorAll('table')].filter(visible)
                     .map(t => [...t.querySelectorAll('tbody tr')].filter(visible).length)),
    truncated: /\u2026|\.\.\.\s*$/m.test(text) || [...article.querySelectorAll('td, th')].some(c => /^\s*(\u2026|\.\.\.)\s*$/.test(c.innerText)),
    traceback: /Traceback \(most recent call last\)|\bWarning:|\bError:/.test(text),
    absolutePath: new RegExp(absolutePath, 'm').test(text),
    overflowing: overflowing.slice(0, 5),
    pageOverflow: document.documentElement.scrollWidth > window.innerWidth,
    downloads: [...article.querySelectorAll('a[href]')].map(a => a.getAttribute('href'))
                 .filter(h => /\.(csv|parquet|zip)$/.test(h)),
    // a link within the page (a finding's link to its figure or table) whose target is not on it
    brokenAnchors: [...article.querySelectorAll('a[href^="#"]')].map(a => decodeURIComponent(a.getAttribute('href').slice(1)))
                     .filter(id => id && !document.getElementById(id)),
    undrawnCharts: [...article.querySelectorAll('.iobook-chart')].filter(c => !c.querySelector('svg, canvas')).length,
    // a chart's static SVG stays only where its interactive chart did not draw
    staticCharts: article.querySelectorAll('.iobook-chart-static').length,
    // what the page holds, for the stop's note (findings: items of the list under the first heading "Findings")
    stats: {
      findings: (() => { let el = [...article.querySelectorAll('h2')].find(h => /^Findings/.test(h.innerText));
                         while (el && el.tagName !== 'UL') el = el.nextElementSibling;
                         return el ? el.children.length : 0; })(),
      findingLinks: article.querySelectorAll('a.iobook-finding-link').length,
      tables: article.querySelectorAll('table.iobook-table:not(details table)').length,
      charts: article.querySelectorAll('.iobook-chart').length,
      downloads: article.querySelectorAll('.iobook-download').length,
    },
  };
}"""


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def pages() -> list[str]:
    """The landing page and every chapter of the registry (index.html only redirects to book/intro.html)."""
    return ["book/intro.html"] + [f"book/{c.name}.html" for c in chapters.load_registry()]


@pytest.fixture(scope="module")
def server(book_site):
    handler = functools.partial(QuietHandler, directory=str(book_site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"])
        yield browser
        browser.close()


def screenshot(tab, page: str, suffix: str = "") -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SHOTS / (page.replace("/", "_").removesuffix(".html") + f"{suffix}.png")), full_page=True)


@pytest.mark.parametrize("page", pages())
def test_page_reads_like_a_published_study(page, server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    loaded, requested = [], []
    tab.route("**/*", lambda route: route.continue_() if route.request.url.startswith(server) else route.abort())
    tab.on("request", lambda r: requested.append(r.url))  # refused ones too: they are requested, then aborted
    tab.on("response", lambda r: loaded.append(r))
    tab.goto(f"{server}/{page}", wait_until="networkidle")
    tab.wait_for_timeout(500)  # vegaEmbed draws after load
    found = tab.evaluate(PROBE, BUILD_PATHS)
    screenshot(tab, page)
    # The page's own weight: its HTML (chart specs inline) and what it alone loads. The theme's and Vega's
    # files under _static/ are shared by every page and cached after the first.
    weight = sum(len(r.body()) for r in loaded if r.ok and "/_static/" not in r.url)
    bundles = [r.url for r in loaded if "vega-bundle.js" in r.url]
    missing = [href for href in found["downloads"]
               if tab.request.get(f"{server}/{page.rsplit('/', 1)[0] + '/' if '/' in page else ''}{href}").status != 200]
    tab.set_viewport_size({"width": NARROW_PX, "height": 900})  # the same page, narrowed: not loaded again
    tab.wait_for_timeout(500)  # charts and tables lay out again
    narrow = tab.evaluate(PROBE, BUILD_PATHS)
    screenshot(tab, page, f"-{NARROW_PX}px")
    context.close()
    REPORTS.mkdir(parents=True, exist_ok=True)
    (REPORTS / (page.replace("/", "_").removesuffix(".html") + ".json")).write_text(
        json.dumps({"page": page, **found["stats"], "page_mb": round(weight / 1e6, 3)}, indent=1))
    problems = {
        "requests to other hosts": [u for u in requested if not u.startswith((server, "data:", "blob:", "about:"))],
        "charts whose static copy was not replaced by the interactive chart": found["staticCharts"],
        "visible code cells": found["codeCells"],
        f"table rows shown over {MAX_ROWS}": max(0, found["longestTable"] - MAX_ROWS),
        "truncation mark in an output": found["truncated"],
        "traceback, warning or error in an output": found["traceback"],
        "absolute path in an output": found["absolutePath"],
        "elements overflowing horizontally": found["overflowing"] or found["pageOverflow"],
        "downloads that do not resolve": missing,
        "links to a figure or table not on the page": found["brokenAnchors"],
        "charts that did not draw": found["undrawnCharts"],
        f"elements overflowing horizontally at {NARROW_PX} px": narrow["overflowing"] or narrow["pageOverflow"],
        "a chapter not opening with 3-6 findings, each linked to its figure or table":
            page not in FINDINGS_EXEMPT and not (3 <= found["stats"]["findings"] <= 6
                                                 and found["stats"]["findingLinks"] >= found["stats"]["findings"]),
        f"page bytes over {MAX_PAGE_BYTES:.0f}": max(0, weight - MAX_PAGE_BYTES),
        "Vega bundle loaded other than once": len(bundles) != 1,
    }
    assert not {k: v for k, v in problems.items() if v}, f"{page}: {problems}"


def test_data_page_filters_its_file_list_as_the_reader_types(server, browser):
    """The Data chapter's list of every file: typing part of a path shows exactly the rows holding it, in
    pages of 25; clearing the box shows every file again."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    tab.route("**/*", lambda route: route.continue_() if route.request.url.startswith(server) else route.abort())
    tab.goto(f"{server}/book/data.html", wait_until="networkidle")
    table = tab.locator("div.iobook-searchable")
    everything = table.locator("script.iobook-rows").evaluate("s => JSON.parse(s.textContent)")
    wanted = "result_summary.txt"
    expected = [row for row in everything if wanted in " ".join(row).lower()]
    assert 25 < len(expected) < len(everything)  # more than a page of them, fewer than all
    table.locator("input").fill(wanted)
    shown = table.locator("tbody tr").evaluate_all("rs => rs.map(r => [...r.cells].map(c => c.innerText))")
    assert shown == expected[:25]
    assert table.locator(".iobook-search-count").inner_text() == f"{len(expected):,} of {len(everything):,} rows, page 1 of {-(-len(expected) // 25)}"
    table.locator("button", has_text="Next").click()
    assert table.locator("tbody tr").evaluate_all("rs => rs.map(r => [...r.cells].map(c => c.innerText))") == expected[25:50]
    table.locator("input").fill("")
    assert table.locator("tbody tr").count() == 25
    # a chapter's link to its files opens the list filtered to their folder
    tab.goto(f"{server}/book/data.html?files=submission-679#data-sources", wait_until="networkidle")
    shown = table.locator("tbody tr").evaluate_all("rs => rs.map(r => r.cells[0].innerText)")
    assert shown and all("submission-679" in path for path in shown)
    context.close()
