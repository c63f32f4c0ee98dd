/* The portal's only script besides htmx. Pages carry no inline script or event handler: the
   Content-Security-Policy allows scripts from our static files (or with the page's nonce) and
   no eval, so behaviour is attached here, by data attributes, and survives htmx swaps. */
(function () {
  "use strict";

  // htmx without eval: no hx-on, hx-vars or js: values anywhere in the portal.
  htmx.config.allowEval = false;
  // Swapped fragments never run scripts; no inline <style> for indicators (portal.css has them).
  htmx.config.allowScriptTags = false;
  htmx.config.includeIndicatorStyles = false;

  // <select data-autosubmit>: the language switcher submits on change.
  document.addEventListener("change", function (event) {
    var target = event.target;
    if (target.matches("select[data-autosubmit]")) {
      target.form.requestSubmit();
    }
  });

  // <form data-reset-on-success>: cleared after htmx posted it successfully.
  document.addEventListener("htmx:afterRequest", function (event) {
    var form = event.detail.elt;
    if (event.detail.successful && form.matches && form.matches("form[data-reset-on-success]")) {
      form.reset();
    }
  });

  // Forms whose fields scroll inside their own panel (<form data-field-errors>): a field whose
  // error slot (#err-<name>) has a message is marked invalid and described by it, and an error
  // summary (<div data-error-summary>) links to each field at fault.
  function markInvalidFields() {
    document.querySelectorAll("form[data-field-errors] .field-error[id^='err-']").forEach(function (slot) {
      var field = document.getElementById("id_" + slot.id.slice(4));
      if (!field) return;
      var invalid = slot.textContent.trim() !== "";
      field.setAttribute("aria-invalid", invalid ? "true" : "false");
      var described = (field.getAttribute("aria-describedby") || "").split(/\s+/).filter(Boolean);
      if (invalid && described.indexOf(slot.id) < 0) described.push(slot.id);
      if (!invalid) described = described.filter(function (id) { return id !== slot.id; });
      if (described.length) field.setAttribute("aria-describedby", described.join(" "));
      else field.removeAttribute("aria-describedby");
    });
  }

  function summaryField(link) {
    return document.getElementById(decodeURIComponent(link.getAttribute("href").slice(1)));
  }

  function reveal(field) {
    field.scrollIntoView({block: "center"});
    field.focus({preventScroll: true});
  }

  // The first field at fault comes into view. Focus moves to it unless the user is typing in
  // the form: then only its panel scrolls, and a field already at fault keeps the focus.
  function showFirstError(root) {
    var link = root.querySelector("[data-error-summary] a[data-focus-field]");
    var field = link && summaryField(link);
    if (!field) return;
    var active = document.activeElement;
    if (field.form && active && active !== document.body && field.form.contains(active)) {
      if (active.getAttribute("aria-invalid") !== "true") field.scrollIntoView({block: "nearest"});
      return;
    }
    reveal(field);
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[data-focus-field]");
    var field = link && summaryField(link);
    if (!field) return;
    event.preventDefault();
    reveal(field);
  });

  document.addEventListener("DOMContentLoaded", function () {
    markInvalidFields();
    showFirstError(document);
  });

  document.addEventListener("htmx:afterSettle", function (event) {
    markInvalidFields();
    var target = event.detail.target;
    if (target && target.querySelector) showFirstError(target);
  });

  // A table (or drawing) wider than its box scrolls sideways: keyboard users must reach it by Tab
  // (axe: scrollable-region-focusable), and it is announced as a region named by its heading.
  function headingOf(wrap) {
    for (var el = wrap.previousElementSibling; el; el = el.previousElementSibling) {
      if (/^H[1-6]$/.test(el.tagName)) return el;
      var inner = el.querySelector && el.querySelector("h1, h2, h3, h4");
      if (inner) return inner;
    }
    var card = wrap.parentElement && wrap.parentElement.closest(".card, section, article");
    return card && card.querySelector("h1, h2, h3, h4");
  }

  // Boxes that scroll their wide content sideways (portal.css gives them overflow-x: auto).
  var SIDEWAYS_SCROLLERS = ".table-wrap, .drawing, .elevations, .tco-charts figure";

  function reachableTables() {
    document.querySelectorAll(SIDEWAYS_SCROLLERS).forEach(function (wrap) {
      var scrolls = wrap.scrollWidth > wrap.clientWidth + 1;
      if (scrolls && !wrap.hasAttribute("tabindex")) {
        var heading = headingOf(wrap);
        wrap.setAttribute("tabindex", "0");
        wrap.setAttribute("role", "region");
        if (heading) wrap.setAttribute("aria-label", heading.textContent.trim());
        wrap.setAttribute("data-scrolls", "");
      } else if (!scrolls && wrap.hasAttribute("data-scrolls")) {
        ["tabindex", "role", "aria-label", "data-scrolls"].forEach(function (name) {
          wrap.removeAttribute(name);
        });
      }
    });
  }

  var resizing = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizing);
    resizing = setTimeout(reachableTables, 100);
  });
  document.addEventListener("DOMContentLoaded", reachableTables);
  document.addEventListener("htmx:afterSettle", reachableTables);

  // Design page: a rack power preset fills the budget and the select returns to "keep", so the
  // number is the one input the form sends (the form's own change trigger designs again).
  document.addEventListener("change", function (event) {
    var select = event.target;
    if (select.id !== "id_rack_power_preset" || !select.value) return;
    select.form.elements.rack_power_kw.value = select.value;
    select.value = "";
  }, true);

  // A new share link (proposal panel): its read-only field selects itself when focused, and
  // <button data-copy="<field id>"> (hidden until this script runs) copies it to the clipboard;
  // without the clipboard API (an http page) the field is left selected for Ctrl+C.
  document.addEventListener("focusin", function (event) {
    if (event.target.matches && event.target.matches("input[data-select-on-focus]")) {
      event.target.select();
    }
  });

  function copyButtons(root) {
    (root || document).querySelectorAll("button[data-copy][hidden]").forEach(function (button) {
      button.hidden = false;
    });
  }
  document.addEventListener("DOMContentLoaded", function () { copyButtons(); });
  document.addEventListener("htmx:afterSettle", function (event) { copyButtons(event.detail.elt); });

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button[data-copy]");
    if (!button) return;
    var field = document.getElementById(button.getAttribute("data-copy"));
    if (!field) return;
    var done = button.parentElement.querySelector("[data-copied]");
    field.focus();
    field.select();
    var shown = function () { if (done) done.hidden = false; };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(shown, function () {});
    } else if (document.execCommand && document.execCommand("copy")) {
      shown();
    }
  });

  // TCO page: a preset fills the workload fields; the form's own change trigger recomputes.
  document.addEventListener("change", function (event) {
    var select = event.target;
    if (select.id !== "id_preset") return;
    var presets = document.getElementById("tco-presets");
    var workload = presets && JSON.parse(presets.textContent)[select.value];
    if (!workload) return;
    ["params_billion", "active_params_billion", "tokens_per_node_per_step", "sharding", "overlap",
     "mfu", "cross_node_bytes_per_token"].forEach(function (name) {
      select.form.elements[name].value = name in workload ? workload[name] : "";
    });
  });
})();
