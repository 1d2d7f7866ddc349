// Draft progress: while the site is read, poll the draft's progress address
// and show the pages read, the page being read and robots decisions; reload when the draft is ready or failed. The page
// itself shows the same state on a reload, so nothing is lost.
(function () {
  var box = document.getElementById("progress");
  if (!box) return;
  var url = box.getAttribute("data-poll");
  function tick() {
    fetch(url, {credentials: "same-origin", cache: "no-store"}).then(function (r) { return r.json(); }).then(function (p) {
      if (p.status !== "crawling" && p.status !== "drafting") { location.reload(); return; }
      var n = p.pages_read, t;
      if (p.status === "drafting") t = "Writing the draft from the " + n + " pages read…";
      else if (n === 0) t = "Starting: reading robots.txt and your home page…";
      else t = n + (n === 1 ? " page" : " pages") + " read so far" + (p.pages_planned > n ? ", about " + p.pages_planned + " planned" : "") + "…";
      box.querySelector("[data-text]").textContent = t;
      box.querySelector("[data-current]").textContent = p.current_page || "—";
      var d = document.querySelector("[data-disallowed]");
      if (d) d.textContent = (p.robots_disallowed && p.robots_disallowed.length) ? "Skipped because your robots.txt does not allow us to read them: " + p.robots_disallowed.join(", ") + "." : "";
      setTimeout(tick, 1000);
    }).catch(function () { setTimeout(tick, 3000); });
  }
  setTimeout(tick, 1000);
})();
