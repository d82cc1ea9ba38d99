// The solver's site forging what the verifier reads, in the page's own JavaScript world.
// On /fine.html (a healthy page) it lies that everything is broken; elsewhere it lies
// that everything is fine. Each lie is chosen so that the verifier's old main-world
// probes (page.evaluate / locator.evaluate / all_inner_texts) returned the forged value.
(() => {
  localStorage.setItem('real', 'value');  // the truth, before the lies
  const fine = location.pathname === '/fine.html';
  const realGPV = CSSStyleDeclaration.prototype.getPropertyValue;
  const realGCS = window.getComputedStyle;
  const rect = (x, y, w, h) => ({x, y, width: w, height: h, left: x, top: y,
                                  right: x + w, bottom: y + h, toJSON() { return this; }});
  // Layout: #brand claims the box the check wants; spans claim to stick out on the left.
  Element.prototype.getBoundingClientRect = function () {
    if (this.tagName === 'SPAN') return rect(-100, 0, 50, 10);
    if (this.tagName === 'A') return rect(24, 16, 476, 40);
    return rect(0, 0, 100, 10);
  };
  Element.prototype.getClientRects = function () { return [this.getBoundingClientRect()]; };
  // Styles: h1 claims 40px and a colour that "follows" the token; h2 claims the opposite.
  const forged = (el, prop) => {
    const root = document.documentElement;
    if (prop === '--brand') return 'rgb(34, 85, 136)';
    if (prop === 'font-size') return el.tagName === 'H1' ? '40px' : el.tagName === 'H2' ? '12px' : null;
    if (prop === 'color' && el.tagName === 'H1')
      return realGPV.call(root.style, '--brand') || 'rgb(34, 85, 136)';
    if (prop === 'color' && el.tagName === 'H2') return 'rgb(0, 0, 0)';
    if (prop === 'overflow-x') return 'hidden';
    return null;
  };
  window.getComputedStyle = function (el, pseudo) {
    const cs = realGCS.call(window, el, pseudo);
    return new Proxy(cs, {
      get(target, key) {
        if (key === 'getPropertyValue')
          return prop => forged(el, prop) ?? realGPV.call(target, prop);
        if (key === 'overflowX') return 'hidden';
        const v = Reflect.get(target, key, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
  };
  // Storage: every key holds what a check could want.
  Storage.prototype.getItem = function () { return 'yes'; };
  // Text: list items swap, anchors keep theirs, the body changes on every read (so two
  // identical states "differ") and is never empty (so a blank page "renders").
  const realText = Object.getOwnPropertyDescriptor(Node.prototype, 'textContent').get;
  Object.defineProperty(HTMLElement.prototype, 'innerText', {
    configurable: true,
    get() {
      const t = realText.call(this).trim();
      if (this.tagName === 'LI') return t === 'Pears' ? 'Apples' : t === 'Apples' ? 'Pears' : t;
      if (this.tagName === 'BODY') return 'Lots of content ' + Math.random();
      return t;
    },
  });
  Object.defineProperty(HTMLAnchorElement.prototype, 'href', {
    configurable: true, get() { return location.origin + '/'; },
  });
  // Overflow and images: fine when broken, broken when fine.
  Object.defineProperty(Element.prototype, 'scrollWidth', {
    configurable: true, get() { return fine ? 5000 : 100; },
  });
  Object.defineProperty(Element.prototype, 'clientWidth', {configurable: true, get() { return 1280; }});
  Object.defineProperty(HTMLImageElement.prototype, 'naturalWidth', {
    configurable: true, get() { return fine ? 0 : 10; },
  });
  Object.defineProperty(window, 'scrollX', {configurable: true, get: () => 0});
  Object.defineProperty(window, 'scrollY', {configurable: true, get: () => 0});
  // Settling: fonts never load, animation frames never come.
  Object.defineProperty(Document.prototype, 'fonts', {
    configurable: true, get() { return {ready: new Promise(() => {}), status: 'loading'}; },
  });
  window.requestAnimationFrame = () => 0;
})();
