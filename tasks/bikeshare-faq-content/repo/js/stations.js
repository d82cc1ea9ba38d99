// Home station: remembered in the browser and shown under the list.
(function () {
  var KEY = "riverbend.homeStation";
  var note = document.getElementById("home-station");

  function render() {
    var id = localStorage.getItem(KEY);
    var item = id && document.querySelector('[data-station="' + id + '"]');
    note.textContent = item
      ? "Your home station: " + item.querySelector("h2").textContent
      : "No home station set yet.";
  }

  document.querySelectorAll(".stations button").forEach(function (button) {
    button.addEventListener("click", function () {
      localStorage.setItem(KEY, button.closest("li").dataset.station);
      render();
    });
  });
  render();
})();
