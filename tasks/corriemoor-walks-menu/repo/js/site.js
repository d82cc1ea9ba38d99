// Corriemoor Walks: the phone menu.
var menuButton = document.querySelector('.menu-button');
var menu = document.getElementById('site-menu');
menuButton.addEventListener('click', function () {
  var open = menuButton.getAttribute('aria-expanded') === 'true';
  menuButton.setAttribute('aria-expanded', String(!open));
  menu.classList.toggle('open', !open);
});
