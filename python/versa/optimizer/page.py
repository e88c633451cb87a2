"""The shell of the optimizer's HTML pages (a model's report, a batch's index): style, the
table-sorting script, tables, figures, badges. Everything is inline: a page is one file that
opens anywhere, offline, attached to an issue, with no URL outside itself. Every text that
comes from a report goes through `esc`."""

import base64
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape

STYLE = """
:root { --ink: #1f2933; --muted: #616e7c; --line: #e4e7eb; --panel: #f5f7fa; --accent: #1d4ed8;
  --good: #047857; --good-bg: #d1fae5; --bad: #b91c1c; --bad-bg: #fee2e2; --warn: #92400e;
  --warn-bg: #fef3c7; --bar: #dbeafe; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff; line-height: 1.45;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 32px 64px; }
header.top { border-bottom: 1px solid var(--line); padding-bottom: 16px; margin-bottom: 8px; }
header.top h1 { font-size: 24px; margin: 0 0 4px; display: flex; gap: 12px; align-items: center; }
.sub { color: var(--muted); font-size: 13px; }
nav { margin: 12px 0 0; display: flex; flex-wrap: wrap; gap: 4px 16px; font-size: 13px; }
nav a { color: var(--accent); text-decoration: none; }
nav a:hover { text-decoration: underline; }
h2 { font-size: 18px; margin: 32px 0 12px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 20px 0 8px; }
p { margin: 6px 0 12px; }
code, pre, .mono { font-size: 12.5px;
  font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; }
pre { white-space: pre-wrap; word-break: break-word; margin: 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap: 12px;
  margin: 16px 0; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; }
.card .label { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
.card .value { font-size: 26px; font-weight: 600; margin: 2px 0; }
.card .note { font-size: 12.5px; color: var(--muted); }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600;
  letter-spacing: .03em; text-transform: uppercase; vertical-align: middle; }
.badge.good { color: var(--good); background: var(--good-bg); }
.badge.bad { color: var(--bad); background: var(--bad-bg); }
.badge.warn { color: var(--warn); background: var(--warn-bg); }
.badge.plain { color: var(--muted); background: var(--panel); border: 1px solid var(--line); }
.good { color: var(--good); } .bad { color: var(--bad); }
.alert { border: 1px solid #fca5a5; background: var(--bad-bg); border-radius: 8px; padding: 10px 14px;
  margin: 16px 0; }
.alert h3 { margin: 0 0 6px; color: var(--bad); }
.table-wrap { overflow-x: auto; margin: 8px 0 16px; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { padding: 6px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: var(--panel); font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.kv th { width: 180px; background: none; color: var(--muted); font-weight: 500; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th:hover { background: #e9edf2; }
table.sortable th::after { content: " \\2195"; color: #b0b8c1; font-size: 11px; }
table.sortable th[aria-sort="descending"]::after { content: " \\25BC"; color: var(--accent); }
table.sortable th[aria-sort="ascending"]::after { content: " \\25B2"; color: var(--accent); }
td.share { min-width: 96px;
  background: linear-gradient(to right, var(--bar) var(--p), transparent var(--p)); }
tbody tr:hover { background: #fafbfc; }
figure { margin: 12px 0 20px; }
figure img { max-width: 100%; height: auto; display: block; }
figcaption { color: var(--muted); font-size: 12.5px; margin-top: 4px; }
details summary { cursor: pointer; color: var(--accent); margin: 8px 0; }
.empty { color: var(--muted); font-style: italic; }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; border-top: 1px solid var(--line);
  padding-top: 12px; }
"""

# Sorts a table.sortable by the clicked header: numeric columns (th.num) by each cell's
# data-key (empty keys last), others by text; the first click on a numeric column sorts it
# descending, a second click reverses.
SORT_SCRIPT = """
(function () {
  function key(row, column, numeric) {
    var cell = row.cells[column];
    var value = cell.hasAttribute("data-key") ? cell.getAttribute("data-key") : cell.textContent.trim();
    if (!numeric) return value.toLowerCase();
    return value === "" ? NaN : parseFloat(value);
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
    headers.forEach(function (th, column) {
      th.tabIndex = 0;
      function sort() {
        var numeric = th.classList.contains("num");
        var now = th.getAttribute("aria-sort");
        var order = now ? (now === "descending" ? "ascending" : "descending")
                        : (numeric ? "descending" : "ascending");
        var sign = order === "ascending" ? 1 : -1;
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a, column, numeric), y = key(b, column, numeric);
          if (!numeric) return sign * x.localeCompare(y);
          if (isNaN(x) || isNaN(y)) return isNaN(x) - isNaN(y);
          return sign * (x - y);
        });
        rows.forEach(function (row) { body.appendChild(row); });
        headers.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", order);
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); sort(); }
      });
    });
  });
})();
"""


def esc(value: object) -> str:
    return escape(str(value))


@dataclass(frozen=True)
class Cell:
    """A table cell: its HTML (already escaped) and, for numeric columns, the key it sorts by."""

    html: str
    key: float | None = None
    share: float | None = None  # a percentage drawn as a bar behind the cell


@dataclass(frozen=True)
class Column:
    title: str
    numeric: bool = False


def cell(text: object, key: float | None = None, share: float | None = None) -> Cell:
    return Cell(esc(text), key, share)


def table(
    columns: Sequence[Column],
    rows: Iterable[Sequence[Cell]],
    table_id: str | None = None,
    sortable: bool = False,
    sorted_by: tuple[int, str] | None = None,
) -> str:
    """A table; `sorted_by` (column, "descending"/"ascending") marks the order rows come in."""
    head = []
    for i, column in enumerate(columns):
        attrs = ' class="num"' if column.numeric else ""
        if sorted_by and sorted_by[0] == i:
            attrs += f' aria-sort="{sorted_by[1]}"'
        head.append(f"<th{attrs}>{esc(column.title)}</th>")
    body = []
    for row in rows:
        cells = []
        for column, c in zip(columns, row, strict=True):
            classes = (["num"] if column.numeric else []) + (["share"] if c.share is not None else [])
            attrs = f' class="{" ".join(classes)}"' if classes else ""
            if column.numeric:
                attrs += f' data-key="{"" if c.key is None else repr(float(c.key))}"'
            if c.share is not None:
                attrs += f' style="--p: {max(0.0, min(100.0, c.share)):.1f}%"'
            cells.append(f"<td{attrs}>{c.html}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    classes = ' class="sortable"' if sortable else ""
    ident = f' id="{esc(table_id)}"' if table_id else ""
    return (
        f'<div class="table-wrap"><table{ident}{classes}><thead><tr>{"".join(head)}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def key_values(pairs: Iterable[tuple[str, str]]) -> str:
    """A two-column table of labels and (escaped) HTML values."""
    rows = "".join(f"<tr><th>{esc(k)}</th><td>{v}</td></tr>" for k, v in pairs)
    return f'<div class="table-wrap"><table class="kv"><tbody>{rows}</tbody></table></div>'


def figure(png: bytes, alt: str, caption: str, figure_id: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return (
        f'<figure id="{esc(figure_id)}"><img src="data:image/png;base64,{data}" alt="{esc(alt)}">'
        f"<figcaption>{esc(caption)}</figcaption></figure>"
    )


def badge(text: str, tone: str) -> str:
    """tone: good, bad, warn or plain."""
    return f'<span class="badge {tone}">{esc(text)}</span>'


def card(label: str, value: str, note: str = "") -> str:
    return (
        f'<div class="card"><div class="label">{esc(label)}</div><div class="value">{value}</div>'
        f'<div class="note">{note}</div></div>'
    )


def empty(text: str) -> str:
    return f'<p class="empty">{esc(text)}</p>'


def document(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<link rel="icon" href="data:,">'  # no favicon request: a file:// page asks for none
        f"<title>{esc(title)}</title><style>{STYLE}</style></head>"
        f"<body><main>{body}</main><script>{SORT_SCRIPT}</script></body></html>\n"
    )
