// The verify page: hash the revealed salt and deck order here, in the player's own browser, and
// compare with the seal shown before the cut. Web Crypto where the page is a secure context;
// on a plain-http LAN address browsers hide crypto.subtle, so js-sha256 (vendored) does it.
(function () {
  "use strict";

  function hex(buffer) {
    return Array.from(new Uint8Array(buffer)).map(function (b) {
      return b.toString(16).padStart(2, "0");
    }).join("");
  }

  function sha256(text) {
    if (window.crypto && window.crypto.subtle) {
      return window.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)).then(hex);
    }
    return Promise.resolve(window.sha256(text));
  }

  document.addEventListener("DOMContentLoaded", function () {
    var computed = document.getElementById("computed");
    if (!computed) { return; }
    var salt = document.getElementById("salt").textContent.trim();
    var codes = Array.from(document.querySelectorAll("#order [data-code]")).map(function (li) {
      return li.dataset.code;
    });
    var expected = document.getElementById("commitment").textContent.trim();
    sha256([salt].concat(codes).join(" ")).then(function (digest) {
      computed.textContent = digest;
      var ok = digest === expected;
      var verdict = document.getElementById("verdict");
      verdict.textContent = ok ? computed.dataset.match : computed.dataset.mismatch;
      verdict.classList.add(ok ? "is-win" : "is-loss");
      document.body.dataset.verified = ok ? "yes" : "no";
    });
  });
})();
