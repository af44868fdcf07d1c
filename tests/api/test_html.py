"""Jupyter renders a sheet and a diff as HTML tables (issue 17, item 2)."""
from __future__ import annotations

import html


import supersheet as ss
from repo_paths import REPO, RUNNING



def test_a_sheet_is_an_html_table_of_every_cell():
    sheet = ss.load(RUNNING)
    page = sheet._repr_html_()
    assert page.startswith('<table class="supersheet">') and page.endswith("</table>")
    for name in sheet:
        assert f"<tr><td>{html.escape(name)}</td><td>{html.escape(sheet.display(name))}</td>" in page
    records = sheet.records()
    sections = {"check": "checks", "assume": "assumptions"}
    titles = {f"{r['name'].rsplit('.', 1)[0]} (imported)" if "." in r["name"] else sections.get(r["kind"], "")
              for r in records} - {""}
    assert {"checks", "hgx (imported)", "hgx.gpu (imported)", "model (imported)"} <= titles
    assert page.count("<tr>") == len(sheet) + 1 + len(titles)
    for title in titles:   # checks, assumptions and each import under a title row of their own
        assert f'<tr><th colspan="4">{title}</th></tr>' in page
    checks = page.index('<th colspan="4">checks</th>')
    assert page.index("<td>fits</td>") > checks > page.index("<td>max_sessions</td>")


def test_a_solution_and_a_choice_are_html_tables_not_dataclass_dumps():
    ring = ss.load(REPO / "sheets/supernodes/6.4.2-ring-vs-tree.yaml").solve("crossover")
    page = ring._repr_html_()
    assert page.startswith('<table class="supersheet">') and "<td>crossover</td>" not in page
    assert f"<td>message = {html.escape(ring.sheet.display('message'))}</td>" in page
    choice = ss.load(REPO / "sheets/supernodes/6.7.3-choosing-a-partitioning.yaml")
    name = next(iter(choice._workbook.model.root.choose))
    picked = choice.choose(name)
    page = picked._repr_html_()
    assert page.startswith('<table class="supersheet">') and f"<caption>{html.escape(name)}:" in page
    assert page.count("<tr>") >= picked.ranked.height + 1
    assert repr(picked).startswith(f"<Choice {name}:") and "Choice(" not in repr(picked)
    sheet = ss.load(RUNNING)
    assert repr(ss.diff(sheet, sheet.with_inputs(context="32768 token"))).endswith("changes>")


def test_values_and_formulas_are_escaped(write_sheet):
    path = write_sheet("""
        title: "<b>bold</b> & co"
        cells:
          a: 2 GB
          b: = a < 3 GB
    """)
    page = ss.load(path)._repr_html_()
    assert "<b>" not in page and "&lt;b&gt;bold&lt;/b&gt; &amp; co" in page
    assert "<td>a &lt; 3 GB</td>" in page


def test_a_diff_is_an_html_table_of_its_changes():
    sheet = ss.load(RUNNING)
    page = ss.diff(sheet, sheet.with_inputs(context="32768 token"))._repr_html_()
    assert "<td>results changed</td><td>max_sessions</td><td>47</td><td>11</td>" in page
    assert "<td>inputs changed</td><td>context</td><td>8192 token</td><td>32768 token</td>" in page
    assert "no differences" in ss.diff(sheet, sheet)._repr_html_()
