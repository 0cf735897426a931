// memgraph ui: "/" focuses the question box (when one is on the page and no field has focus).
document.addEventListener("keydown", (e) => {
  const box = document.getElementById("f-q");
  const typing = ["INPUT", "TEXTAREA"].includes(document.activeElement && document.activeElement.tagName);
  if (e.key === "/" && box && !typing) { e.preventDefault(); box.focus(); }
});
