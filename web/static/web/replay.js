// The replay viewer: the arrow keys follow the Previous and Next links (each step is a page of
// its own, so the viewer works the same without this script, on any phone).
(function () {
  "use strict";
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    var target = event.target;
    if (target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) return;
    var id = event.key === "ArrowLeft" ? "replay-prev" : event.key === "ArrowRight" ? "replay-next" : "";
    var link = id && document.getElementById(id);
    if (link) {
      event.preventDefault();
      window.location.assign(link.href);
    }
  });
})();
