// Prints the VS Code target of this machine (linux-x64, alpine-arm64, darwin-arm64, win32-x64...),
// as VS Code names it: platform-arch, "alpine" for Linux with musl instead of glibc.
const report = process.platform === "linux" ? process.report.getReport() : undefined;
const musl = report !== undefined && !report.header.glibcVersionRuntime;
const platform = musl ? "alpine" : process.platform;
const arch = process.arch === "arm" ? "armhf" : process.arch;
console.log(`${platform}-${arch}`);
