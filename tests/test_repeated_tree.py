"""A site's archive often holds a run more than once (copies of the archive, a submission filed twice). A small
repeated tree: 3 copies of three IBM Tucson submissions with per-rank CSVs (590, an ESS 3200 run whose files print
no IO500 release; 679, an ESS 3500 run; 722, a Storage Scale System 6000 run with its mmlscluster, mmlsconfig and
mmlsfs listings), in the archive's layout. Every chapter's report rests on each run once, whatever the copies;
the views that pair runs or files grow with the copies, not with their square (issue 30)."""
import importlib
import re
import shutil

import pytest
from conftest import ARCHIVE

from iobook.book import chapters
from iobook.database import store
from iobook.database.ingest import ingest
from iobook.studies import stragglers

pytestmark = pytest.mark.slow  # every test here runs a kernel, a book, a browser, a real tool or an ingest

SUBMISSIONS = [
    "IBM Tucson/Arches 2021B/IBM Elastic Storage System 3200 - 2 Building Blocks/2021/submission-590",
    "IBM Tucson/Arches Storage Scale System 3500/IBM Storage Scale/2023/submission-679",
    "IBM Tucson/Saguaro Storage Scale System 6000/IBM Storage Scale 5.2.2-0 (early pre-GA build) with ESS 6.2.1-0/2024/"
    "submission-722",
]
# DuckDB's operators that compare every row of one side with every row of the other (EXPLAIN's names)
PAIRWISE_JOINS = re.compile(r"Nested Loop Join|Blockwise Nl Join|Piecewise Merge Join|Cross Product|IE Join", re.I)
COPIES = 3


@pytest.fixture(scope="module")
def trees(tmp_path_factory) -> dict[int, object]:
    """copies -> database ingested from that many copies of SUBMISSIONS (hard links where they work)."""
    root = tmp_path_factory.mktemp("repeated")
    built = {}
    for copies in (1, COPIES):
        tree = root / f"{copies}x"
        for k in range(copies):
            for submission in SUBMISSIONS:
                shutil.copytree(ARCHIVE / submission, tree / f"copy-{k}" / submission)
        db = root / f"{copies}x.duckdb"
        ingest([tree], db, progress=False)
        built[copies] = db
    return built


def test_the_copies_are_recognised_as_one_run_each(trees):
    one, three = (store.open_read(trees[c]) for c in (1, COPIES))
    runs = one.execute("SELECT count(*) FROM io500_runs").fetchone()[0]
    assert runs == len(SUBMISSIONS)  # each submission folder holds one run (its result_summary.txt)
    assert three.execute("SELECT count(*) FROM io500_runs").fetchone()[0] == COPIES * runs
    kept = three.execute("SELECT count(*) FROM io500_runs WHERE run_id NOT IN "
                         "(SELECT run_id FROM io500_duplicate_runs)").fetchone()[0]
    assert kept == runs


def test_the_duplicate_view_lists_each_copy_once(trees):
    """io500_duplicate_runs on 3 copies: each run's 2 earlier copies, once each, against its last copy (a pairwise
    self-join listed every pair: the first copy twice, 3 rows a run, 120 at 16 copies)."""
    con = store.open_read(trees[COPIES])
    copies = con.execute("SELECT run_id, same_as_run_id FROM io500_duplicate_runs").fetchall()
    runs = con.execute("SELECT fingerprint, list(run_id ORDER BY run_id) FROM io500_run_info GROUP BY fingerprint").fetchall()
    assert len(runs) == len(SUBMISSIONS) and all(len(ids) == COPIES for _, ids in runs)
    assert sorted(copies) == sorted((run_id, ids[-1]) for _, ids in runs for run_id in ids[:-1])


def test_a_runs_listings_are_found_by_equal_folders(trees):
    """722's Storage Scale listings sit in its results folder: each copy's run is linked to its own copy's
    listings, as many as one copy has, and the view's plan joins folders by equality (the prefix test it had
    compared every run folder with every listing: a nested loop)."""
    one, three = (store.open_read(trees[c]) for c in (1, COPIES))
    listings = one.execute("SELECT count(*) FROM io500_run_system_files").fetchone()[0]
    assert listings == one.execute("SELECT count(*) FROM sources WHERE tool = 'gpfs' AND status = 'ok'").fetchone()[0] > 0
    linked = three.execute("SELECT r.path, x.path FROM io500_run_system_files x JOIN io500_run_info r USING (run_id)").fetchall()
    assert len(linked) == COPIES * listings
    assert all(run.split("/copy-")[1][0] == listing.split("/copy-")[1][0] for run, listing in linked)
    plan = three.execute("EXPLAIN SELECT * FROM io500_run_system_files").fetchall()[0][1]
    assert not PAIRWISE_JOINS.search(plan)


def test_stragglers_counts_each_run_once(trees):
    """The same phases, ranks and runs on 3 copies as on 1: 679's 5 + 8 IO500 phases with per-rank CSVs and
    590's, each counted once."""
    reports = {c: stragglers.report(store.open_read(trees[c])) for c in (1, COPIES)}
    counted = ("phases", "units", "machines", "ranks", "tested", "null_observed", "null_tested",
               "null_machine_machines", "null_machine_observed", "storage_scale_machines", "tested_machines")
    assert {k: reports[COPIES].values[k] for k in counted} == {k: reports[1].values[k] for k in counted}
    assert reports[1].values["units"] == len(SUBMISSIONS)
    decided = [c.n for c in reports[COPIES].evidence if hasattr(c, "verdict")]
    # the comparisons by machine (variance between nodes, slow ranks on the slowest rank's node): n = 2 machines
    # (679 and 590), not 6 copies
    assert decided == [len(SUBMISSIONS)] * 2


@pytest.mark.parametrize("name", [c.name for c in chapters.load_registry()])
def test_every_chapter_counts_each_run_once(trees, name):
    """Every chapter's report on 3 copies rests on what it rests on with 1: each evidence record (census, estimate
    or comparison) has the same quantity and n, so a copy is never a repetition (Your runs took the 3 copies of
    each IO500 phase log for 3 runs of it, and DAOS vs Lustre's census counted 9 runs of unknown attribution).
    No chapter fails on repeated runs: the Storage Scale chapter stopped in alike_sentences with an IndexError
    (590's 3 copies formed a group whose IO500 release was NaN for every run). The reports run without a kernel:
    tests/test_glue_keys.py checks that every key a template pastes is in its report."""
    registry = {c.name: c for c in chapters.load_registry()}[name]
    study = importlib.import_module(f"iobook.studies.{name}")
    evidence = {c: [(type(e).__name__, getattr(e, "quantity", None), e.n)
                    for e in study.report(store.open_read(trees[c]), **registry.parameters).evidence]
                for c in (1, COPIES)}
    assert evidence[COPIES] == evidence[1]
