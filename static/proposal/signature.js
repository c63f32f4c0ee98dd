/* The share page's signature box (#15): draw with a mouse, a pen or a finger (pointer events);
   the drawing goes to the form as a PNG data: URL. Without this script the typed signature
   works on its own. Also sends the browser's IANA time zone for the certificate. */
(function () {
  "use strict";
  var box = document.getElementById("signature");
  if (!box) { return; }
  var form = box.closest("form");
  var canvas = document.getElementById("signature-pad");
  var data = document.getElementById("id_signature_data");
  var zone = document.getElementById("id_signer_timezone");
  var error = document.getElementById("signature-error");
  var drawn = document.getElementById("id_signature_drawn");
  var typed = document.getElementById("id_signature_typed");
  var typedPart = box.querySelector(".signature-typed");
  var drawnPart = box.querySelector(".signature-drawn");
  var ctx = canvas.getContext("2d");
  var inked = false, last = null;
  // A drawing the server sent back with the form (a signing code e-mailed, a fault elsewhere):
  // shown again in the box, so the signer does not draw twice.
  var kept = data.value;
  var MAX_W = 1600, MAX_H = 800;  // the server's limits

  try { zone.value = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { /* none */ }

  function size() {
    // Drawing pixels at the screen's density (capped), the box as wide as the form.
    var ratio = Math.min(window.devicePixelRatio || 1, 2);
    var rect = canvas.getBoundingClientRect();
    var w = Math.min(Math.round(rect.width * ratio), MAX_W);
    var h = Math.min(Math.round(rect.height * ratio), MAX_H);
    if (w < 1 || h < 1 || (canvas.width === w && canvas.height === h)) { return; }
    canvas.width = w; canvas.height = h;
    ctx.setTransform(w / rect.width, 0, 0, h / rect.height, 0, 0);
    ctx.lineWidth = 2.2; ctx.lineCap = "round"; ctx.lineJoin = "round"; ctx.strokeStyle = "#14213d";
    clear();
    restore(rect);
  }

  function restore(rect) {
    if (!kept) { return; }
    var image = new Image();
    image.onload = function () {
      ctx.drawImage(image, 0, 0, rect.width, rect.height);
      inked = true; data.value = kept;
    };
    image.src = kept;
  }

  function clear() {
    ctx.save(); ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, canvas.width, canvas.height); ctx.restore();
    inked = false; data.value = "";
  }

  function point(event) {
    var rect = canvas.getBoundingClientRect();
    return { x: event.clientX - rect.left, y: event.clientY - rect.top };
  }

  function show() {
    var drawing = drawn.checked;
    drawnPart.hidden = !drawing;
    typedPart.hidden = drawing;
    error.hidden = true;
    if (drawing) { size(); }
  }

  canvas.addEventListener("pointerdown", function (event) {
    event.preventDefault();
    canvas.setPointerCapture(event.pointerId);
    last = point(event);
    ctx.beginPath(); ctx.arc(last.x, last.y, ctx.lineWidth / 2, 0, Math.PI * 2);
    ctx.fillStyle = ctx.strokeStyle; ctx.fill();
    inked = true; error.hidden = true;
  });
  canvas.addEventListener("pointermove", function (event) {
    if (last === null) { return; }
    event.preventDefault();
    var p = point(event);
    ctx.beginPath(); ctx.moveTo(last.x, last.y); ctx.lineTo(p.x, p.y); ctx.stroke();
    last = p;
  });
  function end() {
    if (last === null) { return; }
    last = null;
    data.value = inked ? canvas.toDataURL("image/png") : "";
    kept = data.value;
  }
  canvas.addEventListener("pointerup", end);
  canvas.addEventListener("pointercancel", end);
  canvas.addEventListener("lostpointercapture", end);

  document.getElementById("signature-clear").addEventListener("click", function () {
    kept = ""; clear();
  });
  drawn.addEventListener("change", show);
  typed.addEventListener("change", show);
  window.addEventListener("resize", function () { if (drawn.checked && !inked) { size(); } });
  // The box is inside a <details>: it has a size only once opened.
  var details = box.closest("details");
  if (details) { details.addEventListener("toggle", function () { if (details.open) { show(); } }); }

  form.addEventListener("submit", function (event) {
    if (drawn.checked && !inked) {
      event.preventDefault();
      error.textContent = box.getAttribute("data-empty");
      error.hidden = false;
      return;
    }
    if (!drawn.checked) { data.value = ""; }
  });

  // The typed signature as it will be stored and printed: drawn by the server (the same code
  // as the acceptance's), asked for a moment after the typing stops.
  var preview = document.getElementById("signature-preview");
  var signerName = document.getElementById("id_name");
  var typedText = document.getElementById("id_signature_text");
  var waiting = null;
  function previewSoon() {
    clearTimeout(waiting);
    waiting = setTimeout(function () {
      var text = (typedText.value.trim() || signerName.value.trim()).replace(/\s+/g, " ");
      if (!text || text.length > 100) { preview.hidden = true; return; }
      preview.src = preview.getAttribute("data-src") + "?text=" + encodeURIComponent(text);
      preview.hidden = false;
    }, 300);
  }
  if (preview && signerName && typedText) {
    typedText.addEventListener("input", previewSoon);
    signerName.addEventListener("input", previewSoon);
    previewSoon();
  }

  box.querySelector(".signature-kinds").hidden = false;
  // Typed (the name, as Odoo's "auto" and DocuSign's default) unless drawing was chosen.
  if (box.getAttribute("data-chosen") === "drawn") { drawn.checked = true; }
  show();
})();
