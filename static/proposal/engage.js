/* Reading time on the customer's proposal page (issue 15): which part of the proposal is on
   screen, for how long, while the page is visible and the reader active. The running totals go
   to the link's own /beacon with the open id the server issued for this page view; nothing is
   stored in the browser, no cookie is set. Without sendBeacon or IntersectionObserver nothing is
   sent, and the open simply stays "no script ran". */
(function () {
  "use strict";
  var script = document.currentScript;
  var url = script && script.getAttribute("data-beacon");
  var openId = script && script.getAttribute("data-open");
  if (!url || !openId || !navigator.sendBeacon || !("IntersectionObserver" in window)) {
    return;
  }

  var TICK_MS = 1000;
  var LONGEST_TICK_MS = 5000; // a throttled or suspended timer does not count as reading
  var IDLE_MS = 120000; // no scroll, key, pointer or touch this long: not reading any more
  var CONFIRM_SECONDS = 2.2; // the server calls an open real from 2 s: say so soon after
  var EVERY_SECONDS = 60; // running totals now and then, in case the last beacon is lost

  var seconds = {};
  var total = 0;
  var sentTotal = -1;
  var confirmed = false;
  var lastTick = performance.now();
  var lastActive = lastTick;
  var inView = new Set();

  var observer = new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) {
      if (entry.isIntersecting) { inView.add(entry.target); } else { inView.delete(entry.target); }
    });
  });
  document.querySelectorAll("[data-section]").forEach(function (element) {
    observer.observe(element);
  });

  // The section with the most of its height on screen is the one being read.
  function current() {
    var shown = {};
    var best = null;
    var height = window.innerHeight || document.documentElement.clientHeight;
    inView.forEach(function (element) {
      var box = element.getBoundingClientRect();
      var visible = Math.min(box.bottom, height) - Math.max(box.top, 0);
      if (visible <= 0) { return; }
      var name = element.getAttribute("data-section");
      shown[name] = (shown[name] || 0) + visible;
      if (best === null || shown[name] > shown[best]) { best = name; }
    });
    return best;
  }

  function send() {
    if (total === sentTotal) { return; }
    var rounded = {};
    Object.keys(seconds).forEach(function (name) {
      rounded[name] = Math.round(seconds[name] * 10) / 10;
    });
    navigator.sendBeacon(url, JSON.stringify({open: openId, sections: rounded}));
    sentTotal = total;
  }

  // `leaving`: the page is being hidden; the time up to now was still on screen.
  function tick(leaving) {
    var now = performance.now();
    var elapsed = Math.min(now - lastTick, LONGEST_TICK_MS) / 1000;
    lastTick = now;
    var hidden = document.visibilityState !== "visible" && !leaving;
    if (hidden || now - lastActive > IDLE_MS) { return; }
    var name = current();
    if (name === null) { return; }
    seconds[name] = (seconds[name] || 0) + elapsed;
    total += elapsed;
    if (!confirmed && total >= CONFIRM_SECONDS) {
      confirmed = true;
      send();
    } else if (total - sentTotal >= EVERY_SECONDS) {
      send();
    }
  }

  function active() { lastActive = performance.now(); }
  ["scroll", "keydown", "pointerdown", "pointermove", "touchstart", "wheel"].forEach(
    function (type) { window.addEventListener(type, active, {passive: true}); });

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") {
      tick(true);
      send(); // the first one tells that a script ran, even after no reading at all
    } else {
      lastTick = performance.now(); // hidden time is not reading time
      active();
    }
  });
  window.addEventListener("pagehide", function () { tick(true); send(); });
  window.setInterval(tick, TICK_MS);
}());
