"""A log holding both IOR's and mdtest's output yields both tools' records (Janelia's 2019 IO500 driver)."""
import pytest
from conftest import ARCHIVE

from iobook.database import store
from iobook.database.ingest import ingest
from iobook.parsers import detect

JANELIA_OUTPUT = ARCHIVE / "Janelia Research Campus, HHMI/nrs/Qumulo Core/2019/submission-194/output.txt"


def test_detected_as_both_tools():
    fmt = detect(JANELIA_OUTPUT.read_text())
    assert (fmt.name, fmt.tool) == ("ior+mdtest-text", "ior+mdtest")


@pytest.mark.slow
def test_ior_and_mdtest_results_both_land(tmp_path):
    db = tmp_path / "t.duckdb"
    ingest([JANELIA_OUTPUT], db, progress=False)
    con = store.open_read(db)
    assert con.execute("SELECT format, tool_version, status FROM sources").fetchall() == [
        ("ior+mdtest-text", "3.2.0 + 1.9.3", "ok")]
    ior = con.execute("SELECT t.test_index, s.access, s.bw_max_mib_s FROM ior_tests t JOIN ior_summary s USING (test_id) "
                      "ORDER BY t.test_index, s.access").fetchall()
    assert ior[0] == (0, "write", 7676.27)
    assert len(ior) == 4
    removal = con.execute(
        "SELECT r.max FROM mdtest_runs m JOIN mdtest_results r USING (mdtest_id) "
        "WHERE r.table_kind = 'rate' AND r.operation = 'File removal' ORDER BY m.summary_index DESC LIMIT 1"
    ).fetchone()
    assert removal == (221.957,)
