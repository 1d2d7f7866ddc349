// Copy buttons of the founder area: <button data-copy="ID"> copies the text
// of the element with that id (the API key shown once).
document.addEventListener("click", function (ev) {
  var b = ev.target.closest("button[data-copy]");
  if (!b) return;
  var el = document.getElementById(b.getAttribute("data-copy"));
  if (!el || !navigator.clipboard) return;
  navigator.clipboard.writeText(el.textContent.trim()).then(function () {
    b.textContent = "Copied";
  });
});
