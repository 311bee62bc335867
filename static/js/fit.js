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
  var ALTERNATIVE = "body.tv .felt--mb"; // the boxes with a second dense layout to try
  // The boxes whose dense layout has a last resort, taken when it still overflows: the last
  // hands, whose join corner (never scaled) then gives up its address and the code to watch.
  var LAST_RESORT = "body.tv .tv-side > .recent";

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
    parts(box).forEach(function (el) {
      el.style.zoom = factor === 1 ? "" : String(factor);
      if (!el.getAttribute("style")) { el.removeAttribute("style"); } // as the server drew it
    });
  }

  function fit(box) {
    // An attribute the observer below does not watch: fitting does not ask for a fit again.
    delete box.dataset.fit;
    delete box.dataset.fitAlt;
    zoom(box, 1);
    if (fits(box)) { return; }
    box.dataset.fit = "dense";
    // Held to a pixel to spare, as a zoom is (below): sizes are rounded, and a deck's seal laid
    // out to the felt's last pixel once ended past its edge.
    if (box.scrollHeight < box.clientHeight && box.scrollWidth < box.clientWidth) { return; }
    if (box.matches(LAST_RESORT)) {
      box.dataset.fitAlt = "";
      if (fits(box)) { return; }
    }
    var best = largest(box);
    // A box with a second way to lay out its dense self (the CSS's [data-fit-alt]) takes
    // whichever lets it keep the larger size: Monte Bank's payments beside the layout when its
    // bets stack tall, under it when they do not.
    if (box.matches(ALTERNATIVE)) {
      box.dataset.fitAlt = "";
      var other = largest(box);
      if (other > best) { best = other; } else { delete box.dataset.fitAlt; }
    }
    zoom(box, best * 0.99); // a pixel's margin: the sizes it measured are rounded
  }

  // The largest zoom, to within 1%, at which the box holds what it holds as it is laid out now.
  function largest(box) {
    var low = SMALLEST, high = 1;
    zoom(box, 1);
    if (fits(box)) { return 1; }
    for (var i = 0; i < 7; i++) {
      var mid = (low + high) / 2;
      zoom(box, mid);
      if (fits(box)) { low = mid; } else { high = mid; }
    }
    return low;
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

  // What fitting set (the box's data-fit and data-fit-alt, its parts' zoom) is kept when the
  // stream merges its region anew. Idiomorph takes away every attribute the server's HTML does
  // not have, and an update that changes no word or element of the TV (a new version that the
  // TV shows as it was: only a data-rv or a data-scheduled changes) leaves the observer below
  // nothing it watches: the boxes were given back at their full size, unfitted, until the next
  // change (issue 36: a two-heap felt's 33-card pile, fitted, ran the deck's seal 8 px past
  // the felt's edge after such an update). What the update does change is fitted again.
  function fitted(name, node) {
    if (name === "style") { return !!node.parentElement && node.parentElement.matches(BOXES); }
    return (name === "data-fit" || name === "data-fit-alt") && node.matches(BOXES);
  }
  if (window.Idiomorph) {
    var callbacks = window.Idiomorph.defaults.callbacks, before = callbacks.beforeAttributeUpdated;
    callbacks.beforeAttributeUpdated = function (name, node, how) {
      if (how === "remove" && node.nodeType === 1 && fitted(name, node)) { return false; }
      return before ? before(name, node, how) : true;
    };
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
    // An image takes its size when it has loaded (the end of the night's chart), which no
    // mutation says: a German finale fitted before its chart came ran its story off the felt.
    grid.addEventListener("load", soon, true);
    window.addEventListener("resize", soon);
    if (document.fonts) { document.fonts.ready.then(soon); }
  });
})();
