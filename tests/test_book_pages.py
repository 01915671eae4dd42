"""Every page of the built book as a reader sees it: headless Chromium at 1280 px, offline (every host but
127.0.0.1 refused). A page fails on a visible code cell, a table showing more than 25 rows, a truncation
mark, a traceback, warning or absolute path in an output, an element overflowing horizontally, a link to a
download that does not resolve, or more than 1.5 MB loaded. A full-page screenshot of each page is kept in
_build/screenshots/. Needs `make book` first (make test does it)."""
import functools
import http.server
import threading
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HTML = REPO / "_build" / "html"
SHOTS = REPO / "_build" / "screenshots"
MAX_PAGE_BYTES = 1.5e6
MAX_ROWS = 25
ABSOLUTE_PATH = r"(^|[\s'\"(=])/(work|root|home|tmp|usr|opt|srv|scratch)/"

# Everything measured in one evaluation in the page: what a reader would see that they should not.
PROBE = r"""(absolutePath) => {
  const visible = el => !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length)
                         && getComputedStyle(el).visibility !== 'hidden';
  const article = document.querySelector('article') || document.body;
  const box = article.getBoundingClientRect();
  const outputs = [...article.querySelectorAll('.cell_output, .output')].filter(visible);
  const text = outputs.map(o => o.innerText).join('\n');
  const overflowing = [...article.querySelectorAll('*')].filter(visible).filter(el => {
    const r = el.getBoundingClientRect();
    const clipped = el.scrollWidth > el.clientWidth + 1 && ['auto', 'scroll', 'hidden'].includes(getComputedStyle(el).overflowX);
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
  };
}"""


def pages() -> list[str]:
    if not (HTML / "index.html").exists():
        return ["<no book: run make book>"]
    return ["index.html"] + sorted(p.relative_to(HTML).as_posix() for p in (HTML / "book").glob("*.html"))


@pytest.fixture(scope="module")
def server():
    assert (HTML / "index.html").exists(), "no built book: run `make book` first"
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(HTML))
    handler.log_message = lambda *a: None
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


@pytest.mark.parametrize("page", pages())
def test_page_reads_like_a_published_study(page, server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    loaded = []
    tab.route("**/*", lambda route: route.continue_() if route.request.url.startswith(server) else route.abort())
    tab.on("response", lambda r: loaded.append(r))
    tab.goto(f"{server}/{page}", wait_until="networkidle")
    tab.wait_for_timeout(500)  # vegaEmbed draws after load
    found = tab.evaluate(PROBE, ABSOLUTE_PATH)
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SHOTS / (page.replace("/", "_").removesuffix(".html") + ".png")), full_page=True)
    weight = sum(len(r.body()) for r in loaded if r.ok)
    missing = [href for href in found["downloads"]
               if tab.request.get(f"{server}/{page.rsplit('/', 1)[0] + '/' if '/' in page else ''}{href}").status != 200]
    context.close()
    problems = {
        "visible code cells": found["codeCells"],
        f"table rows shown over {MAX_ROWS}": max(0, found["longestTable"] - MAX_ROWS),
        "truncation mark in an output": found["truncated"],
        "traceback, warning or error in an output": found["traceback"],
        "absolute path in an output": found["absolutePath"],
        "elements overflowing horizontally": found["overflowing"] or found["pageOverflow"],
        "downloads that do not resolve": missing,
        f"bytes loaded over {MAX_PAGE_BYTES:.0f}": max(0, weight - MAX_PAGE_BYTES),
    }
    assert not {k: v for k, v in problems.items() if v}, f"{page}: {problems}"
