"""Every page of the built book as a reader sees it: headless Chromium at 1280 px, then the same page narrowed
to 800 px (each page loads once), offline (served on 127.0.0.1, every request elsewhere refused and reported).
A page fails on a request to another host, a visible code cell, a table showing more than 25 rows, a truncation
mark, a traceback, warning or absolute path in an output, an element overflowing horizontally, a link to a
download that does not resolve, more than 1.5 MB with every request (theme, scripts and fonts included), a
word split inside a table cell, a table wider than the page at 1280 or 800 px without its own scroll, a table
or chart scrolling sideways in its box at 1280 px, a table under the sticky Contents sidebar, a chart title or
subtitle past its chart's edge (cut short), a first finding over 30 words or any over 60, a bracketed qualifier
said more than 3 times, or a negative bound of a rate or ratio in a finding. A full-page screenshot of each
page at each width is kept in _build/screenshots/. The HTML is built from the chapters in book/
(conftest.book_site)."""
import functools
import http.server
import json
import re
import threading
from pathlib import Path

import pytest
from conftest import SHARED
from test_glue_keys import MAX_QUALIFIER_REPEATS, repeated_qualifiers, words

from iobook.book import chapters
from iobook.book.report import FIRST_FINDING_WORDS, MAX_FINDING_WORDS

REPO = Path(__file__).resolve().parents[1]
SHOTS = REPO / "_build" / "screenshots"
MAX_PAGE_BYTES = 1.5e6  # per page, with every request it makes (theme, scripts, fonts)
MAX_ROWS = 25
NARROW_PX = 800  # charts and tables must stay readable (inside the page) on a narrow window too
REPORTS = REPO / "_build" / "page-report"  # per page: findings, tables, charts, downloads, MB
# The landing page lists each chapter's headline finding instead; the References page lists sources.
FINDINGS_EXEMPT = {"book/intro.html", "book/references.html"}
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
  const overflowing = [...article.querySelectorAll('*')].filter(visible).filter(el => !el.closest('pre, .iobook-table-box, .iobook-chart')).filter(el => {
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
    // a chart's title or subtitle drawn past its own SVG's edge, where the SVG cuts it (axis labels are laid
    // out by Vega with the pinned font and ellipsised by it; a browser without that font draws them wider)
    cutChartText: [...article.querySelectorAll('.iobook-chart svg')].filter(visible).flatMap(svg => {
      const box = svg.getBoundingClientRect();
      return [...svg.querySelectorAll('.role-title text')].filter(t => t.textContent.trim()).filter(t => {
        const r = t.getBoundingClientRect();
        return r.width > 0 && (r.right > box.right + 1 || r.left < box.left - 1);
      }).map(t => t.textContent.slice(0, 60));
    }).slice(0, 5),
    // a table or chart wider than the content column, scrolling sideways in its own box (allowed below 1280 px)
    scrollingTables: [...article.querySelectorAll('.iobook-table-box')].filter(visible)
                       .filter(b => b.scrollWidth > b.clientWidth + 1).map(b => (b.closest('figure') || b).id || 'table'),
    scrollingCharts: [...article.querySelectorAll('.iobook-chart')].filter(visible)
                       .filter(c => c.scrollWidth > c.clientWidth + 1).map(c => (c.closest('figure') || c).id || 'chart'),
    // the page's prose and cells, each once (a cell's paragraph is not counted again with its cell); a download's
    // line ('(10 rows, CSV)') is a link, not a qualifier
    prose: [...article.querySelectorAll('p, li, td, figcaption, caption')].filter(visible)
             .filter(e => !e.querySelector('p, li, td') && !e.closest('.iobook-download')).map(e => e.innerText),
    // what the page holds, for the stop's note (findings: items of the list under the first heading "Findings")
    stats: {
      findings: (() => { let el = [...article.querySelectorAll('h2')].find(h => /^Findings/.test(h.innerText));
                         while (el && el.tagName !== 'UL') el = el.nextElementSibling;
                         return el ? el.children.length : 0; })(),
      findingLinks: [...article.querySelectorAll('li > p > a[href^="#fig-"], li > p > a[href^="#tab-"]')]
                      .filter(a => a.closest('li')).length,
      tables: article.querySelectorAll('table.iobook-table:not(details table)').length,
      charts: article.querySelectorAll('.iobook-chart').length,
      downloads: article.querySelectorAll('.iobook-download').length,
    },
  };
}"""


# Tables as a reader sees them: a word a cell breaks across lines (cells may wrap at spaces and after a
# hyphen, never inside a word), and a table reaching past the page's right edge without a box that scrolls.
TABLES = r"""() => {
  const visible = el => el.checkVisibility({contentVisibilityAuto: true, visibilityProperty: true, opacityProperty: true});
  const page = document.documentElement.clientWidth;
  const tables = [...document.querySelectorAll('article table')].filter(visible);
  const splitWords = [];
  for (const cell of tables.flatMap(t => [...t.querySelectorAll('td, th')]).filter(visible)) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/[^\s-]+-?/g)) {
        const range = document.createRange();
        range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (tops.size > 1) splitWords.push(m[0]);
      }
    }
  }
  const scrolls = el => { for (let box = el.parentElement; box; box = box.parentElement) {
    if (['auto', 'scroll'].includes(getComputedStyle(box).overflowX)) return box.getBoundingClientRect().right <= page + 1;
  } return false; };
  const wide = tables.filter(t => t.getBoundingClientRect().right > page + 1 && !scrolls(t))
                     .map(t => (t.closest('figure') || t).id || t.className);
  // a table's visible box under the sticky "Contents" sidebar, which then hides its last columns
  const sidebar = [...document.querySelectorAll('.bd-sidebar-secondary')].filter(visible)
                    .map(s => s.getBoundingClientRect()).filter(r => r.width > 0);
  const covered = [...document.querySelectorAll('article .iobook-table-box')].filter(visible).filter(b => {
    const r = b.getBoundingClientRect();
    return sidebar.some(s => r.right > s.left + 1 && r.left < s.right);
  }).map(b => (b.closest('figure') || b).id || 'table');
  return {splitWords: splitWords.slice(0, 5), wideWithoutScroll: wide, coveredBySidebar: covered};
}"""

# The findings list's items as text, without the links to their figure or table ("(Table 2)").
FINDINGS = r"""() => {
  let el = [...document.querySelectorAll('article h2')].find(h => /^Findings/.test(h.innerText));
  while (el && el.tagName !== 'UL') el = el.nextElementSibling;
  return el ? [...el.children].map(li => { const item = li.cloneNode(true);
    item.querySelectorAll('a[href^="#fig-"], a[href^="#tab-"]').forEach(a => a.remove());
    return item.textContent.replace(/\(\s*\)/g, '').replace(/\s+/g, ' ').trim(); }) : [];
}"""

# An interval in round or square brackets whose lower bound is negative ("(95% interval -476-6,148)",
# "[95% interval -0.05–0.08; 6 and 6 repetitions]").
NEGATIVE_INTERVAL = re.compile(r"[(\[]([^()\[\]]*\b(?:interval|CI)\b[^\d()\[\]−-]*[−-]\s?\d[^()\[\]]*)[)\]]")


def negative_bounds(findings: list[str]) -> list[str]:
    """Findings with a negative lower bound on the interval of a rate or ratio: an interval below zero after a
    clause holding no signed value (a level: a rate, a ratio). A signed difference ("+16.3 MiB (95% interval
    -2.1-34.7 ...)") may cross zero."""
    negative = []
    for item in findings:
        for m in NEGATIVE_INTERVAL.finditer(item):
            clause = re.split(r"[.;:)\]]\s", item[:m.start()])[-1]
            if not re.search(r"(?<![\w.,])[+−-]\d", clause):
                negative.append(item[max(0, m.start() - 40):m.end()])
    return negative


def test_negative_bounds_are_found_in_either_bracket():
    # the page-cache finding issue 20 quoted, the checksum chapter's square-bracket form, and signed differences
    assert negative_bounds(["Buffered reads ran 2,836 MiB/s (95% interval -476-6,148) against direct ones"])
    assert negative_bounds(["sha256 cut direct writes to 0.06× the bandwidth of none [95% interval -0.05–0.08; "
                            "6 and 6 repetitions; decided]"])
    assert not negative_bounds(["sha256 cut direct writes to 0.06× the bandwidth of none [95% interval 0.05–0.08; "
                                "6 and 6 repetitions; decided]", "2,645 (95% interval 869–8,055) MiB/s"])
    assert not negative_bounds(["+16.3 MiB (95% interval -2.1–34.7)", "a change of −3.1 s [95% interval −5.0–−1.2]"])


def table_problems(tab) -> dict:
    """Words split inside table cells and tables wider than the page with no scrolling box, on a loaded page."""
    return tab.evaluate(TABLES)


def finding_problems(tab) -> dict:
    """On a loaded page: the first finding's words past FIRST_FINDING_WORDS, findings over MAX_FINDING_WORDS, and
    its findings' negative_bounds."""
    items = tab.evaluate(FINDINGS)
    return {"first finding words over the limit": max(0, words(items[0]) - FIRST_FINDING_WORDS) if items else 0,
            f"findings over {MAX_FINDING_WORDS} words": [f"{words(i)}: {i[:80]}" for i in items
                                                         if words(i) > MAX_FINDING_WORDS],
            "negative bound of a rate or ratio": negative_bounds(items)}


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def pages() -> list[str]:
    """The landing page, every chapter of the registry and the References page (index.html only redirects)."""
    return ["book/intro.html"] + [f"book/{c.name}.html" for c in chapters.load_registry()] + ["book/references.html"]


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
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
            "--disable-features=AutofillServerCommunication"])  # the search box would ask Google for autofill
        yield browser
        browser.close()


def screenshot(tab, page: str, suffix: str = "") -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SHOTS / (page.replace("/", "_").removesuffix(".html") + f"{suffix}.png")), full_page=True)


@pytest.mark.slow
@pytest.mark.parametrize("page", pages())
def test_page_reads_like_a_published_study(page, server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    loaded, requested = [], []
    tab.route("**/*", lambda route: route.continue_() if route.request.url.startswith(server) else route.abort())
    tab.on("request", lambda r: requested.append(r.url))  # refused ones too: they are requested, then aborted
    tab.on("response", lambda r: loaded.append(r))
    tab.goto(f"{server}/{page}", wait_until="networkidle")
    tab.wait_for_timeout(500)  # the theme's scripts settle the layout after load
    found = tab.evaluate(PROBE, BUILD_PATHS)
    tables, findings = table_problems(tab), finding_problems(tab)
    screenshot(tab, page)
    # What a reader's first visit to the page loads: its HTML (chart SVGs inline) and every file it requests
    weight = sum(len(r.body()) for r in loaded if r.ok)
    bundles = [r.url for r in loaded if "vega" in r.url.rsplit("/", 1)[-1]]
    missing = [href for href in found["downloads"]
               if tab.request.get(f"{server}/{page.rsplit('/', 1)[0] + '/' if '/' in page else ''}{href}").status != 200]
    tab.set_viewport_size({"width": NARROW_PX, "height": 900})  # the same page, narrowed: not loaded again
    tab.wait_for_timeout(500)  # charts and tables lay out again
    narrow = tab.evaluate(PROBE, BUILD_PATHS)
    narrow["tables"] = table_problems(tab)
    screenshot(tab, page, f"-{NARROW_PX}px")
    context.close()
    REPORTS.mkdir(parents=True, exist_ok=True)
    (REPORTS / (page.replace("/", "_").removesuffix(".html") + ".json")).write_text(
        json.dumps({"page": page, **found["stats"], "page_mb": round(weight / 1e6, 3)}, indent=1))
    problems = {
        "requests to other hosts": [u for u in requested if not u.startswith((server, "data:", "blob:", "about:"))],
        "visible code cells": found["codeCells"],
        f"table rows shown over {MAX_ROWS}": max(0, found["longestTable"] - MAX_ROWS),
        "truncation mark in an output": found["truncated"],
        "traceback, warning or error in an output": found["traceback"],
        "absolute path in an output": found["absolutePath"],
        "elements overflowing horizontally": found["overflowing"] or found["pageOverflow"],
        "downloads that do not resolve": missing,
        "links to a figure or table not on the page": found["brokenAnchors"],
        "charts that did not draw": found["undrawnCharts"],
        "chart title cut at the chart's edge": found["cutChartText"],
        "tables covered by the Contents sidebar": tables["coveredBySidebar"],
        "tables scrolling sideways at 1280 px": found["scrollingTables"],
        "charts scrolling sideways at 1280 px": found["scrollingCharts"],
        f"qualifiers said more than {MAX_QUALIFIER_REPEATS} times": repeated_qualifiers(found["prose"]),
        f"elements overflowing horizontally at {NARROW_PX} px": narrow["overflowing"] or narrow["pageOverflow"],
        "a chapter not opening with 3-6 findings, each linked to its figure or table":
            page not in FINDINGS_EXEMPT and not (3 <= found["stats"]["findings"] <= 6
                                                 and found["stats"]["findingLinks"] >= found["stats"]["findings"]),
        f"page bytes over {MAX_PAGE_BYTES:.0f}": max(0, weight - MAX_PAGE_BYTES),
        "a chart runtime loaded (charts are SVG drawn at build time)": bundles,
        "words split inside table cells": tables["splitWords"],
        f"words split inside table cells at {NARROW_PX} px": narrow["tables"]["splitWords"],
        "tables wider than the page without their own scroll": tables["wideWithoutScroll"],
        f"tables wider than the page without their own scroll at {NARROW_PX} px": narrow["tables"]["wideWithoutScroll"],
        **({} if page in FINDINGS_EXEMPT else findings),
    }
    assert not {k: v for k, v in problems.items() if v}, f"{page}: {problems}"


@pytest.mark.slow
def test_data_page_filters_its_file_list_as_the_reader_types(server, browser):
    """The Data chapter's list of every file: typing part of a path shows exactly the rows holding it, in
    pages of 25; clearing the box shows every file again."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    tab.route("**/*", lambda route: route.continue_() if route.request.url.startswith(server) else route.abort())
    tab.goto(f"{server}/book/data.html", wait_until="networkidle")
    table = tab.locator("div.iobook-searchable")
    # the rows as the page's script decodes them (nb.front_coded: a first cell after what the row before's shares)
    everything = table.locator("script.iobook-rows").evaluate("""s => { let previous = "";
        return JSON.parse(s.textContent).map(([[shared, rest], ...cells]) => {
            previous = previous.slice(0, shared) + rest; return [previous, ...cells]; }); }""")
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
