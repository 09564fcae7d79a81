// One key per action on the line page, and moving through the queue. No key acts while the
// reviewer types in a field (Escape leaves the field).
(function () {
  function typing(e) {
    const t = e.target;
    return t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT");
  }
  function click(id) { const b = document.getElementById(id); if (b && !b.disabled) b.click(); }
  function go(url) { if (url) htmx.ajax("GET", url, {target: "body", swap: "outerHTML", source: document.body}).then(function () { history.pushState({}, "", url); }); }
  // htmx gives the focus back to the element of the same id as it swaps: a new line starts
  // with no field focused, so its first key is an action, not typing. The blur runs at
  // afterSwap, which htmx fires right after that focus, not at afterSettle (20 ms later on a
  // quiet machine, more on a busy one): a key pressed in between keeps the focus it gave.
  function unfocus() {
    if (document.activeElement && document.activeElement !== document.body) document.activeElement.blur();
  }
  document.addEventListener("htmx:beforeSwap", unfocus);
  document.addEventListener("htmx:afterSwap", unfocus);
  let cursor = -1;
  function rows() { return Array.from(document.querySelectorAll("tr.qrow")); }
  function mark(i) {
    const r = rows(); if (!r.length) return;
    cursor = Math.max(0, Math.min(i, r.length - 1));
    r.forEach(function (x, k) { x.classList.toggle("cursor", k === cursor); });
    r[cursor].scrollIntoView({block: "nearest"});
  }
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (typing(e)) {
      if (e.key === "Escape") e.target.blur();
      if (e.key === "Enter" && e.target.id === "reason" && e.target.value) { e.preventDefault(); click("b-reject"); }
      else if (e.key === "Enter" && e.target.name && e.target.name.startsWith("field_")) { e.preventDefault(); click("b-correct"); }
      return;
    }
    const head = document.getElementById("linehead");
    if (head) {
      switch (e.key) {
        case "a": e.preventDefault(); click("b-accept"); return;
        case "r": e.preventDefault(); const r = document.getElementById("reason"); if (r) r.focus(); return;
        case "c": e.preventDefault(); const f = document.querySelector("#decide input:not([type=hidden])"); if (f) { f.focus(); f.select(); } return;
        case "u": e.preventDefault(); click("b-undo"); return;
        case "j": case "n": e.preventDefault(); go(head.dataset.next); return;
        case "k": case "p": e.preventDefault(); go(head.dataset.prev); return;
        case "/": e.preventDefault(); const s = document.getElementById("search"); if (s) s.focus(); return;
        case "s": e.preventDefault(); const d = document.getElementById("sheetimg"); if (d) d.open = !d.open; return;
      }
      if (/^[1-9]$/.test(e.key)) {
        const b = document.querySelectorAll("#candidates button.choose")[Number(e.key) - 1];
        if (b && !b.disabled) { e.preventDefault(); b.click(); }
      }
      return;
    }
    if (rows().length) {
      if (e.key === "j") { e.preventDefault(); mark(cursor + 1); }
      else if (e.key === "k") { e.preventDefault(); mark(cursor - 1); }
      else if (e.key === "Enter" && cursor >= 0) { e.preventDefault(); go(rows()[cursor].dataset.href); }
    }
  });
})();
