// Category filter: the category lives in the URL (?category=garden) so a filtered
// view can be shared and survives a reload.
(function () {
  var params = new URLSearchParams(window.location.search);
  var category = params.get("category");
  var cards = document.querySelectorAll(".tool-card");
  var shown = 0;
  cards.forEach(function (card) {
    var match = !category || card.dataset.category === category;
    card.hidden = !match;
    if (match) shown += 1;
  });
  document.querySelectorAll(".filters a").forEach(function (link) {
    var linkCategory = new URL(link.href).searchParams.get("category");
    if (linkCategory === category) link.setAttribute("aria-current", "true");
  });
  document.querySelector(".empty-filter").hidden = shown > 0;
})();
