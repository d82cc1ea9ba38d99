'use strict';

// The hire basket. It is kept in this browser's localStorage under one key, as a list of
// lines { id, name, price, qty }, and loaded on every page: the header shows how many craft
// are in it, the Craft to hire page adds to it and the Basket page lists and edits it.
(function () {
  var KEY = 'tarntide.basket';

  function load() {
    try {
      var lines = JSON.parse(localStorage.getItem(KEY) || '[]');
      return Array.isArray(lines) ? lines : [];
    } catch (err) {
      return [];
    }
  }

  function save(lines) {
    localStorage.setItem(KEY, lines);
  }

  var basket = load();

  function find(id) {
    for (var i = 0; i < basket.length; i += 1) {
      if (basket[i].id === id) return basket[i];
    }
    return null;
  }

  function count() {
    return basket.length;
  }

  function escapeHtml(value) {
    return String(value).replace(/[&<>"']/g, function (ch) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[ch];
    });
  }

  function renderCount() {
    var nodes = document.querySelectorAll('[data-basket-count]');
    for (var i = 0; i < nodes.length; i += 1) nodes[i].textContent = String(count());
  }

  function renderBasket() {
    var lines = document.querySelector('[data-basket-lines]');
    if (!lines) return;
    document.querySelector('[data-basket-empty]').hidden = basket.length > 0;
    document.querySelector('[data-basket]').hidden = basket.length === 0;
    lines.innerHTML = basket
      .map(function (line) {
        var name = escapeHtml(line.name);
        var id = escapeHtml(line.id);
        return (
          '<tr><th scope="row">' + name + '</th>' +
          '<td><span class="stepper">' +
          '<button type="button" data-less="' + id + '" aria-label="One fewer ' + name + '">\u2212</button>' +
          '<output>' + line.qty + '</output>' +
          '<button type="button" data-more="' + id + '" aria-label="One more ' + name + '">+</button>' +
          '</span></td>' +
          '<td>\u00a3' + line.price * line.qty + '</td>' +
          '<td><button type="button" class="remove" data-remove="' + id + '">Remove <span class="sr-only">' + name + '</span></button></td></tr>'
        );
      })
      .join('');
    var craft = 0;
    var total = 0;
    basket.forEach(function (line) {
      craft += line.qty;
      total += line.qty * line.price;
    });
    document.querySelector('[data-basket-summary]').textContent =
      'In your basket: ' + craft + ' craft. Half-day total: \u00a3' + total;
  }

  function add(item) {
    var line = find(item.id);
    if (line) {
      line.qty += 1;
    } else {
      basket.push({ id: item.id, name: item.name, price: Number(item.price), qty: 1 });
    }
    save(basket);
    renderCount();
  }

  function change(id, by) {
    var line = find(id);
    if (!line) return;
    line.qty += by;
    if (line.qty < 1) {
      basket = basket.filter(function (l) { return l.id !== id; });
    }
    renderCount();
    renderBasket();
  }

  function remove(id) {
    basket = basket.filter(function (l) { return l.id !== id; });
    renderCount();
    renderBasket();
  }

  function init() {
    var buttons = document.querySelectorAll('button.add');
    for (var i = 0; i < buttons.length; i += 1) {
      (function (button) {
        button.addEventListener('click', function () {
          add(button.dataset);
        });
      })(buttons[i]);
    }
    var lines = document.querySelector('[data-basket-lines]');
    if (lines) {
      lines.addEventListener('click', function (event) {
        var target = event.target.closest('button');
        if (!target) return;
        if (target.dataset.more) change(target.dataset.more, 1);
        else if (target.dataset.less) change(target.dataset.less, -1);
        else if (target.dataset.remove) remove(target.dataset.remove);
      });
    }
    renderCount();
    renderBasket();
  }

  document.addEventListener('DOMContentLoaded', init);
  // Run straight away as well, in case the page has already loaded.
  init();
})();
