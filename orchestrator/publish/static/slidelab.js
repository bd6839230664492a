/* slidelab's pages: Plotly figures, sortable and filterable tables, and the solution player. */
(function () {
  "use strict";
  var CONFIG = { responsive: true, displaylogo: false };

  /* Draw (or redraw in place) a figure {data, layout} into a div. */
  function draw(element, figure) {
    return Plotly.react(element, figure.data, figure.layout, CONFIG);
  }

  function sortValue(cell) {
    var raw = cell.getAttribute("data-sort");
    if (raw !== null && raw !== "" && !isNaN(Number(raw))) { return Number(raw); }
    return cell.textContent.trim().toLowerCase();
  }

  /* Click a heading to sort by it (again: the other way); missing values last. */
  function sortable(table) {
    var headings = table.querySelectorAll("thead th");
    headings.forEach(function (heading, column) {
      heading.addEventListener("click", function () {
        var ascending = heading.getAttribute("aria-sort") !== "ascending";
        headings.forEach(function (other) { other.removeAttribute("aria-sort"); });
        heading.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = sortValue(a.cells[column]), y = sortValue(b.cells[column]);
          var xMissing = x === "–" || x === "", yMissing = y === "–" || y === "";
          if (xMissing || yMissing) { return xMissing - yMissing; }
          if (typeof x !== typeof y) { x = String(x); y = String(y); }
          return (x < y ? -1 : x > y ? 1 : 0) * (ascending ? 1 : -1);
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  }

  /* The filter box keeps the rows holding every word typed; the checkbox shows every column. */
  function tools(container) {
    var table = container.querySelector("table");
    var filter = container.querySelector("input[type=search]");
    var all = container.querySelector("input[type=checkbox]");
    var count = container.querySelector(".shown");
    function apply() {
      var words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
      var shown = 0;
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        var text = row.textContent.toLowerCase();
        var keep = words.every(function (word) { return text.indexOf(word) >= 0; });
        row.style.display = keep ? "" : "none";
        shown += keep;
      });
      if (count) { count.textContent = shown + " of " + table.tBodies[0].rows.length + " rows"; }
    }
    if (filter) { filter.addEventListener("input", apply); apply(); }
    if (all) { all.addEventListener("change", function () { table.classList.toggle("show-all", all.checked); }); }
    sortable(table);
  }

  /* A board card's player: step through (or play) the frames of its stored solution. */
  function player(card) {
    var frames = JSON.parse(card.getAttribute("data-frames"));
    var moves = JSON.parse(card.getAttribute("data-moves"));
    var pieces = card.querySelectorAll("svg .piece");
    var slider = card.querySelector("input[type=range]");
    var caption = card.querySelector(".caption");
    var play = card.querySelector("button.play");
    var current = 0, timer = null;
    function show(index) {
      current = Math.max(0, Math.min(frames.length - 1, index));
      frames[current].forEach(function (place, i) {
        pieces[i].style.transform = "translate(" + place[0] + "px," + place[1] + "px)";
        pieces[i].removeAttribute("transform");
      });
      slider.value = current;
      caption.textContent = current ? "move " + current + "/" + moves.length + ": " + moves[current - 1]
                                    : "start: " + moves.length + " moves";
      card.setAttribute("data-frame", current);
    }
    function stop() { clearInterval(timer); timer = null; play.textContent = "play"; }
    card.querySelector("button.first").addEventListener("click", function () { stop(); show(0); });
    card.querySelector("button.back").addEventListener("click", function () { stop(); show(current - 1); });
    card.querySelector("button.next").addEventListener("click", function () { stop(); show(current + 1); });
    card.querySelector("button.last").addEventListener("click", function () { stop(); show(frames.length - 1); });
    slider.addEventListener("input", function () { stop(); show(Number(slider.value)); });
    play.addEventListener("click", function () {
      if (timer) { stop(); return; }
      if (current === frames.length - 1) { show(0); }
      play.textContent = "pause";
      timer = setInterval(function () { if (current >= frames.length - 1) { stop(); } else { show(current + 1); } }, 500);
    });
    show(0);
  }

  function start(root) {
    var figures = root.querySelector("script.figures");
    if (figures) {
      var charts = JSON.parse(figures.textContent);
      root.querySelectorAll(".plot[data-index]").forEach(function (element) {
        draw(element, charts[Number(element.getAttribute("data-index"))].figure);
      });
    }
    root.querySelectorAll(".table-box").forEach(tools);
    root.querySelectorAll(".board-card[data-frames]").forEach(player);
  }

  window.slidelab = { draw: draw, tools: tools, player: player, start: start };
  document.addEventListener("DOMContentLoaded", function () {
    if (!document.body.hasAttribute("data-manual")) { start(document); }
  });
})();
