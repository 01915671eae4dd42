"""`make lab` opens JupyterLab on the chapter templates, as root too (JupyterLab refuses root without
--allow-root, which the Makefile adds): started on a free port with a known token, it serves the Lab page and
a chapter template through its contents API, and stops when told to."""
import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest
from conftest import REPO

pytestmark = pytest.mark.slow  # every test here runs a kernel, a book, a browser, a real tool or an ingest

TOKEN = "iobook-test-token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str, token: str | None = TOKEN) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def test_make_lab_serves_a_chapter_template(tmp_path):
    port = free_port()
    env = {**os.environ, "JUPYTER_TOKEN": TOKEN, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    log = (tmp_path / "lab.log").open("w")
    lab = subprocess.Popen(["make", "-s", "lab", f"LAB_PORT={port}"], cwd=REPO, env=env, stdout=log,
                           stderr=subprocess.STDOUT, start_new_session=True)  # its own group: make and jupyter
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 180  # a loaded 2-core machine
        while time.monotonic() < deadline and lab.poll() is None:
            try:
                if get(f"{base}/api/status")[0] == 200:
                    break
            except OSError:  # not listening yet
                time.sleep(1)
        assert lab.poll() is None, (tmp_path / "lab.log").read_text()  # it did not exit (as it did as root)
        status, page = get(f"{base}/lab")
        assert status == 200 and b"JupyterLab" in page
        status, body = get(f"{base}/api/contents/notebooks/io500_score.ipynb?content=1")
        assert status == 200
        notebook = json.loads(body)
        assert notebook["type"] == "notebook"
        cells = notebook["content"]["cells"]
        template = json.loads((REPO / "notebooks" / "io500_score.ipynb").read_text(encoding="utf-8"))
        assert [c["source"] for c in cells] == ["".join(c["source"]) for c in template["cells"]]
        assert get(f"{base}/api/contents/notebooks/io500_score.ipynb", token=None)[0] == 403  # the token is needed
    finally:
        os.killpg(lab.pid, signal.SIGTERM)
        lab.wait(timeout=60)
        log.close()
    with socket.socket() as s:  # stopped: nothing listens on its port any more
        assert s.connect_ex(("127.0.0.1", port)) != 0
