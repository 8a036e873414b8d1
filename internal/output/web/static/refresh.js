// Reloads the page every data-refresh seconds, unless the reader is busy:
// a form field has focus, a <details> is open, or the tab is hidden.
(function () {
  var s = parseInt(document.body.getAttribute("data-refresh"), 10);
  if (!(s > 0)) return;
  setInterval(function () {
    var busy = document.hidden || document.querySelector("details[open]") ||
      (document.activeElement && /^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement.tagName));
    if (!busy) location.reload();
  }, s * 1000);
})();
