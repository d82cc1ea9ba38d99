// Booking step 1: the patient picks one of the slots, then continues to confirm it.
(function () {
  var grid = document.getElementById("slots");
  var next = document.getElementById("continue");
  var buttons = grid.querySelectorAll(".slot");

  function choose(button) {
    buttons.forEach(function (b) {
      b.setAttribute("aria-pressed", String(b === button));
    });
    next.href = "/book/confirm?time=" + encodeURIComponent(button.dataset.slot);
    next.removeAttribute("aria-disabled");
  }

  buttons.forEach(function (b) {
    b.addEventListener("click", function () { choose(b); });
  });
})();
