"""iobook.inference.stats on seed 003's published mdtest table (data/published/seed003_snapshot_mdtest.csv) and on the
snapshot run committed under data/raw/snapshots/ (made on the build machine by scripts/collect_snapshots.py)."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from iobook.database import published, store
from iobook.database.ingest import ingest
from iobook.inference import stats

RUN = Path(__file__).resolve().parents[1] / "data" / "raw" / "snapshots" / "vm-20261121T132957Z"
ROWS = ["No snapshot", "1", "2", "3", "4", "5", "1st del+create", "2nd del+create"]
SAMPLE_STD = "sample std (n-1) of all rows"
MEAN_RATIO = "mean of the rows after the first / first row"


@pytest.fixture(scope="module")
def seed():
    wide = published.load("seed003_snapshot_mdtest").pivot(index="row", columns="column", values="value")
    return wide.loc[ROWS], wide


def counts(checks: pd.DataFrame) -> dict[str, tuple[int, int]]:
    by = checks.groupby("definition")
    return {name: (int(g.rounds_to_printed.sum()), int(g.reached_within_input_rounding.sum())) for name, g in by}


def test_std_row_is_the_sample_std_of_all_eight_rows(seed):
    rows, wide = seed
    checks = stats.recompute_summary(rows, wide.loc["Std. deviation"], stats.STD_DEFINITIONS, 2, 2)
    assert counts(checks) == {SAMPLE_STD: (7, 9), "population std (n) of all rows": (0, 0),
                              "sample std (n-1) of the rows after the first": (0, 0),
                              "population std (n) of the rows after the first": (0, 0)}
    by_column = checks[checks.definition == SAMPLE_STD].set_index("column")
    removal = by_column.loc["File (kiops/s) / Removal"]
    assert round(removal.recomputed, 2) == removal.printed == 3.13
    assert removal.recomputed == pytest.approx(3.1256150823, abs=1e-9)
    # Printed 2.70 and 2.13; from the printed rows 2.69 and 2.12, reached only by unrounded inputs.
    create = by_column.loc[["Directory (kiops/s) / Create", "File (kiops/s) / Create"]]
    assert create.printed.tolist() == [2.70, 2.13]
    assert [round(v, 2) for v in create.recomputed] == [2.69, 2.12]
    assert not create.rounds_to_printed.any() and create.reached_within_input_rounding.all()


def test_percent_row_is_the_mean_of_the_snapshot_rows_over_no_snapshot(seed):
    rows, wide = seed
    checks = stats.recompute_summary(rows, wide.loc["Diff with/without"], stats.PERCENT_DEFINITIONS, 2, 2)
    assert counts(checks) == {MEAN_RATIO: (6, 9), "mean of all rows / first row": (0, 0),
                              "median of the rows after the first / first row": (0, 0),
                              "min of the rows after the first / first row": (0, 0),
                              "last row / first row": (0, 0)}
    by_column = checks[checks.definition == MEAN_RATIO].set_index("column")
    assert round(by_column.loc["File (kiops/s) / Removal"].recomputed, 2) == 94.40
    missed = by_column[~by_column.rounds_to_printed]
    assert missed.index.tolist() == ["File (kiops/s) / Create", "Tree (iops/s) / Create", "Tree (iops/s) / Removal"]
    assert [round(v, 2) for v in missed.recomputed] == [95.04, 81.64, 96.36]
    assert missed.printed.tolist() == [95.03, 81.66, 96.39]


def test_attainable_range_of_a_ratio_of_means_is_the_closed_form(seed):
    rows, _ = seed
    x = rows["Tree (iops/s) / Removal"].to_numpy()
    low, high = stats.attainable_range(x, stats.PERCENT_DEFINITIONS[MEAN_RATIO], 0.005)
    # the mean ratio grows with every snapshot row and falls with the first row
    assert low == pytest.approx(100 * (x[1:].mean() - 0.005) / (x[0] + 0.005), abs=1e-12)
    assert high == pytest.approx(100 * (x[1:].mean() + 0.005) / (x[0] - 0.005), abs=1e-12)
    assert (round(low, 4), round(high, 4)) == (96.2938, 96.435)
    value = stats.PERCENT_DEFINITIONS[MEAN_RATIO](x[None, :])[0]
    assert stats.attainable_range(x, stats.PERCENT_DEFINITIONS[MEAN_RATIO], 0.0) == (value, value)


@pytest.fixture(scope="module")
def local_rates(tmp_path_factory):
    db = tmp_path_factory.mktemp("snapshots") / "s.duckdb"
    ingest([RUN], db, progress=False)
    with store.open_read(db) as con:
        return con.execute(
            """
            WITH l AS (
                SELECT source_id, max(value) FILTER (key = 'phase') AS operation,
                       max(value) FILTER (key = 'step') AS stage,
                       CAST(max(value) FILTER (key = 'repetition') AS INTEGER) AS repetition
                FROM run_labels WHERE source_id IS NOT NULL GROUP BY source_id
            )
            SELECT l.operation, l.stage, l.repetition, io.iops
            FROM l JOIN fio_jobs j USING (source_id) JOIN fio_io io USING (job_id)
            ORDER BY l.operation, l.stage, l.repetition
            """
        ).df()


@pytest.mark.slow
def test_local_run_has_three_repetitions_of_each_stage(local_rates):
    assert len(local_rates) == 72
    assert set(local_rates.groupby(["operation", "stage"]).size()) == {3}
    none = local_rates[(local_rates.operation == "create") & (local_rates.stage == "none")]
    # fio's group-reported iops: 10000 files / longest job runtime, e.g. 001-create-initial0-r1: 3244 ms
    assert none.iops.tolist() == [3082.614057, 3132.83208, 3562.522266]


@pytest.mark.slow
def test_ratio_of_stage_1_create_to_no_snapshot(local_rates):
    create = local_rates[local_rates.operation == "create"]
    one, none = create[create.stage == "1"].iops, create[create.stage == "none"].iops
    r = stats.ratio_row(one, none, confidence=0.95)
    # geometric means of 001/004/007-create-initial0 and 010/013/016-create-create1's "iops"
    assert r["ratio"] == pytest.approx(np.exp(np.mean(np.log([3652.30095, 4599.816007, 4240.882103]))
                                              - np.mean(np.log([3082.614057, 3132.83208, 3562.522266]))))
    assert 0 < r["low"] < r["ratio"] < r["high"] and (r["n"], r["n_baseline"]) == (3, 3)
    wider = stats.ratio_row(one, none, confidence=0.99)
    assert wider["low"] < r["low"] and wider["high"] > r["high"] and wider["p"] == r["p"]
