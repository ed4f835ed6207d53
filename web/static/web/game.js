/* The game page, enhanced: moves go to the REST API (POST /api/v1/games/<id>/actions/ with the
   session, the CSRF token and expected_version) and the table refreshes itself when it changes
   (GET /games/<id>/table/ with If-None-Match: a 304 while nothing moved; slower while the tab
   is hidden). Without this script the same form posts to /games/<id>/move/, the stock and the
   pile are buttons of that form, and everything still works; with it, what the browser cannot
   build itself goes to that same URL in place (Accept: application/json, no reload).
   buildActions() mirrors web/moves.py: keep the two in step.
   Words shown here come translated from the page (data-* attributes of #game). */
(function () {
  "use strict";

  var root = document.getElementById("game");
  if (!root) return;
  var tableUrl = root.dataset.tableUrl;
  var actionsUrl = "/api/v1/games/" + root.dataset.game + "/actions/";
  var VISIBLE_MS = parseInt(root.dataset.pollMs, 10) || 4000;
  var HIDDEN_MS = 30000;
  var MAX_MS = 120000;
  // The hand's height in the dock (site.css: .hand { max-height: 8rem }).
  var DOCK_HAND_REM = 8;
  var words = root.dataset;
  var prefix = words.turnPrefix || "";
  // The title without the turn mark, however the page was loaded (the mark is a prefix).
  var baseTitle = document.title.indexOf(prefix) === 0 && prefix
    ? document.title.slice(prefix.length) : document.title;
  var icon = document.querySelector("link[rel=icon]");
  var baseIcon = icon ? icon.href : "";

  var busy = false;
  var failures = 0;
  var timer = null;
  var wasMine = null;
  var live = document.createElement("p");
  live.className = "vh";
  live.setAttribute("aria-live", "polite");
  live.id = "live";
  root.appendChild(live);

  function table() { return document.getElementById("table"); }
  function moveForm() { return document.getElementById("move-form"); }
  function etag() { var t = table(); return t ? t.dataset.etag : ""; }
  function mine() { var t = table(); return !!t && t.dataset.myTurn === "1"; }

  function csrfToken() {
    var input = document.querySelector("input[name=csrfmiddlewaretoken]");
    if (input) return input.value;
    var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }

  function fill(template, values) {
    return template.replace(/%\((\w+)\)s/g, function (_, name) { return values[name]; });
  }

  function SelectionError(message) { this.message = message; }

  // A refusal is shown above the buttons, announced (role=alert) and focused, so a keyboard
  // or screen-reader user lands on it; the code stays out of the sentence.
  function showError(message, code) {
    var box = document.getElementById("move-error");
    if (!box) return;
    box.textContent = "";
    box.dataset.code = code || "";
    if (!message) return;
    var p = document.createElement("p");
    var strong = document.createElement("strong");
    strong.textContent = message;
    p.appendChild(strong);
    box.appendChild(p);
    box.focus({ preventScroll: true });  // it is in the dock, in view
  }

  // --- the selection, the plan and the live points ----------------------------------------

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

  function points() {
    var form = moveForm();
    var out = document.getElementById("points");
    if (!form || !out) return;
    var sum = 0;
    checkedBoxes(form).forEach(function (b) { sum += parseInt(b.dataset.points, 10) || 0; });
    form.querySelectorAll("#plan-list li").forEach(function (li) {
      sum += parseInt(li.dataset.points, 10) || 0;
    });
    var minimum = parseInt(form.dataset.minimum, 10) || 0;
    if (!sum) { out.textContent = ""; return; }
    out.textContent = minimum
      ? fill(words.pointsMinimum, { points: sum, minimum: minimum })
      : fill(words.pointsLabel, { points: sum });
    out.classList.toggle("short", !!minimum && sum < minimum);
  }

  function addTarget(cards, addTo, keys) {
    if (addTo) return addTo;
    var ranks = {};
    cards.forEach(function (c) { if (!isWild(c)) ranks[c.charAt(0)] = true; });
    var list = Object.keys(ranks);
    if (list.length === 1) return list[0];
    var allTwos = cards.every(function (c) { return c.charAt(0) === "2"; });
    if (!list.length && allTwos && keys.indexOf("2") >= 0) return "2";
    if (!list.length && keys.length === 1) return keys[0];
    return null;  // the server explains (web/moves.py add_target), in the player's language
  }

  function goOutSteps(form) {
    var button = form.querySelector("button[value=go_out]");
    return button && button.dataset.steps ? JSON.parse(button.dataset.steps) : null;
  }

  // null: the server decides, in place (postForm; its messages are translated there).
  function buildActions(op, form) {
    var cards = checkedCards(form);
    var plan = planMelds(form);
    var addTo = (form.querySelector("select[name=add_to]") || {}).value || "";
    if (op === "draw") return [{ type: "draw" }];
    if (op === "go_out") return goOutSteps(form);
    if (op === "ask") return [{ type: "ask_partner" }];
    if (op === "yes" || op === "no") return [{ type: "answer", yes: op === "yes" }];
    if (op === "pickup") {
      if (!cards.length && !plan.length) return null;  // the engine's first way (server)
      var pickup = { type: "pickup" };
      if (cards.length) pickup.cards = cards;
      if (plan.length) pickup.melds = plan;
      return [pickup];
    }
    if (op === "meld") {
      var melds = plan.slice();
      if (cards.length) melds.push(cards);
      if (!melds.length) return null;
      return [{ type: "meld", melds: melds }];
    }
    if (op === "add") {
      if (!cards.length) return null;
      var target = addTarget(cards, addTo.toUpperCase(), meldKeys(form));
      if (!target) return null;
      var add = {};
      add[target] = cards;
      var action = { type: "meld", add: add };
      if (plan.length) action.melds = plan;
      return [action];
    }
    if (op === "discard") {
      if (cards.length !== 1) return null;
      var played = [];
      if (plan.length) played.push({ type: "meld", melds: plan });
      played.push({ type: "discard", card: cards[0] });
      return played;
    }
    return null;
  }

  function setAside(form, boxes) {
    boxes = boxes || checkedBoxes(form);
    if (!boxes.length) return false;
    var plan = document.getElementById("plan");
    var list = document.getElementById("plan-list");
    var item = document.createElement("li");
    item.dataset.client = "1";
    var hidden = document.createElement("input");
    hidden.type = "hidden";
    hidden.name = "meld";
    hidden.value = boxes.map(function (b) { return b.value; }).join(" ");
    item.dataset.ids = boxes.map(function (b) { return b.id; }).join(" ");
    item.dataset.points = String(boxes.reduce(function (sum, b) {
      return sum + (parseInt(b.dataset.points, 10) || 0);
    }, 0));
    item.appendChild(hidden);
    var shown = document.createElement("span");
    shown.className = "cards";
    var names = [];
    boxes.forEach(function (box) {
      var label = box.closest("label");
      var face = document.createElement("span");
      face.className = label.className.replace("pick", "").replace("new", "").trim() + " small";
      Array.prototype.forEach.call(label.childNodes, function (node) {
        if (node !== box) face.appendChild(node.cloneNode(true));
      });
      names.push(label.title);
      shown.appendChild(face);
      box.checked = false;
      box.disabled = true;
      label.hidden = true;
    });
    item.appendChild(shown);
    list.appendChild(item);
    plan.hidden = false;
    live.textContent = names.join(", ");
    points();
    return true;
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
    points();
    if (fromServer) refresh(false);
  }

  // --- refreshing the table ------------------------------------------------------------

  function saveState() {
    var form = moveForm();
    var active = document.activeElement;
    var state = { focus: active && active.id ? active.id : null, checked: [], plan: [], addTo: "" };
    if (!form) return state;
    state.checked = checkedBoxes(form).map(function (b) { return b.id; });
    state.plan = Array.prototype.map.call(
      form.querySelectorAll("#plan-list li[data-client]"),
      function (li) { return li.dataset.ids.split(" "); });
    state.addTo = (form.querySelector("select[name=add_to]") || {}).value || "";
    return state;
  }

  function restoreState(state, keep) {
    var form = moveForm();
    if (form && keep) {
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
    }
    // Focus stays where it was when that element is still there; after one's own move, or
    // when it is gone, it goes to the first thing to do next (never lost on <body>).
    var el = state.focus ? document.getElementById(state.focus) : null;
    if (!el || el.disabled || (el.closest && el.closest("[hidden]"))) el = nextFocus();
    if (el && el !== document.activeElement) el.focus({ preventScroll: true });
    points();
  }

  function nextFocus() {
    var ack = document.getElementById("sheet-ack");
    if (ack) return ack;
    var form = moveForm();
    if (form && mine()) {
      return form.querySelector(".actions button.primary") || form.querySelector("input[name=card]");
    }
    // Not my turn (any more): the sentence saying whose turn it is.
    return document.getElementById("turn-text");
  }

  function badge(on) {
    if (!icon || !baseIcon) return;
    if (!on) { icon.href = baseIcon; return; }
    // The favicon with a yellow dot: seen in the tab strip even when the title is cut.
    var svg = "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 64 64'>" +
      "<rect width='64' height='64' rx='12' fill='%231f5c45'/>" +
      "<text x='32' y='44' font-size='36' text-anchor='middle' fill='white'>♠</text>" +
      "<circle cx='50' cy='14' r='13' fill='%23f2b705' stroke='white' stroke-width='3'/></svg>";
    icon.href = "data:image/svg+xml," + svg;
  }

  function notify() {
    if (!("Notification" in window) || Notification.permission !== "granted") return;
    if (!document.hidden) return;  // the page itself shows it
    try {
      var note = new Notification(words.notifyTitle, { body: words.notifyBody, tag: "turn-" + root.dataset.game });
      note.onclick = function () { window.focus(); note.close(); };
    } catch (e) { /* some browsers allow notifications only from a service worker */ }
  }

  function announce() {
    var now = mine();
    document.title = (now ? prefix : "") + baseTitle;
    badge(now);
    if (wasMine === false && now) notify();
    wasMine = now;
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
      return response.text().then(function (html) { return swap(html, keep); });
    });
  }

  function swap(html, keep) {
    var holder = document.createElement("template");
    holder.innerHTML = html.trim();
    var fresh = holder.content.querySelector("#table");
    var old = table();
    if (!fresh || !old) return false;
    // Two refreshes may cross (a poll and a move): never go back to an older version.
    var freshVersion = parseInt(fresh.dataset.version, 10);
    var oldVersion = parseInt(old.dataset.version, 10);
    if (freshVersion < oldVersion) return false;
    // A move's own refresh clears the selection made for that move; but when a poll showed
    // the move's table first, the player may already be choosing on it: keep that.
    if (freshVersion === oldVersion) keep = true;
    var state = saveState();
    var scrollY = window.scrollY;
    // The chat's form lives in the table: what is being typed survives the refresh.
    var typing = old.querySelector(".chat-form");
    var blank = fresh.querySelector(".chat-form");
    if (typing && blank) blank.replaceWith(typing);
    old.replaceWith(fresh);
    restoreState(state, keep);
    fitHand();
    window.scrollTo(0, scrollY);
    setupNotifications();
    announce();
    chatUnread();
    return true;
  }

  // A hand that needs more rows than the dock shows (a pile just taken: 15 cards and more on
  // a phone) would be cut and scroll inside the dock, under the player's thumb, while the dock
  // covered their own melds. Then the dock leaves the screen's bottom edge and follows the
  // table: every card in view, one page to scroll (site.css, .dock.long-hand).
  function fitHand() {
    var form = moveForm();
    var hand = form && form.querySelector(".hand");
    if (!hand) return;
    var rem = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
    form.classList.remove("no-js");  // measured here, not guessed from the count (site.css)
    form.classList.toggle("long-hand", hand.scrollHeight > DOCK_HAND_REM * rem + 2);
  }

  // --- playing ---------------------------------------------------------------------------

  function idempotencyKey() {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID();
    return String(Date.now()) + "-" + Math.random().toString(16).slice(2);
  }

  function setBusy(on) {
    busy = on;
    var form = moveForm();
    if (!form) return;
    form.classList.toggle("busy", on);
    form.setAttribute("aria-busy", on ? "true" : "false");
    document.querySelectorAll("#table button").forEach(function (b) { b.disabled = on; });
  }

  // Both ways of playing answer alike: 2xx, the table is refreshed; else the one error shape,
  // shown in place (nothing was played, or only a draw that stands).
  function answered(response) {
    if (response.ok) {
      failures = 0;
      setBusy(false);
      return refresh(false);
    }
    return response.json().catch(function () { return null; }).then(function (body) {
      var error = body && body.error ? body.error
        : { code: "http_" + response.status, message: words.network };
      setBusy(false);
      if (error.code === "stale_version") {
        return refresh(true).then(function () { showError(words.stale, error.code); });
      }
      if (error.details && error.details.applied > 0) {
        // A draw from the stock stands (docs/fair-play.md): show the table it left.
        return refresh(false).then(function () { showError(error.message, error.code); });
      }
      showError(error.message, error.code);
    });
  }

  function send(url, init) {
    if (busy) return Promise.resolve();
    setBusy(true);
    init.method = "POST";
    init.credentials = "same-origin";
    init.headers.Accept = "application/json";
    init.headers["X-CSRFToken"] = csrfToken();
    return fetch(url, init).then(answered).catch(function () {
      setBusy(false);
      showError(words.network, "network");
    });
  }

  function play(form, actions) {
    var version = parseInt(form.querySelector("input[name=version]").value, 10);
    return send(actionsUrl, {
      headers: { "Content-Type": "application/json", "Idempotency-Key": idempotencyKey() },
      body: JSON.stringify({ actions: actions, expected_version: version })
    });
  }

  // What the browser cannot decide alone (the pile with nothing selected: the engine's first
  // way; a selection that makes no move: the server's words, in the player's language) goes
  // to the plain form's URL all the same, asking for JSON: no reload, the scroll stays.
  function postForm(form, op) {
    var data = new FormData(form);
    data.set("op", op);
    return send(form.action, { headers: {}, body: data });
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form || form.id !== "move-form") return;
    var op = event.submitter ? event.submitter.value : "";
    event.preventDefault();
    if (op === "clear") { clearPlan(form); return; }
    showError("");
    if (op === "set_aside") {
      if (!setAside(form)) postForm(form, op);  // nothing selected: the server says so
      return;
    }
    var actions = buildActions(op, form);
    if (actions) play(form, actions);
    else postForm(form, op);
  });

  document.addEventListener("change", function (event) {
    if (event.target && event.target.name === "card") points();
  });

  // A double tap on a card selects its whole rank (or, all selected, none): what a player
  // means when melding three sevens. The two single taps before it cancel out.
  document.addEventListener("dblclick", function (event) {
    var label = event.target.closest && event.target.closest("label.pick");
    var group = label && label.closest(".hand-group");
    if (!group) return;
    event.preventDefault();
    var boxes = Array.prototype.slice.call(group.querySelectorAll("input[name=card]:not(:disabled)"));
    var all = boxes.every(function (b) { return b.checked; });
    boxes.forEach(function (b) { b.checked = !all; });
    points();
  });

  // --- table talk: the unread count beside the turn ---------------------------------------
  // What this browser has read is kept per game in localStorage (the first visit reads all);
  // the chat counts as read once its newest line is on the screen.

  var chatSeenKey = "canasta-chat-seen-" + root.dataset.game;
  var chatWatcher = null;

  function chatLines() {
    return Array.prototype.slice.call(document.querySelectorAll(".chat-lines li[data-id]"));
  }
  function chatNewest() {
    return chatLines().reduce(function (m, li) { return Math.max(m, parseInt(li.dataset.id, 10)); }, 0);
  }
  function chatSeen() {
    var seen = NaN;
    try { seen = parseInt(window.localStorage.getItem(chatSeenKey), 10); } catch (e) { /* none */ }
    return seen;
  }
  function chatMarkRead() {
    try { window.localStorage.setItem(chatSeenKey, String(chatNewest())); } catch (e) { /* none */ }
  }

  function chatShow() {
    var badge = document.getElementById("chat-unread");
    if (!badge) return;
    var seen = chatSeen();
    if (isNaN(seen)) { chatMarkRead(); seen = chatNewest(); }
    var count = chatLines().filter(function (li) {
      return parseInt(li.dataset.id, 10) > seen && !li.dataset.mine;
    }).length;
    badge.hidden = !count;
    badge.textContent = "";
    if (!count) return;
    var shown = document.createElement("span");
    shown.setAttribute("aria-hidden", "true");
    shown.textContent = String(count);
    var said = document.createElement("span");
    said.className = "vh";
    said.textContent = fill(words.unread || "%(count)s", { count: count });
    badge.appendChild(shown);
    badge.appendChild(said);
  }

  function chatUnread() {
    chatShow();
    var lines = chatLines();
    var chat = lines[lines.length - 1];  // read when the newest line has been on the screen
    if (chatWatcher) chatWatcher.disconnect();
    if (!chat || !("IntersectionObserver" in window)) return;
    chatWatcher = new IntersectionObserver(function (entries) {
      if (entries.some(function (e) { return e.isIntersecting; }) && !document.hidden) {
        chatMarkRead();
        chatShow();
      }
    });
    chatWatcher.observe(chat);
  }

  // --- browser notifications (opt-in) --------------------------------------------------------

  function setupNotifications() {
    var button = document.getElementById("notify-me");
    if (!button || !("Notification" in window)) return;
    if (Notification.permission === "granted") return;
    button.hidden = Notification.permission === "denied";
    button.addEventListener("click", function () {
      Notification.requestPermission().then(function (answer) {
        button.hidden = true;
        live.textContent = answer === "granted" ? words.notifyOn : words.notifyDenied;
      });
    });
  }

  // --- polling ---------------------------------------------------------------------------

  function schedule(ms) {
    if (timer) clearTimeout(timer);
    timer = setTimeout(poll, ms);
  }

  function poll() {
    var delay = document.hidden ? HIDDEN_MS : VISIBLE_MS;
    var tag = etag();
    var headers = { Accept: "text/html" };
    if (tag) headers["If-None-Match"] = tag;
    fetch(tableUrl, { credentials: "same-origin", cache: "no-store", headers: headers })
      .then(function (response) {
        if (response.status === 304) { failures = 0; return null; }
        if (!response.ok) { failures += 1; return null; }
        failures = 0;
        if (busy) return null;  // the move's own refresh shows it
        return response.text().then(function (html) { swap(html, true); });
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
  fitHand();
  var resized = null;
  window.addEventListener("resize", function () {
    if (resized) clearTimeout(resized);
    resized = setTimeout(fitHand, 150);
  });
  setupNotifications();
  announce();
  chatUnread();
  // A refusal from the plain form post: take the reader to it.
  var refused = document.querySelector("#move-error p");
  if (refused) document.getElementById("move-error").focus();
  points();
  schedule(VISIBLE_MS);
})();
