"""The built book reads offline: served on 127.0.0.1 with every other host unreachable, headless Chromium
draws every chart and requests nothing from anywhere else. Needs `make book` first (make test does it)."""
import functools
import http.server
import json
import re
import subprocess
import threading
from pathlib import Path

import pytest

HTML = Path(__file__).resolve().parents[1] / "_build" / "html"
# vega-embed adds classes and attributes to the div and draws an <svg> inside it; the page's own <script>
# that drew it follows the div.
CHART_DIV = re.compile(r'<div id="(chart-[0-9a-f]+-\d+)" class="iobook-chart[^"]*"[^>]*>(.*?)<script', re.S)


@pytest.fixture(scope="module")
def server():
    assert (HTML / "index.html").exists(), "no built book: run `make book` first"
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(HTML))
    handler.log_message = lambda *a: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def chart_pages() -> list[str]:
    pages = sorted(p.relative_to(HTML).as_posix() for p in (HTML / "book").glob("*.html")
                   if 'class="iobook-chart"' in p.read_text(encoding="utf-8"))
    assert pages, "the built book has no chart pages"
    return pages


def render(url: str, tmp_path: Path) -> tuple[str, list[str]]:
    """The page's DOM after scripts ran, and every URL Chromium requested while loading it."""
    net_log = tmp_path / "net.json"
    dom = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--no-first-run", "--disable-component-update", "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}",
         # a page's search box is a form: Chromium asks Google's autofill server about it, the page asks nothing
         "--disable-features=AutofillServerCommunication",
         '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1', f"--log-net-log={net_log}",
         "--virtual-time-budget=20000", "--dump-dom", url],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout
    log = json.loads(net_log.read_text())
    start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    # The page's own requests carry its site in their network isolation key; Chromium's background
    # services (component updater, accounts) run under other keys and are not the page's doing.
    urls = {e["params"]["url"] for e in log["events"]
            if e["type"] == start_job and e.get("params", {}).get("network_isolation_key", "").startswith("http://127.0.0.1")}
    return dom, sorted(urls)


@pytest.mark.parametrize("page", chart_pages() if (HTML / "index.html").exists() else ["<no book>"])
def test_chapter_draws_its_charts_offline(page, server, tmp_path):
    dom, urls = render(f"{server}/{page}", tmp_path)
    charts = CHART_DIV.findall(dom)
    assert charts, f"{page}: no chart divs in the rendered page"
    blank = [chart_id for chart_id, inner in charts if "<svg" not in inner]
    assert not blank, f"{page}: charts not drawn: {blank}"
    assert "iobook-chart-static" not in dom, f"{page}: a static fallback was not replaced by its interactive chart"
    elsewhere = [u for u in urls if not u.startswith((server, "data:", "blob:", "about:", "chrome:"))]
    assert not elsewhere, f"{page} requested other hosts: {elsewhere}"
    assert any(u.startswith(f"{server}/_static/vega-bundle.js") for u in urls)
