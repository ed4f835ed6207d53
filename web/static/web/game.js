/* The game page, enhanced: moves go to the REST API (POST /api/v1/games/<id>/actions/ with the
   session, the CSRF token and expected_version) and the table refreshes itself when the game's
   ETag changes (GET /api/v1/games/<id>/ with If-None-Match; slower while the tab is hidden).
   Without this script the same form posts to /games/<id>/move/ and everything still works.
   buildActions() mirrors web/moves.py: keep the two in step. */
(function () {
  "use strict";

  var root = document.getElementById("game");
  if (!root) return;
  var tableUrl = root.dataset.tableUrl;
  var apiUrl = root.dataset.apiUrl;
  var actionsUrl = apiUrl + "actions/";
  var VISIBLE_MS = parseInt(root.dataset.pollMs, 10) || 4000;
  var HIDDEN_MS = 30000;
  var MAX_MS = 120000;
  var STALE =
    "The table changed since you loaded it (another player moved): here it is now. " +
    "Check it and play again.";
  var baseTitle = document.title.replace(/ — your turn$/, "");

  var busy = false;
  var failures = 0;
  var timer = null;
  var live = document.createElement("p");
  live.className = "vh";
  live.setAttribute("aria-live", "polite");
  live.id = "live";
  root.appendChild(live);

  function table() { return document.getElementById("table"); }
  function moveForm() { return document.getElementById("move-form"); }
  function etag() { var t = table(); return t ? t.dataset.etag : ""; }

  function csrfToken() {
    var input = document.querySelector("input[name=csrfmiddlewaretoken]");
    if (input) return input.value;
    var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }

  function SelectionError(message) { this.message = message; }

  function showError(message, code) {
    var box = document.getElementById("move-error");
    if (!box) return;
    box.textContent = "";
    if (!message) return;
    var p = document.createElement("p");
    var strong = document.createElement("strong");
    strong.textContent = message;
    p.appendChild(strong);
    if (code) {
      p.appendChild(document.createTextNode(" "));
      var c = document.createElement("code");
      c.textContent = code;
      p.appendChild(c);
    }
    box.appendChild(p);
  }

  // --- the selection and the plan ------------------------------------------------------

  function checkedBoxes(form) {
    return Array.prototype.slice.call(form.querySelectorAll("input[name=card]:checked"));
  }
  function checkedCards(form) { return checkedBoxes(form).map(function (b) { return b.value; }); }
  function planMelds(form) {
    return Array.prototype.slice.call(form.querySelectorAll("input[name=meld]")).map(function (i) {
      return i.value.split(/[\s,]+/).filter(Boolean);
    }).filter(function (m) { return m.length; });
  }
  function meldKeys(form) {
    var select = form.querySelector("select[name=add_to]");
    if (!select) return [];
    return Array.prototype.slice.call(select.options).map(function (o) { return o.value; })
      .filter(Boolean);
  }
  function isWild(code) { return code === "JK" || code.charAt(0) === "2"; }

  function addTarget(cards, addTo, keys) {
    if (addTo) return addTo;
    var ranks = {};
    cards.forEach(function (c) { if (!isWild(c)) ranks[c.charAt(0)] = true; });
    var list = Object.keys(ranks);
    if (list.length === 1) return list[0];
    var allTwos = cards.every(function (c) { return c.charAt(0) === "2"; });
    if (!list.length && allTwos && keys.indexOf("2") >= 0) return "2";
    if (!list.length && keys.length === 1) return keys[0];
    if (list.length) {
      throw new SelectionError(
        "Cards of different ranks join different melds: add one rank at a time.");
    }
    throw new SelectionError("Choose the meld to add the wild cards to.");
  }

  function buildActions(op, form) {
    var cards = checkedCards(form);
    var plan = planMelds(form);
    var addTo = (form.querySelector("select[name=add_to]") || {}).value || "";
    if (op === "draw") return [{ type: "draw" }];
    if (op === "ask") return [{ type: "ask_partner" }];
    if (op === "yes" || op === "no") return [{ type: "answer", yes: op === "yes" }];
    if (op === "pickup") {
      var pickup = { type: "pickup" };
      if (cards.length) pickup.cards = cards;
      if (plan.length) pickup.melds = plan;
      return [pickup];
    }
    if (op === "meld") {
      var melds = plan.slice();
      if (cards.length) melds.push(cards);
      if (!melds.length) throw new SelectionError("Select the cards to meld first.");
      return [{ type: "meld", melds: melds }];
    }
    if (op === "add") {
      if (!cards.length) throw new SelectionError("Select the cards to add to a meld first.");
      var add = {};
      add[addTarget(cards, addTo.toUpperCase(), meldKeys(form))] = cards;
      var action = { type: "meld", add: add };
      if (plan.length) action.melds = plan;
      return [action];
    }
    if (op === "discard") {
      if (cards.length !== 1) throw new SelectionError("Select exactly one card to discard.");
      var played = [];
      if (plan.length) played.push({ type: "meld", melds: plan });
      played.push({ type: "discard", card: cards[0] });
      return played;
    }
    throw new SelectionError("Unknown button.");
  }

  function setAside(form, boxes) {
    boxes = boxes || checkedBoxes(form);
    if (!boxes.length) throw new SelectionError("Select the cards of the meld to set aside first.");
    var plan = document.getElementById("plan");
    var list = document.getElementById("plan-list");
    var item = document.createElement("li");
    item.dataset.client = "1";
    var hidden = document.createElement("input");
    hidden.type = "hidden";
    hidden.name = "meld";
    hidden.value = boxes.map(function (b) { return b.value; }).join(" ");
    item.dataset.ids = boxes.map(function (b) { return b.id; }).join(" ");
    item.appendChild(hidden);
    var shown = document.createElement("span");
    shown.className = "cards";
    boxes.forEach(function (box) {
      var label = box.closest("label");
      var face = document.createElement("span");
      face.className = label.className.replace("pick", "").trim() + " small";
      Array.prototype.forEach.call(label.childNodes, function (node) {
        if (node !== box) face.appendChild(node.cloneNode(true));
      });
      shown.appendChild(face);
      box.checked = false;
      box.disabled = true;
      label.hidden = true;
    });
    item.appendChild(shown);
    list.appendChild(item);
    plan.hidden = false;
    live.textContent = "Set aside: " + hidden.value + ". Select more, or press Meld.";
  }

  function clearPlan(form) {
    var list = document.getElementById("plan-list");
    var fromServer = list.querySelector("li:not([data-client])");
    list.textContent = "";
    document.getElementById("plan").hidden = true;
    Array.prototype.forEach.call(form.querySelectorAll("label.pick[hidden]"), function (label) {
      label.hidden = false;
      label.querySelector("input").disabled = false;
    });
    if (fromServer) refresh(false);
  }

  // --- refreshing the table ------------------------------------------------------------

  function saveState() {
    var form = moveForm();
    if (!form) return null;
    var active = document.activeElement;
    return {
      checked: checkedBoxes(form).map(function (b) { return b.id; }),
      plan: Array.prototype.map.call(
        form.querySelectorAll("#plan-list li[data-client]"),
        function (li) { return li.dataset.ids.split(" "); }),
      focus: active && active.id && form.contains(active) ? active.id : null,
      addTo: (form.querySelector("select[name=add_to]") || {}).value || ""
    };
  }

  function restoreState(state) {
    var form = moveForm();
    if (!state || !form) return;
    state.plan.forEach(function (ids) {
      var boxes = ids.map(function (id) { return document.getElementById(id); });
      if (boxes.every(function (b) { return b && !b.disabled; })) setAside(form, boxes);
    });
    state.checked.forEach(function (id) {
      var box = document.getElementById(id);
      if (box && !box.disabled) box.checked = true;
    });
    var select = form.querySelector("select[name=add_to]");
    if (select && state.addTo) select.value = state.addTo;
    if (state.focus) {
      var el = document.getElementById(state.focus);
      if (el) el.focus({ preventScroll: true });
    }
  }

  function announce() {
    var t = table();
    if (!t) return;
    var mine = t.dataset.myTurn === "1";
    document.title = mine ? baseTitle + " — your turn" : baseTitle;
    var text = document.getElementById("turn-text");
    if (text) live.textContent = text.textContent.trim();
  }

  // keep: give the selection and plan back (a refresh caused by others); after my own move
  // the cards have moved on and the selection starts afresh.
  function refresh(keep) {
    return fetch(tableUrl, {
      credentials: "same-origin",
      cache: "no-store",
      headers: { Accept: "text/html" }
    }).then(function (response) {
      if (!response.ok) return false;
      return response.text().then(function (html) {
        var holder = document.createElement("template");
        holder.innerHTML = html.trim();
        var fresh = holder.content.querySelector("#table");
        var old = table();
        if (!fresh || !old) return false;
        // Two refreshes may cross (a poll and a move): never go back to an older version.
        if (parseInt(fresh.dataset.version, 10) < parseInt(old.dataset.version, 10)) return false;
        var state = keep ? saveState() : null;
        var scrollY = window.scrollY;
        old.replaceWith(fresh);
        restoreState(state);
        window.scrollTo(0, scrollY);
        announce();
        return true;
      });
    });
  }

  // --- playing ---------------------------------------------------------------------------

  function idempotencyKey() {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID();
    return String(Date.now()) + "-" + Math.random().toString(16).slice(2);
  }

  function setBusy(form, on) {
    busy = on;
    form.classList.toggle("busy", on);
    form.setAttribute("aria-busy", on ? "true" : "false");
    Array.prototype.forEach.call(form.querySelectorAll("button"), function (b) { b.disabled = on; });
  }

  function play(form, actions) {
    if (busy) return Promise.resolve();
    var version = parseInt(form.querySelector("input[name=version]").value, 10);
    setBusy(form, true);
    return fetch(actionsUrl, {
      method: "POST",
      credentials: "same-origin",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json",
        "X-CSRFToken": csrfToken(),
        "Idempotency-Key": idempotencyKey()
      },
      body: JSON.stringify({ actions: actions, expected_version: version })
    }).then(function (response) {
      if (response.ok) {
        failures = 0;
        return refresh(false);
      }
      return response.json().catch(function () { return null; }).then(function (body) {
        var error = body && body.error ? body.error
          : { code: "http_" + response.status, message: "The server answered " + response.status + "." };
        if (error.code === "stale_version") {
          return refresh(true).then(function () { showError(STALE, error.code); });
        }
        if (error.details && error.details.applied > 0) {
          // A draw from the stock stands (docs/fair-play.md): show the table it left.
          return refresh(false).then(function () { showError(error.message, error.code); });
        }
        showError(error.message, error.code);
      });
    }).catch(function () {
      showError("Could not reach the server: check your connection and try again.", "network");
    }).then(function () {
      var current = moveForm();
      if (current) setBusy(current, false);
      busy = false;
    });
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form || form.id !== "move-form") return;
    event.preventDefault();
    var op = event.submitter ? event.submitter.value : "";
    showError("");
    try {
      if (op === "set_aside") { setAside(form); return; }
      if (op === "clear") { clearPlan(form); return; }
      play(form, buildActions(op, form));
    } catch (error) {
      if (error instanceof SelectionError) showError(error.message, "invalid_selection");
      else throw error;
    }
  });

  // --- polling ---------------------------------------------------------------------------

  function schedule(ms) {
    if (timer) clearTimeout(timer);
    timer = setTimeout(poll, ms);
  }

  function poll() {
    var delay = document.hidden ? HIDDEN_MS : VISIBLE_MS;
    var tag = etag();
    var headers = { Accept: "application/json" };
    if (tag) headers["If-None-Match"] = tag;
    fetch(apiUrl, { credentials: "same-origin", cache: "no-store", headers: headers })
      .then(function (response) {
        if (response.status === 304) { failures = 0; return null; }
        if (!response.ok) { failures += 1; return null; }
        failures = 0;
        var fresh = response.headers.get("ETag");
        if (fresh && fresh !== etag() && !busy) return refresh(true);
        return null;
      })
      .catch(function () { failures += 1; })
      .then(function () {
        var wait = failures ? Math.min(MAX_MS, delay * Math.pow(2, failures)) : delay;
        var t = table();
        if (t && t.dataset.status && t.dataset.status !== "active") return;  // over: nothing moves
        schedule(wait);
      });
  }

  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) schedule(200);
  });
  if (table() && table().dataset.myTurn === "1") document.title = baseTitle + " — your turn";
  schedule(VISIBLE_MS);
})();
