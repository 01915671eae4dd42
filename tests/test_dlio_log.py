"""DLIO's own log (dlio.log; iobook/parsers/dlio_log.py, views dlio_logs and dlio_log_blocks) on the real logs: the ten
runs of data/raw/dlio/ and the three of tests/fixtures/dlio-slowed/, each beside its summary.json, and the data
generation logs of MLPerf Storage v1.0 in the shared copy (Hammerspace's and WEKA's; none of them trained). An
unfinished run is a real run's folder without its summary.json, or with its log cut where a killed run's ends."""
import json
import re
import shutil

import pytest
from conftest import REPO, SHARED

from iobook.database import store
from iobook.database.ingest import ingest
from iobook.parsers import ParseError, detect, dlio_log
from iobook.studies import your_runs

DLIO = REPO / "data" / "raw" / "dlio"
SLOWED = REPO / "tests" / "fixtures" / "dlio-slowed"
RUN = DLIO / "vm-20261202T063549Z" / "r1"
LOGS = sorted([*DLIO.glob("*/r*/dlio.log"), *SLOWED.glob("*/r*/dlio.log")])
CORPUS = SHARED / "mlperf-storage-v1.0"
GENERATION = (CORPUS / "Closed" / "Hammerspace" / "results" / "Hammerspace_unet3d_1Client_A100" / "2024-08-29-09-29-27"
              / "dlio.log")
AU_LINE = re.compile(r"Block 1 \[Training\] Accelerator Utilization \[AU\] \(%\): (\S+)")
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared MLPerf Storage v1.0 copy is not here")


def records(path):
    parsed = dlio_log.parse(path.read_bytes().decode())  # as ingest decodes it: "\r" kept inside a line
    by_class = {}
    for r in parsed.records:
        by_class.setdefault(type(r), []).append(r)
    return by_class


def test_a_runs_log_gives_its_metric_block_epochs_and_blocks():
    got = records(RUN / "dlio.log")
    (log,) = got[dlio_log.DlioLog]
    # dlio.log of vm-20261202T063549Z/r1: line 2 "Running DLIO with 2 process(es)"; line 3 "... consume is 0.375 GB;
    # each host has [np.float64(23.54010009765625)] GB memory"
    assert (log.processes, log.data_per_host_gb, log.hosts_memory_gb, log.hosts_listed) == (
        2, 0.375, 23.54010009765625, 1)
    # lines 40-44, the [METRIC] block: 2 accelerators, AU 77.8663 (0.0000), 32.8587 samples/s, 131.4347 MB/s, fail
    assert log.metric_line == 40 and log.metric_accelerators == 2
    assert (log.metric_au_mean_pct, log.metric_au_stdev_pct) == (77.8663, 0.0)
    assert (log.metric_samples_per_s, log.metric_mb_per_s, log.metric_mb_per_s_stdev) == (32.8587, 131.4347, 0.0)
    assert log.metric_au_expectation == "fail" and log.outputs_saved and log.lines == 47
    # line 1's time and line 47's (the log's last)
    assert (log.started, log.last_time) == ("2026-12-02T06:37:12.965568", "2026-12-02T06:37:27.712987")
    # line 6 "Starting epoch 1: 12 steps expected"; line 36 "Ending epoch 1 - 12 steps completed in 2.93 s"
    assert got[dlio_log.DlioLogEpoch] == [dlio_log.DlioLogEpoch(epoch=1, line=6, steps_expected=12, steps=12,
                                                                duration_s=2.93)]
    # line 33 "Ending block 1 - 12 steps completed in 2.92 s"; lines 34-35: AU 79.8383, 32.8954 samples/s
    assert got[dlio_log.DlioLogBlock] == [dlio_log.DlioLogBlock(epoch=1, block=1, line=33, steps=12, duration_s=2.92,
                                                                au_pct=79.8383, samples_per_s=32.8954)]


def test_every_real_log_is_detected_as_one():
    assert len(LOGS) == 13
    for path in LOGS:
        assert detect(path.read_text()[:1 << 20]).name == dlio_log.FORMAT_NAME, path


@needs_corpus
def test_a_data_generation_log_of_the_corpus():
    (log,) = records(GENERATION)[dlio_log.DlioLog]
    # its line 2 "Running DLIO with 100 process(es)", line 3 "... 3345.045620575547 GB; each host has
    # [247.84454727172852] GB memory", line 253 (the last) "Generation done"; it trained not
    assert (log.processes, log.data_per_host_gb, log.hosts_memory_gb) == (100, 3345.045620575547, 247.84454727172852)
    assert log.generation_started and log.generation_done and not log.training_started and log.lines == 253
    assert log.metric_line is None


def test_a_metric_that_is_no_number_fails_the_file_at_its_line():
    text = (RUN / "dlio.log").read_text().replace("(MB/second): 131.4347", "(MB/second): nan")
    with pytest.raises(ParseError) as e:
        dlio_log.parse(text)
    assert e.value.line == 43 and "Training I/O Throughput (MB/second)" in e.value.reason


def _ingest(tmp_path, *folders):
    db = tmp_path / "db.duckdb"
    ingest(list(folders), db, progress=False, prune=True)
    return store.open_read(db)


def test_every_logs_metrics_agree_with_its_summary(tmp_path):
    with _ingest(tmp_path, DLIO, SLOWED) as con:
        rows = con.execute("SELECT * FROM dlio_logs ORDER BY path").df()
        counts = your_runs.get_dlio_logs(con)
    assert rows.path.tolist() == [str(p.resolve()) for p in LOGS]
    assert (rows.kind == "training").all() and (rows.status == "finished").all()
    assert rows.agrees_with_summary.all() and rows.disagreements.isna().all()
    for row in rows.itertuples():
        metric = json.loads((REPO / row.summary_path).read_text())["metric"]
        # the log prints summary.json's mean to four decimals
        assert row.metric_mb_per_s == round(metric["train_io_mean_MB_per_second"], 4)
    # each log's one block: its AU line (rank 0's) against summary.json's AU of epoch 1 (the mean over both ranks)
    epoch_au = [json.loads((p.parent / "summary.json").read_text())["metric"]["train_au_percentage"][0] for p in LOGS]
    gaps = [abs(float(AU_LINE.search(p.read_text())[1]) - au) for p, au in zip(LOGS, epoch_au)]
    assert counts == {"runs": 13, "logged": 13, "agree": 13, "blocks": 13, "max_au_gap": pytest.approx(max(gaps))}


def test_a_log_without_its_summary_is_an_unfinished_run_never_a_rate(tmp_path):
    data = tmp_path / "data"
    whole, cut = data / "whole" / "r1", data / "cut" / "r1"
    for folder in (whole, cut):
        shutil.copytree(RUN, folder)
        (folder / "summary.json").unlink()
    # the log as a run killed inside its first epoch would leave it: its first 20 lines (line 20 a rank's step 7)
    (cut / "dlio.log").write_text("".join((RUN / "dlio.log").read_text().splitlines(keepends=True)[:20]))
    with _ingest(tmp_path, data) as con:
        logs = con.execute("SELECT path, status, reason FROM dlio_logs ORDER BY path").df()
        failed = your_runs.get_failed_phases(con)
        rated = con.execute("SELECT count(*) FROM dlio_runs").fetchone()[0]
    assert logs.status.tolist() == ["unfinished", "unfinished"] and rated == 0
    assert logs.reason[0].startswith("training stopped before DLIO wrote summary.json: the log ends at line 20 ")
    assert "after 0 ended epochs" in logs.reason[0]
    assert "after 1 ended epoch and its averaged metrics (line 40)" in logs.reason[1]
    assert failed.tool.tolist() == ["dlio", "dlio"] and failed.phase.tolist() == ["training", "training"]
    assert failed.line.tolist() == [20, 47]


@needs_corpus
def test_data_generation_logs_are_no_failed_runs(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(GENERATION.parent, data / GENERATION.parent.name)
    with _ingest(tmp_path, data) as con:
        row = con.execute("SELECT kind, status, reason FROM dlio_logs").fetchone()
        failed = your_runs.get_failed_phases(con)
    assert row == ("data generation", "data generated", None) and failed.empty


def test_a_summary_the_log_does_not_print_is_an_mlperf_audit_code(tmp_path):
    """A run of ours in an MLPerf result tree, its summary.json's MB/s (131.43474856657286, which the log prints
    131.4347) moved by 0.001 in one copy, beyond the log's rounding, and by -0.00004 in another, which the log would
    print alike: only the first is flagged."""
    result = tmp_path / "data" / "Closed" / "Org" / "results" / "system" / "unet3d"
    for run, shift in (("run1", 0.001), ("run2", -0.00004)):
        shutil.copytree(RUN, result / run)
        doc = json.loads((RUN / "summary.json").read_text())
        doc["metric"]["train_io_mean_MB_per_second"] += shift
        (result / run / "summary.json").write_text(json.dumps(doc, indent=4))
    with _ingest(tmp_path, tmp_path / "data") as con:
        flags = con.execute("SELECT path, detail FROM mlperf_run_flags WHERE code = 'log_disagrees_with_summary'").df()
    assert len(flags) == 1 and flags.path[0].endswith("run1/summary.json")
    assert "MB/s: log 131.4347, summary 131.435" in flags.detail[0]
