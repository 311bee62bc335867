// The little a table's screens need beyond htmx: clocks, the connection light, keeping the
// screen awake, catching up when a phone comes back, and a buzz when I win or lose.
(function () {
  "use strict";

  function tickClocks() {
    var now = Date.now() / 1000;
    document.querySelectorAll("time[data-until]").forEach(function (el) {
      var left = Math.max(0, Math.round(Number(el.dataset.until) - now));
      var m = Math.floor(left / 60), s = left % 60;
      el.textContent = m + ":" + (s < 10 ? "0" : "") + s;
    });
  }
  setInterval(tickClocks, 1000);
  document.addEventListener("DOMContentLoaded", tickClocks);
  document.addEventListener("htmx:afterSettle", tickClocks);

  function setConnection(state) {
    document.body.dataset.conn = state;
  }
  document.addEventListener("htmx:sseOpen", function () { setConnection("open"); });
  document.addEventListener("htmx:sseError", function () { setConnection("lost"); });
  document.addEventListener("htmx:sseClose", function () { setConnection("lost"); });

  function resync() {
    var live = document.getElementById("live");
    if (live && window.htmx) { window.htmx.trigger(live, "resync"); }
  }

  var wakeLock = null;
  function keepAwake() {
    if (!("wakeLock" in navigator) || document.visibilityState !== "visible") { return; }
    navigator.wakeLock.request("screen").then(function (lock) { wakeLock = lock; })
      .catch(function () { wakeLock = null; });
  }
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") { keepAwake(); resync(); }
  });
  document.addEventListener("DOMContentLoaded", keepAwake);

  // The felt is the same for every phone: mark my own chips (and let only me withdraw them),
  // and keep the banker from tapping heaps, from who I am.
  function markMine() {
    var seat = document.body.dataset.seat;
    if (!seat) { return; }
    document.querySelectorAll(".chip[data-player]").forEach(function (chip) {
      chip.classList.toggle("is-mine", chip.dataset.player === seat);
    });
    var status = document.getElementById("status");
    document.body.classList.toggle("is-banker", !!(status && status.dataset.banker === "true"));
  }
  document.addEventListener("DOMContentLoaded", markMine);
  document.addEventListener("htmx:afterSettle", markMine);
  document.addEventListener("htmx:oobAfterSwap", markMine);

  // A live update re-renders the bar while I may be choosing a stake: the choice on my screen
  // wins over the one the request carried when it left, if the new bar still offers it.
  var chosen = null;
  document.addEventListener("htmx:oobBeforeSwap", function () {
    var intent = document.getElementById("intent");
    if (!intent) { chosen = null; return; }
    var radio = intent.querySelector('input[name="amount"]:checked');
    var custom = intent.querySelector('input[name="custom"]');
    chosen = { amount: radio ? radio.value : null, custom: custom ? custom.value : "" };
  });
  document.addEventListener("htmx:oobAfterSwap", function () {
    var intent = document.getElementById("intent");
    if (!intent || !chosen) { return; }
    var radio = chosen.amount === null ? null
      : intent.querySelector('input[name="amount"][value="' + chosen.amount + '"]');
    if (radio) { radio.checked = true; }
    var custom = intent.querySelector('input[name="custom"]');
    if (custom) { custom.value = chosen.custom; }
  });

  var lastResult = null;
  document.addEventListener("htmx:afterSettle", function () {
    var el = document.querySelector("[data-result]");
    var value = el ? el.dataset.result : null;
    if (value !== null && value !== lastResult && lastResult !== undefined) {
      var n = Number(value);
      if (n !== 0 && navigator.vibrate) { navigator.vibrate(n > 0 ? [80, 60, 80] : 250); }
      el.classList.add("flash");
    }
    lastResult = value;
  });
})();
