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
