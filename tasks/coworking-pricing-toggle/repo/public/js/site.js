// Site-wide behaviour: the preferences notice in the footer.
(function () {
  var KEY = 'loomworks.notice';
  var notice = document.querySelector('[data-notice]');
  if (!notice) return;
  if (localStorage.getItem(KEY) !== 'dismissed') notice.hidden = false;
  notice.querySelector('[data-notice-dismiss]').addEventListener('click', function () {
    localStorage.setItem(KEY, 'dismissed');
    notice.hidden = true;
  });
})();
