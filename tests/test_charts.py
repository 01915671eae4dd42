"""Offline charts: the SVG vl-convert draws, each mark with its tooltip as an SVG <title>, and the chart's data
as a download."""
import json
import re

import altair as alt
import pandas as pd

from iobook.book import charts, present


def chart() -> alt.Chart:
    # IBM Tucson's SC23 bandwidth phases (result_summary.txt of submission-679), as a chapter would plot them
    phases = pd.DataFrame({"phase": ["ior-easy-write", "ior-hard-write", "ior-easy-read", "ior-hard-read"],
                           "value": [106.612964, 51.311449, 205.041473, 26.995058]})
    return alt.Chart(phases).mark_point().encode(x="value:Q", y="phase:N")


def test_render_is_svg_with_tooltips_and_deterministic(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the kernel's working folder, where the chart's download is written
    spec = chart().to_dict()
    first, second = charts._render(spec), charts._render(spec)
    assert first["text/html"].startswith('<div id="chart-') and "<svg" in first["text/html"]
    assert "<script" not in first["text/html"]
    # each point's tooltip is its values, as Vega describes the mark (the largest phase of submission-679)
    assert "<title>value: 205.041473; phase: ior-easy-read</title>" in first["text/html"]
    # the same chart again gets the next id on the page, and nothing else changes
    id1, id2 = first["text/plain"][7:-1], second["text/plain"][7:-1]
    assert id1 != id2 and second["text/html"] == first["text/html"].replace(id1, id2)


def test_markup_in_data_stays_text_in_the_svg(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # a folder named like this truncated the page when a chart's spec was a script
    hostile = ["</script><b>x</b>", "<!--<script>", "a & b"]
    df = pd.DataFrame({"label": hostile, "value": [1.0, 2.0, 3.0]})
    html = charts._render(alt.Chart(df).mark_point().encode(x="value:Q", y="label:N").to_dict())["text/html"]
    assert "<script" not in html and "<b>" not in html and "<!--" not in html
    assert "&lt;/script&gt;&lt;b&gt;x&lt;/b&gt;" in html and "a &amp; b" in html


def test_chart_and_table_data_are_downloads_beside_them(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the kernel's working folder: the executed chapter's (book/)
    html = charts._render(chart().to_dict())["text/html"]
    (href,) = [h for h in html.split('href="')[1:]]
    csv = tmp_path / "_static" / "downloads" / href.split('"')[0].rsplit("/", 1)[1]
    assert href.startswith("../_static/downloads/") and "(4 rows, CSV)" in html
    assert pd.read_csv(csv).value.tolist() == [106.612964, 51.311449, 205.041473, 26.995058]

    from iobook.book import nb

    table = nb.table(pd.DataFrame({"phase": ["ior-easy-write"], "value (GiB/s)": [106.612964]})).data
    name = table.split('href="../_static/downloads/')[1].split('"')[0]
    assert (tmp_path / "_static" / "downloads" / name).read_text() == "phase,value (GiB/s)\nior-easy-write,106.612964\n"
    assert '<td class="n">107</td>' in table  # shown to 3 significant digits, downloaded in full


def test_a_layered_chart_is_one_download_of_the_parts_it_draws(tmp_path, monkeypatch):
    """The History chapter's panels layer points, change-point rules and an empty layer (no change point in a
    history): its page offered four links all called "Download the data of this chart", one of 0 rows. One
    file now, each part's rows numbered, the empty part left out."""
    monkeypatch.chdir(tmp_path)
    points = chart()
    rules = alt.Chart(pd.DataFrame({"value": [100.0]})).mark_rule().encode(x="value:Q")
    empty = alt.Chart(pd.DataFrame({"value": pd.Series([], dtype=float)})).mark_rule().encode(x="value:Q")
    html = charts._render(alt.layer(points, rules, empty).to_dict())["text/html"]
    (link,) = re.findall(r'href="\.\./_static/downloads/([^"]+)" download>Download the data of this chart</a> '
                         r"\(5 rows, CSV\)", html)
    frame = pd.read_csv(tmp_path / "_static" / "downloads" / link)
    assert frame.part.tolist() == [1, 1, 1, 1, 2] and frame.value.tolist()[-1] == 100.0


def test_a_long_table_is_whole_only_in_its_download(tmp_path, monkeypatch):
    from pathlib import Path

    from iobook.book import nb

    monkeypatch.chdir(tmp_path)
    ranks = pd.read_csv(Path(__file__).parent / "fixtures" / "mdtest" / "sub679-2023-mdtest-easy-write.csv")
    long = pd.concat([ranks] * 6, ignore_index=True)  # 1,206 rows of IBM Tucson's per-rank times
    html = nb.table(long).data
    assert "<details>" not in html and html.count("<tr>") == nb.MAX_ROWS_SHOWN + 1
    assert "The first 25 of 1,206 rows" in html
    name = html.split('href="../_static/downloads/')[1].split('"')[0]
    assert len(pd.read_csv(tmp_path / "_static" / "downloads" / name)) == 1206
    shorter = nb.table(ranks).data  # 201 rows: all of them one click away in the page
    assert "<details><summary>All 201 rows</summary>" in shorter


def test_a_searchable_table_carries_its_rows_as_script_safe_json(tmp_path, monkeypatch):
    from iobook.book import nb

    monkeypatch.chdir(tmp_path)
    hostile = [f"runs/<!--<script>alert({i})</script>/result.txt" for i in range(30)]
    html = nb.table(pd.DataFrame({"path": hostile, "size (bytes)": range(30)}), searchable=True).data
    rows = html.split('<script type="application/json" class="iobook-rows">')[1].split("</script>")[0]
    assert "<" not in rows and ">" not in rows  # nothing in the data can close the script element
    # cells as formatted for people, each first cell after the characters it shares with the row before's
    assert json.loads(rows)[29] == [[len("runs/<!--<script>alert(2"), "9)</script>/result.txt"], "29"]
    assert html.count("<tr>") == nb.MAX_ROWS_SHOWN + 1 and "&lt;!--&lt;script&gt;" in html


def test_files_link_filters_the_data_chapter_to_the_runs_folder():

    paths = pd.Series(["io500/IBM Tucson/submission-679/result_summary.txt",
                       "io500/IBM Tucson/submission-679/results/2023.10.22-06.40.20/ior-easy-write.txt"])
    link = present.files_link(paths, "submission-679")
    assert 'href="data.html?files=io500/IBM%20Tucson/submission-679#data-sources"' in link
    assert "(2 read here)" in link and link.startswith('<p class="iobook-files-link">submission-679: ')


def test_long_titles_wrap_to_the_chart_width_and_axis_titles_to_the_axis():
    # the page check found "filled: decided after Holm's corre" cut at a 300 px chart's edge (issue 27)
    import altair as alt
    import pandas as pd

    from iobook.book import charts

    subtitle = "filled: decided after Holm's correction within the chapter's family; hollow: undecided"
    chart = alt.Chart(pd.DataFrame({"a": [1.0]})).mark_point().encode(x=alt.X("a:Q", title=subtitle)).properties(
        width=300, title=alt.TitleParams("Ratio to the baseline", subtitle=subtitle))
    spec = charts.wrap_titles(chart.to_dict())
    lines = spec["title"]["subtitle"]
    assert " ".join(lines) == subtitle and len(lines) > 1
    assert all(len(line) <= 300 / charts.SUBTITLE_CHAR_PX for line in lines)
    assert spec["title"]["text"] == "Ratio to the baseline"
    assert " ".join(spec["encoding"]["x"]["title"]) == subtitle  # the page check found 'checksum ÷ no checksum' cut
    assert spec["encoding"]["x"]["field"] == "a" and "tooltip" not in spec["encoding"]


def test_a_title_set_to_none_stays_none(tmp_path, monkeypatch):
    """title=None is Vega-Lite's "no title": History's IO500 panels (a facet on the column `history`) showed the
    column's name, "history", above them once wrap_titles dropped the null; an axis title of None alike."""
    monkeypatch.chdir(tmp_path)
    frame = pd.DataFrame({"history": ["a", "b"], "value": [1.0, 2.0]})
    panels = alt.Chart(frame).mark_point().encode(x=alt.X("value:Q", title=None)).facet(
        facet=alt.Facet("history:N", title=None), columns=2)
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", charts._render(panels.to_dict())["text/html"])
    assert "history" not in texts and "value" not in texts and {"a", "b"} <= set(texts)


def test_a_chart_draws_at_most_max_marks_and_says_so(tmp_path, monkeypatch):
    """Every rank of submission-694's mdtest-hard-read.csv (2,080 ranks, slowest first) as a rule, a point and a
    label each would be 6,240 marks: the chart draws the 1,000 slowest, says so, and downloads what it drew."""
    from conftest import ARCHIVE

    monkeypatch.chdir(tmp_path)
    path = (ARCHIVE / "Argonne National Laboratory" / "Aurora" / "DAOS" / "2023" / "submission-694" / "results"
            / "2023.10.08-18.11.45" / "mdtest-hard-read.csv")
    ranks = pd.read_csv(path)
    ranks = ranks[ranks["rank"] != "all"].astype({"time-File read": float})
    ranks = ranks.sort_values("time-File read", ascending=False)
    assert len(ranks) == 2080
    shown, note = charts.within_mark_cap(ranks, marks_per_row=3, what="ranks")
    assert len(shown) == charts.MAX_MARKS // 3 == 1000
    assert note == "The chart draws the 1,000 ranks that stand out most, of 2,080."
    assert shown["time-File read"].iloc[0] == ranks["time-File read"].max()  # 156.76 s, rank 832
    html = charts._render(alt.Chart(shown).mark_point().encode(x="time-File read:Q", y="rank:N").to_dict())["text/html"]
    assert "(1,000 rows, CSV)" in html
    # within the cap: every row, no sentence
    few, none = charts.within_mark_cap(ranks.head(100), marks_per_row=3)
    assert len(few) == 100 and none == ""


def test_svg_coordinates_stop_at_a_hundredth_of_a_pixel(tmp_path, monkeypatch):
    """A rule's end (x2="135.6986163786736", the DAOS vs Lustre page) carried its datum's last bit into the page,
    which differed between two CPUs (issue 37): every coordinate of a mark is cut at the second decimal."""
    monkeypatch.chdir(tmp_path)
    # IBM Tucson's SC23 bandwidth phases as interval rules from half to the whole of each value
    frame = pd.DataFrame({"phase": ["ior-easy-write", "ior-hard-write"], "low": [53.306482, 25.6557245],
                          "high": [106.612964, 51.311449]})
    svg = charts._render(alt.Chart(frame).mark_rule().encode(x="low:Q", x2="high:Q", y="phase:N").to_dict())["text/html"]
    coordinates = re.findall(r'\s(?:x|y|x1|x2|y1|y2|width|height|d|transform)="([^"]*)"', svg)
    assert coordinates and not [c for c in coordinates if re.search(r"\d\.\d{3}", c)]


def test_database_ids_no_mark_reads_stay_out_of_the_chart(tmp_path, monkeypatch):
    """Ingest numbers rows in the order it meets files: the DAOS vs Lustre page's charts carried run_id (644 on a
    database that grew, 690 on a fresh clone's) and changed id and download on a fresh clone (issue 37)."""
    monkeypatch.chdir(tmp_path)
    phases = chart().data
    first = charts._render(alt.Chart(phases.assign(run_id=644, source_id=1)).mark_point().encode(
        x="value:Q", y="phase:N").to_dict())
    again = charts._render(alt.Chart(phases.assign(run_id=690, source_id=7)).mark_point().encode(
        x="value:Q", y="phase:N").to_dict())
    digest = [r["text/plain"].rsplit("-", 1)[0] for r in (first, again)]  # the id but its count on the page
    download = [re.search(r"downloads/(\w+)\.csv", r["text/html"])[1] for r in (first, again)]
    assert digest[0] == digest[1] and download[0] == download[1]
    # an id a mark reads stays: a collector's run as the colour
    read = charts.without_database_ids(alt.Chart(phases.assign(run_id=3)).mark_point().encode(
        x="value:Q", color="run_id:N").to_dict())
    assert all("run_id" in row for rows in read["datasets"].values() for row in rows)

