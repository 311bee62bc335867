// The little a table's screens need beyond htmx: clocks, the connection light, keeping the
// screen awake, catching up when a phone comes back (the show's cues: show.js).
(function () {
  "use strict";

  function tickClocks() {
    var now = Date.now() / 1000;
    document.querySelectorAll("time[data-until]").forEach(function (el) {
      var left = Math.max(0, Math.round(Number(el.dataset.until) - now));
      var m = Math.floor(left / 60), s = left % 60;
      el.textContent = m + ":" + (s < 10 ? "0" : "") + s;
      // A table's countdown (to bet, to cut) turns red for its last five seconds.
      var around = el.closest("[data-countdown]");
      if (around) { around.classList.toggle("is-low", left <= 5); }
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

  // Back in the foreground: every region again (a phone asleep may have missed the stream).
  function resync() {
    var all = document.getElementById("resync");
    if (all && window.htmx) { window.htmx.trigger(all, "resync"); }
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
  // Without Wake Lock (a plain-http address on the LAN is no secure context, and phones
  // join at one), NoSleep keeps the screen on with a tiny silent video; a browser lets a page
  // start it only from a tap, so every tap starts it again if the phone stopped it.
  var noSleep = null;
  document.addEventListener("click", function () {
    if ("wakeLock" in navigator || !window.NoSleep) { return; }
    if (!noSleep) { noSleep = new window.NoSleep(); }
    noSleep.enable().catch(function () {});
  }, true);

  // The felt is the same for every phone: mark my own chips (and let only me withdraw them),
  // and keep the banker from betting on the felt, from who I am.
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

  // A live update (someone joins, someone bets) re-renders my regions while I may be typing an
  // offer or choosing a stake: what I changed on screen and have not sent yet wins over the new
  // markup, wherever the same form still has the same field. Untouched fields take the server's.
  function fieldKey(input) {
    var form = input.form;
    return (form ? (form.id || form.getAttribute("action") || "") : "") + "|" + input.name;
  }
  function changedFields(root) {
    var changed = [];
    root.querySelectorAll("input[name]").forEach(function (input) {
      if (input.type === "hidden") { return; }
      if (input.type === "radio" || input.type === "checkbox") {
        if (input.checked && !input.defaultChecked) {
          changed.push({ key: fieldKey(input), radio: input.value });
        }
      } else if (input.value !== input.defaultValue) {
        changed.push({ key: fieldKey(input), value: input.value });
      }
    });
    var focused = document.activeElement;
    var focus = focused && focused.name && root.contains(focused) ? fieldKey(focused) : null;
    return { fields: changed, focus: focus };
  }
  function restoreFields(root, kept) {
    var inputs = Array.prototype.slice.call(root.querySelectorAll("input[name]"));
    kept.fields.forEach(function (field) {
      inputs.forEach(function (input) {
        if (fieldKey(input) !== field.key) { return; }
        if (!("radio" in field)) { input.value = field.value; }
        else if (input.value === field.radio) { input.checked = true; }
      });
    });
    if (kept.focus) {
      var again = inputs.filter(function (input) { return fieldKey(input) === kept.focus; })[0];
      if (again) { again.focus(); }
    }
  }
  var kept = {};
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var target = event.detail.target;
    if (target && target.id) { kept[target.id] = changedFields(target); }
  });

  // An answer that draws my own regions ends with #seat_version, the version they were drawn at: not
  // shown when it is older than what the phone shows (a fetch started before my tap, answered
  // after it, or a tap answered after the stream brought a newer version).
  var SEAT_VERSION = /<div[^>]*\sid="seat_version"[^>]*\sdata-v="(\d+)"/;
  document.addEventListener("htmx:beforeSwap", function (event) {
    var detail = event.detail, seatVersion = document.getElementById("seat_version");
    var found = seatVersion && typeof detail.serverResponse === "string" && SEAT_VERSION.exec(detail.serverResponse);
    if (found && detail.shouldSwap && Number(found[1]) < Number(seatVersion.dataset.v)) {
      detail.shouldSwap = false;
    }
  });
  document.addEventListener("htmx:oobAfterSwap", function (event) {
    var target = event.detail.target;
    var id = target && target.id;
    var now = id && document.getElementById(id);
    if (now && kept[id]) { restoreFields(now, kept[id]); }
    delete kept[id];
  });

  // A stake typed in "other" is the one sent (it wins over the chip); choosing a chip clears it,
  // so the chip shown as chosen is the stake the next tap sends.
  document.addEventListener("change", function (event) {
    var input = event.target;
    if (input.type !== "radio" || input.name !== "amount" || !input.form || input.form.id !== "intent") { return; }
    var custom = input.form.querySelector("input[name=custom]");
    if (custom) { custom.value = ""; }
  });

  // A choice that one tap uses up: the form that sends it names, in data-reset-to, the radio the
  // choice goes back to. Its value is already in the request, so the next tap starts afresh.
  // The second tap of a double tap then lands where the button was, on what chooses afresh (a
  // card's "choose" label: the card chosen again, the next tap a cross): for a moment, the
  // choosers (the cards' labels, app.css: body.just-tapped) take no tap.
  var settling = null;
  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = event.detail.elt;
    var id = form && form.dataset && form.dataset.resetTo;
    var back = id && document.getElementById(id);
    if (!back) { return; }
    back.checked = true;
    document.body.classList.add("just-tapped");
    clearTimeout(settling);
    settling = setTimeout(function () { document.body.classList.remove("just-tapped"); }, 700);
  });

  // A tap that got no answer to show (the network, a server error) is said too, never silent;
  // any answer after it clears it. Said for a tap (a POST) only: a fetch of my regions that
  // failed sent nothing to the table. And only when no request made after that tap has got
  // through since: a tap still on its way on a bad network fails late, after its retry was
  // answered.
  var answeredSince = 0;
  function tapFailed(show) {
    var note = document.getElementById("tap-failed");
    if (note) { note.hidden = !show; }
  }
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (event.detail.xhr) { event.detail.xhr.sentAt = performance.now(); }
  });
  function failed(event) {
    var detail = event.detail, xhr = detail.xhr;
    var verb = detail.requestConfig && detail.requestConfig.verb;
    if (verb === "get" || (xhr && xhr.sentAt < answeredSince)) { return; }
    tapFailed(true);
  }
  document.addEventListener("htmx:sendError", failed);
  document.addEventListener("htmx:responseError", failed);
  document.addEventListener("htmx:afterOnLoad", function (event) {
    var xhr = event.detail.xhr;
    if (!event.detail.successful) { return; }
    answeredSince = Math.max(answeredSince, (xhr && xhr.sentAt) || 0);
    tapFailed(false);
    // A tap refused as too fast (429) says so until a tap is taken again.
    var refused = document.getElementById("tap-refused");
    if (refused && xhr && xhr.status !== 429 && xhr.status !== 0) { refused.hidden = true; }
  });

  // A note said briefly (data-brief): shown for BRIEF ms from when this page first showed it,
  // then hidden, however often the region holding it is drawn again; said afresh once it has
  // left the page and comes back (the next hand's).
  var BRIEF = 8000, briefSince = {};
  function brief() {
    var now = Date.now(), shown = {};
    document.querySelectorAll("[data-brief]").forEach(function (note) {
      var key = note.dataset.brief + "|" + note.textContent;
      shown[key] = true;
      if (!(key in briefSince)) {
        briefSince[key] = now;
        setTimeout(brief, BRIEF + 50);
      }
      note.hidden = now - briefSince[key] >= BRIEF;
    });
    Object.keys(briefSince).forEach(function (key) { if (!shown[key]) { delete briefSince[key]; } });
  }
  document.addEventListener("DOMContentLoaded", brief);
  document.addEventListener("htmx:afterSettle", brief);
  document.addEventListener("htmx:oobAfterSwap", brief);

  // Back from the rules page to "#help": the help panel opens on its odds.
  document.addEventListener("DOMContentLoaded", function () {
    var help = location.hash === "#help" && document.getElementById("help");
    if (help && help.tagName === "DETAILS") { help.open = true; help.scrollIntoView(); }
  });
})();
