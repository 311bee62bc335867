// The TV's party: each reaction placed beside its player's line, and the music under the lobby
// and the standings between rounds (off until the host turns it on; never where the host
// turned the TV's sound off, nor before the TV's browser lets it play).
(function () {
  "use strict";

  function place() {
    var side = document.querySelector(".tv-side");
    if (!side) { return; }
    var top = side.getBoundingClientRect().top;
    document.querySelectorAll(".reaction:not([data-placed])").forEach(function (el) {
      var row = document.getElementById("player-" + el.dataset.seat);
      el.dataset.placed = "1";
      if (row) { el.style.top = Math.max(0, row.getBoundingClientRect().top - top - 8) + "px"; }
    });
  }

  var music = null;
  function wanted() {
    var party = document.getElementById("party");
    if (!party || !("musicOn" in party.dataset) || document.querySelector("[data-tv-silent]")) { return false; }
    if (party.dataset.music === "lobby") { return true; }
    var board = party.querySelector(".board.is-shown");
    if (!board || !board.getAnimations) { return false; }
    return board.getAnimations().some(function (a) { return a.playState === "running"; });
  }
  function tune() {
    var want = wanted();
    if (want && !music) {
      music = new Audio(document.body.dataset.music);
      music.loop = true;
      music.volume = 0.3;
    }
    if (!music) { return; }
    if (want && music.paused) {
      music.play().catch(function () { /* the browser waits for a click: show.js asks for it */ });
    } else if (!want && !music.paused) {
      music.pause();
    }
  }

  function update() { place(); tune(); }
  document.addEventListener("DOMContentLoaded", update);
  document.addEventListener("htmx:oobAfterSwap", update);
  document.addEventListener("htmx:afterSettle", update);
  // Once a click has let the page play sound, the music may start.
  document.addEventListener("click", tune);
  window.setInterval(tune, 1000);
})();
