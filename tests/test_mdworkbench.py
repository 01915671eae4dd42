"""md-workbench output (IO500 extended mode's mdworkbench phases) from the two archive submissions that kept it:
GWDG's SCC BeeGFS run (submission 582: create, bench, delete) and Janelia's nrsv run (submission 578: create,
delete). Each phase's rate agrees with the score the run's own result_summary.txt printed for it."""
import pytest
from conftest import ARCHIVE

from iobook.parsers import detect, io500, io500_summary, mdworkbench, parse_outputs

RUNS = {"GWDG": ARCHIVE / "GWDG/SCC/BeeGFS/2021/submission-582",
        "Janelia": ARCHIVE / "HHMIJRC/Janelia Compute Cluster/nrsv/2021/submission-578"}
# IO500 phase -> the md-workbench phase it runs (md-workbench.c: -1 precreate, -2 benchmark, -3 cleanup)
PHASES = {"mdworkbench-create": "precreate", "mdworkbench-bench": "benchmark", "mdworkbench-delete": "cleanup"}


def parsed(path):
    text = path.read_text()
    fmt = detect(text[: 1 << 20])
    assert fmt is not None and fmt.name == "md-workbench-text", path
    return parse_outputs(fmt, text).records


@pytest.mark.parametrize("site", list(RUNS))
def test_each_phase_rate_is_the_score_io500_printed(site):
    summary = io500_summary.parse_c_summary((RUNS[site] / "result_summary.txt").read_text()).records
    printed = {p.label: p for p in summary if isinstance(p, io500.Io500Phase) and p.label in PHASES}
    compared = 0
    for io500_phase, phase in PHASES.items():
        path = RUNS[site] / f"{io500_phase}.txt"
        if not path.exists():  # Janelia's run kept no mdworkbench-bench.txt
            continue
        lines = [r for r in parsed(path) if isinstance(r, mdworkbench.MdworkbenchPhase) and r.rank is None]
        assert {r.phase for r in lines} == {phase}
        # the score is the last iteration's rate (-R=2 runs the benchmark twice), printed to 0.1 iops/s
        assert printed[io500_phase].value * 1000 == pytest.approx(lines[-1].rate_iops, abs=0.05 + 1000 * printed[
            io500_phase].resolution)
        compared += 1
    assert compared == {"GWDG": 3, "Janelia": 2}[site]


@pytest.mark.parametrize("site", list(RUNS))
def test_every_process_and_operation_is_read(site):
    for path in sorted(RUNS[site].glob("mdworkbench-*.txt")):
        records = parsed(path)
        (run,) = [r for r in records if isinstance(r, mdworkbench.MdworkbenchRun)]
        assert run.version == "3.4.0+dev" and run.command.startswith("./md-workbench ") and run.runtime_s > 0
        phases = [r for r in records if isinstance(r, mdworkbench.MdworkbenchPhase)]
        iterations = [r for r in phases if r.rank is None]
        ranks = sorted(r.rank for r in phases if r.rank is not None)
        # --process-reports: one line per process of each iteration, numbered from 0
        assert ranks == sorted(list(range(len(ranks) // len(iterations))) * len(iterations))
        assert all(p.errors == 0 and p.max_s >= (p.min_s or 0) for p in phases)
        for lat in (r for r in records if isinstance(r, mdworkbench.MdworkbenchLatency)):
            values = [lat.min_s, lat.q1_s, lat.median_s, lat.q3_s, lat.q90_s, lat.q99_s, lat.max_s]
            assert values == sorted(values), (path.name, lat.line)


def test_the_status_file_is_no_output():
    """mdworkbench.status ("pos: 7932") is md-workbench's position file, not its output."""
    assert detect((RUNS["GWDG"] / "mdworkbench.status").read_text()) is None


def test_a_damaged_number_is_a_parse_error_with_its_line():
    """hypothesis found it (test_fuzz_all_parsers, md-workbench-text): a phase's 'process max:59.96s' damaged into
    '.59.96s', or the header's working set into '1.2.3 MiB', raised ValueError, not ParseError, so the file's
    failure had no line. GWDG's submission-582 mdworkbench-create.txt with those bytes changed."""
    import re

    from iobook.parsers import ParseError

    (path,) = sorted(RUNS["GWDG"].glob("**/mdworkbench-create.txt"))
    text = path.read_text()
    fmt = detect(text[: 1 << 20])
    for damaged in (re.sub(r"process max:([\d.]+)s", r"process max:.\1.1s", text, count=1),
                    re.sub(r"workingset size: ([\d.]+) MiB", r"workingset size: \1.1.2 MiB", text, count=1)):
        assert damaged != text
        with pytest.raises(ParseError) as e:
            parse_outputs(fmt, damaged)
        assert e.value.line >= 1
