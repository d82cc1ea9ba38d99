// Booking step 2: take the patient's details for the slot shown above.
(function () {
  document.getElementById("confirm-form").addEventListener("submit", function (e) {
    e.preventDefault();
    this.hidden = true;
    document.getElementById("done").hidden = false;
  });
})();
