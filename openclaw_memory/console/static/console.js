// The console's only script: read a chosen import file into the form (no network, no framework).
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  var file = document.getElementById("import-file");
  if (!file) return;
  file.addEventListener("change", function () {
    var chosen = file.files && file.files[0];
    if (!chosen) return;
    var reader = new FileReader();
    reader.onload = function () {
      document.getElementById("import-content").value = String(reader.result);
      document.getElementById("import-name").value = chosen.name;
    };
    reader.readAsText(chosen);
  });
});
