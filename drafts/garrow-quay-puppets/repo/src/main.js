// Marks the page the visitor is on in the main menu (every page loads this script).
const here = location.pathname === '/' ? '/index.html' : location.pathname;
for (const link of document.querySelectorAll('nav[aria-label="Main"] a')) {
  const target = new URL(link.href).pathname;
  if (target === here || (target === '/' && here === '/index.html')) {
    link.setAttribute('aria-current', 'page');
  }
}
