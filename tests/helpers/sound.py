"""What the browser tests put in place of a browser's sound."""

# A browser that will not play sound before a click (as most do on a page nobody touched).
NO_SOUND_BEFORE_A_CLICK = """
let allowed = false;
Object.defineProperty(BaseAudioContext.prototype, "state", {
  configurable: true, get() { return allowed ? "running" : "suspended"; },
});
AudioContext.prototype.resume = function () {
  allowed = true;
  this.dispatchEvent(new Event("statechange"));
  return Promise.resolve();
};
"""
