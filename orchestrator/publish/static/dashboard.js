/* The dashboard's pages: fetch their JSON every few seconds and redraw what changed. */
(function () {
  "use strict";
  var settings = window.DASHBOARD;

  function text(value) { return value === null || value === undefined || value === "" ? "–" : String(value); }
  function pad(number) { return String(number).padStart(2, "0"); }
  /* A time of day, with its date (2026-12-04 17:05:09) where it is not today. */
  function time(iso) {
    if (!iso) { return "–"; }
    var when = new Date(iso), clock = pad(when.getHours()) + ":" + pad(when.getMinutes()) + ":" + pad(when.getSeconds());
    if (when.toDateString() === new Date().toDateString()) { return clock; }
    return when.getFullYear() + "-" + pad(when.getMonth() + 1) + "-" + pad(when.getDate()) + " " + clock;
  }

  /* A table of `rows` with `columns` ([heading, cell(row) -> text or Node]) into the element with id `id`. */
  function table(id, columns, rows, empty) {
    var box = document.getElementById(id);
    if (!rows.length) { box.innerHTML = '<p class="muted">' + empty + "</p>"; return; }
    var element = document.createElement("table");
    element.className = "listing";
    var head = element.createTHead().insertRow();
    columns.forEach(function (column) {
      var th = document.createElement("th");
      th.textContent = column[0];
      if (column[2]) { th.className = column[2]; }
      head.appendChild(th);
    });
    var body = element.createTBody();
    rows.forEach(function (row) {
      var tr = body.insertRow();
      tr.setAttribute("data-key", row.id !== undefined ? row.id : row.name || row.host);
      columns.forEach(function (column) {
        var value = column[1](row), td = tr.insertCell();
        if (value instanceof Node) { td.appendChild(value); } else { td.textContent = text(value); }
        if (column[2]) { td.className = column[2]; }
      });
    });
    box.replaceChildren(element);
  }

  function sweepLink(name) {
    var link = document.createElement("a");
    link.href = "/sweep/" + encodeURIComponent(name);
    link.textContent = name;
    return link;
  }

  function progress(row) {
    var span = document.createElement("span"), bar = document.createElement("progress");
    bar.max = row.total; bar.value = row.finished;
    span.appendChild(bar);
    span.appendChild(document.createTextNode(" " + row.finished + " / " + row.total));
    return span;
  }

  var RESULT_COLUMNS = [
    ["job", function (r) { return r.id; }], ["sweep", function (r) { return sweepLink(r.sweep); }, "text"],
    ["board", function (r) { return r.board; }, "text"], ["algorithm", function (r) { return r.algorithm; }, "text"],
    ["outcome", function (r) { return r.outcome; }, "text"], ["moves", function (r) { return r.moves; }],
    ["time", function (r) { return r.time; }], ["host", function (r) { return r.host; }, "text"],
    ["finished", function (r) { return time(r.finished_at); }], ["reason", function (r) { return r.reason; }, "text"],
  ];

  /* A small line chart of a worker's results per minute over the last half hour, oldest first. */
  function sparkline(counts) {
    var svg = "http://www.w3.org/2000/svg", chart = document.createElementNS(svg, "svg"), width = 120, height = 24;
    var top = Math.max.apply(null, counts.concat([1])), total = counts.reduce(function (a, b) { return a + b; }, 0);
    chart.setAttribute("viewBox", "0 0 " + width + " " + height);
    chart.setAttribute("width", width); chart.setAttribute("height", height);
    chart.setAttribute("class", "throughput");
    var title = document.createElementNS(svg, "title");
    title.textContent = total + " results in the last 30 min, at most " + top + " a minute";
    var line = document.createElementNS(svg, "polyline");
    line.setAttribute("points", counts.map(function (count, i) {
      return (i * width / Math.max(counts.length - 1, 1)).toFixed(1) + "," + (height - 1 - count * (height - 2) / top).toFixed(1);
    }).join(" "));
    line.setAttribute("fill", "none"); line.setAttribute("stroke", "currentColor");
    chart.appendChild(title); chart.appendChild(line);
    return chart;
  }

  function heldText(host) {
    return host.held.map(function (job) {
      return job.id + " (" + job.sweep + ", " + job.board + ", " + job.algorithm + ", since " + time(job.since) + ")";
    }).join("; ");
  }

  function drawOverview(data) {
    document.getElementById("refreshed").textContent = "refreshed " + time(data.refreshed);
    table("sweeps", [
      ["sweep", function (r) { return sweepLink(r.name); }, "text"], ["created", function (r) { return time(r.created); }],
      ["progress", progress], ["phase", function (r) { return r.phase; }, "text"],
      ["pace and ETA", function (r) { return r.pace; }, "text"],
      ["outcomes", function (r) { return r.outcomes; }, "text"], ["limits", function (r) { return r.limits; }, "text"],
    ], data.sweeps, "no sweeps yet");
    table("hosts", [
      ["worker", function (r) { return r.host; }, "text"], ["state", function (r) { return r.online ? "online" : "offline"; }, "text"],
      ["last heartbeat", function (r) { return time(r.beat_at); }], ["jobs held", function (r) { return r.held.length; }],
      ["held now", heldText, "text"], ["results stored", function (r) { return r.results; }],
      ["results a minute, 30 min", function (r) { return sparkline(r.throughput); }],
      ["last result", function (r) { return time(r.last); }],
    ], data.hosts, "no worker has beaten, held a job or stored a result");
    table("recent", RESULT_COLUMNS, data.recent, "no results yet");
    table("problems", RESULT_COLUMNS, data.problems, "no errors and no limits hit");
  }

  function ensurePlots(count) {
    var box = document.getElementById("plots");
    while (box.children.length > count) { Plotly.purge(box.lastChild); box.removeChild(box.lastChild); }
    while (box.children.length < count) {
      var div = document.createElement("div");
      div.className = "plot";
      box.appendChild(div);
    }
    return box.children;
  }

  var lastBoards = null;
  function drawSweep(data) {
    document.getElementById("refreshed").textContent = "refreshed " + time(data.refreshed);
    document.getElementById("pace").textContent = data.pace || "complete";
    document.getElementById("header").innerHTML = data.header;
    var notes = document.getElementById("notes");
    notes.replaceChildren.apply(notes, data.notes.map(function (note) {
      var li = document.createElement("li"); li.textContent = note; return li;
    }));
    var divs = ensurePlots(data.figures.length);
    data.figures.forEach(function (chart, i) { divs[i].title = chart.title; slidelab.draw(divs[i], chart.figure); });
    if (data.boards !== lastBoards) {
      var boards = document.getElementById("boards");
      boards.innerHTML = data.boards;
      boards.querySelectorAll(".board-card[data-frames]").forEach(slidelab.player);
      lastBoards = data.boards;
    }
    var box = document.getElementById("table"), old = box.querySelector("input[type=search]");
    var filter = old ? old.value : "";
    box.innerHTML = data.table;
    var search = box.querySelector("input[type=search]");
    if (search) { search.value = filter; }
    box.querySelectorAll(".table-box").forEach(slidelab.tools);
  }

  var version = null;
  function refresh() {
    var url = settings.kind === "overview" ? "/api/overview"
      : "/api/sweep/" + encodeURIComponent(settings.sweep) + (version ? "?since=" + encodeURIComponent(version) : "");
    fetch(url, { cache: "no-store" }).then(function (response) { return response.json(); }).then(function (data) {
      if (settings.kind === "overview") { drawOverview(data); return; }
      var error = document.getElementById("error");
      error.textContent = data.error || "";
      if (data.error || data.same) { return; }
      if (data.pending) { document.getElementById("pace").textContent = data.pending + " ..."; return; }
      version = data.version;
      drawSweep(data);
      document.body.setAttribute("data-version", version);
    }).catch(function (error) {
      document.getElementById("refreshed").textContent = "cannot reach the dashboard: " + error;
    }).finally(function () { setTimeout(refresh, settings.refresh_ms); });
  }

  document.addEventListener("DOMContentLoaded", refresh);
})();
