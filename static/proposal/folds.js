/* The bill of materials on a wide screen: every section open, as the page was before the folds
   (#27). A phone keeps them folded, their counts and subtotals in view; without this script a
   wide screen does too, and each fold opens with a tap or the keyboard. */
(function () {
  "use strict";
  if (!window.matchMedia || !window.matchMedia("(min-width: 761px)").matches) return;
  document.querySelectorAll("details.fold").forEach(function (group) {
    group.open = true;
  });
})();
