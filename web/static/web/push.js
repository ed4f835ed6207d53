/* Settings: push notifications on this device (docs/notifications.md#web-push). Registers the
   service worker, subscribes with the site's VAPID public key and sends the subscription to
   the server; "off" unsubscribes here and there. Words come translated from the page. */
(function () {
  "use strict";
  var box = document.getElementById("push");
  if (!box) return;
  var on = document.getElementById("push-on");
  var off = document.getElementById("push-off");
  var state = document.getElementById("push-state");
  var words = box.dataset;
  var supported = "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

  function csrf() {
    var input = document.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }
  function say(text) { state.textContent = text; }
  function key() {
    var text = box.dataset.key.replace(/-/g, "+").replace(/_/g, "/");
    var raw = atob(text + "===".slice((text.length + 3) % 4));
    return Uint8Array.from(raw, function (c) { return c.charCodeAt(0); });
  }
  function post(url, body) {
    return fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrf() },
      body: JSON.stringify(body)
    }).then(function (response) {
      if (!response.ok) return response.json().then(function (b) { throw new Error(b.error.message); });
      return response;
    });
  }
  function show(subscribed) {
    on.hidden = subscribed;
    off.hidden = !subscribed;
    say(subscribed ? words.on : words.offText);
  }

  if (!supported) { say(words.unsupported); on.hidden = true; return; }
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).then(function (registration) {
    return registration.pushManager.getSubscription();
  }).then(function (subscription) { show(!!subscription); })
    .catch(function () { say(words.unsupported); on.hidden = true; });

  on.addEventListener("click", function () {
    Notification.requestPermission().then(function (answer) {
      if (answer !== "granted") { say(words.denied); return null; }
      return navigator.serviceWorker.ready.then(function (registration) {
        return registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key() });
      }).then(function (subscription) {
        return post(box.dataset.subscribe, subscription.toJSON());
      }).then(function () { show(true); });
    }).catch(function (error) { say(error.message || words.unsupported); });
  });

  off.addEventListener("click", function () {
    navigator.serviceWorker.ready.then(function (registration) {
      return registration.pushManager.getSubscription();
    }).then(function (subscription) {
      if (!subscription) return null;
      var endpoint = subscription.endpoint;
      return subscription.unsubscribe().then(function () {
        return post(box.dataset.unsubscribe, { endpoint: endpoint });
      });
    }).then(function () { show(false); })
      .catch(function (error) { say(error.message || words.unsupported); });
  });
})();
