// Run in the page by Browser.Visit: links, ids, accessibility basics and
// the colours of every element that shows text, from the live DOM.
(() => {
  const desc = (el) => {
    let s = el.tagName.toLowerCase();
    if (el.id) s += '#' + el.id;
    const c = el.getAttribute('class');
    if (c && c.trim()) s += '.' + c.trim().split(/\s+/).join('.');
    return s;
  };
  const a11y = [];
  document.querySelectorAll('img').forEach((el) => {
    if (!el.hasAttribute('alt')) a11y.push({Kind: 'img-alt', Detail: desc(el) + ' (' + el.getAttribute('src') + ') has no alt'});
  });
  // An svg needs a name: a <title> child with text, aria-label or
  // aria-labelledby; an icon hidden from assistive technology
  // (aria-hidden="true", beside its word) needs none.
  document.querySelectorAll('svg').forEach((el) => {
    if (el.getAttribute('aria-hidden') === 'true') return;
    const title = Array.from(el.children).some((c) => c.tagName.toLowerCase() === 'title' && c.textContent.trim() !== '');
    const label = (el.getAttribute('aria-label') || '').trim() !== '' || (el.getAttribute('aria-labelledby') || '').trim() !== '';
    if (!title && !label) a11y.push({Kind: 'svg-title', Detail: desc(el) + ' has no <title> child nor aria-label'});
  });
  document.querySelectorAll('input, select, textarea').forEach((el) => {
    const type = (el.getAttribute('type') || '').toLowerCase();
    if (type === 'hidden') return;
    if (['submit', 'reset', 'button'].includes(type) && (el.value || '').trim() !== '') return;
    const labelled = (el.labels && el.labels.length > 0) ||
      (el.getAttribute('aria-label') || '').trim() !== '' ||
      (el.getAttribute('aria-labelledby') || '').trim() !== '';
    if (!labelled) a11y.push({Kind: 'label', Detail: desc(el) + ' has no label'});
  });
  // Colours as [r, g, b, a] (0-255, alpha 0-1) from computed styles:
  // "rgb(…)", "rgba(…)" or "color(srgb r g b / a)".
  const parse = (s) => {
    const n = (s.match(/-?[\d.]+(e-?\d+)?/g) || []).map(Number);
    if (s.startsWith('color(')) return [n[0] * 255, n[1] * 255, n[2] * 255, n.length > 3 ? n[3] : 1];
    return [n[0], n[1], n[2], n.length > 3 ? n[3] : 1];
  };
  const over = (top, under) => {
    const a = top[3] + under[3] * (1 - top[3]);
    if (a === 0) return [0, 0, 0, 0];
    const ch = (i) => (top[i] * top[3] + under[i] * under[3] * (1 - top[3])) / a;
    return [ch(0), ch(1), ch(2), a];
  };
  // The background an element's text sits on: its own and its ancestors'
  // background colours composited, on white.
  const background = (el) => {
    const layers = [];
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    let bg = [255, 255, 255, 1];
    for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
    return bg;
  };
  const colors = [];
  document.querySelectorAll('body [class]').forEach((el) => {
    if (el instanceof SVGElement) return; // drawn shapes: their meaning is in their title
    if ((el.innerText || '').trim() === '') return;
    const st = getComputedStyle(el);
    if (st.display === 'none' || st.visibility === 'hidden') return;
    const bg = background(el);
    colors.push({element: desc(el), class: el.getAttribute('class'), fg: over(parse(st.color), bg), bg: bg});
  });
  // SVG links too: their href is an attribute, not a string property.
  const links = Array.from(document.querySelectorAll('a')).map((a) => a.getAttribute('href') || a.getAttribute('xlink:href'))
    .filter((h) => h).map((h) => new URL(h, document.baseURI).href);
  const ids = Array.from(document.querySelectorAll('[id]')).map((e) => e.id)
    .concat(Array.from(document.querySelectorAll('a[name]')).map((e) => e.getAttribute('name')));
  return {url: location.href, title: document.title, links, ids, a11y, colors};
})()
