"""The house's layers as the code keeps them (issue 49): SQL in .sql files, a study's frames through store.frame, and
a statement over a table named at run time quoted by sql.statement."""
import re

import duckdb
import pytest
from conftest import REPO

from iobook.database import sql

PACKAGE = REPO / "iobook"
# A statement in a Python string: the brief's search for inline SQL (issue 49).
INLINE_SQL = re.compile(r"\"\"\"\s*(SELECT|WITH|CREATE|INSERT|DELETE|UPDATE)\b"
                        r"|[\"'](SELECT|WITH|CREATE|INSERT|DELETE|UPDATE|DROP|ALTER|PRAGMA|ATTACH|COPY|SET|BEGIN|COMMIT"
                        r"|ROLLBACK) ")


def modules():
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def test_no_module_holds_a_sql_statement():
    found = [f"{p.relative_to(REPO)}:{n}" for p in modules()
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if INLINE_SQL.search(line)]
    assert found == []


def test_a_study_reads_a_frame_through_store_frame():
    """docs/writing-a-chapter.md names store.frame; `con.execute(store.query(...)).df()` was written 25 times."""
    found = [f"{p.relative_to(REPO)}:{n}" for p in modules() if p.relative_to(PACKAGE).parts[0] in ("studies", "book")
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if ".df()" in line]
    assert found == []
    assert "store.frame(con, __package__, name, params)" in (REPO / "docs" / "writing-a-chapter.md").read_text()


@pytest.mark.parametrize("name", ['odd"name', "select", "two words"])
def test_a_table_named_at_run_time_is_quoted(name):
    """store/delete_records.sql with a table whose name a bare placeholder would break or turn into SQL."""
    con = duckdb.connect()
    con.execute(f'CREATE TABLE {sql.identifier(name)} (source_id BIGINT)')
    con.execute(f"INSERT INTO {sql.identifier(name)} VALUES (1), (2), (3)")
    con.execute(sql.statement("iobook.database", "store/delete_records", table=name), [[1, 3]])
    assert con.execute(f"SELECT source_id FROM {sql.identifier(name)}").fetchall() == [(2,)]
