// Booking step 1: load the free slots and let the patient pick one.
(function () {
  var grid = document.getElementById("slots");
  var next = document.getElementById("continue");

  function choose(button) {
    grid.querySelectorAll(".slot").forEach(function (b) {
      b.setAttribute("aria-pressed", String(b === button));
    });
    next.href = "/book/confirm?time=" + encodeURIComponent(button.dataset.slot);
    next.removeAttribute("aria-disabled");
  }

  fetch("/api/slots")
    .then(function (r) { return r.json(); })
    .then(function (slots) {
      slots.forEach(function (slot) {
        var b = document.createElement("button");
        b.type = "button";
        b.className = "slot";
        b.dataset.slot = slot.id;
        b.setAttribute("aria-pressed", "false");
        b.innerHTML = '<span class="slot-day">' + slot.day + '</span> <span class="slot-time">' + slot.time + "</span>";
        b.addEventListener("click", function () { choose(b); });
        grid.appendChild(b);
      });
    });
})();
