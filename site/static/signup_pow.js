// The sign-up form's proof of work (ALTCHA scheme, served and checked by
// this site): find n with SHA-256(salt + n) = challenge, then send the
// solution in the hidden "altcha" field. Issue 25.
(function () {
  var form = document.getElementById("signup");
  if (!form || !window.crypto || !crypto.subtle) return;
  var c = JSON.parse(form.getAttribute("data-challenge"));
  var field = document.getElementById("altcha");
  var status = document.getElementById("altcha-status");
  var solved = null;

  function hex(buf) {
    var b = new Uint8Array(buf), s = "";
    for (var i = 0; i < b.length; i++) s += (b[i] < 16 ? "0" : "") + b[i].toString(16);
    return s;
  }

  async function solve() {
    var enc = new TextEncoder();
    for (var n = 0; n <= c.maxnumber; n++) {
      var h = hex(await crypto.subtle.digest("SHA-256", enc.encode(c.salt + n)));
      if (h === c.challenge) {
        return btoa(JSON.stringify({algorithm: c.algorithm, challenge: c.challenge, number: n, salt: c.salt, signature: c.signature}));
      }
    }
    return "";
  }

  var work = solve().then(function (v) { solved = v; field.value = v; });

  form.addEventListener("submit", function (e) {
    if (solved !== null) return;
    e.preventDefault();
    status.textContent = "Checking that you are not a robot…";
    work.then(function () { form.submit(); });
  });
})();
