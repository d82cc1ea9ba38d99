// Booking step 2: show the chosen slot and take the patient's details.
(function () {
  var summary = document.getElementById("summary");
  var id = new URLSearchParams(location.search).get("slot");

  fetch("/api/slots")
    .then(function (r) { return r.json(); })
    .then(function (slots) {
      var slot = slots.filter(function (s) { return s.id === id; })[0];
      summary.textContent = slot
        ? "Your appointment: " + slot.day + " at " + slot.time
        : "No time selected. Please choose a time first.";
    });

  document.getElementById("confirm-form").addEventListener("submit", function (e) {
    e.preventDefault();
    this.hidden = true;
    document.getElementById("done").hidden = false;
  });
})();
