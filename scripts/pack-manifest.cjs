// `npm pack` hooks. npm needs the `prepare` script for git installs (pacote builds dist/ in the
// clone with it), but in a packed tarball it is dead weight that npm 11 flags on every install
// ("install scripts not yet covered by allowScripts"). prepack takes it out of package.json for
// the tarball; postpack puts the file back byte for byte. Plain JS: it runs before any build.
const fs = require("node:fs");
const file = "package.json";
const saved = ".package.json.prepack";
if (process.argv[2] === "strip") {
  const text = fs.readFileSync(file, "utf8");
  // A saved copy already there is the original: a pack that failed after its prepack (postpack
  // does not run then) or another pack running at once. Overwriting it would save the stripped
  // manifest, and the restore would then lose `prepare` for good.
  if (!fs.existsSync(saved)) fs.writeFileSync(saved, text);
  const manifest = JSON.parse(text);
  delete manifest.scripts.prepare;
  fs.writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
} else if (fs.existsSync(saved)) {
  fs.renameSync(saved, file);
}
