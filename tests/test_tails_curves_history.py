"""Issue 29's leftovers on real files: latency tails and whole curves compared between labels (Your runs) on
data/examples/curve (scripts/collect_curve.sh: one fio randread job over bs 4k-1m, 3 runs a point, on the VM's
disk and on tmpfs), clat p99 change points on data/examples/history, and IO500 systems over their archive
submissions (data/raw/io500, the shared archive's copy)."""
import json
import re

import numpy as np
import pandas as pd
import pytest
from conftest import REPO
from scipy import stats as scipy_stats

from iobook.database import store
from iobook.database.ingest import ingest
from iobook.inference import evidence
from iobook.studies import history
from iobook.studies import your_runs as study

pytestmark = pytest.mark.slow  # every test here runs a kernel, a book, a browser, a real tool or an ingest

CURVE = REPO / "data" / "examples" / "curve"
HISTORY = REPO / "data" / "examples" / "history"
BS = ["4k", "16k", "64k", "256k", "1m"]


def fio_read(label: str, bs: str, key: str) -> list[float]:
    """Per run (rep1-3.json of one point) the read bandwidth (bw_bytes) or a clat percentile ('99.000000')."""
    out = []
    for f in sorted((CURVE / label / f"randread-bs{bs}").glob("rep*.json")):
        read = json.loads(f.read_text())["jobs"][0]["read"]
        out.append(read["bw_bytes"] if key == "bw" else read["clat_ns"]["percentile"][key])
    return out


def log_welch(sample, baseline):
    test = scipy_stats.ttest_ind(np.log(sample), np.log(baseline), equal_var=False)
    ci = test.confidence_interval(0.95)
    return np.exp(np.log(sample).mean() - np.log(baseline).mean()), np.exp(ci.low), np.exp(ci.high), test.pvalue


def gmean(values) -> float:
    return float(np.exp(np.mean(np.log(values))))


@pytest.fixture(scope="module")
def curve(tmp_path_factory):
    db = tmp_path_factory.mktemp("curve") / "curve.duckdb"
    ingest([CURVE], db, progress=False)
    con = store.open_read(db)
    yield study.report(con)
    con.close()


def records(report, family_prefix):
    return [c for c in report.evidence if isinstance(c, evidence.Comparison) and c.family.startswith(family_prefix)]


def test_tails_are_compared_run_by_run(curve):
    """tmpfs over disk (the baseline, first A-Z), bs=1m: each percentile's ratio, interval and p are Welch's t on
    the logs of the three runs' clat_ns.percentile values a side (tmpfs/randread-bs1m/rep*.json, disk/...); the
    four percentiles of that configuration are one family, Holm-corrected by evidence.decide."""
    tails = records(curve, "clat tails: tmpfs over disk, fio rw=randread bs=1m ")
    assert [c.quantity for c in tails] == ["clat p50", "clat p99", "clat p99.9", "clat p99.99"]
    for c, key in zip(tails, ["50.000000", "99.000000", "99.900000", "99.990000"]):
        ratio, low, high, p = log_welch(fio_read("tmpfs", "1m", key), fio_read("disk", "1m", key))
        assert (c.ratio, c.low, c.high, c.p) == pytest.approx((ratio, low, high, p))
        assert c.replicate is evidence.Replicate.RUN and (c.n, c.n_baseline) == (3, 3) and c.family_size == 4
        assert c.p_adjusted >= c.p
    p99 = tails[1]  # 40.9x (13.1-127): tmpfs's p99 at 1 MiB reads is longer than the disk's in all three runs
    assert p99.ratio > 10 and p99.low > 1 and p99.verdict is evidence.Verdict.DECIDED
    table = curve.tables["tab-runs-tails"].frame
    assert len(table) == 4 * len(BS) and set(table["measure"]) == set(study.TAIL_PERCENTILES.values())


def test_a_curve_per_point_and_over_the_sweep(curve):
    """Per point: tmpfs's three runs' bandwidth over the disk's (Welch on logs, from the JSONs); over the curve:
    the geometric mean of the five points' ratios with the t interval of their logs (scipy's ttest_1samp), five
    points as units."""
    points = records(curve, "curve points: tmpfs · fio randread over disk")
    expected = [log_welch(fio_read("tmpfs", bs, "bw"), fio_read("disk", bs, "bw")) for bs in BS]
    assert [x for c in points for x in (c.ratio, c.low, c.high, c.p)] == pytest.approx([x for e in expected for x in e])
    assert all(c.family_size == len(BS) for c in points)
    (summary,) = records(curve, "whole curves over disk")
    logs = np.log([r for r, *_ in expected])
    test = scipy_stats.ttest_1samp(logs, 0.0)
    ci = test.confidence_interval(0.95)
    assert (summary.ratio, summary.low, summary.high, summary.p) == pytest.approx(
        (np.exp(logs.mean()), np.exp(ci.low), np.exp(ci.high), test.pvalue))
    assert summary.replicate is evidence.Replicate.POINT and summary.n == len(BS)
    # 0.409x (0.239-0.7) over 5 points: on this VM O_DIRECT reads of tmpfs are slower than of the virtio disk
    assert summary.high < 1 and summary.verdict is evidence.Verdict.DECIDED
    assert "5 points against disk" in evidence.phrase(summary)


def test_the_knee_is_the_smallest_bs_reaching_90_percent(curve):
    """Each side's knee from the JSONs: the smallest bs whose geometric-mean bandwidth over its three runs reaches
    KNEE_SHARE of the largest."""
    row = curve.tables["tab-runs-curves"].frame.iloc[0]
    knees = []
    for label in ("disk", "tmpfs"):
        means = [gmean(fio_read(label, bs, "bw")) for bs in BS]
        knees.append(next(bs for bs, m in zip(BS, means) if m >= study.KNEE_SHARE * max(means)))
    shown = {"4k": "4 KiB", "16k": "16 KiB", "64k": "64 KiB", "256k": "256 KiB", "1m": "1 MiB"}
    column = [c for c in row.index if c.startswith("knee (")][0]
    moved = "moved" if knees[0] != knees[1] else "did not move"
    assert row[column] == f"{shown[knees[0]]} → {shown[knees[1]]}, {moved}"


@pytest.fixture(scope="module")
def change(tmp_path_factory):
    db = tmp_path_factory.mktemp("change") / "change.duckdb"
    ingest([HISTORY / "change"], db, progress=False)
    con = store.open_read(db)
    yield history.report(con)
    con.close()


def test_p99_change_point_at_the_recorded_run(change):
    """data/examples/history/MANIFEST.tsv line 17: the target moved from tmpfs to a loop-device ext4 at run 16.
    clat p99's change point is there, its ratio the geometric mean of runs 16-30's p99 over runs 1-15's (each
    run's fio.json clat_ns.percentile["99.000000"])."""
    changes = change.tables["tab-history-changes"].frame
    p99 = changes[changes.measure == "clat p99"]
    assert len(p99) == 1 and "from run 16," in p99["change point"].iloc[0]
    (record,) = [c for c in change.evidence if isinstance(c, evidence.Comparison) and c.family == "change points: clat p99"
                 and c.label == "runs 16–30"]
    values = [json.loads((HISTORY / "change" / f"run{i:02d}" / "fio.json").read_text())["jobs"][0]["read"]["clat_ns"]
              ["percentile"]["99.000000"] for i in range(1, 31)]
    ratio, low, high, _ = log_welch(values[15:], values[:15])
    assert (record.ratio, record.low, record.high) == pytest.approx((ratio, low, high))
    assert p99.verdict.iloc[0] == "decided" and record.decided and change.values["has_p99_changes"]


def printed_score(folder) -> float:
    """The score an IO500 result file prints: 'SCORE = x' (result.txt) or '[SCORE] ... TOTAL x' (result_summary)."""
    for f in sorted(folder.rglob("result*.txt")):
        text = f.read_text(errors="replace")
        if m := re.search(r"^SCORE\s*=\s*([\d.]+)", text, re.M) or re.search(r"\[SCORE\].*TOTAL ([\d.]+)", text):
            return float(m.group(1))
    raise AssertionError(f"no score in {folder}")


JANELIA = REPO / "data" / "raw" / "io500" / "Janelia Research Campus, HHMI" / "SharedScratch" / "wekafs"
# the eight submissions in the order their runs started (each run's own result folder name / timestamp)
JANELIA_ORDER = ["2019/submission-102", "2019/submission-89", "2020/submission-122", "2020/submission-111",
                 "2020/submission-112", "2020/submission-461", "2020/submission-464", "2020/submission-459"]


def janelia_changes(db) -> pd.DataFrame:
    """Janelia SharedScratch's IO500 change points in a database, with their records: history.io500_changes of the
    submissions the chapter shows (what tab-history-io500-changes shows, in columns)."""
    with store.open_read(db) as con:
        subs = history.analysis.io500_submissions(con)
    changes, decided = history.analysis.io500_changes(subs)
    changes = changes.assign(record=decided)
    return changes[changes.system.str.startswith("Janelia")]


def test_an_io500_system_over_its_submissions(databases):
    """Janelia's SharedScratch (wekafs) has 8 archive submissions (data/raw/io500/Janelia Research Campus, HHMI/
    SharedScratch/wekafs/{2019,2020}/submission-*): its history holds each once, in the order its runs started,
    with the score each prints."""
    with store.open_read(databases["default"]) as con:
        subs = history.analysis.io500_submissions(con)
        r = history.report(con)
    janelia = subs[subs.system == "Janelia Research Campus, HHMI · SharedScratch · wekafs"]
    assert [f"submission-{s}" for s in janelia.submission] == [p.split("/")[1] for p in JANELIA_ORDER]
    printed = [printed_score(JANELIA / p) for p in JANELIA_ORDER]
    assert janelia.score.tolist() == pytest.approx(printed, rel=1e-3)  # recomputed vs printed: io500_scores.SCORE_TOLERANCE
    shown = r.tables["tab-history-io500"].frame
    assert shown[shown.system == janelia.system.iloc[0]].submission.tolist() == [p.split("/")[1] for p in JANELIA_ORDER]
    assert (subs.groupby(["system", "score_rule"]).size() >= history.IO500_MIN_SUBMISSIONS).all()


def test_an_io500_history_is_searched_within_one_benchmark_generation(databases):
    """The methods page never pools generations. Janelia's 'change' at submission-461 set the three C-app runs of
    io500-sc20 after it against five before, three of them runs of the bash script (102, 89 and 122 print a
    result_summary.txt of the bash script, no result.txt of the C app; 111 and 112 are C-app runs of io500-isc20). Within
    a generation Janelia has 3 bash-script and 5 C-app submissions, fewer than the 6 a search needs, and so has every
    other system on data/raw (Intel's Wolf, 6 in all, 4 of the bash script and 2 of the C app): no change point, and
    the finding says why."""
    bash = [p for p in JANELIA_ORDER if not list((JANELIA / p).rglob("result.txt"))]
    assert bash == ["2019/submission-102", "2019/submission-89", "2020/submission-122"]
    assert janelia_changes(databases["default"]).empty
    with store.open_read(databases["default"]) as con:
        subs = history.analysis.io500_submissions(con)
        r = history.report(con)
    assert subs.groupby(["system", "score_rule", "generation"]).size().max() < history.MIN_RUNS
    (finding,) = [f.text for f in r.findings if f.target == "fig-history-io500"]
    assert finding.startswith("IO500: 0 of ") and "of one benchmark generation" in finding


def test_fio_io_carries_the_p9999_fio_printed(tmp_path):
    """tests/fixtures/fio/fio333-multi.json: job 1 (seq-read) read clat_ns.percentile "99.990000" : 2375680 (line
    307); job 2 (randrw-4k) write "99.990000" : 4177920 (line 614). fio_io.lat_p9999_ns is that value."""
    db = tmp_path / "multi.duckdb"
    ingest([REPO / "tests" / "fixtures" / "fio" / "fio333-multi.json"], db, progress=False)
    con = store.open_read(db)
    got = dict(con.execute("SELECT j.jobname || ' ' || io.direction, io.lat_p9999_ns FROM fio_io io JOIN fio_jobs j "
                           "USING (job_id) WHERE j.job_index IN (1, 2)").fetchall())
    con.close()
    assert got["seq-read read"] == 2375680 and got["randrw-4k write"] == 4177920


def test_collector_steps_are_said_to_be_no_history_and_the_io500_histories_lead(tmp_path):
    """One checksum collector run (data/raw/checksum/vm-20261125T030550Z: its fio histories are the rounds r1-r6 of
    each step, minutes apart in one VM, none with a change point) beside Janelia's IO500 submissions: the chapter
    says the fio histories are repetitions of one experiment, and opens with the IO500 systems' histories, which are
    submissions over years (issue 36)."""
    db = tmp_path / "steps.duckdb"
    ingest([REPO / "data" / "raw" / "checksum" / "vm-20261125T030550Z", JANELIA], db, progress=False)
    with store.open_read(db) as con:
        r = history.report(con)
    assert r.findings[0].text.startswith("IO500: ")
    (quiet,) = [f for f in r.findings if f.text.startswith("No change point")]
    without, steps = quiet.evidence
    assert steps.k == steps.n == without.n == r.values["histories"] == 12  # write and read of 6 steps a mode
