// The TV never scrolls and never cuts anything off (issue 36): each of its boxes (the felt or
// the demonstration's, the players and their payments, the last hands) lays out what it holds at
// its own size; when that is more than the box's room, it first lays it out denser (the box's
// data-fit="dense": tighter lines and gaps, which the CSS says box by box), and only then scales
// it down (CSS zoom, so it reflows in the width it gains) by the largest factor that lets it
// fit. Twelve players' rows and payments, or a finale's ranking, story and chart, keep a type
// read from a sofa (tests/browser/test_tv_fits.py: 20 px as drawn) instead of running off the
// screen; a quiet hand keeps its full size.
(function () {
  "use strict";

  var BOXES = "body.tv .tv-main > .felt, body.tv .demo__felt > .felt, body.tv .tv-side > .players, body.tv .tv-side > .recent";
  var SMALLEST = 0.35; // no smaller than this: past it nothing is read from the sofa anyway

  function parts(box) {
    // The join corner keeps its size: a QR code scaled down is read by fewer phones.
    return Array.prototype.filter.call(box.children, function (el) {
      return !el.classList.contains("join-corner");
    });
  }

  function fits(box) {
    return box.scrollHeight <= box.clientHeight && box.scrollWidth <= box.clientWidth;
  }

  function zoom(box, factor) {
    parts(box).forEach(function (el) { el.style.zoom = factor === 1 ? "" : String(factor); });
  }

  function fit(box) {
    // An attribute the observer below does not watch: fitting does not ask for a fit again.
    delete box.dataset.fit;
    zoom(box, 1);
    if (fits(box)) { return; }
    box.dataset.fit = "dense";
    // Held to a pixel to spare, as a zoom is (below): sizes are rounded, and a deck's seal laid
    // out to the felt's last pixel once ended past its edge.
    if (box.scrollHeight < box.clientHeight && box.scrollWidth < box.clientWidth) { return; }
    var low = SMALLEST, high = 1;
    for (var i = 0; i < 7; i++) { // to within 1%
      var mid = (low + high) / 2;
      zoom(box, mid);
      if (fits(box)) { low = mid; } else { high = mid; }
    }
    zoom(box, low * 0.99); // a pixel's margin: the sizes it measured are rounded
  }

  var pending = false;
  function fitAll() {
    pending = false;
    var boxes = document.querySelectorAll(BOXES);
    // Twice: a box scaled down leaves room to a neighbour that shares the side's height.
    for (var pass = 0; pass < 2; pass++) { boxes.forEach(fit); }
  }
  function soon() {
    if (!pending) { pending = true; requestAnimationFrame(fitAll); }
  }

  document.addEventListener("DOMContentLoaded", function () {
    var grid = document.querySelector(".tv-grid");
    if (!grid) { return; }
    fitAll();
    // Whatever the stream swaps in or shows, wherever: the boxes fit again, in a frame. A class
    // too: a reveal's verdicts and payments (show.js's .is-shown) and a held region given back
    // (.is-held) appear through one, and a felt fitted before its verdicts showed ran them, and
    // the seal under them, past its edge.
    new MutationObserver(soon).observe(grid, {
      childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: ["hidden", "class"],
    });
    window.addEventListener("resize", soon);
    if (document.fonts) { document.fonts.ready.then(soon); }
  });
})();
