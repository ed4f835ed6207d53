/* The replay viewer, in place: Previous and Next (buttons, ← and →, a swipe on the table) and
   the jumps fetch the next step's page and swap its #replay in: no page load, the scroll and
   the focus stay. The address follows (history.pushState; Back steps back). Each step is
   still a page of its own, so without this script the viewer works the same, one page a step.
   The steps either side are fetched ahead, so a tap shows its step at once. */
(function () {
  "use strict";

  var path = window.location.pathname;
  var pages = {};
  var live = document.createElement("p");
  live.className = "vh";
  live.setAttribute("aria-live", "polite");
  document.body.appendChild(live);

  function viewer() { return document.getElementById("replay"); }
  function ours(href) {
    var url = new URL(href, window.location.href);
    return url.origin === window.location.origin && url.pathname === path ? url.href : null;
  }

  function load(url) {
    if (!pages[url]) {
      pages[url] = fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } })
        .then(function (response) {
          if (!response.ok) throw new Error(String(response.status));
          return response.text();
        });
      pages[url].catch(function () { delete pages[url]; });
    }
    return pages[url];
  }

  function ahead() {
    ["replay-next", "replay-prev"].forEach(function (id) {
      var link = document.getElementById(id);
      if (link) load(link.href).catch(function () { /* fetched again when asked */ });
    });
  }

  function show(url, push) {
    return load(url).then(function (html) {
      var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("replay");
      var old = viewer();
      if (!fresh || !old) { window.location.assign(url); return; }
      var focused = document.activeElement && document.activeElement.id;
      old.replaceWith(fresh);
      document.title = document.title.replace(old.dataset.title, fresh.dataset.title);
      if (push) window.history.pushState({ replay: true }, "", url);
      var back = focused && document.getElementById(focused);
      if (focused && !back) back = document.getElementById("replay-next") || document.getElementById("replay-prev");
      if (back) back.focus({ preventScroll: true });
      var move = fresh.querySelector(".replay-move");
      live.textContent = move ? move.textContent.replace(/\s+/g, " ").trim() : "";
      ahead();
    }).catch(function () { window.location.assign(url); });
  }

  // Steps run one after the other: three quick taps on Next are three steps, each taken from
  // the step the one before showed.
  var queue = Promise.resolve();
  function step(id) {
    queue = queue.then(function () {
      var link = document.getElementById(id);
      return link ? show(link.href, true) : null;
    });
  }
  function jump(url) {
    queue = queue.then(function () { return show(url, true); });
  }

  document.addEventListener("click", function (event) {
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    var link = event.target.closest && event.target.closest("#replay a[href]");
    var url = link && !link.hasAttribute("download") && ours(link.href);
    if (!url) return;
    event.preventDefault();
    if (link.id === "replay-next" || link.id === "replay-prev") step(link.id);
    else jump(url);
  });

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    var target = event.target;
    if (target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) return;
    var id = event.key === "ArrowLeft" ? "replay-prev" : event.key === "ArrowRight" ? "replay-next" : "";
    if (id && document.getElementById(id)) {
      event.preventDefault();
      step(id);
    }
  });

  // A swipe on the table: right to left is the next step, left to right the one before.
  var start = null;
  document.addEventListener("touchstart", function (event) {
    var touch = event.changedTouches[0];
    start = event.target.closest && event.target.closest("#replay") && touch
      ? { x: touch.clientX, y: touch.clientY } : null;
  }, { passive: true });
  document.addEventListener("touchend", function (event) {
    var touch = event.changedTouches[0];
    if (!start || !touch) return;
    var dx = touch.clientX - start.x;
    var dy = touch.clientY - start.y;
    start = null;
    if (Math.abs(dx) < 60 || Math.abs(dy) > Math.abs(dx) / 2) return;
    step(dx < 0 ? "replay-next" : "replay-prev");
  }, { passive: true });

  window.addEventListener("popstate", function () {
    var url = window.location.href;
    queue = queue.then(function () { return show(url, false); });
  });
  ahead();
})();
