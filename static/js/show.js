// The show: the reveal played step by step, its sounds, and on a phone a buzz and a sound when
// it is my turn and when my bets are settled. One mute switch, remembered on the device.
(function () {
  "use strict";

  var MUTED = "montones-muted";
  var audio = null;

  function muted() {
    try { return window.localStorage.getItem(MUTED) === "1"; } catch (e) { return false; }
  }
  // The host turned the TV's sound off (the TV's corner says so): a watcher's phone, which
  // shows the TV's picture, keeps its own switch.
  function silenced() {
    return document.body.classList.contains("tv") && !!document.querySelector("[data-tv-silent]");
  }

  function context() {
    if (audio) { return audio; }
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) { return null; }
    audio = new Context();
    audio.onstatechange = showSoundState;
    window.setTimeout(showSoundState, 0);
    return audio;
  }

  // Sounds made on the spot (no files): a card's swish, the banker's card, a chip's clink for a
  // payment, a low knock for a loss, a bright ping for my turn.
  function tone(freq, to, start, length, type, gain) {
    var ctx = audio, osc = ctx.createOscillator(), amp = ctx.createGain();
    var t = ctx.currentTime + start;
    osc.type = type;
    osc.frequency.setValueAtTime(freq, t);
    if (to) { osc.frequency.exponentialRampToValueAtTime(to, t + length); }
    amp.gain.setValueAtTime(0.0001, t);
    amp.gain.exponentialRampToValueAtTime(gain, t + 0.01);
    amp.gain.exponentialRampToValueAtTime(0.0001, t + length);
    osc.connect(amp).connect(ctx.destination);
    osc.start(t);
    osc.stop(t + length + 0.02);
  }
  var SOUNDS = {
    flip: function () { tone(1400, 300, 0, 0.09, "triangle", 0.25); },
    bank: function () { tone(392, 0, 0, 0.18, "triangle", 0.35); tone(587, 0, 0.16, 0.35, "triangle", 0.35); },
    won: function () { tone(1568, 0, 0, 0.12, "sine", 0.3); tone(2093, 0, 0.07, 0.2, "sine", 0.25); },
    lost: function () { tone(180, 90, 0, 0.22, "sine", 0.45); },
    void: function () { tone(660, 0, 0, 0.12, "sine", 0.2); },
    turn: function () { tone(880, 0, 0, 0.12, "sine", 0.3); tone(1320, 0, 0.12, 0.18, "sine", 0.3); },
    // A hand's big moment on the TV (a big win, a Monte Carlo, the Rey de oros paid double): a
    // rising arpeggio; a broken bank: a fanfare, longer and lower.
    cheer: function () {
      [523, 659, 784, 1047].forEach(function (f, i) { tone(f, 0, i * 0.11, 0.3, "triangle", 0.3); });
    },
    broke: function () {
      [392, 392, 523, 659, 784].forEach(function (f, i) { tone(f, 0, i * 0.16, 0.4, "square", 0.12); });
      tone(1047, 0, 0.85, 0.9, "triangle", 0.3);
    }
  };

  // A running context renders silence in real time: it is suspended when nothing has sounded
  // for a while and resumed to play (allowed again once the page has been let play once).
  var unlocked = false, idle = null;
  function rest() {
    if (idle) { window.clearTimeout(idle); }
    idle = window.setTimeout(function () {
      if (audio && audio.state === "running") { audio.suspend(); }
    }, 2000);
  }
  function play(name) {
    if (muted() || silenced() || !SOUNDS[name] || !context() || !unlocked) { return; }
    if (audio.state === "running") { SOUNDS[name](); rest(); return; }
    audio.resume().then(function () { SOUNDS[name](); rest(); }, function () {});
  }

  function buzz(pattern) {
    if (!muted() && navigator.vibrate) { navigator.vibrate(pattern); }
  }

  // The switch, and on the TV the note that the browser waits for one click before any sound.
  function showSoundState() {
    if (audio && audio.state === "running" && !unlocked) { unlocked = true; rest(); }
    var off = muted() || silenced();
    document.querySelectorAll("[data-sound-toggle]").forEach(function (button) {
      button.setAttribute("aria-pressed", off ? "false" : "true");
      button.textContent = off ? button.dataset.off : button.dataset.on;
    });
    var blocked = !off && !unlocked;
    document.querySelectorAll("[data-sound-note]").forEach(function (note) { note.hidden = !blocked; });
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-sound-toggle]");
    if (button) {
      try { window.localStorage.setItem(MUTED, muted() ? "0" : "1"); } catch (e) { /* private mode */ }
    }
    if (context() && !unlocked) { audio.resume().then(showSoundState, showSoundState); }
    showSoundState();
  });

  // The reveal: every [data-at] element shows that many ms after the screen first had its
  // version (data-rv), whichever region brought it: the felt, the TV's line and its players
  // come in separate swaps, and one that is swapped again mid-reveal keeps its place in time.
  // A page drawn once its version's reveal was over (body's data-page-version: its version, data-age:
  // how long ago that was made) shows it over, not played again; one drawn during it plays it
  // from the start (the server's time is ahead of the TV's, which had it later: from there it
  // would show the outcome before the TV).
  var starts = {}, drawnAt = null;
  function start(version, now) {
    var age = Number(document.body.dataset.age || 0), felt = clock();
    var done = felt && felt.dataset.reveal === version ? Number(felt.dataset.done || 0) : 0;
    if (drawnAt === null) { drawnAt = now - age; }
    starts[version] = version === document.body.dataset.pageVersion && age >= done ? drawnAt : now;
  }
  var pending = 0;
  // What times the reveal: the felt, or on a page without one (the host's) its clock.
  function clock() { return document.getElementById("felt") || document.querySelector("[data-reveal-clock]"); }
  function revealState() {
    document.body.dataset.reveal = pending > 0 ? "playing" : "done";
  }
  function show(el, live) {
    el.classList.add("is-shown");
    el.querySelectorAll(".flip").forEach(function (flip) { flip.classList.add("is-turned"); });
    if (live && el.isConnected && el.dataset.sound) { play(el.dataset.sound); }
  }
  function schedule() {
    var now = window.performance.now(), alone = phone() && noTv();
    var felt = clock();
    if (felt && felt.dataset.reveal && !(felt.dataset.reveal in starts)) { start(felt.dataset.reveal, now); }
    document.querySelectorAll("[data-at][data-rv]:not(.is-shown)").forEach(function (el) {
      if (el.dataset.scheduled) { return; }
      el.dataset.scheduled = "1";
      var version = el.dataset.rv;
      if (!(version in starts)) { start(version, now); }
      var wait = starts[version] + Number(el.dataset.at) - now;
      if (wait <= 0 || alone) { show(el, false); return; }
      pending += 1;
      window.setTimeout(function () { show(el, true); pending -= 1; revealState(); }, wait);
    });
    revealState();
  }

  // A phone: my turn (what the bar waits for me to do changed, and is something), and my
  // result, once the reveal has shown it.
  var lastTurn = null, lastResult;  // undefined: not read yet (a page's first look is no news)
  function phoneCues() {
    var bar = document.getElementById("bar");
    if (bar && bar.dataset.turn !== undefined) {
      var turn = bar.dataset.turn;
      if (lastTurn !== null && turn && turn !== lastTurn) { buzz([60, 40, 60]); play("turn"); }
      lastTurn = turn;
    }
    var el = document.querySelector("#status [data-result]");
    var value = el ? el.dataset.result : null;
    if (value !== null && value !== lastResult && lastResult !== undefined) {
      var n = Number(value);
      var cue = function () {
        if (n !== 0) { buzz(n > 0 ? [80, 60, 80] : 250); }
        play(n > 0 ? "won" : n < 0 ? "lost" : "void");
        el.classList.add("flash");
      };
      var wait = function () {
        var left = myMoment() - window.performance.now();
        if (left > 0) { window.setTimeout(wait, left + 20); } else { cue(); }
      };
      wait();
    }
    lastResult = value;
  }

  // The TV is the show: nothing tells a hand's outcome before its reveal does. While the
  // felt's reveal plays (#felt's data-reveal: its version; data-done: how long it lasts; on
  // the host page, its clock's), a [data-keep] element goes on showing what it showed before:
  // a region beside the felt (the TV's title, its players, its last hands; a phone's odds; the
  // host's line and players) whole, a player's chips, the bank.
  // A region that times its own parts by the reveal ([data-rv] of the playing version) plays
  // them instead of being kept whole. On a phone my own regions
  // wait for the moment the reveal reaches my last bet (the banker's, its end): until then
  // its result lines ([data-outcome]) and its bar are hidden and it says to watch the TV
  // ([data-watch]). A phone at a table whose TV is not open (#seat_version's data-tv: drawn per seat, again when a TV opens or closes) plays nothing.
  function phone() { return document.body.classList.contains("phone"); }
  function noTv() { return !!document.querySelector('#seat_version[data-tv="0"]'); }
  function revealEnd(version) {
    var felt = clock();
    if (!felt || felt.dataset.reveal !== String(version) || !(version in starts)) { return 0; }
    return starts[version] + Number(felt.dataset.done || 0);
  }
  // My regions can come before the felt of their version: a fetch of mine answered after the
  // hand was settled, ahead of the stream's felt. Their result then waits for that felt (it
  // brings the reveal's times), FELT_WAIT ms at most.
  var FELT_WAIT = 3000, behindSince = {};
  function feltBehind(seatVersion) {
    var seen = document.querySelector("#tap input[name=seen]");
    if (!seen || Number(seen.value) >= Number(seatVersion.dataset.v)) { return false; }
    if (!document.querySelector("#status [data-result]")) { return false; }
    var now = window.performance.now();
    if (!(seatVersion.dataset.v in behindSince)) { behindSince[seatVersion.dataset.v] = now; }
    return now - behindSince[seatVersion.dataset.v] < FELT_WAIT;
  }
  function myMoment() {
    // My regions' version (#seat_version's data-v): the one they were drawn at.
    var status = document.getElementById("status"), felt = document.getElementById("felt");
    var seatVersion = document.getElementById("seat_version");
    if (!status || !seatVersion || !felt || noTv()) { return 0; }
    if (feltBehind(seatVersion)) { return window.performance.now() + 100; }
    var end = revealEnd(seatVersion.dataset.v);
    if (!end || status.dataset.banker === "true") { return end; }
    var seat = document.body.dataset.seat, last = -1;
    var mine = '[data-player="' + seat + '"]';
    felt.querySelectorAll(mine + "[data-at], " + mine + " [data-at]").forEach(function (el) {
      last = Math.max(last, Number(el.dataset.at));
    });
    return last >= 0 ? starts[seatVersion.dataset.v] + last : end;
  }
  function until(el) {
    var felt = clock();
    if (phone() && el.closest("#status")) { return myMoment(); }
    return felt && felt.dataset.reveal ? revealEnd(felt.dataset.reveal) : 0;
  }
  // A region is held by showing, in its place, a copy of what it showed before (without its
  // ids: the stream's updates go on being merged into the region itself, hidden meanwhile); a
  // page drawn during the reveal has no before: the region waits blank. Idiomorph, merging a
  // region that holds such a copy, leaves the copy as it is (its release takes it away).
  if (window.Idiomorph) {
    var callbacks = window.Idiomorph.defaults.callbacks;
    var before = function (node) { return !(node.dataset && "before" in node.dataset); };
    callbacks.beforeNodeRemoved = before;
    callbacks.beforeNodeMorphed = before;
  }
  var shown = {}, holding = {}, heldTimer = null, drawn = false;
  // What a region showed, taken before a swap changes it: the region swapped, one in it, or
  // the region it is in; on the host page, its live part (its own swap). A region being held keeps its before.
  function keep(event) {
    var old = event.detail.target;
    if (!old || !old.querySelectorAll) { return; }
    var regions = Array.prototype.slice.call(old.querySelectorAll("[data-keep]"));
    var around = old.closest("[data-keep]");
    if (around) { regions.push(around); }
    regions.forEach(function (el) {
      var key = el.dataset.keep;
      // A copy of the nodes, not their HTML: fit.js zooms the TV's boxes through el.style, and
      // HTML with a style attribute, parsed back, is refused by the CSP (style-src 'self').
      if (!(key in shown) && !holding[key]) { shown[key] = el.cloneNode(true); }
    });
  }
  document.addEventListener("htmx:oobBeforeSwap", keep);
  document.addEventListener("htmx:beforeSwap", keep);
  function timed(el) {
    var felt = clock();
    return !!(felt && felt.dataset.reveal && el.querySelector('[data-rv="' + felt.dataset.reveal + '"]'));
  }
  function region(key) { return document.querySelector('[data-keep="' + key + '"]'); }
  // Not before the felt has shown every part of its reveal, either (a timer late on a busy
  // machine plays the felt late: what it holds back waits for it).
  function playing() {
    var felt = clock();
    return !!(felt && felt.dataset.reveal
      && felt.querySelector('[data-rv="' + felt.dataset.reveal + '"][data-at]:not(.is-shown)'));
  }
  function release(key) {
    var el = region(key), left = el ? until(el) - window.performance.now() : 0;
    if (left <= 0 && el && !(phone() && el.closest("#status")) && playing()) { left = 30; }
    if (left > 0) { window.setTimeout(function () { release(key); }, left + 20); return; }
    if (holding[key].copy) { holding[key].copy.remove(); }
    if (el) {
      el.classList.remove("is-held", "is-kept");
      // As it came: an element the server drew with no class is left with none, not class="".
      if (!el.classList.length) { el.removeAttribute("class"); }
    }
    delete holding[key];
    pending -= 1;
    revealState();
  }
  function holdRegion(el, was) {
    var key = el.dataset.keep, copy = null;
    if (was !== undefined) {
      copy = el.cloneNode(false);
      // An id of its own: idiomorph never takes it for the region it stands for.
      copy.id = "before-" + key;
      copy.removeAttribute("data-keep");
      copy.removeAttribute("hx-swap-oob");
      copy.dataset.before = key;
      copy.append.apply(copy, Array.prototype.slice.call(was.childNodes));
      copy.querySelectorAll("[id]").forEach(function (inner) { inner.removeAttribute("id"); });
      el.before(copy);
    }
    el.classList.add(copy ? "is-held" : "is-kept");
    holding[key] = {copy: copy};
    pending += 1;  // the reveal plays on while a region waits for it
    release(key);
  }
  function hold() {
    var now = window.performance.now(), first = !drawn;
    drawn = true;
    document.querySelectorAll("[data-keep]").forEach(function (el) {
      var key = el.dataset.keep, wait = until(el) - now;
      if (holding[key]) {  // swapped whole while held: the new one waits too
        el.classList.add(holding[key].copy ? "is-held" : "is-kept");
        return;
      }
      var was = shown[key];
      if (wait <= 0 || timed(el) || (was === undefined && !first) || (was && was.innerHTML === el.innerHTML)) { return; }
      holdRegion(el, was);
    });
    shown = {};
    delete document.body.dataset.fresh;  // held now by show.js, from here on
    revealState();
    if (!phone()) { return; }
    var wait = myMoment() - now;
    if (wait > 0) {
      document.body.dataset.held = "";
      window.clearTimeout(heldTimer);
      heldTimer = window.setTimeout(hold, wait + 20);
    } else {
      delete document.body.dataset.held;
    }
  }

  // A first hand's guide (#guide): on a phone until it has seen a hand of its game through (a
  // result, then a hand without one), each step's hint until it is dismissed; "Show the hints
  // again" (under More) starts over. Kept on the device, per game.
  function guideKey(game) { return "montones-guide-" + game; }
  function guideState(game) {
    try { return JSON.parse(window.localStorage.getItem(guideKey(game))) || {}; } catch (e) { return {}; }
  }
  function saveGuide(game, state) {
    try { window.localStorage.setItem(guideKey(game), JSON.stringify(state)); } catch (e) { /* private mode */ }
  }
  // The guide sits on the bar, whose height changes with what the player chooses in it (a Monte
  // Carlo's choices once slid under the guide): the bar in place now is watched.
  var barSize = window.ResizeObserver ? new ResizeObserver(function (entries) {
    var bar = entries[entries.length - 1].target;
    document.documentElement.style.setProperty("--bar-h", bar.offsetHeight + "px");
  }) : null;
  // A step's drawing shows only when asked for ("Show me"), until asked again or the step
  // changes; every update draws #guide anew, so what was asked is kept here.
  var shownStep = null;
  function guide() {
    var el = document.getElementById("guide"), bar = document.getElementById("bar");
    if (!el) { return; }
    if (bar) {
      document.documentElement.style.setProperty("--bar-h", bar.offsetHeight + "px");
      if (barSize) { barSize.disconnect(); barSize.observe(bar); }
    }
    var game = el.dataset.game, state = guideState(game);
    if (document.querySelector("#status [data-result]")) { state.result = true; } else if (state.result) { state.done = true; }
    saveGuide(game, state);
    el.hidden = !!state.done || el.dataset.step === "off" || (state.dismissed || []).indexOf(el.dataset.step) >= 0;
    var show = el.querySelector("[data-guide-show]"), pic = document.getElementById("guide-pic");
    if (show && pic) {
      pic.hidden = shownStep !== el.dataset.step;
      show.setAttribute("aria-expanded", pic.hidden ? "false" : "true");
      el.classList.toggle("is-open", !pic.hidden);
    }
  }
  document.addEventListener("click", function (event) {
    // A refusal in the bar hidden: the bar's line saying what a tap does shows again (CSS).
    var notice = event.target.closest && event.target.closest("[data-notice-close]");
    if (notice) { notice.closest(".notice").remove(); return; }
    var close = event.target.closest && event.target.closest("[data-guide-close]");
    var again = event.target.closest && event.target.closest("[data-guide-again]");
    var show = event.target.closest && event.target.closest("[data-guide-show]");
    var el = document.getElementById("guide");
    if (el && show) {
      shownStep = shownStep === el.dataset.step ? null : el.dataset.step;
      guide();
      if (shownStep) { el.scrollIntoView({ block: "end" }); }
      return;
    }
    if (!el || !(close || again)) { return; }
    var game = el.dataset.game, state = again ? {} : guideState(game);
    if (close) { state.dismissed = (state.dismissed || []).concat([el.dataset.step]); }
    saveGuide(game, state);
    guide();
  });

  // The TV's sound turned on again by the host: the TV tries at once; a browser that still
  // waits for a click keeps the line asking for it.
  var wasSilenced = null;
  function soundSwitch() {
    var now = silenced();
    if (wasSilenced && !now && context() && !unlocked) { audio.resume().then(showSoundState, showSoundState); }
    if (wasSilenced !== now) { wasSilenced = now; showSoundState(); }
  }

  function update() {
    soundSwitch();
    schedule();
    hold();
    if (phone()) { phoneCues(); guide(); }
  }
  document.addEventListener("DOMContentLoaded", function () {
    if (document.querySelector("[data-sound-note]")) { context(); }  // the TV: is sound allowed?
    showSoundState();
    update();
  });
  // An answer's out-of-band parts are swapped one by one, #seat_version (the version they were drawn
  // at) last: they are looked at once all are in, before the page is painted.
  var queued = false;
  // The host page's own swap is looked at as soon as it is made, not after htmx's settling:
  // what it holds would show meanwhile.
  document.addEventListener("htmx:afterSwap", update);
  document.addEventListener("htmx:afterSettle", update);
  document.addEventListener("htmx:oobAfterSwap", function () {
    if (queued) { return; }
    queued = true;
    window.queueMicrotask(function () { queued = false; update(); });
  });
})();
