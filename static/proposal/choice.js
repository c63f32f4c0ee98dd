/* The customer's choice on the share page (#15 item 2): on each change, ask the server for the
   totals of the chosen alternative and optional items, and show the figures it sends. The
   browser computes nothing: the server prices the choice exactly as the quote is priced.
   Without this script the "Recalculate" button asks for the same page with the totals. */
(function () {
  "use strict";
  var box = document.getElementById("choice");
  var form = document.getElementById("accept-form");
  if (!box || !form || !window.fetch || !window.URLSearchParams) return;
  var url = box.getAttribute("data-price-url");
  var error = box.querySelector(".choice-error");
  var recalculate = box.querySelector("button.recalculate");
  var asked = 0;

  function query() {
    var params = new URLSearchParams();
    params.set("revision", form.elements.revision.value);
    var alternative = document.querySelector("input[form=accept-form][name=alternative]:checked");
    params.set("alternative", alternative ? alternative.value : "");
    document.querySelectorAll("input[form=accept-form][name=optional]:checked").forEach(
      function (box) { params.append("optional", box.value); });
    return params.toString();
  }

  function show(figures) {
    Object.keys(figures).forEach(function (name) {
      document.querySelectorAll("[data-figure=" + name + "]").forEach(function (cell) {
        cell.textContent = figures[name];
      });
    });
  }

  function update() {
    var mine = ++asked;
    box.setAttribute("aria-busy", "true");
    fetch(url + "&" + query(), {headers: {"Accept": "application/json"}, credentials: "omit"})
      .then(function (response) {
        return response.json().then(function (data) { return {ok: response.ok, data: data}; });
      })
      .then(function (answer) {
        if (mine !== asked) return;  // a later change is on its way: show only the last
        if (answer.ok) {
          show(answer.data.figures);
          error.hidden = true;
          box.setAttribute("data-total", answer.data.amounts.total);
        } else {
          error.textContent = answer.data.error || "";
          error.hidden = false;
        }
      })
      .catch(function () { if (mine === asked) recalculate.hidden = false; })
      .then(function () { if (mine === asked) box.removeAttribute("aria-busy"); });
  }

  // Each configuration's spares kit is offered with it only: picking an option shows its kit
  // and hides (and leaves out) the others', before the totals are asked for.
  function kitsFollow(event) {
    if (!event.target || event.target.name !== "alternative") return;
    var chosen = event.target.value;
    // A service priced per node is sized for the option picked: its quantity and amount in
    // that configuration show, the others' hide.
    box.querySelectorAll("[data-priced-with]").forEach(function (figure) {
      figure.hidden = figure.getAttribute("data-priced-with") !== chosen;
    });
    box.querySelectorAll("label[data-kit-of]").forEach(function (label) {
      var other = label.getAttribute("data-kit-of") !== chosen;
      var input = label.querySelector("input");
      label.hidden = other;
      if (input) {
        input.disabled = other;
        if (other) input.checked = false;
      }
    });
    // The fold counts what can be ticked now; every language's wording of it holds the number
    // once ("N offered", "可选 N 项"), so the number alone changes.
    var count = box.querySelector("[data-offered-count]");
    if (count) {
      var offered = box.querySelectorAll(".choice-optional label.pick:not([hidden])").length;
      count.textContent = count.textContent.replace(/\d+/, String(offered));
    }
  }

  recalculate.hidden = true;  // the figures follow each change
  box.addEventListener("change", function (event) {
    kitsFollow(event);
    update();
  });
})();
