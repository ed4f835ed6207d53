/* The create form: show the chosen variant's options only, offer only its player counts, at
   most players - 1 bot seats, and asking a partner only where there are partners. Without this script every variant's options are shown and
   the server checks the rest. */
(function () {
  "use strict";
  var form = document.getElementById("create-form");
  if (!form) return;
  var variant = form.querySelector("select[name=variant]");
  var players = form.querySelector("select[name=players]");
  var bots = form.querySelector("select[name=bots]");

  function update() {
    var groups = form.querySelectorAll(".variant-options");
    var counts = [];
    Array.prototype.forEach.call(groups, function (group) {
      var chosen = group.dataset.variant === variant.value;
      group.hidden = !chosen;
      Array.prototype.forEach.call(group.querySelectorAll("input, select"), function (el) {
        el.disabled = !chosen;
      });
      if (chosen) counts = group.dataset.players.split(",").map(Number);
    });
    Array.prototype.forEach.call(players.options, function (option) {
      option.hidden = option.disabled = counts.indexOf(Number(option.value)) < 0;
    });
    if (players.selectedOptions[0] && players.selectedOptions[0].disabled) {
      var best = counts.indexOf(4) >= 0 ? 4 : counts[0];
      players.value = String(best);
    }
    var most = Number(players.value) - 1;
    Array.prototype.forEach.call(bots.options, function (option) {
      option.hidden = option.disabled = Number(option.value) > most;
    });
    if (Number(bots.value) > most) bots.value = String(most);
    // Asking a partner "may I go out?" needs partners: only at a table of four or more.
    var partnered = Number(players.value) >= 4;
    Array.prototype.forEach.call(form.querySelectorAll("input[name$=_ask_partner]"), function (el) {
      var field = el.closest(".field");
      if (field) field.hidden = !partnered;
      if (!partnered) el.disabled = true;
    });
  }

  variant.addEventListener("change", update);
  players.addEventListener("change", update);
  update();
})();
