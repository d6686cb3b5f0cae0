// The inline style and scripts of the HTML report (see html_assets.hpp).
#include "report/html_assets.hpp"

namespace cctx::report_detail {

const std::string_view kHtmlStyle = R"css(
body { font-family: sans-serif; margin: 0 auto; max-width: 1200px; padding: 0 16px 40px;
       color: #222; }
h1 { font-size: 22px; margin: 18px 0 4px; }
h2 { font-size: 17px; margin: 26px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
.muted { color: #666; }
code, .formula { font-family: monospace; }
.formula { font-size: 18px; background: #f3f6fa; padding: 2px 6px; border-radius: 3px; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 7px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.kv th { width: 180px; }
#node-table th { cursor: pointer; user-select: none; white-space: nowrap; }
#node-table th.sorted-asc::after { content: " \25B2"; }
#node-table th.sorted-desc::after { content: " \25BC"; }
#node-table tr.peak td { background: #fdecea; }
.controls { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; margin: 8px 0; }
.table-wrap { overflow-x: auto; }
figure { margin: 10px 0; overflow-x: auto; }
#errors { background: #fdecea; color: #a00; border: 1px solid #d62728; padding: 6px 10px;
          white-space: pre-wrap; font-family: monospace; }
#errors:empty { display: none; }
ul.compact { margin: 4px 0; padding-left: 20px; font-size: 13px; }
)css";

const std::string_view kHtmlErrorCapture = R"js(
(function () {
  'use strict';
  var pending = [];
  function show(text) {
    var box = document.getElementById('errors');
    if (!box) { pending.push(text); return; }
    while (pending.length) { box.appendChild(document.createTextNode(pending.shift() + '\n')); }
    box.appendChild(document.createTextNode(text + '\n'));
  }
  window.addEventListener('error', function (e) {
    show('error: ' + e.message + ' (' + (e.filename || 'inline') + ':' + e.lineno + ')');
  });
  window.addEventListener('unhandledrejection', function (e) {
    show('unhandled rejection: ' + e.reason);
  });
  // Errors raised before <body> was parsed are shown once the box exists.
  document.addEventListener('DOMContentLoaded', function () {
    var box = document.getElementById('errors');
    while (box && pending.length) { box.appendChild(document.createTextNode(pending.shift() + '\n')); }
  });
  window.cctxReportError = show;
})();
)js";

const std::string_view kHtmlTableScript = R"js(
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('cctx-data').textContent);
  var strings = data.strings, ops = data.ops, rows = data.rows, columns = data.columns;
  var state = { op: -1, text: '', sort: 0, descending: false, page: 0, size: 100 };
  var view = [];
  var table = document.getElementById('node-table');
  var body = table.tBodies[0];

  // Cell c of row i: the node index, an op, a string of the table, or a number.
  function value(i, c) {
    var kind = columns[c].kind, raw = rows[i][columns[c].field];
    if (kind === 'index') return i;
    if (kind === 'op') return ops[raw];
    if (kind === 'text') return strings[raw];
    return raw;
  }
  // Amounts sort by value when they are integers, before the symbolic ones.
  function sortKey(i, c) {
    var v = value(i, c);
    if (typeof v === 'number') return v;
    return /^-?\d+$/.test(v) ? Number(v) : v;
  }
  function compare(a, b) {
    if (typeof a === typeof b) return a < b ? -1 : a > b ? 1 : 0;
    return typeof a === 'number' ? -1 : 1;
  }

  function refresh() {
    var text = state.text.toLowerCase();
    view = [];
    for (var i = 0; i < rows.length; ++i) {
      if (state.op >= 0 && rows[i][0] !== state.op) continue;
      if (text && (String(i) + ' ' + ops[rows[i][0]] + ' ' + strings[rows[i][1]])
            .toLowerCase().indexOf(text) < 0) continue;
      view.push(i);
    }
    var c = state.sort, sign = state.descending ? -1 : 1;
    if (!(c === 0 && !state.descending)) {
      var keys = new Map();
      view.forEach(function (i) { keys.set(i, sortKey(i, c)); });
      view.sort(function (a, b) { return sign * compare(keys.get(a), keys.get(b)) || a - b; });
    }
    var pages = Math.max(1, Math.ceil(view.length / state.size));
    state.page = Math.min(state.page, pages - 1);
    render(pages);
  }

  function render(pages) {
    var start = state.page * state.size, end = Math.min(view.length, start + state.size);
    var fragment = document.createDocumentFragment();
    for (var k = start; k < end; ++k) {
      var i = view[k], tr = document.createElement('tr');
      if (i === data.peak_node) tr.className = 'peak';
      for (var c = 0; c < columns.length; ++c) {
        var td = document.createElement('td');
        var v = value(i, c);
        td.textContent = v;
        if (typeof v === 'number' || /^-?\d+$/.test(v)) td.className = 'num';
        tr.appendChild(td);
      }
      fragment.appendChild(tr);
    }
    body.replaceChildren(fragment);
    document.getElementById('page-info').textContent =
        'page ' + (state.page + 1) + ' of ' + pages + ' (' + view.length + ' of ' + rows.length +
        ' nodes)';
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, c) {
      th.className = c === state.sort ? (state.descending ? 'sorted-desc' : 'sorted-asc') : '';
    });
  }

  function setUp() {
    var head = table.tHead.rows[0];
    columns.forEach(function (col, c) {
      var th = document.createElement('th');
      th.textContent = col.label;
      th.title = 'sort by ' + col.label;
      th.addEventListener('click', function () {
        state.descending = state.sort === c ? !state.descending : col.kind === 'number';
        state.sort = c;
        state.page = 0;
        refresh();
      });
      head.appendChild(th);
    });
    var counts = ops.map(function () { return 0; });
    rows.forEach(function (r) { counts[r[0]] += 1; });
    var select = document.getElementById('op-filter');
    ops.map(function (name, k) { return k; })
        .sort(function (a, b) { return compare(ops[a], ops[b]); })
        .forEach(function (k) {
          var option = document.createElement('option');
          option.value = String(k);
          option.textContent = ops[k] + ' (' + counts[k] + ')';
          select.appendChild(option);
        });
    select.addEventListener('change', function () {
      state.op = Number(select.value);
      state.page = 0;
      refresh();
    });
    document.getElementById('text-filter').addEventListener('input', function (e) {
      state.text = e.target.value;
      state.page = 0;
      refresh();
    });
    document.getElementById('page-size').addEventListener('change', function (e) {
      state.size = Number(e.target.value);
      state.page = 0;
      refresh();
    });
    document.getElementById('page-prev').addEventListener('click', function () {
      if (state.page > 0) { state.page -= 1; refresh(); }
    });
    document.getElementById('page-next').addEventListener('click', function () {
      state.page += 1;
      refresh();
    });
    refresh();
    document.body.setAttribute('data-table-ready', 'true');
  }

  setUp();
})();
)js";

}  // namespace cctx::report_detail
